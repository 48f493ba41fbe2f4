//! `evalpage run --cache DIR` against a real `evalpage mock-server`: a
//! second run sends nothing and gives the same scores, its answers marked as
//! cached (case records, results.jsonl, the report's usage row) at no cost;
//! failed calls and truncated answers are asked again; the key never reaches
//! the cache; `evalpage cache stats|clear`.

mod common;

use common::{assert_ok, demo_dataset, evalpage, finish, read_json, run, texts, Mock, Scratch};
use serde_json::Value;
use std::path::Path;

fn posts(log: &str) -> usize {
    log.lines()
        .filter(|l| l.contains("POST /v1/chat/completions"))
        .count()
}

fn rag(url: &str, cache: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    let ds = demo_dataset();
    let mut args = vec![
        "--dataset",
        ds.to_str().unwrap_or_default(),
        "--endpoint",
        url,
        "--model",
        "evalpage-demo",
        "--cache",
        cache.to_str().unwrap_or_default(),
        "--out",
        out.to_str().unwrap_or_default(),
        "--price-in",
        "1",
        "--price-out",
        "2",
    ];
    args.extend_from_slice(extra);
    run(&args)
}

fn values(report: &Value) -> Vec<Value> {
    report["scores"]
        .as_array()
        .map(|s| s.iter().map(|x| x["value"].clone()).collect())
        .unwrap_or_default()
}

#[test]
fn a_second_run_with_the_cache_sends_nothing_and_scores_the_same_at_no_cost() {
    let dir = Scratch::new("cache-hit");
    let cache = dir.join("cache");
    let mock = Mock::start_logged(&["--require-key", "sk-cache-secret"]);
    let url = mock.url.clone();
    let key = [("EVALPAGE_TEST_KEY", "sk-cache-secret")];
    let with_key = |out: &Path| {
        let ds = demo_dataset();
        let mut cmd = evalpage();
        cmd.envs(key)
            .args(["run", "--dataset"])
            .arg(&ds)
            .args(["--endpoint", &url, "--model", "evalpage-demo"])
            .args([
                "--api-key-env",
                "EVALPAGE_TEST_KEY",
                "--price-in",
                "1",
                "--price-out",
                "2",
            ])
            .arg("--cache")
            .arg(&cache)
            .arg("--out")
            .arg(out);
        finish(cmd)
    };
    assert_ok(&with_key(&dir.join("first")));
    assert_ok(&with_key(&dir.join("second")));
    let log = mock.stop_and_read_log();
    assert_eq!(posts(&log), 10, "the second run sends 0 requests:\n{log}");
    let (a, b) = (
        read_json(&dir.join("first/eval_rag_report.json")),
        read_json(&dir.join("second/eval_rag_report.json")),
    );
    assert_eq!(values(&a), values(&b));
    assert_eq!(a["metrics"], b["metrics"]);
    let usage = &b["report"]["usage"][0];
    assert_eq!(usage["cached"], 10);
    assert_eq!(usage["prompt_tokens"], 0, "cached answers cost nothing");
    assert_eq!(usage["cost"], 0.0);
    assert!(a["report"]["usage"][0]["cost"].as_f64().unwrap_or(0.0) > 0.0);
    // Marked in the log and results.jsonl, the original latency and usage kept.
    let log =
        std::fs::read_to_string(dir.join("second/eval_rag_report.events.jsonl")).expect("log");
    let cases: Vec<Value> = log
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|r| r["record_type"] == "case")
        .collect();
    assert_eq!(cases.len(), 10);
    for c in &cases {
        assert!(c["cached"]["latency_ms"].is_u64(), "{c}");
        assert!(
            c["cached"]["usage"]["prompt_tokens"].as_u64().unwrap_or(0) > 0,
            "{c}"
        );
    }
    let results = std::fs::read_to_string(dir.join("second/results.jsonl")).expect("results");
    assert!(results
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .all(|r| r["raw"]["cached"].is_object()));
    // The key is nowhere in the cache.
    for entry in walk(&cache) {
        let text = std::fs::read_to_string(&entry).unwrap_or_default();
        assert!(!text.contains("sk-cache-secret"), "{}", entry.display());
    }
    // stats, then clear.
    let mut cmd = evalpage();
    cmd.args(["cache", "stats"]).arg(&cache);
    let out = finish(cmd);
    assert_ok(&out);
    assert!(texts(&out).0.contains(": 10 entries"), "{}", texts(&out).0);
    let mut cmd = evalpage();
    cmd.args(["cache", "clear", "--older-than", "1d"])
        .arg(&cache);
    assert!(texts(&finish(cmd)).0.contains("removed 0 entries"));
    let mut cmd = evalpage();
    cmd.args(["cache", "clear"]).arg(&cache);
    assert!(texts(&finish(cmd)).0.contains("removed 10 entries"));
    assert_eq!(walk(&cache).len(), 0);
}

#[test]
fn failed_calls_and_truncated_answers_are_asked_again() {
    let dir = Scratch::new("cache-miss");
    let cache = dir.join("cache");
    let failing = Mock::start(&["--fail-rate", "1.0"]);
    assert_ok(&rag(
        &failing.url,
        &cache,
        &dir.join("failed"),
        &["--max-attempts", "1"],
    ));
    drop(failing);
    let cut = Mock::start(&["--finish-reason", "length"]);
    assert_ok(&rag(&cut.url, &cache, &dir.join("cut"), &[]));
    drop(cut);
    assert_eq!(walk(&cache).len(), 0, "nothing was worth keeping");
    let mock = Mock::start_logged(&[]);
    assert_ok(&rag(&mock.url, &cache, &dir.join("again"), &[]));
    assert_eq!(
        posts(&mock.stop_and_read_log()),
        10,
        "every case is asked again"
    );
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}
