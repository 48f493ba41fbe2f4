use super::*;
use crate::report::{
    DatasetMetadata, EvalScore, EvaluationReport, ExperimentMetadata, MetricSummary, ReportMetrics,
};
use serde_json::{json, Map};

/// A report from (model, sample_id, metric, value) rows.
fn report(rows: &[(Option<&str>, &str, &str, f64)]) -> EvaluationResult {
    let scores = rows
        .iter()
        .map(|(model, id, metric, value)| EvalScore {
            sample_id: id.to_string(),
            metric: metric.to_string(),
            value: *value,
            tags: vec![],
            language: None,
            length_bucket: None,
            detail: match model {
                Some(m) => json!({ "model": m }),
                None => json!({}),
            },
        })
        .collect();
    EvaluationResult {
        metrics: ReportMetrics::default(),
        cases: vec![],
        scores,
        report: EvaluationReport {
            experiment: ExperimentMetadata {
                dataset: DatasetMetadata {
                    dataset_id: "d".into(),
                    version: "v".into(),
                    name: None,
                    counts: Map::new(),
                    languages: Default::default(),
                    tags: Default::default(),
                    source: None,
                    created_at: None,
                    generator_commit: None,
                    filters: None,
                    sampling: None,
                    extra: Map::new(),
                    counted: None,
                },
                run_config: json!({}),
                evaluator_config: json!({}),
                run: None,
                report_language: None,
            },
            summaries: vec![],
            breakdowns: vec![],
            error_cases: vec![],
            llm_judge_details: vec![],
            line_errors: None,
            usage: vec![],
            repeats: None,
        },
    }
}

/// One metric `acc` over `ids`, values from `pass`.
fn binary(model: Option<&str>, pass: &[bool]) -> EvaluationResult {
    let ids: Vec<String> = (0..pass.len()).map(|i| format!("c{i:03}")).collect();
    let rows: Vec<(Option<&str>, &str, &str, f64)> = ids
        .iter()
        .zip(pass)
        .map(|(id, p)| (model, id.as_str(), "acc", if *p { 1.0 } else { 0.0 }))
        .collect();
    report(&rows)
}

fn opts() -> Options {
    Options::default()
}

/// Two-sided p of the unpaired two-proportion z-test (pooled), for the
/// documentation test below. Φ from erfc by Abramowitz-Stegun 7.1.26
/// (absolute error below 1.5e-7).
fn unpaired_z_test(x1: usize, x2: usize, n: usize) -> f64 {
    let (p1, p2) = (x1 as f64 / n as f64, x2 as f64 / n as f64);
    let pooled = (x1 + x2) as f64 / (2 * n) as f64;
    let se = (pooled * (1.0 - pooled) * 2.0 / n as f64).sqrt();
    let z = ((p1 - p2) / se).abs();
    let x = z / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.327_591_1 * x);
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    poly * (-x * x).exp() // erfc(x) = 2 · (1 - Φ(z)): the two-sided p
}

#[test]
fn paired_test_finds_what_an_unpaired_test_misses() {
    // 100 shared cases; base passes 70, new passes 60. The runs agree on 90
    // cases (60 pass in both, 30 fail in both): new lost 10 cases base passed
    // and gained none. This is the shape of lm-evaluation-harness issue 3831.
    let base: Vec<bool> = (0..100).map(|i| i < 70).collect();
    let new: Vec<bool> = (0..100).map(|i| i < 60).collect();
    let c = compare(&binary(None, &base), &binary(None, &new), &opts()).expect("compare");
    let r = &c.rows[0];
    assert_eq!((r.n, r.base, r.new), (100, 0.7, 0.6));
    let t = r.mcnemar.expect("0/1 metric");
    assert_eq!((t.b, t.c), (10, 0));
    // Paired: p = 2 · 2^-10 = 0.00195.
    assert!((t.p - 2.0 / 1024.0).abs() < 1e-15);
    // Unpaired two-proportion z-test on the same data: z = 1.4825, p = 0.1382.
    let unpaired = unpaired_z_test(70, 60, 100);
    assert!((unpaired - 0.1382).abs() < 1e-4, "{unpaired}");
    assert!(t.p < 0.05 && unpaired > 0.05);
    // The bootstrap interval of the difference excludes 0 as well.
    let (lo, hi) = r.ci.expect("ci");
    assert!(hi < 0.0 && lo < -0.1 + 1e-9, "{lo} {hi}");
}

#[test]
fn identical_runs_have_a_point_interval_at_zero_and_p_one() {
    let pass: Vec<bool> = (0..50).map(|i| i % 3 != 0).collect();
    let c = compare(&binary(None, &pass), &binary(None, &pass), &opts()).expect("compare");
    let r = &c.rows[0];
    assert_eq!(r.ci, Some((0.0, 0.0)));
    assert_eq!(r.delta, 0.0);
    assert_eq!(r.mcnemar.map(|t| t.p), Some(1.0));
    assert!(c.regressions.is_empty() && c.improvements.is_empty());
}

#[test]
fn the_same_seed_gives_the_same_interval_and_a_shift_is_covered() {
    let ids: Vec<String> = (0..300).map(|i| format!("s{i}")).collect();
    let base_rows: Vec<(Option<&str>, &str, &str, f64)> = ids
        .iter()
        .enumerate()
        .map(|(i, id)| (None, id.as_str(), "f1", (i % 10) as f64 / 10.0))
        .collect();
    // New = base + 0.05 ± 0.04 (a known shift of 0.05).
    let new_rows: Vec<(Option<&str>, &str, &str, f64)> = ids
        .iter()
        .enumerate()
        .map(|(i, id)| {
            let noise = ((i * 7) % 9) as f64 / 100.0 - 0.04;
            (
                None,
                id.as_str(),
                "f1",
                (i % 10) as f64 / 10.0 + 0.05 + noise,
            )
        })
        .collect();
    let (b, n) = (report(&base_rows), report(&new_rows));
    let one = compare(&b, &n, &opts()).expect("compare");
    assert_eq!(one, compare(&b, &n, &opts()).expect("again"));
    let other = compare(&b, &n, &Options { seed: 99, ..opts() }).expect("seed 99");
    assert_ne!(one.rows[0].ci, other.rows[0].ci);
    let r = &one.rows[0];
    assert!(r.mcnemar.is_none(), "not a 0/1 metric");
    let (lo, hi) = r.ci.expect("ci");
    assert!(lo < 0.05 && 0.05 < hi && lo > 0.0, "{lo} {hi}");
    assert!((r.delta - 0.05).abs() < 0.01);
}

#[test]
fn pairing_leaves_out_cases_of_one_side_and_lists_them_apart() {
    let base = report(&[
        (None, "a", "acc", 1.0),
        (None, "b", "acc", 1.0),
        (None, "c", "acc", 0.0),
        (None, "c", "acc", 1.0), // repeat: the first score stays
        (None, "d", "acc", 1.0),
        (None, "d", "judge", 1.0),
    ]);
    let new = report(&[
        (None, "a", "acc", 0.0),
        (None, "b", "acc", 1.0),
        (None, "c", "acc", 1.0),
        (None, "e", "acc", 1.0),
        // "d" judged in base only: its judge score is unpaired, not 0.
        (None, "b", "judge", 1.0),
    ]);
    let c = compare(&base, &new, &opts()).expect("compare");
    assert_eq!(c.pairing, Pairing::Case);
    let acc = c.rows_of("acc").next().expect("acc");
    assert_eq!((acc.n, acc.only_base, acc.only_new), (3, 1, 1));
    assert_eq!((acc.regressions, acc.improvements), (1, 1));
    assert!((acc.base - 2.0 / 3.0).abs() < 1e-12 && (acc.new - 2.0 / 3.0).abs() < 1e-12);
    let judge = c.rows_of("judge").next().expect("judge");
    assert_eq!((judge.n, judge.only_base, judge.only_new), (0, 1, 1));
    assert_eq!(judge.ci, None);
    assert_eq!(judge.mcnemar, None);
    let ids = |v: &[CaseKey]| v.iter().map(|k| k.sample_id.clone()).collect::<Vec<_>>();
    assert_eq!(ids(&c.only_base), vec!["d"]);
    assert_eq!(ids(&c.only_new), vec!["e"]);
    assert_eq!(c.duplicates, (1, 0));
    assert_eq!(c.regressions[0].sample_id, "a");
    assert_eq!(c.improvements[0].sample_id, "c");
}

#[test]
fn model_names_are_ignored_for_one_model_and_matched_for_several() {
    let a = report(&[
        (Some("m-a"), "x", "acc", 1.0),
        (Some("m-a"), "y", "acc", 1.0),
    ]);
    let b = report(&[
        (Some("m-b"), "x", "acc", 0.0),
        (Some("m-b"), "y", "acc", 1.0),
    ]);
    let c = compare(&a, &b, &opts()).expect("one model each");
    assert_eq!(c.rows[0].n, 2);
    assert_eq!(c.rows[0].model, None);

    let two = report(&[
        (Some("p"), "x", "acc", 1.0),
        (Some("q"), "x", "acc", 0.0),
        (Some("p"), "y", "acc", 1.0),
        (Some("q"), "y", "acc", 1.0),
    ]);
    let two_again = report(&[
        (Some("p"), "x", "acc", 0.0),
        (Some("q"), "x", "acc", 0.0),
        (Some("p"), "y", "acc", 1.0),
        (Some("r"), "y", "acc", 1.0),
    ]);
    let c = compare(&two, &two_again, &opts()).expect("by model");
    assert_eq!(c.pairing, Pairing::ModelAndCase);
    let by: Vec<(Option<&str>, usize)> = c.rows.iter().map(|r| (r.model.as_deref(), r.n)).collect();
    assert_eq!(by, vec![(Some("p"), 2), (Some("q"), 1), (Some("r"), 0)]);
    assert_eq!(
        c.only_base,
        vec![CaseKey {
            model: Some("q".into()),
            sample_id: "y".into()
        }]
    );

    // Two models of one report.
    let m = Options {
        models: Some(Models {
            base: "p".into(),
            new: "q".into(),
        }),
        ..opts()
    };
    let c = compare(&two, &two, &m).expect("p against q");
    let r = &c.rows[0];
    assert_eq!((r.n, r.base, r.new, r.regressions), (2, 1.0, 0.5, 1));
    let bad = Options {
        models: Some(Models {
            base: "p".into(),
            new: "zz".into(),
        }),
        ..opts()
    };
    let err = compare(&two, &two, &bad).expect_err("unknown model");
    assert!(err
        .to_string()
        .contains("new report has no model \"zz\" (it has: p, q)"));
}

#[test]
fn bad_settings_are_errors() {
    let r = binary(None, &[true]);
    for alpha in [0.0, 1.0, -0.1, f64::NAN] {
        let o = Options { alpha, ..opts() };
        assert!(matches!(
            compare(&r, &r, &o),
            Err(CompareError::Settings(_))
        ));
    }
    let o = Options {
        resamples: 0,
        ..opts()
    };
    assert!(compare(&r, &r, &o).is_err());
}

#[test]
fn rules_parse_and_reject_what_is_not_metric_equals_delta() {
    assert_eq!(
        Rule::parse("acc=0.02"),
        Ok(Rule {
            metric: "acc".into(),
            max_drop: 0.02
        })
    );
    assert_eq!(Rule::parse("a=b=0").map(|r| r.metric), Ok("a=b".into()));
    for bad in ["acc", "=0.1", "acc=-0.1", "acc=x", "acc=inf", "acc="] {
        assert!(Rule::parse(bad).is_err(), "{bad}");
    }
}

#[test]
fn the_gate_has_three_outcomes_and_errors_on_unknown_metrics() {
    // acc: 10 regressions, no improvement over 100 cases (p = 0.002).
    let base: Vec<bool> = (0..100).map(|i| i < 70).collect();
    let new: Vec<bool> = (0..100).map(|i| i < 60).collect();
    let (b, n) = (binary(None, &base), binary(None, &new));
    let c = compare(&b, &n, &opts()).expect("compare");
    let names = vec!["acc".to_string()];
    let rule = |d: f64| Rule {
        metric: "acc".into(),
        max_drop: d,
    };
    let v = check_gate(&c, &[rule(0.05)], &names, &names).expect("gate");
    assert_eq!(v[0].outcome, GateOutcome::Fail);
    assert!(
        v[0].reason.contains("McNemar exact p = 0.0020 < 0.05"),
        "{}",
        v[0].reason
    );
    let v = check_gate(&c, &[rule(0.1)], &names, &names).expect("gate");
    assert_eq!(
        v[0].outcome,
        GateOutcome::Within,
        "a drop of exactly 0.1 is allowed"
    );
    // A drop larger than allowed that chance explains: 2 regressions in 10.
    let small_b: Vec<bool> = (0..10).map(|i| i < 8).collect();
    let small_n: Vec<bool> = (0..10).map(|i| i < 6).collect();
    let c2 = compare(&binary(None, &small_b), &binary(None, &small_n), &opts()).expect("c2");
    let v = check_gate(&c2, &[rule(0.05)], &names, &names).expect("gate");
    assert_eq!(v[0].outcome, GateOutcome::NotSignificant);
    assert!(v[0].reason.contains("p = 0.5000 ≥ 0.05"), "{}", v[0].reason);
    // At a stricter alpha (0.001) the first drop (p = 0.00195) is not significant.
    let strict = compare(
        &b,
        &n,
        &Options {
            alpha: 0.001,
            ..opts()
        },
    )
    .expect("strict");
    let v = check_gate(&strict, &[rule(0.05)], &names, &names).expect("gate");
    assert_eq!(v[0].outcome, GateOutcome::NotSignificant);
    // Unknown metrics and metrics without pairs are errors, not verdicts.
    let other = vec!["f1".to_string()];
    let err = check_gate(&c, &[rule(0.05)], &names, &other).expect_err("missing");
    assert!(err
        .to_string()
        .contains("the new report has no metric \"acc\""));
    let none: Vec<String> = vec![];
    let err = check_gate(&c, &[rule(0.05)], &none, &none).expect_err("missing");
    assert!(err.to_string().contains("neither report has"), "{err}");
}

#[test]
fn a_continuous_metric_fails_the_gate_when_its_interval_excludes_zero() {
    let ids: Vec<String> = (0..200).map(|i| format!("s{i}")).collect();
    let rows = |shift: f64| -> EvaluationResult {
        let r: Vec<(Option<&str>, &str, &str, f64)> = ids
            .iter()
            .enumerate()
            .map(|(i, id)| {
                let jitter = if shift == 0.0 {
                    0.0
                } else {
                    (i % 5) as f64 / 100.0
                };
                (
                    None,
                    id.as_str(),
                    "f1",
                    0.5 + (i % 4) as f64 / 10.0 - shift + jitter,
                )
            })
            .collect();
        report(&r)
    };
    let c = compare(&rows(0.0), &rows(0.1), &opts()).expect("compare");
    let names = vec!["f1".to_string()];
    let rule = Rule {
        metric: "f1".into(),
        max_drop: 0.02,
    };
    let v = check_gate(&c, &[rule], &names, &names).expect("gate");
    assert_eq!(v[0].outcome, GateOutcome::Fail, "{}", v[0].reason);
    assert!(
        v[0].reason.contains("bootstrap interval"),
        "{}",
        v[0].reason
    );
}

#[test]
fn the_comparison_round_trips_through_json() {
    let c = compare(
        &binary(None, &[true, false]),
        &binary(None, &[false, false]),
        &opts(),
    )
    .expect("compare");
    let text = serde_json::to_string(&c).expect("json");
    let back: Comparison = serde_json::from_str(&text).expect("back");
    assert_eq!(back, c);
}

#[test]
fn models_and_metrics_come_from_scores_and_summaries() {
    let mut r = report(&[(Some("a"), "x", "acc", 1.0)]);
    r.report.summaries.push(MetricSummary {
        model: Some("b".into()),
        metric: "skipped_all".into(),
        mean: 0.0,
        std: 0.0,
        sample_count: 0,
        skipped: Some(3),
        components: None,
        pass_at_k: None,
        pass_hat_k: None,
    });
    assert_eq!(models(&r), vec!["a", "b"]);
    assert_eq!(r.metric_names(), vec!["acc", "skipped_all"]);
}

#[test]
fn the_gate_checks_each_model_and_needs_a_paired_case() {
    // p fails on acc (10 of 10 regressions), q keeps it; r is in base only.
    let mut base_rows = Vec::new();
    let mut new_rows = Vec::new();
    let ids: Vec<String> = (0..10).map(|i| format!("c{i}")).collect();
    for id in &ids {
        base_rows.push((Some("p"), id.as_str(), "acc", 1.0));
        base_rows.push((Some("q"), id.as_str(), "acc", 1.0));
        base_rows.push((Some("r"), id.as_str(), "only_r", 1.0));
        new_rows.push((Some("p"), id.as_str(), "acc", 0.0));
        new_rows.push((Some("q"), id.as_str(), "acc", 1.0));
        new_rows.push((Some("q"), id.as_str(), "only_r", 1.0));
    }
    let (b, n) = (report(&base_rows), report(&new_rows));
    let c = compare(&b, &n, &opts()).expect("compare");
    let rule = |m: &str| Rule {
        metric: m.into(),
        max_drop: 0.0,
    };
    let v = check_gate(&c, &[rule("acc")], &b.metric_names(), &n.metric_names()).expect("gate");
    let by: Vec<(Option<&str>, GateOutcome)> =
        v.iter().map(|v| (v.model.as_deref(), v.outcome)).collect();
    assert_eq!(
        by,
        vec![
            (Some("p"), GateOutcome::Fail),
            (Some("q"), GateOutcome::Within)
        ]
    );
    assert!(
        v[0].reason.starts_with("acc (p): drop 1.0000"),
        "{}",
        v[0].reason
    );
    // only_r is in both reports, but r's cases are not q's: nothing pairs.
    let err = check_gate(&c, &[rule("only_r")], &b.metric_names(), &n.metric_names())
        .expect_err("no pairs");
    assert_eq!(err, GateError::NoPairs("only_r".into()));
}

#[test]
fn repeats_pair_by_the_per_sample_mean() {
    // base: one answer per sample; new: three repeats each, numbered
    let base = report(&[(None, "a", "acc", 1.0), (None, "b", "acc", 0.0)]);
    let mut new = report(&[
        (None, "a", "acc", 1.0),
        (None, "a", "acc", 0.0),
        (None, "a", "acc", 0.0),
        (None, "b", "acc", 1.0),
        (None, "b", "acc", 1.0),
        (None, "b", "acc", 0.0),
    ]);
    for (i, s) in new.scores.iter_mut().enumerate() {
        s.detail = json!({ "repeat": i % 3 });
    }
    let c = compare(&base, &new, &opts()).expect("comparable");
    let acc = c.rows_of("acc").next().expect("acc");
    assert_eq!(acc.n, 2, "two samples, not six answers");
    assert_eq!(c.duplicates, (0, 0), "repeats are not duplicates");
    assert!(
        (acc.new - 0.5).abs() < 1e-12,
        "mean of 1/3 and 2/3: {}",
        acc.new
    );
    assert_eq!(acc.mcnemar, None, "a mean over repeats is not 0/1");
    assert_eq!((acc.regressions, acc.improvements), (1, 1));
}

/// `report` with each score's input hash set from `inputs` (by sample id).
fn hashed_report(rows: &[(&str, &str, f64)], inputs: &[(&str, &str)]) -> EvaluationResult {
    let mut r = report(
        &rows
            .iter()
            .map(|(id, m, v)| (None, *id, *m, *v))
            .collect::<Vec<_>>(),
    );
    for s in &mut r.scores {
        let input = inputs.iter().find(|(id, _)| *id == s.sample_id).unwrap().1;
        s.detail["input_sha256"] = json!(crate::dataset::fingerprint::input_hash(input));
    }
    r
}

#[test]
fn runs_sharing_no_id_pair_by_input_hash_and_say_so() {
    // Two tools: promptfoo names a case by its description, Inspect by its id.
    let base = hashed_report(
        &[
            ("capital of France", "pass", 1.0),
            ("two plus two", "pass", 0.0),
            ("only here", "pass", 1.0),
        ],
        &[
            ("capital of France", "Capital of France?"),
            ("two plus two", "2+2?"),
            ("only here", "x"),
        ],
    );
    let new = hashed_report(
        &[
            ("s1", "match", 1.0),
            ("s2", "match", 1.0),
            ("s9", "match", 0.0),
        ],
        &[("s1", "Capital  of France?\n"), ("s2", "2+2?"), ("s9", "y")],
    );
    let opts = Options {
        metrics: Some(Metrics {
            base: "pass".into(),
            new: "match".into(),
        }),
        ..Options::default()
    };
    let c = compare(&base, &new, &opts).unwrap();
    assert!(c.by_input);
    let row = &c.rows[0];
    assert_eq!(
        (row.metric.as_str(), row.n, row.only_base, row.only_new),
        ("pass", 2, 1, 1)
    );
    assert_eq!((row.base, row.new), (0.5, 1.0));
    // Case lists name base's ids (new's for a case only in new).
    assert_eq!(c.improvements[0].sample_id, "two plus two");
    assert_eq!(c.only_base[0].sample_id, "only here");
    assert_eq!(c.only_new[0].sample_id, "s9");
    // Without the metric pair nothing pairs (each metric is on one side only).
    let c = compare(&base, &new, &Options::default()).unwrap();
    assert!(c.rows.iter().all(|r| r.n == 0));
    // Shared ids pair by id, hashes or not.
    let c = compare(&base, &base, &Options::default()).unwrap();
    assert!(!c.by_input);
    // A metric not in its report is named.
    let bad = Options {
        metrics: Some(Metrics {
            base: "pass".into(),
            new: "nope".into(),
        }),
        ..Options::default()
    };
    let e = compare(&base, &new, &bad).unwrap_err();
    assert!(
        e.to_string().contains("new report has no metric \"nope\""),
        "{e}"
    );
}

#[test]
fn runs_without_hashes_sharing_no_id_stay_unpaired() {
    let base = report(&[(None, "a", "m", 1.0)]);
    let new = report(&[(None, "b", "m", 1.0)]);
    let c = compare(&base, &new, &Options::default()).unwrap();
    assert!(!c.by_input);
    assert_eq!(c.rows[0].n, 0);
}
