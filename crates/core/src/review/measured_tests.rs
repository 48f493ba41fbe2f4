//! Tests of `measured`: the figures, their reasons, the schemes.

use super::*;
use serde_json::json;

fn score(case: &str, metric: &str, value: f64, detail: Value) -> EvalScore {
    EvalScore {
        sample_id: case.into(),
        metric: metric.into(),
        value,
        tags: vec![],
        language: None,
        length_bucket: None,
        detail,
    }
}

fn label(case: &str, metric: &str, reviewer: &str, l: Value, t: u64) -> LabelEvent {
    serde_json::from_value(json!({
        "case_id": case, "metric": metric, "reviewer": reviewer, "label": l, "t": t, "blind": true
    }))
    .expect("a label")
}

#[test]
fn verdicts_against_the_majority_each_reviewer_and_among_reviewers() {
    // the judge: pass on c1..c4, fail on c5..c8 (outcome wins over value)
    let scores: Vec<EvalScore> = (1..=8)
        .map(|i| {
            let outcome = if i <= 4 { "pass" } else { "fail" };
            score(
                &format!("c{i}"),
                "correct",
                0.3,
                json!({"model": "m", "outcome": outcome}),
            )
        })
        .collect();
    let mut events = Vec::new();
    // ana: pass c1 c2 c3, fail c4 c5 c6; bo agrees except c3 (tie there)
    for (i, l) in [
        (1, true),
        (2, true),
        (3, true),
        (4, false),
        (5, false),
        (6, false),
    ] {
        events.push(label(&format!("c{i}"), "correct", "ana", json!(l), 10));
    }
    for (i, l) in [
        (1, true),
        (2, true),
        (3, false),
        (4, false),
        (5, false),
        (6, true),
    ] {
        events.push(label(&format!("c{i}"), "correct", "bo", json!(l), 10));
    }
    // ana changes her mind on c6 later (she saw it again)
    events.push(label("c6", "correct", "ana", json!("pass"), 20));
    events.push(label("c7", "correct", "ana", json!(3), 10)); // off the scale
    events.push(label("nope", "correct", "ana", json!(true), 10)); // another run's
    let agreed = agree(&scores, &events, &AgreeOptions::default());
    assert_eq!(agreed.off_scale.len(), 1);
    assert_eq!(agreed.unmatched.len(), 1);
    assert!(agreed.unmatched[0].why.contains("no case `nope`"));
    let a = &agreed.metrics[0];
    assert_eq!(a.model.as_deref(), Some("m"));
    assert_eq!(a.labelled_cases, 6);
    assert_eq!(a.majority_ties, 1, "c3: ana pass, bo fail");
    // majority: c1 p, c2 p, c4 f, c5 f, c6 p (both pass now); judge p p p f f... (c4 pass)
    let pairs = [
        (Label::Pass, Label::Pass),
        (Label::Pass, Label::Pass),
        (Label::Pass, Label::Fail),
        (Label::Fail, Label::Fail),
        (Label::Fail, Label::Pass),
    ];
    assert_eq!(a.figures.n, 5);
    assert_eq!(a.figures.agreement, raw_agreement(&pairs).ok());
    assert_eq!(a.figures.cohen_kappa, cohen_kappa(&pairs).ok());
    let c = a.figures.confusion.expect("a table");
    assert_eq!(
        (
            c.both_pass,
            c.verdict_only_pass,
            c.label_only_pass,
            c.both_fail
        ),
        (2, 1, 1, 1)
    );
    assert_eq!(a.figures.tpr, Some(2.0 / 3.0));
    let [lo, hi] = a.figures.cohen_kappa_ci95.expect("κ's interval");
    assert!(lo <= hi && lo >= -1.0 && hi <= 1.0, "{lo} {hi}");
    let again = agree(&scores, &events, &AgreeOptions::default());
    assert_eq!(again, agreed, "seeded: the same figures again");
    assert_eq!(a.judged_cases, 8);
    assert_eq!(a.pass_rate, Some(0.5));
    assert!(a.corrected_pass_rate.is_some());
    assert_eq!(a.per_reviewer.len(), 2);
    assert_eq!(a.per_reviewer[0].figures.n, 6);
    let units: Vec<Vec<Option<Label>>> = (1..=6)
        .map(|i| {
            let ana = [true, true, true, false, false, true][i - 1];
            let bo = [true, true, false, false, false, true][i - 1];
            let l = |b: bool| Some(if b { Label::Pass } else { Label::Fail });
            vec![l(ana), l(bo)]
        })
        .collect();
    assert_eq!(
        a.krippendorff_alpha,
        krippendorff_alpha(&units, &[Label::Fail, Label::Pass], Level::Nominal).ok()
    );
    assert_eq!(a.reviewer_pairs.len(), 1);
    assert_eq!(a.reviewer_pairs[0].n, 6);
    // the gate
    let k = a.figures.cohen_kappa.expect("κ");
    assert!(kappa_below(&agreed, k - 0.01).is_empty());
    let below = kappa_below(&agreed, k + 0.01);
    assert_eq!(below.len(), 1);
    assert!(below[0].starts_with("correct (m): κ ="), "{}", below[0]);
    let md = crate::review::agreement_markdown(&agreed);
    assert!(md.contains("| correct | m | pass-fail | 5 |"), "{md}");
    // under it, what the viewer shows under its row
    assert!(md.contains("### correct · m (pass-fail)"), "{md}");
    assert!(md.contains("| pass | 2 | 1 |\n| fail | 1 | 1 |"), "{md}");
    assert!(md.contains("| ana | 6 | "), "{md}");
    assert!(md.contains("| ana · bo | 6 | "), "{md}");
    assert!(md.contains("reviewers tied (left out)"), "{md}");
    let v = serde_json::to_value(&agreed).expect("json");
    assert!(v["metrics"][0]["tpr_ci95"].is_array());
    assert!(v["metrics"][0]["cohen_kappa"].is_number());
}

#[test]
fn ratings_read_back_onto_the_scale_and_undefined_figures_say_why() {
    // a 1-5 judge: value (n - 1) / 4
    let scores: Vec<EvalScore> = [1, 2, 3, 4, 5, 3]
        .iter()
        .enumerate()
        .map(|(i, n)| {
            score(
                &format!("c{i}"),
                "stars",
                (*n as f64 - 1.0) / 4.0,
                json!({}),
            )
        })
        .chain([score("c9", "stars", 0.3, json!({}))]) // a mean: not a rating
        .collect();
    let events: Vec<LabelEvent> = [1, 2, 4, 4, 5, 3, 2]
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let case = if i == 6 {
                "c9".to_string()
            } else {
                format!("c{i}")
            };
            label(&case, "stars", "ana", json!(n), 1)
        })
        .collect();
    let opts = AgreeOptions {
        schemes: [("stars".to_string(), Scheme::parse("1-5").expect("scale"))].into(),
        ..AgreeOptions::default()
    };
    let agreed = agree(&scores, &events, &opts);
    let a = &agreed.metrics[0];
    assert_eq!(a.model, None);
    assert_eq!(a.judged_cases, 6, "0.3 lands on no rating");
    assert_eq!(a.figures.n, 6);
    let pairs: Vec<(Label, Label)> = [(1, 1), (2, 2), (3, 4), (4, 4), (5, 5), (3, 3)]
        .iter()
        .map(|(a, b)| (Label::Rating(*a), Label::Rating(*b)))
        .collect();
    let scale: Vec<Label> = (1..=5).map(Label::Rating).collect();
    assert_eq!(
        a.figures.cohen_kappa_quadratic,
        cohen_kappa_quadratic(&pairs, &scale).ok()
    );
    assert_eq!(a.pass_rate, None);
    assert_eq!(a.krippendorff_alpha, None);
    assert!(a.figures.undefined["krippendorff_alpha"].contains("one reviewer"));
    // one class only: κ undefined, said, and the gate does not pass
    let same: Vec<EvalScore> = (0..3)
        .map(|i| score(&format!("c{i}"), "m", 1.0, json!({})))
        .collect();
    let events: Vec<LabelEvent> = (0..3)
        .map(|i| label(&format!("c{i}"), "m", "ana", json!(true), 1))
        .collect();
    let agreed = agree(&same, &events, &AgreeOptions::default());
    assert_eq!(agreed.metrics[0].figures.cohen_kappa, None);
    assert!(agreed.metrics[0]
        .figures
        .undefined
        .contains_key("cohen_kappa"));
    assert!(kappa_below(&agreed, 0.0)[0].contains("undefined"));
}

/// The keys of an `agreement.json` row.
const KEYS: [&str; 15] = [
    "metric",
    "model",
    "n",
    "agreement",
    "cohen_kappa",
    "cohen_kappa_quadratic",
    "tpr",
    "tpr_ci95",
    "tnr",
    "tnr_ci95",
    "pass_rate",
    "corrected_pass_rate",
    "corrected_pass_rate_ci95",
    "per_reviewer",
    "krippendorff_alpha",
];

/// Every key of the issue present in `row`, and every null figure of it
/// (and of each reviewer's) with its reason in `undefined`; returns the
/// null ones.
fn nulls_said(row: &Value) -> Vec<String> {
    for k in KEYS {
        assert!(row.get(k).is_some(), "`{k}` missing from {row}");
    }
    let mut nulls = Vec::new();
    let mut check = |v: &Value, whose: &str| {
        let why = v["undefined"].as_object().expect("an undefined map");
        for (k, x) in v.as_object().expect("an object") {
            // the model is null in a run of one unnamed model: not a figure
            if x.is_null() && k != "model" {
                assert!(
                    why.get(k)
                        .and_then(Value::as_str)
                        .is_some_and(|w| !w.is_empty()),
                    "{whose} `{k}` is null without a reason: {v}"
                );
                nulls.push(format!("{whose}{k}"));
            }
        }
    };
    check(row, "");
    for r in row["per_reviewer"].as_array().expect("per_reviewer") {
        check(r, &format!("{}:", r["reviewer"].as_str().unwrap_or("?")));
    }
    nulls
}

#[test]
fn every_key_is_present_and_every_null_says_why_for_pass_fail_and_ratings() {
    // pass/fail: a judge passing c0..c3, failing c4..c5; one reviewer
    let scores: Vec<EvalScore> = (0..6)
        .map(|i| {
            score(
                &format!("c{i}"),
                "correct",
                if i < 4 { 1.0 } else { 0.0 },
                json!({}),
            )
        })
        .collect();
    let events: Vec<LabelEvent> = (0..6)
        .map(|i| {
            label(
                &format!("c{i}"),
                "correct",
                "ana",
                json!(i != 0 && i < 4),
                1,
            )
        })
        .collect();
    let agreed = agree(&scores, &events, &AgreeOptions::default());
    let v = serde_json::to_value(&agreed).expect("json");
    let row = &v["metrics"][0];
    let mut nulls = nulls_said(row);
    nulls.sort();
    assert_eq!(
        nulls,
        vec![
            "ana:cohen_kappa_quadratic",
            "cohen_kappa_quadratic",
            "krippendorff_alpha",
            "krippendorff_alpha_ordinal",
        ],
        "{row}"
    );
    assert!(row["confusion"].is_object());
    assert!(row["undefined"]["cohen_kappa_quadratic"]
        .as_str()
        .is_some_and(|w| w.contains("pass/fail (no order)")));

    // a 1-5 rating: the pass/fail figures null, each said
    let scores: Vec<EvalScore> = [1, 2, 3, 4, 5]
        .iter()
        .enumerate()
        .map(|(i, n)| {
            score(
                &format!("c{i}"),
                "stars",
                (*n as f64 - 1.0) / 4.0,
                json!({"model": "m"}),
            )
        })
        .collect();
    let events: Vec<LabelEvent> = [1, 2, 4, 4, 5]
        .iter()
        .enumerate()
        .flat_map(|(i, n)| {
            [
                label(&format!("c{i}"), "stars", "ana", json!(n), 1),
                label(&format!("c{i}"), "stars", "bo", json!((n % 5) + 1), 1),
            ]
        })
        .collect();
    let opts = AgreeOptions {
        schemes: [("stars".to_string(), Scheme::Rating { lo: 1, hi: 5 })].into(),
        ..AgreeOptions::default()
    };
    let v = serde_json::to_value(agree(&scores, &events, &opts)).expect("json");
    let row = &v["metrics"][0];
    let mut nulls = nulls_said(row);
    nulls.sort();
    let pass_fail_only = ["confusion", "tnr", "tnr_ci95", "tpr", "tpr_ci95"];
    let mut want: Vec<String> = ["", "ana:", "bo:"]
        .iter()
        .flat_map(|w| pass_fail_only.iter().map(move |k| format!("{w}{k}")))
        .chain(
            [
                "corrected_pass_rate",
                "corrected_pass_rate_ci95",
                "pass_rate",
            ]
            .iter()
            .map(|k| k.to_string()),
        )
        .collect();
    // the majority of two reviewers who never agree: every case a tie
    want.extend(
        [
            "agreement",
            "cohen_kappa",
            "cohen_kappa_ci95",
            "cohen_kappa_quadratic",
        ]
        .iter()
        .map(|k| k.to_string()),
    );
    want.sort();
    assert_eq!(nulls, want, "{row}");
    assert!(row["undefined"]["tpr"]
        .as_str()
        .is_some_and(|w| w.contains("a 1-5 rating: TPR is for pass/fail labels")));
    assert!(row["krippendorff_alpha_ordinal"].is_number(), "{row}");
    // shown once: an interval's reason that repeats its figure's is not
    let a: Agreed = agree(&scores, &events, &opts);
    let shown = a.metrics[0].figures.undefined_shown();
    assert!(shown.iter().any(|(k, _)| *k == "cohen_kappa"), "{shown:?}");
    assert!(
        !shown.iter().any(|(k, _)| *k == "cohen_kappa_ci95"),
        "{shown:?}"
    );
    assert!(
        !shown.iter().any(|(k, _)| *k == "tpr"),
        "not for ratings: {shown:?}"
    );
}

#[test]
fn schemes_parse_or_say_what_they_expect() {
    assert_eq!(Scheme::parse("pass-fail"), Ok(Scheme::default()));
    assert_eq!(
        Scheme::parse("pass-fail@0.7"),
        Ok(Scheme::PassFail { threshold: 0.7 })
    );
    assert_eq!(Scheme::parse("1-5"), Ok(Scheme::Rating { lo: 1, hi: 5 }));
    assert_eq!(
        Scheme::parse("good, bad ,ugly"),
        Ok(Scheme::Categories(vec![
            "good".into(),
            "bad".into(),
            "ugly".into()
        ]))
    );
    assert!(Scheme::parse("5-1").is_err());
    assert!(Scheme::parse("only").is_err());
    assert!(Scheme::parse("pass-fail@x").is_err());
}
