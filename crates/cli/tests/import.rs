//! `evalpage import` end to end on files the real tools wrote (the core's
//! tests/data/import), then `report` and `compare` on what it wrote: the
//! run folders open like any other, two models of one import are compared
//! and gated, runs of two tools pair by their inputs' hash, and a file of no
//! tool exits 2 naming it. Also the OpenAI Evals samples JSONL as a task
//! dataset (`evalpage score`).

mod common;

use common::{assert_ok, evalpage, finish, read_json, texts, Scratch};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Output;

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../core/tests/data/import")
        .join(rel)
}

fn import(files: &[&Path], out: &Path) -> Output {
    let mut cmd = evalpage();
    cmd.arg("import").args(files).arg("--out").arg(out);
    finish(cmd)
}

fn compare(args: &[&str]) -> Output {
    let mut cmd = evalpage();
    cmd.arg("compare").args(args);
    finish(cmd)
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

#[test]
fn import_writes_run_folders_that_report_and_compare_open() {
    let dir = Scratch::new("import_folders");
    let out = dir.join("out");
    let pf = fixture("promptfoo/out.json");
    let inspect = fixture("inspect/log.eval");
    let o = import(&[&pf, &inspect], &out);
    assert_ok(&o);
    let (_, err) = texts(&o);
    assert!(
        err.contains("(promptfoo): 5 samples, models gpt-4o-mini, nano"),
        "{err}"
    );
    assert!(err.contains("(inspect_ai)"), "{err}");
    // Two runs: one folder each, named after its file.
    for (name, files) in [
        ("out", ["report.json", "report.md", "summary.csv"]),
        ("log", ["report.json", "report.md", "summary.csv"]),
    ] {
        for f in files {
            assert!(out.join(name).join(f).is_file(), "{name}/{f}");
        }
    }
    let r = read_json(&out.join("out/report.json"));
    assert_eq!(r["report"]["experiment"]["run_config"]["tool"], "promptfoo");
    let md = std::fs::read_to_string(out.join("log/report.md")).unwrap();
    assert!(
        md.contains("Imported from: inspect_ai 0.3.285 (log.eval)"),
        "{md}"
    );
    assert!(md.contains("| gpt-4o-mini | match | 0.500 |"), "{md}");
    // `report` renders an import again.
    let mut cmd = evalpage();
    cmd.args(["report", "--format", "csv"]).arg(out.join("out"));
    let o = finish(cmd);
    assert_ok(&o);
    assert!(texts(&o).0.contains("gpt-4o-mini"));
    // Two models of one import.
    let o = compare(&[p(&out.join("out")), "--models", "gpt-4o-mini,nano"]);
    assert_ok(&o);
    let (text, _) = texts(&o);
    assert!(
        text.contains("model gpt-4o-mini against model nano"),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|l| l.starts_with("pass") && l.contains("0.8000") && l.contains("0.4000")),
        "{text}"
    );
}

/// promptfoo's file with `copies` tests, each answered right by gpt-4o-mini
/// and wrong by nano (the fixture's first two results, copied with new ids).
fn many_tests(copies: usize) -> String {
    let text = std::fs::read_to_string(fixture("promptfoo/out.json")).unwrap();
    let mut v: Value = serde_json::from_str(&text).unwrap();
    let first: Vec<Value> = v["results"]["results"].as_array().unwrap()[..2].to_vec();
    let mut results = Vec::new();
    for i in 0..copies {
        for r in &first {
            let mut r = r.clone();
            r["testIdx"] = json!(i);
            r["testCase"]["description"] = json!(format!("case {i}"));
            let nano = r["provider"]["label"] == "nano";
            r["success"] = json!(!nano);
            r["score"] = json!(if nano { 0 } else { 1 });
            results.push(r);
        }
    }
    v["results"]["results"] = Value::Array(results);
    v.to_string()
}

#[test]
fn the_gate_fails_on_a_significant_drop_between_two_models_of_an_import() {
    let dir = Scratch::new("import_gate");
    let file = dir.write("many.json", &many_tests(30));
    let out = dir.join("run");
    assert_ok(&import(&[&file], &out));
    let o = compare(&[
        p(&out),
        "--models",
        "gpt-4o-mini,nano",
        "--fail-if-drop",
        "pass=0.1",
    ]);
    assert_eq!(o.status.code(), Some(1), "{:?}", texts(&o));
    let (text, _) = texts(&o);
    assert!(text.contains("FAIL"), "{text}");
    // Within the allowance: passes.
    let o = compare(&[
        p(&out),
        "--models",
        "gpt-4o-mini,nano",
        "--fail-if-drop",
        "pass=1",
    ]);
    assert_ok(&o);
}

#[test]
fn runs_of_two_tools_pair_by_input_hash_and_by_a_metric_of_each() {
    let dir = Scratch::new("import_cross");
    let (pf, inspect) = (
        fixture("paired/promptfoo.json"),
        fixture("paired/inspect.eval"),
    );
    assert_ok(&import(&[&pf], &dir.join("pf")));
    assert_ok(&import(&[&inspect], &dir.join("inspect")));
    let json_out = dir.join("cmp.json");
    let o = compare(&[
        p(&dir.join("pf")),
        p(&dir.join("inspect")),
        "--metrics",
        "pass,match",
        "--json",
        p(&json_out),
    ]);
    assert_ok(&o);
    let (text, _) = texts(&o);
    assert!(text.contains("paired by the hash of their input"), "{text}");
    let cmp = read_json(&json_out);
    assert_eq!(cmp["comparison"]["by_input"], true);
    let row = &cmp["comparison"]["rows"][0];
    assert_eq!(row["metric"], "pass");
    assert_eq!(row["n"], 6, "{row}");
    // promptfoo passed 4 of 6, Inspect marked 5 of 6 correct.
    assert!(
        (row["base"].as_f64().unwrap() - 4.0 / 6.0).abs() < 1e-9,
        "{row}"
    );
    assert!(
        (row["new"].as_f64().unwrap() - 5.0 / 6.0).abs() < 1e-9,
        "{row}"
    );
    // The gate names the row after base's metric: within the allowance, it passes.
    let o = compare(&[
        p(&dir.join("pf")),
        p(&dir.join("inspect")),
        "--metrics",
        "pass,match",
        "--fail-if-drop",
        "pass=0.05",
    ]);
    assert_ok(&o);
    assert!(texts(&o).0.contains("gate"), "{:?}", texts(&o));
    // A metric that is not in its report is named.
    let o = compare(&[
        p(&dir.join("pf")),
        p(&dir.join("inspect")),
        "--metrics",
        "pass,nope",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        texts(&o).1.contains("no metric \"nope\""),
        "{:?}",
        texts(&o)
    );
}

#[test]
fn a_file_of_no_tool_exits_2_naming_it() {
    let dir = Scratch::new("import_bad");
    let f = dir.write("notes.json", "{\"hello\": 1}");
    let o = import(&[&f], &dir.join("out"));
    assert_eq!(o.status.code(), Some(2));
    let (_, err) = texts(&o);
    assert!(err.contains("notes.json: not a file this reads"), "{err}");
    assert!(!dir.join("out").exists());
}

#[test]
fn a_damaged_log_is_imported_with_its_problems_said() {
    let dir = Scratch::new("import_damaged");
    let bytes = std::fs::read(fixture("inspect/log.eval")).unwrap();
    let cut = dir.join("cut.eval");
    std::fs::write(&cut, &bytes[..bytes.len() * 2 / 3]).unwrap();
    let o = import(&[&cut], &dir.join("out"));
    assert_ok(&o);
    let (_, err) = texts(&o);
    assert!(
        err.contains("could not be read") && err.contains("damaged zip"),
        "{err}"
    );
    let r = read_json(&dir.join("out/report.json"));
    assert!(!r["report"]["line_errors"].as_array().unwrap().is_empty());
    assert!(!r["scores"].as_array().unwrap().is_empty());
}

#[test]
fn openai_evals_samples_are_a_task_dataset() {
    let dir = Scratch::new("import_evals_dataset");
    let task = dir.write(
        "capitals.yaml",
        "name: capitals\nversion: v1\nprompt_template: capitals_prompt\nparse_schema:\n  - field: answer\n    type: str\nmetrics:\n  - type: exact_match\n    name: answer_acc\n    pred_field: answer\n    label_field: gt_answer\n",
    );
    dir.write(
        "capitals_prompt.yaml",
        "name: capitals_prompt\nversion: v1\nsystem: Answer with JSON.\nuser: \"{{ prompt }} Answer {\\\"answer\\\": ...}.\"\n",
    );
    let samples = fixture("openai_evals/samples.jsonl");
    let lines: Vec<Value> = std::fs::read_to_string(&samples)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // Every sample answered with its ideal, but the second with a wrong one.
    let mut responses = String::new();
    for (i, l) in lines.iter().enumerate() {
        let ideal = match &l["ideal"] {
            Value::String(s) => s.clone(),
            Value::Array(a) => a[0].as_str().unwrap().to_string(),
            _ => unreachable!(),
        };
        let answer = if i == 1 { "nowhere".to_string() } else { ideal };
        responses.push_str(&json!({"sample_id": format!("samples.{i}"), "model": "m", "response": json!({"answer": answer}).to_string()}).to_string());
        responses.push('\n');
    }
    let resp = dir.write("responses.jsonl", &responses);
    let out = dir.join("out");
    let mut cmd = evalpage();
    cmd.args(["score", "--task"])
        .arg(&task)
        .arg("--dataset")
        .arg(&samples)
        .arg("--responses")
        .arg(&resp)
        .arg("--out")
        .arg(&out);
    let o = finish(cmd);
    assert_ok(&o);
    let r = read_json(&out.join("report.json"));
    let s = r["report"]["summaries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["metric"] == "answer_acc")
        .unwrap()
        .clone();
    assert_eq!(s["sample_count"], lines.len());
    assert!(
        (s["mean"].as_f64().unwrap() - (lines.len() - 1) as f64 / lines.len() as f64).abs() < 1e-9,
        "{s}"
    );
}

#[test]
fn a_hugging_face_parquet_file_is_a_task_dataset() {
    let dir = Scratch::new("import_parquet");
    let task = dir.write(
        "capitals.yaml",
        "name: capitals\nversion: v1\nprompt_template: capitals_prompt\nparse_schema:\n  - field: answer\n    type: str\nmetrics:\n  - type: exact_match\n    name: answer_acc\n    pred_field: answer\n    label_field: answer\n",
    );
    dir.write(
        "capitals_prompt.yaml",
        "name: capitals_prompt\nversion: v1\nsystem: Answer with JSON.\nuser: \"{{ question }} ({{ meta.continent }}) Answer {\\\"answer\\\": ...}.\"\n",
    );
    // Rows 0..5 (ids from the `id` column), answered right but row 3.
    let answers = ["Paris", "Tokyo", "Ottawa", "Sydney", "Brasília", "Rome"];
    let responses: String = answers
        .iter()
        .enumerate()
        .map(|(i, a)| format!("{}\n", json!({"sample_id": i.to_string(), "model": "m", "response": json!({"answer": a}).to_string()})))
        .collect();
    let resp = dir.write("responses.jsonl", &responses);
    for file in ["parquet/capitals.parquet", "parquet/capitals_zstd.parquet"] {
        let out = dir.join(&file.replace('/', "_"));
        let mut cmd = evalpage();
        cmd.args(["score", "--task"])
            .arg(&task)
            .arg("--dataset")
            .arg(fixture(file))
            .arg("--responses")
            .arg(&resp)
            .arg("--out")
            .arg(&out);
        let o = finish(cmd);
        assert_ok(&o);
        let r = read_json(&out.join("report.json"));
        let s = r["report"]["summaries"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["metric"] == "answer_acc")
            .unwrap()
            .clone();
        assert_eq!(s["sample_count"], 6, "{file}: {s}");
        assert!(
            (s["mean"].as_f64().unwrap() - 5.0 / 6.0).abs() < 1e-9,
            "{file}: {s}"
        );
    }
    // A damaged Parquet file is refused, naming it.
    let bytes = std::fs::read(fixture("parquet/capitals.parquet")).unwrap();
    let mut bad = bytes.clone();
    let n = bad.len();
    bad[n / 2..n - 8].fill(0);
    let bad_path = dir.join("bad.parquet");
    std::fs::write(&bad_path, &bad).unwrap();
    let mut cmd = evalpage();
    cmd.args(["score", "--task"])
        .arg(&task)
        .arg("--dataset")
        .arg(&bad_path)
        .arg("--responses")
        .arg(&resp)
        .arg("--out")
        .arg(dir.join("bad"));
    let o = finish(cmd);
    assert_eq!(o.status.code(), Some(2), "{:?}", texts(&o));
    assert!(texts(&o).1.contains("bad.parquet"), "{:?}", texts(&o));
}
