//! Parity with the reference implementations, case by case, to 1e-9: the
//! fixtures were made by `tests/reference/agreement/make_fixtures.py` with
//! scikit-learn (`cohen_kappa_score`, plain and quadratic with `labels=`,
//! `confusion_matrix`), `krippendorff.alpha` (nominal and ordinal with
//! `value_domain`) and statsmodels (`proportion_confint(method="wilson")`);
//! the corrected pass rate in exact rationals. A null there (the reference
//! gives NaN or raises) must be undefined here, and only there.

use serde_json::Value;

use super::*;

const FIXTURES: &str = include_str!("../../../../tests/reference/agreement/fixtures.json");
const TOLERANCE: f64 = 1e-9;

fn fixtures() -> Value {
    serde_json::from_str(FIXTURES).expect("fixtures.json is JSON")
}

fn cases<'a>(all: &'a Value, key: &str) -> &'a [Value] {
    all[key].as_array().expect("a list of cases")
}

fn ints(v: &Value) -> Vec<u64> {
    v.as_array()
        .expect("a list")
        .iter()
        .map(|x| x.as_u64().expect("an integer"))
        .collect()
}

/// `got` equals the reference `want`: both undefined, or both numbers within
/// the tolerance (and `got` finite).
fn same(what: &str, id: &str, got: Result<f64, Undefined>, want: &Value) {
    match (got, want.as_f64()) {
        (Err(_), None) => assert!(want.is_null(), "{id} {what}: reference {want}"),
        (Ok(g), Some(w)) => assert!(
            g.is_finite() && (g - w).abs() <= TOLERANCE,
            "{id} {what}: {g} vs reference {w}"
        ),
        (Ok(g), None) => panic!("{id} {what}: {g}, the reference has it undefined"),
        (Err(why), Some(w)) => panic!("{id} {what}: undefined ({why}), the reference has {w}"),
    }
}

#[test]
fn the_fixtures_are_the_pinned_references() {
    let all = fixtures();
    let v = &all["versions"];
    assert_eq!(v["scikit-learn"], "1.9.1");
    assert_eq!(v["krippendorff"], "0.9.0");
    assert_eq!(v["statsmodels"], "0.15.0");
}

#[test]
fn kappa_and_quadratic_kappa_equal_scikit_learn() {
    let all = fixtures();
    let (mut plain, mut quadratic, mut undefined) = (0, 0, 0);
    for case in cases(&all, "kappa") {
        let id = case["id"].as_str().expect("id");
        let pairs: Vec<(u64, u64)> = ints(&case["y1"])
            .into_iter()
            .zip(ints(&case["y2"]))
            .collect();
        assert_eq!(pairs.len(), case["y1"].as_array().map_or(0, Vec::len));
        let scale = ints(&case["scale"]);
        same("κ", id, cohen_kappa(&pairs), &case["kappa"]);
        plain += 1;
        undefined += usize::from(case["kappa"].is_null());
        if let Some(want) = case.get("kappa_quadratic") {
            same(
                "quadratic κ",
                id,
                cohen_kappa_quadratic(&pairs, &scale),
                want,
            );
            quadratic += 1;
            undefined += usize::from(want.is_null());
        }
    }
    assert!(plain >= 1000 && quadratic >= 600, "{plain} {quadratic}");
    assert!(undefined > 50, "edge cases present: {undefined}");
}

#[test]
fn alpha_equals_the_krippendorff_package() {
    let all = fixtures();
    let (mut nominal, mut ordinal, mut undefined) = (0, 0, 0);
    for case in cases(&all, "alpha") {
        let id = case["id"].as_str().expect("id");
        let scale = ints(&case["scale"]);
        let units: Vec<Vec<Option<u64>>> = case["units"]
            .as_array()
            .expect("units")
            .iter()
            .map(|u| {
                u.as_array()
                    .expect("a unit")
                    .iter()
                    .map(Value::as_u64)
                    .collect()
            })
            .collect();
        let want = &case["alpha_nominal"];
        same(
            "nominal α",
            id,
            krippendorff_alpha(&units, &scale, Level::Nominal),
            want,
        );
        nominal += 1;
        undefined += usize::from(want.is_null());
        if let Some(want) = case.get("alpha_ordinal") {
            same(
                "ordinal α",
                id,
                krippendorff_alpha(&units, &scale, Level::Ordinal),
                want,
            );
            ordinal += 1;
            undefined += usize::from(want.is_null());
        }
    }
    assert!(nominal >= 1000 && ordinal >= 300, "{nominal} {ordinal}");
    assert!(undefined > 20, "edge cases present: {undefined}");
}

#[test]
fn wilson_equals_statsmodels() {
    let all = fixtures();
    let list = cases(&all, "wilson");
    assert!(list.len() > 600);
    for case in list {
        let (k, n) = (
            case["k"].as_u64().expect("k"),
            case["n"].as_u64().expect("n"),
        );
        let id = format!("wilson({k}, {n})");
        let got = wilson(k, n);
        same("lo", &id, got.map(|i| i.lo), &case["lo"]);
        same("hi", &id, got.map(|i| i.hi), &case["hi"]);
    }
}

fn rate(what: &str, id: &str, got: Result<Rate, Undefined>, want: &Value) {
    if want.is_null() {
        assert!(got.is_err(), "{id} {what}: {got:?}, the reference has none");
        return;
    }
    let r = got.unwrap_or_else(|why| panic!("{id} {what}: undefined ({why})"));
    assert_eq!(Some(r.k), want["k"].as_u64(), "{id} {what} k");
    assert_eq!(Some(r.n), want["n"].as_u64(), "{id} {what} n");
    same(what, id, Ok(r.value), &want["value"]);
    same(what, id, Ok(r.interval.lo), &want["lo"]);
    same(what, id, Ok(r.interval.hi), &want["hi"]);
}

#[test]
fn judge_figures_equal_the_references() {
    let all = fixtures();
    let (mut checked, mut corrected) = (0, 0);
    for case in cases(&all, "judge") {
        let id = case["id"].as_str().expect("id");
        let pair = |p: &Value| (p[0].as_bool().expect("bool"), p[1].as_bool().expect("bool"));
        let pairs: Vec<(bool, bool)> = case["pairs"]
            .as_array()
            .expect("pairs")
            .iter()
            .map(pair)
            .collect();
        let verdicts: Vec<bool> = case["verdicts"]
            .as_array()
            .expect("verdicts")
            .iter()
            .map(|v| v.as_bool().expect("bool"))
            .collect();
        let a = judge_vs_human(&pairs);
        let c = &case["confusion"];
        assert_eq!(
            a.confusion,
            Confusion {
                both_pass: c["tp"].as_u64().expect("tp"),
                judge_only_pass: c["fp"].as_u64().expect("fp"),
                human_only_pass: c["fn"].as_u64().expect("fn"),
                both_fail: c["tn"].as_u64().expect("tn"),
            },
            "{id}"
        );
        same("agreement", id, a.raw_agreement, &case["raw_agreement"]);
        same("κ", id, a.kappa, &case["kappa"]);
        rate("TPR", id, a.tpr, &case["tpr"]);
        rate("TNR", id, a.tnr, &case["tnr"]);
        let got = corrected_pass_rate(&pairs, &verdicts);
        same("corrected pass rate", id, got, &case["corrected"]);
        corrected += usize::from(got.is_ok());
        checked += 1;
    }
    assert!(checked > 250 && corrected > 100, "{checked} {corrected}");
}
