//! `evalpage run --max-cost` against a real `evalpage mock-server`: the run
//! stops once its priced usage reaches the cap, within one wave of the calls
//! in flight; the rest are not run (exit 3, the log's `error` record and
//! report.md say why); a resume with a higher cap sends only them. A cap
//! with nothing priced is refused.

mod common;

use common::{assert_ok, demo_dataset, read_json, run, texts, Mock, Scratch};
use serde_json::Value;

#[test]
fn the_run_stops_at_its_cap_and_a_resume_with_a_higher_cap_finishes_it() {
    let mock = Mock::start(&["--latency-ms", "20"]);
    let dir = Scratch::new("budget");
    let ds = demo_dataset();
    let (ds, capped, resumed) = (
        ds.to_str().unwrap_or_default().to_string(),
        dir.join("capped"),
        dir.join("resumed"),
    );
    let args = |cap: &str, out: &str| {
        vec![
            "--dataset".to_string(),
            ds.clone(),
            "--endpoint".into(),
            mock.url.clone(),
            "--model".into(),
            "evalpage-demo".into(),
            "--price-in".into(),
            "1000".into(),
            "--price-out".into(),
            "1000".into(),
            "--concurrency".into(),
            "2".into(),
            "--max-cost".into(),
            cap.into(),
            "--out".into(),
            out.into(),
        ]
    };
    let a = args("0.3", capped.to_str().unwrap_or_default());
    let out = run(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(out.status.code(), Some(3), "{}", texts(&out).1);
    assert!(
        texts(&out).1.contains("the run reached its cost cap"),
        "{}",
        texts(&out).1
    );
    let report = read_json(&capped.join("eval_rag_report.json"));
    let not_run = report["metrics"]["not_run_cases"].as_u64().unwrap_or(0);
    assert!(
        (1..10).contains(&not_run),
        "some cases are not run: {not_run}"
    );
    // Within one wave: what was spent past the cap is at most the calls in
    // flight when it was reached (2 at once), each at most the dearest call.
    let cost = report["report"]["usage"][0]["cost"].as_f64().unwrap_or(0.0);
    let answered = report["report"]["usage"][0]["answered"]
        .as_f64()
        .unwrap_or(1.0);
    assert!(cost >= 0.3, "{cost}");
    assert!(
        cost <= 0.3 + 2.0 * (cost / answered) * 2.0,
        "{cost} over {answered} answers"
    );
    let md = std::fs::read_to_string(capped.join("report.md")).expect("report.md");
    assert!(md.contains("运行达到费用上限而停止"), "{md}");
    let log = std::fs::read_to_string(capped.join("eval_rag_report.events.jsonl")).expect("log");
    let records: Vec<Value> = log
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    assert!(records.iter().any(|r| r["record_type"] == "error"
        && r["message"]
            .as_str()
            .is_some_and(|m| m.contains("cost cap"))));

    let mut b = args("100", resumed.to_str().unwrap_or_default());
    b.extend([
        "--resume-from".into(),
        capped
            .join("eval_rag_report.events.jsonl")
            .display()
            .to_string(),
    ]);
    let out = run(&b.iter().map(String::as_str).collect::<Vec<_>>());
    assert_ok(&out);
    assert!(
        texts(&out).1.contains(&format!("sending {not_run}")),
        "only the cases not run are sent: {}",
        texts(&out).1
    );
    let report = read_json(&resumed.join("eval_rag_report.json"));
    assert_eq!(report["metrics"]["not_run_cases"], 0);
    assert_eq!(report["metrics"]["cases"], 10);
}

#[test]
fn a_cap_with_nothing_priced_is_refused() {
    let dir = Scratch::new("budget-unpriced");
    let ds = demo_dataset();
    let out_dir = dir.join("out");
    let out = run(&[
        "--dataset",
        ds.to_str().unwrap_or_default(),
        "--provider",
        "demo",
        "--max-cost",
        "1",
        "--out",
        out_dir.to_str().unwrap_or_default(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        texts(&out).1.contains("--max-cost needs a price"),
        "{}",
        texts(&out).1
    );
}

#[test]
fn the_estimate_sends_nothing_and_bounds_the_runs_real_usage() {
    let mock = Mock::start_logged(&[]);
    let dir = Scratch::new("estimate");
    let ds = demo_dataset();
    let go = |out: &std::path::Path, extra: &[&str]| {
        let mut a = vec![
            "--dataset",
            ds.to_str().unwrap_or_default(),
            "--endpoint",
            &mock.url,
            "--model",
            "evalpage-demo",
            "--price-in",
            "1",
            "--price-out",
            "2",
            "--max-tokens",
            "300",
            "--out",
            out.to_str().unwrap_or_default(),
        ];
        a.extend_from_slice(extra);
        run(&a)
    };
    let est = dir.join("estimate");
    let out = go(&est, &["--estimate"]);
    assert_ok(&out);
    assert!(
        texts(&out)
            .0
            .contains("[EVAL] estimate: evalpage-demo: 10 call(s)"),
        "{}",
        texts(&out).0
    );
    assert!(!est.join("eval_rag_report.json").exists(), "nothing ran");
    let real = dir.join("real");
    assert_ok(&go(&real, &[]));
    let log = mock.stop_and_read_log();
    let posts = log.lines().filter(|l| l.contains("POST")).count();
    assert_eq!(posts, 10, "only the real run sent requests:\n{log}");
    let e = read_json(&est.join("estimate.json"))["models"][0].clone();
    let u = read_json(&real.join("eval_rag_report.json"))["report"]["usage"][0].clone();
    let at_most = |real: &str, bound: &str| {
        let (r, b) = (
            u[real].as_f64().unwrap_or(f64::MAX),
            e[bound].as_f64().unwrap_or(0.0),
        );
        assert!(r <= b, "{real} {r} > {bound} {b}");
    };
    at_most("prompt_tokens", "prompt_tokens_max");
    at_most("completion_tokens", "completion_tokens_max");
    at_most("cost", "cost_max");
    assert_eq!(e["calls"], 10);
}

/// Found by the simulator (seed 33): a cap of 0 sent the first wave of calls
/// before the cap was first checked. It sends none: every case is not run.
#[test]
fn seed_33_a_cap_of_0_sends_no_call() {
    let mock = Mock::start_logged(&[]);
    let dir = Scratch::new("budget-zero");
    let ds = demo_dataset();
    let out_dir = dir.join("zero");
    let out = run(&[
        "--dataset",
        ds.to_str().unwrap_or_default(),
        "--endpoint",
        &mock.url,
        "--model",
        "evalpage-demo",
        "--price-in",
        "1",
        "--price-out",
        "1",
        "--max-cost",
        "0",
        "--out",
        out_dir.to_str().unwrap_or_default(),
    ]);
    assert_eq!(out.status.code(), Some(3), "{}", texts(&out).1);
    let report = read_json(&out_dir.join("eval_rag_report.json"));
    let cases = report["metrics"]["cases"].as_u64().unwrap_or(0);
    assert!(cases > 0);
    assert_eq!(report["metrics"]["not_run_cases"].as_u64(), Some(cases));
    let log = std::fs::read_to_string(out_dir.join("eval_rag_report.events.jsonl")).expect("log");
    assert!(
        !log.contains("\"llm_call_ok\":true"),
        "no case was answered: {log}"
    );
    let requests = mock.stop_and_read_log();
    assert_eq!(
        requests.lines().filter(|l| l.contains("POST")).count(),
        0,
        "no request reached the endpoint:\n{requests}"
    );
}
