//! `evalpage run` with the built-in demo model: the four output files, the event
//! log reconciling with the report, console lines, and the refusals (bad lines,
//! no valid line, missing file, missing endpoint, unset key variable).

mod common;

use common::*;
use evalpage_core::events;

const LOGS: [&str; 2] = [
    "eval_rag_report.events.json-seq",
    "eval_rag_report.events.jsonl",
];

#[test]
fn demo_run_writes_reconciling_report_and_logs() {
    let dir = Scratch::new("demo");
    let out_dir = dir.join("out/nested");
    let out = run_demo(&demo_dataset(), &out_dir, &[]);
    assert_ok(&out);
    for name in ["eval_rag_report.json", "report.md"].iter().chain(&LOGS) {
        assert!(out_dir.join(name).is_file(), "{name} missing");
    }
    let report = read_json(&out_dir.join("eval_rag_report.json"));
    assert_eq!(report["metrics"]["cases"], 10);
    assert_eq!(
        report["report"]["experiment"]["run_config"]["backend"],
        "demo"
    );
    for name in LOGS {
        let log = events::read(&std::fs::read(out_dir.join(name)).expect("read log"));
        assert!(log.skipped.is_empty() && !log.truncated_tail, "{name}");
        assert_eq!(log.of_type("case").count(), 10, "{name}");
        let meta = log.of_type("meta").next().expect("meta record");
        assert_eq!(meta["tool"], "evalpage-cli");
        let rec = events::reconcile(&report, &log);
        assert!(rec.ok, "{name}: {:?}", rec.checks);
    }
    let (stdout, _) = texts(&out);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.first(), Some(&"[EVAL] 评测开始，总用例数：10"));
    let finish = "[EVAL] 评测完成 - 整体准确率：";
    assert!(lines.last().is_some_and(|l| l.starts_with(finish)));
    assert_eq!(lines.len(), 12, "start, ten cases, finish:\n{stdout}");
}

#[test]
fn summary_names_the_final_report_and_run_id_has_the_documented_shape() {
    let dir = Scratch::new("summary");
    let out_dir = dir.join("out");
    let out = run_demo(&demo_dataset(), &out_dir, &["--lang", "en"]);
    assert_ok(&out);
    let log =
        events::read(&std::fs::read(out_dir.join("eval_rag_report.events.jsonl")).expect("log"));
    let summary = log.of_type("summary").next().expect("summary");
    let path = summary["final_report_path"].as_str().unwrap_or("");
    assert!(path.ends_with("eval_rag_report.json"), "{path}");
    let run_id = summary["run_id"].as_str().unwrap_or("");
    let shape = "eval_rag-20261125T221500Z-1a2b3c";
    assert!(
        run_id.starts_with("eval_rag-") && run_id.len() == shape.len(),
        "{run_id}"
    );
    let (stdout, _) = texts(&out);
    assert!(stdout.starts_with("[EVAL] Evaluation started, total cases: 10"));
    let md = std::fs::read_to_string(out_dir.join("report.md")).expect("md");
    assert!(md.starts_with("# Experiment\n"), "spec 003 §3's headings");
    for heading in ["## Overall Metrics", "## Error Cases"] {
        assert!(md.contains(&format!("\n{heading}\n")), "{heading}: {md}");
    }
}

#[test]
fn bad_lines_are_skipped_and_named_while_valid_lines_run() {
    let dir = Scratch::new("bad-lines");
    let data = dir.write(
        "mixed.jsonl",
        "{\"q\":\"RAG系统需要哪三个主要组件？\",\"gold\":[\"检索系统\"],\"doc_hint\":[\"02_rag_architecture.md\"]}\n\
         not json\n\
         {\"q\":\"no gold\"}\n\
         {\"q\":\"LightRAG支持哪些向量数据库？\",\"gold\":[\"Milvus\"],\"doc_hint\":[\"04_supported_databases.md\"]}\n",
    );
    let out_dir = dir.join("out");
    let out = run_demo(&data, &out_dir, &[]);
    assert_ok(&out);
    let (_, stderr) = texts(&out);
    assert!(stderr.contains("skipped line mixed.jsonl:2:"), "{stderr}");
    assert!(stderr.contains("skipped line mixed.jsonl:3:"), "{stderr}");
    let report = read_json(&out_dir.join("eval_rag_report.json"));
    assert_eq!(report["metrics"]["cases"], 2);
    let counts = &report["report"]["experiment"]["dataset"]["counts"];
    assert_eq!(counts["line_errors"], 2);
}

#[test]
fn dataset_without_a_valid_line_exits_2() {
    let dir = Scratch::new("no-valid");
    let data = dir.write("empty.jsonl", "nope\n{\"q\":\"x\"}\n");
    let out = run_demo(&data, &dir.join("out"), &[]);
    assert_eq!(out.status.code(), Some(2));
    let (_, stderr) = texts(&out);
    assert!(stderr.contains("empty.jsonl: no valid case"), "{stderr}");
    assert!(
        !dir.join("out").exists(),
        "nothing is written for a refused run"
    );
}

#[test]
fn missing_dataset_file_exits_nonzero_naming_the_path() {
    let dir = Scratch::new("missing");
    let out = run_demo(&dir.join("does-not-exist.jsonl"), &dir.join("out"), &[]);
    assert_eq!(out.status.code(), Some(2));
    let (_, stderr) = texts(&out);
    assert!(stderr.contains("does-not-exist.jsonl"), "{stderr}");
}

#[test]
fn no_provider_and_no_endpoint_is_refused_with_a_hint() {
    let dir = Scratch::new("no-provider");
    let mut cmd = evalpage();
    cmd.args(["run", "--dataset"])
        .arg(demo_dataset())
        .arg("--out")
        .arg(dir.join("out"));
    let out = finish(cmd);
    assert_eq!(out.status.code(), Some(2));
    let (_, stderr) = texts(&out);
    let hint = "give --endpoint URL --model NAME, or --provider demo";
    assert!(stderr.contains(hint), "{stderr}");
}

#[test]
fn unset_api_key_variable_is_refused_naming_the_variable() {
    let dir = Scratch::new("unset-key");
    let mut cmd = evalpage();
    cmd.env_remove("EVALPAGE_TEST_UNSET_KEY")
        .args(["run", "--dataset"])
        .arg(demo_dataset())
        .args(["--endpoint", "http://127.0.0.1:9/v1", "--model", "m"])
        .args(["--api-key-env", "EVALPAGE_TEST_UNSET_KEY", "--out"])
        .arg(dir.join("out"));
    let out = finish(cmd);
    assert_eq!(out.status.code(), Some(2));
    let (_, stderr) = texts(&out);
    assert!(
        stderr.contains("EVALPAGE_TEST_UNSET_KEY is not set"),
        "{stderr}"
    );
}

#[test]
fn reconcile_command_agrees_with_a_run_and_catches_a_cut_log() {
    let dir = Scratch::new("reconcile");
    let out_dir = dir.join("out");
    assert_ok(&run_demo(&demo_dataset(), &out_dir, &[]));
    let report = out_dir.join("eval_rag_report.json");
    let reconcile = |events: &std::path::Path| {
        let mut cmd = evalpage();
        cmd.args(["reconcile", "--report"])
            .arg(&report)
            .arg("--events")
            .arg(events);
        finish(cmd)
    };
    let good = reconcile(&out_dir.join("eval_rag_report.events.json-seq"));
    assert_ok(&good);
    assert!(texts(&good).0.lines().all(|l| l.starts_with("ok ")));
    let seq = std::fs::read(out_dir.join("eval_rag_report.events.json-seq")).expect("log");
    let cut = dir.write("cut.json-seq", "");
    std::fs::write(&cut, &seq[..seq.len() - 30]).expect("write cut log");
    let bad = reconcile(&cut);
    assert_eq!(bad.status.code(), Some(1));
    assert!(texts(&bad).0.contains("note the last record"));
}

#[test]
fn a_rag_run_writes_the_same_files_as_every_run_with_run_records_and_its_metadata() {
    let dir = Scratch::new("rag-files");
    let out_dir = dir.join("out");
    let meta = dir.write(
        "metadata.json",
        r#"{"dataset_id": "lightrag_demo", "version": "v3", "source": {"repo": "docs"},
            "created_at": "2026-01-06T00:00:00Z", "generator_commit": "abc123",
            "filters": {"lang": "zh"}, "sampling": {"seed": 1}, "owner": "qa"}"#,
    );
    let meta_arg = meta.display().to_string();
    let out = run_demo(&demo_dataset(), &out_dir, &["--metadata", &meta_arg]);
    assert_ok(&out);
    let names = evalpage_core::report::files(evalpage_core::RunKind::Rag.names().report);
    for name in names.iter().chain(&LOGS) {
        assert!(out_dir.join(name).is_file(), "{name} missing");
    }
    let report = read_json(&out_dir.join("eval_rag_report.json"));
    let dataset = &report["report"]["experiment"]["dataset"];
    assert_eq!(dataset["dataset_id"], "lightrag_demo");
    assert_eq!(dataset["version"], "v3");
    assert_eq!(dataset["generator_commit"], "abc123");
    assert_eq!(dataset["source"]["repo"], "docs");
    assert_eq!(dataset["sampling"]["seed"], 1);
    assert_eq!(dataset["extra"]["owner"], "qa");
    let text = std::fs::read_to_string(out_dir.join("results.jsonl")).expect("results");
    let rows: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect();
    assert_eq!(rows.len(), 10);
    for key in [
        "sample_id",
        "dataset_id",
        "backend",
        "run_config",
        "response_text",
        "status",
        "latency_ms",
        "trace_id",
        "attempts",
        "error",
        "raw",
    ] {
        assert!(
            rows.iter().all(|r| r.get(key).is_some()),
            "RunRecord field {key}"
        );
    }
    assert_eq!(rows[0]["sample_id"], "Q1");
    assert_eq!(rows[0]["dataset_id"], "lightrag_demo");
    assert_eq!(rows[0]["backend"], "demo");
    assert_eq!(rows[0]["status"], "ok");
    let scores = std::fs::read_to_string(out_dir.join("scores.jsonl")).expect("scores");
    assert_eq!(scores.lines().count(), 20, "accuracy and citation per case");
    let csv = std::fs::read_to_string(out_dir.join("summary.csv")).expect("csv");
    let mut csv_lines = csv.lines();
    assert_eq!(
        csv_lines.next(),
        Some(
            "model,samples,tm_accuracy,tm_citation,truncated,prompt_tokens,completion_tokens,\
reasoning_tokens,latency_p50_ms,latency_p95_ms,output_tokens_per_s,kind"
        )
    );
    let accuracy = report["metrics"]["accuracy"].as_f64().unwrap_or(-1.0);
    let row = csv_lines.next().unwrap_or_default();
    assert!(
        row.starts_with(&format!("evalpage-demo,10,{accuracy},")),
        "{row}"
    );
    let fp = read_json(&out_dir.join("dataset_fingerprint.json"));
    assert_eq!(fp["sample_count"], 10);
    let run_meta = read_json(&out_dir.join("run_meta.json"));
    assert_eq!(run_meta["kind"], "rag");
    assert_eq!(run_meta["metadata"], meta_arg.as_str());
    let snapshot = read_json(&out_dir.join("model_snapshot.json"));
    assert_eq!(snapshot["models"][0]["answered"], 10);
}
