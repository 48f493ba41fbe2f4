//! `evalpage score` and `evalpage task check` with the real binary and real
//! files: event_eval over two models (fenced JSON, prose around JSON, a clamped
//! number, a defaulted field, a non-JSON answer, an unanswered sample) with
//! hand-computed summary values; support_qa over spec 003 records; bad lines;
//! the dataset fingerprint; broken and valid task files.

mod common;

use common::*;
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Output;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/score")
        .join(name)
}

fn score(task: &str, dataset: &Path, responses: &Path, out: &Path, extra: &[&str]) -> Output {
    let mut cmd = evalpage();
    cmd.args(["score", "--task", task, "--dataset"])
        .arg(dataset)
        .arg("--responses")
        .arg(responses)
        .arg("--out")
        .arg(out)
        .args(extra);
    finish(cmd)
}

fn task_check(task: &Path) -> Output {
    let mut cmd = evalpage();
    cmd.args(["task", "check"]).arg(task);
    finish(cmd)
}

/// summary.csv as model -> column -> cell.
fn summary(out: &Path) -> HashMap<String, HashMap<String, String>> {
    let mut r = csv::Reader::from_path(out.join("summary.csv")).expect("summary.csv");
    let headers = r.headers().expect("headers").clone();
    r.records()
        .map(|rec| {
            let rec = rec.expect("row");
            let row: HashMap<String, String> = headers
                .iter()
                .zip(rec.iter())
                .map(|(h, v)| (h.to_string(), v.to_string()))
                .collect();
            (row["model"].clone(), row)
        })
        .collect()
}

fn assert_cell(rows: &HashMap<String, HashMap<String, String>>, model: &str, col: &str, want: f64) {
    let cell = &rows[model][col];
    let got: f64 = cell
        .parse()
        .unwrap_or_else(|_| panic!("{model}.{col} = {cell:?}"));
    assert!((got - want).abs() < 1e-12, "{model}.{col}: {got} != {want}");
}

fn results(out: &Path) -> Vec<Value> {
    std::fs::read_to_string(out.join("results.jsonl"))
        .expect("results.jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect()
}

fn result<'a>(rows: &'a [Value], model: &str, id: &str) -> &'a Value {
    rows.iter()
        .find(|r| r["model"] == model && r["sample_id"] == id)
        .unwrap_or_else(|| panic!("no result for {model}/{id}"))
}

fn field_status(r: &Value, field: &str) -> String {
    let f = r["parsed"]
        .as_array()
        .and_then(|a| a.iter().find(|f| f["field"] == field))
        .unwrap_or_else(|| panic!("no parsed field {field}"));
    f["status"].as_str().unwrap_or("").to_string()
}

#[test]
fn event_eval_two_models_match_hand_computed_values() {
    let dir = Scratch::new("score-event");
    let out_dir = dir.join("out");
    let out = score(
        "event_eval",
        &data("event_dataset.jsonl"),
        &data("event_responses.jsonl"),
        &out_dir,
        &["--lang", "en"],
    );
    assert_ok(&out);
    for name in [
        "results.jsonl",
        "scores.jsonl",
        "summary.csv",
        "report.md",
        "report.json",
        "summary.json",
        "run_meta.json",
        "dataset_fingerprint.json",
        "model_snapshot.json",
    ] {
        assert!(out_dir.join(name).is_file(), "{name} missing");
    }
    let rows = summary(&out_dir);
    assert_eq!(rows.len(), 2);
    // alpha: S1..S4 sentiment right, S5 (not JSON) defaults to neutral.
    assert_cell(&rows, "alpha", "tm_sentiment_acc", 0.8);
    // errors 0, 1, |5-0| (9 clamped to 5), 1, |0-(-1)|: hits within 1 on four.
    assert_cell(&rows, "alpha", "tm_impact_hit_rate", 0.8);
    assert_cell(&rows, "alpha", "tm_impact_mae", 8.0 / 5.0);
    // F1 per sample: 1, 2/3, 2/3, 0 (keywords defaulted to []), 0.
    assert_cell(&rows, "alpha", "tm_keyword", 7.0 / 15.0);
    assert_cell(&rows, "alpha", "tm_keyword_f1", 7.0 / 15.0);
    assert_cell(&rows, "alpha", "tm_keyword_micro_precision", 4.0 / 5.0);
    // beta: S5 unanswered counts (neutral, 0, []); S9 and two bad lines ignored.
    assert_cell(&rows, "beta", "tm_sentiment_acc", 0.4);
    assert_cell(&rows, "beta", "tm_impact_hit_rate", 1.0);
    assert_cell(&rows, "beta", "tm_impact_mae", 2.0 / 5.0);
    assert_cell(&rows, "beta", "tm_keyword_f1", 2.0 / 3.0);
    assert_cell(&rows, "beta", "tm_keyword_precision", 11.0 / 15.0);
    assert_cell(&rows, "beta", "tm_keyword_recall", 19.0 / 30.0);
    assert_eq!(rows["beta"]["samples"], "5");

    let res = results(&out_dir);
    assert_eq!(res.len(), 10);
    let fenced = result(&res, "alpha", "S1");
    assert_eq!(field_status(fenced, "sentiment"), "parsed");
    assert_eq!(fenced["parse_problem"], false);
    assert_eq!(
        field_status(result(&res, "alpha", "S2"), "impact_score"),
        "parsed"
    );
    let clamped = result(&res, "alpha", "S3");
    assert_eq!(field_status(clamped, "impact_score"), "clamped");
    assert_eq!(clamped["metrics"]["impact"]["detail"]["pred"], 5.0);
    let missing = result(&res, "alpha", "S4");
    assert_eq!(field_status(missing, "keywords"), "defaulted");
    assert!(result(&res, "alpha", "S5")["json_error"].is_string());
    let unanswered = result(&res, "beta", "S5");
    assert_eq!(unanswered["status"], "error");
    assert_eq!(unanswered["error_detail"]["kind"], "no_response");
    assert_eq!(field_status(unanswered, "sentiment"), "defaulted");
    assert_eq!(unanswered["metrics"]["sentiment_acc"]["value"], 0.0);

    let (stdout, stderr) = texts(&out);
    assert!(
        stdout.contains("alpha: 5 samples, 5 answered, 3 parse problem(s)"),
        "{stdout}"
    );
    for needle in [
        "event_responses.jsonl:10: field `sample_id`: no sample `S9`",
        "event_responses.jsonl:11: field `response`: expected a string or a model's message (with `content` or `tool_calls`), found a number",
        "event_responses.jsonl:12: field `sample_id`: second response for sample `S1`",
    ] {
        assert!(stderr.contains(needle), "{needle}\n{stderr}");
    }

    let report = read_json(&out_dir.join("report.json"));
    let summaries = report["report"]["summaries"].as_array().expect("summaries");
    assert_eq!(summaries.len(), 6);
    assert_eq!(
        (&summaries[4]["model"], &summaries[4]["metric"]),
        (&"beta".into(), &"impact".into())
    );
    assert_eq!(summaries[4]["components"]["mae"], 0.4);
    assert_eq!(report["report"]["error_cases"][0]["sample_id"], "S5");
    assert_eq!(
        report["report"]["experiment"]["evaluator_config"]["prompt_template"]["name"],
        "ie_json"
    );
    assert_eq!(report["scores"].as_array().map(Vec::len), Some(30));
    let scores = std::fs::read_to_string(out_dir.join("scores.jsonl")).expect("scores");
    assert_eq!(scores.lines().count(), 30);
    let md = std::fs::read_to_string(out_dir.join("report.md")).expect("md");
    assert!(md.contains("| alpha | S3 | impact_score: clamped"), "{md}");
    assert!(md.contains("| beta | S5 | no_response |"), "{md}");
    let meta = read_json(&out_dir.join("run_meta.json"));
    assert_eq!(meta["prompt_template"]["version"], "v1");
    assert!(meta["started_at"]
        .as_str()
        .is_some_and(|t| t.ends_with('Z')));
}

#[test]
fn fingerprint_is_the_sha256_of_the_dataset_bytes() {
    let dir = Scratch::new("score-fp");
    let dataset = data("event_dataset.jsonl");
    let out = score(
        "event_eval",
        &dataset,
        &data("event_responses.jsonl"),
        &dir.0,
        &[],
    );
    assert_ok(&out);
    let bytes = std::fs::read(&dataset).expect("dataset");
    let want: String = Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let fp = read_json(&dir.join("dataset_fingerprint.json"));
    assert_eq!(fp["sha256"], want.as_str());
    assert_eq!(fp["sample_count"], 5);
    assert_eq!(fp["field_inventory"]["tags"], 3);
    assert_eq!(fp["field_inventory"]["gt_keywords"], 5);
    let snap = std::fs::read_to_string(dir.join("model_snapshot.json")).expect("snapshot");
    assert!(
        snap.contains("\"alpha\"") && !snap.to_lowercase().contains("key\""),
        "{snap}"
    );
}

#[test]
fn support_qa_scores_spec_003_records_with_metadata() {
    let dir = Scratch::new("score-support");
    let out = score(
        "support_qa",
        &data("support_dataset.jsonl"),
        &data("support_responses.jsonl"),
        &dir.0,
        &[
            "--metadata",
            &data("support_metadata.json").display().to_string(),
        ],
    );
    assert_ok(&out);
    let rows = summary(&dir.0);
    // toy-001 exact; toy-002 differs; toy-003 unanswered (empty answer).
    assert_cell(&rows, "responses", "tm_exact_match", 1.0 / 3.0);
    // keywords found: 2/2, 1/2 (settings), 0/2.
    assert_cell(&rows, "responses", "tm_keyword_coverage", 0.5);
    let report = read_json(&dir.join("report.json"));
    let dataset = &report["report"]["experiment"]["dataset"];
    assert_eq!(dataset["dataset_id"], "toy_support_qa");
    assert_eq!(dataset["languages"]["en"], 2);
    let breakdowns = report["report"]["breakdowns"]
        .as_array()
        .expect("breakdowns");
    let has = |dim: &str, bucket: &str| {
        breakdowns
            .iter()
            .any(|b| b["dimension"] == dim && b["bucket"] == bucket && b["model"] == "responses")
    };
    assert!(has("language", "ko") && has("tag", "billing") && has("length", "medium"));
    let res = results(&dir.0);
    let toy3 = result(&res, "responses", "toy-003");
    assert_eq!(
        (&toy3["status"], &toy3["error_detail"]["kind"]),
        (&Value::from("error"), &Value::from("no_response"))
    );
    let md = std::fs::read_to_string(dir.join("report.md")).expect("md");
    assert!(
        md.starts_with("# 实验") && md.contains("## 按语言分解"),
        "{md}"
    );
}

#[test]
fn bad_dataset_lines_are_reported_and_unusable_inputs_exit_2() {
    let dir = Scratch::new("score-bad");
    let good = r#"{"sample_id":"A","news_items":[],"gt_sentiment":"positive","gt_impact_score":1,"gt_keywords":["x"]}"#;
    let dataset = dir.write(
        "d.jsonl",
        &format!("{good}\n{{\"sample_id\": [1]}}\nnot json\n"),
    );
    let responses = dir.write("r.jsonl", "{\"sample_id\":\"A\",\"response\":\"{}\"}\n");
    let out = score("event_eval", &dataset, &responses, &dir.join("out"), &[]);
    assert_ok(&out);
    let (_, stderr) = texts(&out);
    assert!(
        stderr.contains("d.jsonl:2: field `sample_id`: expected a string id"),
        "{stderr}"
    );
    assert!(stderr.contains("d.jsonl:3: not valid JSON"), "{stderr}");
    let fp = read_json(&dir.join("out/dataset_fingerprint.json"));
    assert_eq!(
        (fp["sample_count"].as_u64(), fp["line_errors"].as_u64()),
        (Some(1), Some(2))
    );

    let all_bad = dir.write("bad.jsonl", "nope\n");
    let out = score("event_eval", &all_bad, &responses, &dir.join("o2"), &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        texts(&out).1.contains("no valid sample"),
        "{}",
        texts(&out).1
    );
    let no_resp = dir.write("none.jsonl", "{\"sample_id\":\"A\"}\n");
    let out = score("event_eval", &dataset, &no_resp, &dir.join("o3"), &[]);
    assert_eq!(out.status.code(), Some(2));
    let (_, stderr) = texts(&out);
    assert!(
        stderr.contains("none.jsonl:1: field `response`: missing"),
        "{stderr}"
    );
    assert!(stderr.contains("no valid response line"), "{stderr}");
    let out = score("no_such_task", &dataset, &responses, &dir.join("o4"), &[]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn task_check_reports_located_errors_and_exits_2() {
    let out = task_check(&data("broken_task.yaml"));
    assert_eq!(out.status.code(), Some(2));
    let (_, stderr) = texts(&out);
    assert!(
        stderr.contains("broken_task.yaml:8: `parse_schema[0].default`: not a valid enum value"),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "broken_task.yaml:12: `metrics[0].pred_field`: `mood` is not a parse_schema field"
        ),
        "{stderr}"
    );
    let out = task_check(&data("missing_template_task.yaml"));
    assert_eq!(out.status.code(), Some(2));
    let (_, stderr) = texts(&out);
    assert!(stderr.contains("missing_template_task.yaml:3: `prompt_template`: `no_such_prompt` is not a built-in template"), "{stderr}");
    assert!(stderr.contains("no_such_prompt.yaml"), "{stderr}");
}

/// Spec 004's layout: `--task NAME` finds `bench/tasks/NAME.yaml` from the
/// current directory, its template in `bench/prompts/`; a preset name not
/// shadowed by a file is still the preset, and an unknown name says where it
/// looked.
#[test]
fn a_task_name_is_found_in_bench_tasks_as_spec_004_lays_it_out() {
    let dir = Scratch::new("bench-layout");
    std::fs::create_dir_all(dir.0.join("bench/tasks")).expect("tasks dir");
    std::fs::create_dir_all(dir.0.join("bench/prompts")).expect("prompts dir");
    std::fs::copy(
        data("custom_task.yaml"),
        dir.0.join("bench/tasks/headlines.yaml"),
    )
    .expect("task");
    std::fs::copy(
        data("mood_prompt.yaml"),
        dir.0.join("bench/prompts/mood_prompt.yaml"),
    )
    .expect("template");
    let check = |name: &str| {
        let mut cmd = evalpage();
        cmd.current_dir(&dir.0).args(["task", "check", name]);
        finish(cmd)
    };
    let out = check("headlines");
    assert_ok(&out);
    let (stdout, stderr) = texts(&out);
    assert!(
        stdout.starts_with("ok: headline_mood v2, template mood_prompt v3 ("),
        "{stdout}"
    );
    assert!(stderr.contains("bench/tasks/headlines.yaml"), "{stderr}");
    assert_ok(&check("news_analysis"));
    let out = check("nowhere");
    assert_eq!(out.status.code(), Some(2));
    let (_, stderr) = texts(&out);
    assert!(stderr.contains("no bench/tasks/nowhere.yaml"), "{stderr}");
}

#[test]
fn task_check_accepts_a_task_with_a_template_file_beside_it_and_score_records_it() {
    let out = task_check(&data("custom_task.yaml"));
    assert_ok(&out);
    let (stdout, _) = texts(&out);
    assert!(
        stdout.starts_with("ok: headline_mood v2, template mood_prompt v3 ("),
        "{stdout}"
    );
    assert!(
        stdout.contains("reads title), 1 fields, metrics: mood_acc (exact_match)"),
        "{stdout}"
    );
    let mut cmd = evalpage();
    cmd.args(["task", "check", "support_qa"]);
    assert_ok(&finish(cmd));

    let dir = Scratch::new("score-custom");
    let dataset = dir.write(
        "d.jsonl",
        "{\"sample_id\":\"h1\",\"title\":\"Stocks rally\",\"gt_mood\":\"up\"}\n",
    );
    let responses = dir.write(
        "r.jsonl",
        "{\"sample_id\":\"h1\",\"response\":\"{\\\"mood\\\": \\\"up\\\"}\",\"model\":\"m\"}\n",
    );
    let task = data("custom_task.yaml").display().to_string();
    let out = score(&task, &dataset, &responses, &dir.join("out"), &[]);
    assert_ok(&out);
    assert_cell(&summary(&dir.join("out")), "m", "tm_mood_acc", 1.0);
    let meta = read_json(&dir.join("out/run_meta.json"));
    assert_eq!(meta["prompt_template"]["name"], "mood_prompt");
    assert_eq!(meta["prompt_template"]["version"], "v3");
    assert!(meta["prompt_template"]["source"]
        .as_str()
        .is_some_and(|s| s.ends_with("mood_prompt.yaml")));
}

#[test]
fn a_runs_results_jsonl_scores_again_to_the_same_summaries() {
    let dir = Scratch::new("score-run-records");
    let ran = dir.join("ran");
    let dataset = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../www/demo/tasks/event_eval.jsonl");
    let out = run(&[
        "--task",
        "event_eval",
        "--mock",
        "--models",
        "mock-a,mock-b",
        "--dataset",
        dataset.to_str().unwrap_or_default(),
        "--out",
        ran.to_str().unwrap_or_default(),
    ]);
    assert_ok(&out);
    let scored = dir.join("scored");
    let out = score(
        "event_eval",
        &dataset,
        &ran.join("results.jsonl"),
        &scored,
        &[],
    );
    assert_ok(&out);
    let summaries = |d: &Path| read_json(&d.join("report.json"))["report"]["summaries"].clone();
    assert_eq!(
        summaries(&scored),
        summaries(&ran),
        "RunRecord lines carry answers and models"
    );
    let rows = results(&scored);
    assert!(rows.iter().any(|r| r["model"] == "mock-b"));
}

#[test]
fn retrieval_lists_score_as_trec_eval_with_every_file_and_a_reconciling_log() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/tests/data/retrieval");
    let dir = Scratch::new("score-retrieval");
    let out_dir = dir.join("out");
    let mut cmd = evalpage();
    cmd.args(["score", "--retrieval", "--k", "5", "--dataset"])
        .arg(fixtures.join("cases.jsonl"))
        .arg("--responses")
        .arg(fixtures.join("ranked.jsonl"))
        .arg("--out")
        .arg(&out_dir)
        .args(["--lang", "en"]);
    let out = finish(cmd);
    assert_ok(&out);
    // Spec 000's names for a retrieval evaluation's report and logs.
    let names = evalpage_core::RunKind::Retrieval.names();
    for name in evalpage_core::report::files(names.report)
        .iter()
        .chain(&names.events())
    {
        assert!(out_dir.join(name).is_file(), "{name} missing");
    }
    assert!(!out_dir.join("report.json").exists());
    let report = read_json(&out_dir.join(names.report));
    let expected = std::fs::read_to_string(fixtures.join("expected.jsonl")).expect("expected");
    let at5: Vec<Value> = expected
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("json"))
        .filter(|e| e["k"] == 5)
        .collect();
    let mean = |key: &str| {
        at5.iter()
            .map(|e| e[key].as_f64().unwrap_or(0.0))
            .sum::<f64>()
            / at5.len() as f64
    };
    for (metric, key) in [
        ("hit_at_k", "hit_at_k"),
        ("recall_at_k", "recall_at_k"),
        ("mrr", "mrr"),
        ("ndcg_at_k", "ndcg_at_k"),
    ] {
        let s = report["report"]["summaries"]
            .as_array()
            .and_then(|a| a.iter().find(|s| s["metric"] == metric))
            .unwrap_or_else(|| panic!("no summary for {metric}"));
        let got = s["mean"].as_f64().unwrap_or(-1.0);
        assert!(
            (got - mean(key)).abs() < 1e-9,
            "{metric}: {got} vs trec_eval {}",
            mean(key)
        );
    }
    assert_eq!(report["metrics"]["cases"], 240);
    assert_eq!(
        report["metrics"]["failed_calls"], 15,
        "15 cases have no ranked list"
    );
    let buckets: Vec<&str> = report["report"]["breakdowns"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter(|b| b["dimension"] == "tag" && b["metric"] == "hit_at_k")
                .filter_map(|b| b["bucket"].as_str())
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(buckets, ["api", "faq", "howto"], "per bucket");
    let log =
        evalpage_core::events::read(&std::fs::read(out_dir.join(names.json_seq)).expect("log"));
    let meta = log.of_type("meta").next().expect("meta");
    assert_eq!(meta["k"], 5);
    let summary = log.of_type("summary").next().expect("summary");
    let named = summary["final_report_path"].as_str().unwrap_or("");
    assert!(named.ends_with(names.report), "{named}");
    let case = log.of_type("case").next().expect("case");
    for key in ["bucket", "query", "expected_sources", "hit_at_k", "topk"] {
        assert!(case.get(key).is_some(), "case record field {key}");
    }
    let summary = log.of_type("summary").next().expect("summary");
    assert_eq!(
        summary["metrics"]["hit_cases"],
        report["metrics"]["hit_cases"]
    );
    assert!(summary["metrics"]["hit_rate"].is_number());
    let rec = evalpage_core::events::reconcile(&report, &log);
    assert!(rec.ok, "{:?}", rec.checks);
}
