//! `evalpage run` against a real `evalpage mock-server` process: the same report
//! as the demo provider, injected 500s, 429s and hangs, a closed port, and an API
//! key that must reach the server but never any output.

mod common;

use common::*;
use evalpage_core::events;
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

/// Runs the demo dataset (or `dataset`) against `url`; returns the process output.
fn run_against(url: &str, dataset: &Path, out_dir: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "--dataset",
        dataset.to_str().expect("utf-8 path"),
        "--endpoint",
        url,
        "--model",
        "evalpage-demo",
        "--out",
        out_dir.to_str().expect("utf-8 path"),
    ];
    args.extend_from_slice(extra);
    run(&args)
}

/// A two-question dataset for the slower fault tests.
const TWO_CASES: &str = "{\"q\":\"RAG系统需要哪三个主要组件？\",\"gold\":[\"检索系统\"],\"doc_hint\":[\"02_rag_architecture.md\"]}\n\
{\"q\":\"LightRAG支持哪些向量数据库？\",\"gold\":[\"Milvus\"],\"doc_hint\":[\"04_supported_databases.md\"]}\n";

#[test]
fn mock_endpoint_gives_the_same_report_as_the_demo_provider() {
    let mock = Mock::start(&["--latency-ms", "20"]);
    let dir = Scratch::new("same-report");
    let (mock_out, demo_out) = (dir.join("mock"), dir.join("demo"));
    assert_ok(&run_against(&mock.url, &demo_dataset(), &mock_out, &[]));
    assert_ok(&run_demo(&demo_dataset(), &demo_out, &[]));
    let a = read_json(&mock_out.join("eval_rag_report.json"));
    let b = read_json(&demo_out.join("eval_rag_report.json"));
    let run_config = &a["report"]["experiment"]["run_config"];
    assert_eq!(run_config["backend"], "openai");
    assert_eq!(run_config["endpoint"], mock.url.as_str());
    let log = events::read(
        &std::fs::read(mock_out.join("eval_rag_report.events.json-seq")).expect("log"),
    );
    assert!(events::reconcile(&a, &log).ok);
    assert_eq!(comparable(a), comparable(b));
}

#[test]
fn a_killed_run_leaves_a_readable_log_prefix() {
    let mock = Mock::start(&["--latency-ms", "300"]);
    let dir = Scratch::new("killed");
    let out_dir = dir.join("out");
    let mut child = evalpage()
        .args(["run", "--dataset"])
        .arg(demo_dataset())
        .args([
            "--endpoint",
            &mock.url,
            "--model",
            "evalpage-demo",
            "--concurrency",
            "1",
        ])
        .arg("--out")
        .arg(&out_dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn run");
    let stdout = child.stdout.take().expect("stdout");
    // start line, then two case lines: their records are on disk by then
    let lines: Vec<String> = BufReader::new(stdout)
        .lines()
        .take(3)
        .map_while(Result::ok)
        .collect();
    child.kill().expect("kill");
    let _ = child.wait();
    assert_eq!(lines.len(), 3, "{lines:?}");
    for name in [
        "eval_rag_report.events.json-seq",
        "eval_rag_report.events.jsonl",
    ] {
        let log = events::read(&std::fs::read(out_dir.join(name)).expect("log"));
        assert!(log.skipped.is_empty() && !log.truncated_tail, "{name}");
        assert!(log.of_type("case").count() >= 2, "{name}");
        assert_eq!(log.of_type("summary").count(), 0, "{name}");
    }
    assert!(!out_dir.join("eval_rag_report.json").exists());

    // cut the last record in half, as a crash mid-write would, then resume from it
    let seq_path = out_dir.join("eval_rag_report.events.json-seq");
    let mut seq = std::fs::read(&seq_path).expect("log");
    let settled_before = events::read(&seq).of_type("case").count();
    seq.truncate(seq.len() - 15);
    std::fs::write(&seq_path, &seq).expect("cut log");
    let settled = events::read(&seq).of_type("case").count();
    assert_eq!(
        settled,
        settled_before - 1,
        "the cut record no longer counts"
    );
    let counting = Mock::start_logged(&[]);
    let resumed = run_against(
        &counting.url,
        &demo_dataset(),
        &dir.join("resumed"),
        &["--resume-from", seq_path.to_str().expect("utf-8 path")],
    );
    assert_ok(&resumed);
    let requests = counting.stop_and_read_log();
    let chats = requests
        .lines()
        .filter(|l| l.contains("POST /v1/chat/completions"))
        .count();
    assert_eq!(
        chats,
        10 - settled,
        "only unsettled cases are sent:\n{requests}"
    );
    let report = read_json(&dir.join("resumed/eval_rag_report.json"));
    assert_eq!(report["metrics"]["cases"], 10);
    let full_dir = dir.join("full");
    assert_ok(&run_against(&mock.url, &demo_dataset(), &full_dir, &[]));
    assert_eq!(
        comparable(report),
        comparable(read_json(&full_dir.join("eval_rag_report.json")))
    );
    let log = events::read(
        &std::fs::read(dir.join("resumed/eval_rag_report.events.json-seq")).expect("log"),
    );
    let full = read_json(&dir.join("resumed/eval_rag_report.json"));
    assert!(
        events::reconcile(&full, &log).ok,
        "the resumed log reconciles on its own"
    );
}

#[test]
fn every_call_failing_with_500_is_recorded_after_all_attempts() {
    let mock = Mock::start(&["--fail-rate", "1.0"]);
    let dir = Scratch::new("fail-rate");
    let out = run_against(
        &mock.url,
        &demo_dataset(),
        &dir.join("out"),
        &["--concurrency", "10"],
    );
    assert_ok(&out);
    let report = read_json(&dir.join("out/eval_rag_report.json"));
    let errors = report["report"]["error_cases"]
        .as_array()
        .expect("error_cases");
    assert_eq!(errors.len(), 10);
    for e in errors {
        assert_eq!(e["status_code"], 500, "{e}");
        assert_eq!(e["attempts"], 3, "{e}");
        assert_eq!(e["status"], "error", "{e}");
    }
    assert_eq!(report["metrics"]["failed_calls"], 10);
    assert_eq!(report["metrics"]["accuracy"], 0.0);
    let (stdout, _) = texts(&out);
    assert!(stdout.contains("整体准确率：0.0%"), "{stdout}");
}

/// Regression: after a 429 halved the concurrency limit, the engine kept returning
/// a past `wake_at` for a due retry with no free slot, and the driver spun on
/// `Tick` without ever reading the outcome that would free the slot.
#[test]
fn rate_limits_are_retried_after_the_servers_retry_after() {
    let mock = Mock::start(&["--rate-limit-rate", "1.0"]);
    let dir = Scratch::new("rate-limit");
    let data = dir.write("two.jsonl", TWO_CASES);
    let started = Instant::now();
    let out = run_against(&mock.url, &data, &dir.join("out"), &["--max-attempts", "2"]);
    assert_ok(&out);
    assert!(
        started.elapsed() >= Duration::from_millis(1000),
        "Retry-After: 1 was not honoured"
    );
    let report = read_json(&dir.join("out/eval_rag_report.json"));
    for e in report["report"]["error_cases"]
        .as_array()
        .expect("error_cases")
    {
        assert_eq!(
            (e["status_code"].as_u64(), e["attempts"].as_u64()),
            (Some(429), Some(2))
        );
        assert!(e["latency_ms"].as_f64().unwrap_or(0.0) >= 1000.0, "{e}");
    }
    assert_eq!(report["metrics"]["failed_calls"], 2);
}

#[test]
fn a_hanging_endpoint_hits_the_timeout() {
    let mock = Mock::start(&["--hang-rate", "1.0"]);
    let dir = Scratch::new("hang");
    let data = dir.write("two.jsonl", TWO_CASES);
    let out = run_against(
        &mock.url,
        &data,
        &dir.join("out"),
        &["--timeout-s", "0.5", "--max-attempts", "1"],
    );
    assert_ok(&out);
    let log =
        events::read(&std::fs::read(dir.join("out/eval_rag_report.events.jsonl")).expect("log"));
    let cases: Vec<&Value> = log.of_type("case").collect();
    assert_eq!(cases.len(), 2);
    for c in cases {
        assert_eq!(c["llm_call_ok"], false);
        assert_eq!(c["error_detail"]["kind"], "timeout", "{c}");
        assert_eq!(c["error_detail"]["timeout"], true, "{c}");
    }
    let report = read_json(&dir.join("out/eval_rag_report.json"));
    assert_eq!(report["report"]["error_cases"][0]["status"], "timeout");
}

#[test]
fn connection_refused_is_recorded_per_case_and_the_run_still_finishes() {
    let url = format!("http://127.0.0.1:{}/v1", closed_port());
    let dir = Scratch::new("refused");
    let out = run_against(
        &url,
        &demo_dataset(),
        &dir.join("out"),
        &["--max-attempts", "1"],
    );
    assert_ok(&out);
    let log =
        events::read(&std::fs::read(dir.join("out/eval_rag_report.events.jsonl")).expect("log"));
    assert_eq!(log.of_type("case").count(), 10);
    for c in log.of_type("case") {
        assert_eq!(c["llm_call_ok"], false);
        let error = c["error"].as_str().unwrap_or("");
        assert!(error.contains("connection refused"), "{c}");
        assert_eq!(c["error_detail"]["kind"], "network");
    }
    let report = read_json(&dir.join("out/eval_rag_report.json"));
    assert_eq!(report["metrics"]["failed_calls"], 10);
}

#[test]
fn the_api_key_reaches_the_server_but_no_output() {
    const SECRET: &str = "sk-evalpage-SECRET-123";
    let mock = Mock::start_logged(&["--fail-rate", "0.3", "--seed", "5"]);
    let dir = Scratch::new("secret");
    let out_dir = dir.join("out");
    let mut cmd = evalpage();
    cmd.env("EVALPAGE_TEST_KEY", SECRET)
        .args(["run", "--dataset"])
        .arg(demo_dataset())
        .args(["--endpoint", &mock.url, "--model", "evalpage-demo"])
        .args(["--api-key-env", "EVALPAGE_TEST_KEY", "--out"])
        .arg(&out_dir);
    let out = finish(cmd);
    assert_ok(&out);
    let mut outputs = vec![out.stdout.clone(), out.stderr.clone()];
    for entry in std::fs::read_dir(&out_dir).expect("out dir") {
        outputs.push(std::fs::read(entry.expect("entry").path()).expect("read output"));
    }
    // stdout, stderr, the files every run writes and the two event logs.
    assert_eq!(outputs.len(), 2 + evalpage_core::report::FILES.len() + 2);
    let needle = SECRET.as_bytes();
    for bytes in &outputs {
        assert!(
            !bytes.windows(needle.len()).any(|w| w == needle),
            "the key leaked"
        );
    }
    let argv = read_json(&out_dir.join("eval_rag_report.json"));
    assert_eq!(
        argv["report"]["experiment"]["run_config"]["backend"],
        "openai"
    );
    let server_log = mock.stop_and_read_log();
    assert!(
        server_log.contains("authorization header present"),
        "{server_log}"
    );
    assert!(!server_log.contains(SECRET));
}
