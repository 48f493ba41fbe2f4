//! A saved run under review (the viewer's, and `evalpage agree` on a dialog
//! run): each metric's scores as [`super::agree`] reads them, the label sets
//! the task offers, and the order in which a reviewer labels its cases.

use super::labels::Label;
use super::measured::Scheme;
use crate::report::EvalScore;
use serde_json::Value;
use std::collections::BTreeMap;

/// A saved run's rows as scores of `metric` (the viewer's run): each row's
/// value with its model and, when its detail says, its `outcome` and `verdict`.
pub fn view_scores(data: &crate::view::ViewData, metric: &str) -> Vec<EvalScore> {
    let Some(m) = data.metric_index(metric) else {
        return Vec::new();
    };
    data.rows
        .iter()
        .filter_map(|r| {
            let value = (*r.values.get(m)?)?;
            let detail = data.detail(r, m);
            let mut d = serde_json::Map::new();
            if let Some(model) = &r.model {
                d.insert("model".into(), Value::from(model.as_str()));
            }
            for key in ["outcome", "verdict"] {
                if let Some(o) = detail.get(key).filter(|o| o.is_string()) {
                    d.insert(key.into(), o.clone());
                }
            }
            Some(EvalScore {
                sample_id: r.id.clone(),
                metric: metric.to_string(),
                value,
                tags: Vec::new(),
                language: None,
                length_bucket: None,
                detail: Value::Object(d),
            })
        })
        .collect()
}

/// The label sets a reviewer may pick for `metric` of a saved run: pass/fail
/// always, then what the task gave it: a judge's rating range (`1-5`) or
/// its labels as categories (`CORRECT,PARTIAL,INCORRECT`), read from the first case whose detail has
/// the judge's `scale`. Each is text [`Scheme::parse`] reads.
pub fn offered_schemes(data: &crate::view::ViewData, metric: &str) -> Vec<String> {
    let mut out = vec!["pass-fail".to_string()];
    let Some(m) = data.metric_index(metric) else {
        return out;
    };
    let scale = data
        .rows
        .iter()
        .take(50)
        .find_map(|r| match data.detail(r, m).get("scale")? {
            Value::Object(o) => Some(o.clone()),
            _ => None,
        });
    let Some(scale) = scale else { return out };
    if let Some([lo, hi]) = scale
        .get("range")
        .and_then(Value::as_array)
        .and_then(|r| Some([r.first()?.as_i64()?, r.get(1)?.as_i64()?]))
    {
        let text = format!("{lo}-{hi}");
        if Scheme::parse(&text).is_ok() {
            out.push(text);
        }
    }
    let labels: Vec<&str> = scale
        .get("labels")
        .and_then(Value::as_array)
        .map(|l| l.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let plain = labels
        .iter()
        .all(|l| !l.contains(',') && !l.trim().is_empty());
    if labels.len() >= 2 && plain {
        let text = labels.join(",");
        if matches!(Scheme::parse(&text), Ok(Scheme::Categories(_))) {
            out.push(text);
        }
    }
    out
}

/// The order in which a reviewer labels `verdicts` (each case's automatic
/// verdict, in the run's order): all of them, or a seeded random sample of
/// `n`; `stratified`, the sample takes from each verdict in proportion
/// (largest remainders; every verdict present gets at least one when `n`
/// allows). Indices into `verdicts`.
pub fn review_queue(
    verdicts: &[Option<Label>],
    n: Option<usize>,
    stratified: bool,
    seed: u64,
) -> Vec<usize> {
    let all: Vec<usize> = (0..verdicts.len()).collect();
    let Some(n) = n.filter(|n| *n < verdicts.len()) else {
        return all;
    };
    let mut rng = crate::rng::SplitMix64::new(seed);
    let mut shuffle = |v: &mut Vec<usize>| {
        for i in (1..v.len()).rev() {
            let j = rng.below(i + 1);
            v.swap(i, j);
        }
    };
    let mut picked = if stratified {
        let mut strata: BTreeMap<Option<Label>, Vec<usize>> = BTreeMap::new();
        for (i, v) in verdicts.iter().enumerate() {
            strata.entry(v.clone()).or_default().push(i);
        }
        let total = verdicts.len() as f64;
        let mut shares: Vec<(usize, f64, Vec<usize>)> = strata
            .into_values()
            .map(|mut cases| {
                shuffle(&mut cases);
                let exact = n as f64 * cases.len() as f64 / total;
                (exact.floor() as usize, exact - exact.floor(), cases)
            })
            .collect();
        // every verdict present gets one when n allows
        if n >= shares.len() {
            for s in shares.iter_mut().filter(|s| s.0 == 0) {
                s.0 = 1;
                s.1 = 0.0;
            }
        }
        let mut given: usize = shares.iter().map(|s| s.0).sum();
        let mut order: Vec<usize> = (0..shares.len()).collect();
        order.sort_by(|a, b| shares[*b].1.total_cmp(&shares[*a].1).then(a.cmp(b)));
        for i in order.iter().cycle().take(shares.len() * 2) {
            if given >= n {
                break;
            }
            if shares[*i].0 < shares[*i].2.len() {
                shares[*i].0 += 1;
                given += 1;
            }
        }
        let mut out: Vec<usize> = shares
            .into_iter()
            .flat_map(|(k, _, cases)| cases.into_iter().take(k))
            .collect();
        out.truncate(n);
        out
    } else {
        let mut cases = all;
        shuffle(&mut cases);
        cases.truncate(n);
        cases
    };
    picked.sort_unstable();
    picked
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_queue_is_every_case_or_a_seeded_sample_stratified_by_verdict() {
        let v: Vec<Option<Label>> = (0..100)
            .map(|i| Some(if i < 10 { Label::Fail } else { Label::Pass }))
            .collect();
        assert_eq!(
            review_queue(&v, None, false, 1),
            (0..100).collect::<Vec<_>>()
        );
        let a = review_queue(&v, Some(20), true, 7);
        assert_eq!(a, review_queue(&v, Some(20), true, 7), "seeded");
        assert_eq!(a.len(), 20);
        assert_eq!(
            a.iter().filter(|i| **i < 10).count(),
            2,
            "10% fail: 2 of 20"
        );
        let b = review_queue(&v, Some(20), false, 7);
        assert_eq!(b.len(), 20);
        assert!(b.windows(2).all(|w| w[0] < w[1]), "in the run's order");
        // a rare verdict still gets one
        let rare: Vec<Option<Label>> = (0..100)
            .map(|i| Some(if i == 50 { Label::Fail } else { Label::Pass }))
            .collect();
        assert!(review_queue(&rare, Some(5), true, 3).contains(&50));
    }

    /// A saved run of one judged metric, `(case, value, judge's label)` per
    /// case, the judge answering on `scale`.
    fn judged_run(scale: Value, cases: &[(&str, f64, &str)]) -> crate::view::ViewData {
        let scores: Vec<Value> = cases
            .iter()
            .map(|(id, v, label)| {
                let outcome = if *v >= 1.0 { "pass" } else { "fail" };
                json!({"sample_id": id, "metric": "judged", "value": v, "tags": [],
                    "language": null, "length_bucket": null,
                    "detail": {"model": "m", "outcome": outcome, "verdict": label,
                               "scale": scale, "judge_model": "j"}})
            })
            .collect();
        let report = json!({"metrics": {}, "scores": scores, "report": {
            "experiment": {"dataset": {"dataset_id": "d", "version": "v1", "name": "d.jsonl",
                "counts": {}, "languages": {}, "tags": {}}, "run_config": {"kind": "task"},
                "evaluator_config": {}},
            "summaries": [], "breakdowns": [], "error_cases": [], "llm_judge_details": []}});
        crate::view::load("report.json", report.to_string().as_bytes()).expect("a report")
    }

    #[test]
    fn the_task_offers_its_judges_scale_and_categories_read_the_judges_label() {
        let labels = json!({"labels": ["CORRECT", "PARTIAL", "INCORRECT"], "pass": ["CORRECT"]});
        let d = judged_run(
            labels,
            &[
                ("a", 1.0, "CORRECT"),
                ("b", 0.0, "PARTIAL"),
                ("c", 0.0, "INCORRECT"),
            ],
        );
        let offered = offered_schemes(&d, "judged");
        assert_eq!(offered, ["pass-fail", "CORRECT,PARTIAL,INCORRECT"]);
        let cats = Scheme::parse(&offered[1]).expect("categories");
        let verdicts: Vec<Option<Label>> = view_scores(&d, "judged")
            .iter()
            .map(|s| cats.verdict(s))
            .collect();
        let cat = |c: &str| Some(Label::Category(c.into()));
        assert_eq!(verdicts, [cat("CORRECT"), cat("PARTIAL"), cat("INCORRECT")]);
        // pass/fail still reads the outcome
        let pf: Vec<Option<Label>> = view_scores(&d, "judged")
            .iter()
            .map(|s| Scheme::default().verdict(s))
            .collect();
        assert_eq!(
            pf,
            [Some(Label::Pass), Some(Label::Fail), Some(Label::Fail)]
        );

        // a rating judge offers its range; a metric without a judge, pass/fail only
        let range = json!({"range": [1, 5], "pass_from": 4});
        let d = judged_run(range, &[("a", 0.75, "4"), ("b", 0.25, "2")]);
        assert_eq!(offered_schemes(&d, "judged"), ["pass-fail", "1-5"]);
        let rating = Scheme::parse("1-5").expect("rating");
        let r: Vec<Option<Label>> = view_scores(&d, "judged")
            .iter()
            .map(|s| rating.verdict(s))
            .collect();
        assert_eq!(r, [Some(Label::Rating(4)), Some(Label::Rating(2))]);
        assert_eq!(offered_schemes(&d, "absent"), ["pass-fail"]);
        // a label with a comma cannot be a category of the text form: not offered
        let odd = json!({"labels": ["yes, fully", "no"], "pass": ["yes, fully"]});
        let d = judged_run(odd, &[("a", 1.0, "yes, fully")]);
        assert_eq!(offered_schemes(&d, "judged"), ["pass-fail"]);
    }
}
