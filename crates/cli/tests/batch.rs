//! `evalpage batch export|import` against a real `evalpage mock-server`: a
//! task run exported as OpenAI Batch input, answered by a stand-in for
//! `vllm run-batch` written from the format (it asks the mock server each
//! request's body, then writes vLLM's output lines in another order, two of
//! them errors and one missing), and imported: the same scores as `evalpage
//! run` against the same server, the errors as failed cases with their cause,
//! the missing one `not_run`; a retry file fills it in. A judged task takes
//! two rounds. A task whose prompt renders for no sample has nothing to
//! export, and the error names the missing field.

mod common;

use common::{assert_ok, chat_completion, evalpage, finish, read_json, texts, Mock, Scratch};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn demo_task_data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../www/demo/tasks/event_eval.jsonl")
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// Every request line of a round, by file.
fn requests(dir: &Path) -> BTreeMap<String, Vec<Value>> {
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(dir).expect("round dir").flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        out.insert(name, lines(&entry.path()));
    }
    out
}

fn vllm_line(custom_id: &str, body: Value) -> Value {
    json!({"id": format!("vllm-{custom_id}"), "custom_id": custom_id,
        "response": {"status_code": 200, "request_id": format!("req-{custom_id}"), "body": body},
        "error": null})
}

fn batch(args: &[&str]) -> std::process::Output {
    let mut cmd = evalpage();
    cmd.arg("batch").args(args);
    finish(cmd)
}

fn write_lines(path: &Path, rows: &[Value]) {
    let text: String = rows.iter().map(|r| format!("{r}\n")).collect();
    std::fs::write(path, text).expect("write answers");
}

/// (model, sample) -> (status, metric values) of a run's results.jsonl.
fn cases(dir: &Path) -> BTreeMap<(String, String), (String, Value, Option<String>)> {
    lines(&dir.join("results.jsonl"))
        .into_iter()
        .map(|l| {
            (
                (
                    l["model"].as_str().unwrap_or("").to_string(),
                    l["sample_id"].as_str().unwrap_or("").to_string(),
                ),
                (
                    l["status"].as_str().unwrap_or("").to_string(),
                    l["metrics"].clone(),
                    l["error_detail"]["kind"].as_str().map(str::to_string),
                ),
            )
        })
        .collect()
}

#[test]
fn a_task_exported_answered_out_of_order_and_imported_scores_as_the_run() {
    let data = demo_task_data();
    let ds = data.to_str().unwrap_or_default();
    let mock = Mock::start(&["--task", "event_eval", "--dataset", ds]);
    let s = Scratch::new("batch-task");
    let reg = s.write(
        "registry.json",
        &format!(
            r#"{{"models": [{{"name": "alpha", "base_url": "{u}"}}, {{"name": "beta", "base_url": "{u}", "model": "beta-7b"}}]}}"#,
            u = mock.url
        ),
    );
    let reg = reg.to_str().unwrap_or_default();
    let dir = s.join("batch");
    let dir_s = dir.to_str().unwrap_or_default();
    let flags = [
        "--task",
        "event_eval",
        "--dataset",
        ds,
        "--models",
        "alpha,beta",
        "--model-registry",
        reg,
    ];
    let mut export: Vec<&str> = vec!["export"];
    export.extend(flags);
    export.extend(["--out", dir_s]);
    let out = batch(&export);
    assert_ok(&out);
    let (stdout, _) = texts(&out);
    assert!(
        stdout.contains("round 1: 16 request(s) in 2 file(s)"),
        "{stdout}"
    );
    // one file per model, every line OpenAI Batch input with a readable id
    let round = requests(&dir.join("round-1"));
    assert_eq!(
        round.keys().cloned().collect::<Vec<_>>(),
        ["requests-alpha.jsonl", "requests-beta-7b.jsonl"]
    );
    let all: Vec<&Value> = round.values().flatten().collect();
    assert_eq!(all.len(), 16);
    for r in &all {
        let id = r["custom_id"].as_str().unwrap_or_default();
        assert!(
            id.len() <= 64
                && id
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'),
            "{id}"
        );
        assert_eq!(r["method"], "POST");
        assert_eq!(r["url"], "/v1/chat/completions");
        assert!(r["body"]["messages"].is_array());
    }
    assert!(all.iter().any(|r| r["custom_id"]
        .as_str()
        .is_some_and(|i| i.ends_with("-S001"))));
    // the stand-in for vllm run-batch: answers in reverse order, two errors,
    // one line missing
    let mut answered: Vec<Value> = all
        .iter()
        .map(|r| {
            vllm_line(
                r["custom_id"].as_str().unwrap_or(""),
                chat_completion(&mock.url, &r["body"]),
            )
        })
        .collect();
    answered.reverse();
    let id_at = |i: usize| answered[i]["custom_id"].as_str().unwrap_or("").to_string();
    let (err_str, err_obj, missing) = (id_at(0), id_at(5), id_at(9));
    answered[0] = json!({"id": "e0", "custom_id": err_str, "response": null, "error": "Internal server error: CUDA out of memory"});
    answered[5] = json!({"id": "e1", "custom_id": err_obj, "response": null, "error": {"code": "server_error", "message": "overloaded"}});
    let missing_line = answered.remove(9);
    let answers = s.join("vllm_out.jsonl");
    write_lines(&answers, &answered);
    let out = batch(&["import", dir_s, answers.to_str().unwrap_or_default()]);
    assert_ok(&out);
    assert!(texts(&out).0.contains("every call is settled"));
    // the same run live against the same server
    let live = s.join("live");
    let mut run = evalpage();
    run.arg("run").args(flags).arg("--out").arg(&live);
    assert_ok(&finish(run));
    let (b, l) = (cases(&dir), cases(&live));
    assert_eq!(b.len(), 16);
    let job_sample = |id: &str| -> (String, String) {
        // j<job>-c0-<sample>; models in order, 8 samples each
        let job: usize = id[1..id.find('-').unwrap_or(1)].parse().unwrap_or(0);
        let model = if job < 8 { "alpha" } else { "beta" };
        (
            model.to_string(),
            id.rsplit('-').next().unwrap_or("").to_string(),
        )
    };
    for (key, (status, metrics, kind)) in &b {
        let (live_status, live_metrics, _) = &l[key];
        if *key == job_sample(&err_str) || *key == job_sample(&err_obj) {
            assert_eq!(status, "error", "{key:?}");
        } else if *key == job_sample(&missing) {
            assert_eq!(kind.as_deref(), Some("not_run"), "{key:?}");
        } else {
            assert_eq!((status, metrics), (live_status, live_metrics), "{key:?}");
        }
    }
    let report = read_json(&dir.join("report.json"));
    let messages: Vec<String> = report["report"]["error_cases"]
        .as_array()
        .map(|e| {
            e.iter()
                .filter_map(|x| x["message"].as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    assert!(
        messages.iter().any(|m| m.contains("CUDA out of memory")),
        "{messages:?}"
    );
    assert!(
        messages
            .iter()
            .any(|m| m.contains("server_error: overloaded")),
        "{messages:?}"
    );
    assert_eq!(
        report["metrics"]["cases"], 16,
        "every case in every denominator"
    );
    // a retry file with the missing line alone: imported again, it is answered
    let retry = s.join("retry.jsonl");
    write_lines(&retry, &[missing_line]);
    assert_ok(&batch(&[
        "import",
        dir_s,
        retry.to_str().unwrap_or_default(),
    ]));
    let again = cases(&dir);
    assert_eq!(again[&job_sample(&missing)].0, "ok");
    assert_eq!(again[&job_sample(&missing)], l[&job_sample(&missing)]);
    assert_eq!(
        again[&job_sample(&err_str)].0,
        "error",
        "earlier answers are kept"
    );
}

#[test]
fn a_judged_task_takes_two_rounds_and_bad_input_exits_2() {
    let s = Scratch::new("batch-judged");
    s.write(
        "qa_prompt.yaml",
        "name: qa_prompt\nversion: v1\nsystem: Answer in one sentence.\nuser: \"{{ question }}\"\n",
    );
    let task = s.write(
        "task.yaml",
        "name: judged\nversion: v1\nprompt_template: qa_prompt\nmetrics:\n  - type: llm_judge\n    name: correct\n    judge: correctness\n    language: en\n    reference_field: expected\n",
    );
    let data = s.write(
        "data.jsonl",
        "{\"sample_id\": \"a\", \"question\": \"Capital of France?\", \"expected\": \"Paris\"}\n\
         {\"sample_id\": \"b\", \"question\": \"2+2?\", \"expected\": \"4\"}\n\
         {\"sample_id\": \"c\", \"question\": \"Largest ocean?\", \"expected\": \"Pacific\"}\n",
    );
    let reg = s.write(
        "registry.json",
        r#"{"models": [{"name": "alpha", "base_url": "http://127.0.0.1:9/v1"}, {"name": "grader", "base_url": "http://127.0.0.1:9/v1"}]}"#,
    );
    let dir = s.join("b");
    let (task, data, reg, dir_s) = (
        task.to_str().unwrap_or_default(),
        data.to_str().unwrap_or_default(),
        reg.to_str().unwrap_or_default(),
        dir.to_str().unwrap_or_default(),
    );
    let out = batch(&[
        "export",
        "--task",
        task,
        "--dataset",
        data,
        "--models",
        "alpha",
        "--model-registry",
        reg,
        "--judge",
        "grader",
        "--out",
        dir_s,
    ]);
    assert_ok(&out);
    // round 1: the answers (the model says Paris, 5, Pacific)
    let said = BTreeMap::from([("a", "Paris."), ("b", "5."), ("c", "The Pacific.")]);
    let chat = |text: &str| json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}]});
    let r1: Vec<Value> = requests(&dir.join("round-1"))
        .values()
        .flatten()
        .map(|r| {
            let id = r["custom_id"].as_str().unwrap_or("");
            let sample = id.rsplit('-').next().unwrap_or("");
            vllm_line(id, chat(said.get(sample).copied().unwrap_or("")))
        })
        .collect();
    assert_eq!(r1.len(), 3);
    let a1 = s.join("a1.jsonl");
    write_lines(&a1, &r1);
    let out = batch(&["import", dir_s, a1.to_str().unwrap_or_default()]);
    assert_ok(&out);
    assert!(
        texts(&out).0.contains("round 2: 3 request(s)"),
        "{}",
        texts(&out).0
    );
    // round 2: the judge grades, in Anthropic's results shape
    let r2: Vec<Value> = requests(&dir.join("round-2"))
        .values()
        .flatten()
        .map(|r| {
            let prompt = r["body"]["messages"].to_string();
            let grade = if prompt.contains("Answer to grade:\\n5.") {
                "INCORRECT"
            } else {
                "CORRECT"
            };
            json!({"custom_id": r["custom_id"], "result": {"type": "succeeded", "message": {
                "content": [{"type": "text", "text": format!("Checked.\nGRADE: {grade}")}],
                "stop_reason": "end_turn", "usage": {"input_tokens": 50, "output_tokens": 5}}}})
        })
        .collect();
    let a2 = s.join("a2.jsonl");
    write_lines(&a2, &r2);
    let out = batch(&["import", dir_s, a2.to_str().unwrap_or_default()]);
    assert_ok(&out);
    assert!(
        texts(&out).0.contains("every call is settled"),
        "{}",
        texts(&out).0
    );
    let report = read_json(&dir.join("report.json"));
    let correct = report["report"]["summaries"]
        .as_array()
        .and_then(|s| s.iter().find(|m| m["metric"] == "correct"))
        .cloned()
        .unwrap_or(Value::Null);
    assert_eq!(correct["sample_count"], 3, "{correct}");
    assert!(
        (correct["mean"].as_f64().unwrap_or(0.0) - 2.0 / 3.0).abs() < 1e-9,
        "{correct}"
    );
    // input it cannot read: exit 2
    let out = batch(&[
        "import",
        dir_s,
        s.join("nope.jsonl").to_str().unwrap_or_default(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let out = batch(&[
        "import",
        s.join("not-a-batch").to_str().unwrap_or_default(),
        a1.to_str().unwrap_or_default(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    // a bad line is reported and skipped
    let bad = s.write("bad.jsonl", "not json\n");
    let out = batch(&["import", dir_s, bad.to_str().unwrap_or_default()]);
    assert_ok(&out);
    assert!(texts(&out).1.contains("bad.jsonl:1"), "{}", texts(&out).1);
}

#[test]
fn models_that_answer_in_process_have_nothing_to_export() {
    let s = Scratch::new("batch-mock");
    let data = demo_task_data();
    let out = batch(&[
        "export",
        "--task",
        "event_eval",
        "--dataset",
        data.to_str().unwrap_or_default(),
        "--mock",
        "--out",
        s.join("b").to_str().unwrap_or_default(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(texts(&out).1.contains("nothing to export"));
}

#[test]
fn a_task_whose_prompt_renders_for_no_sample_has_nothing_to_export_and_says_why() {
    let s = Scratch::new("batch-no-prompt");
    // no sample has `ticker`, which the template prints
    let data = s.join("d.jsonl");
    std::fs::write(
        &data,
        concat!(
            "{\"sample_id\":\"A\",\"news_items\":[],\"gt_sentiment\":\"neutral\",\"gt_impact_score\":0,\"gt_keywords\":[]}\n",
            "{\"sample_id\":\"B\",\"news_items\":[],\"gt_sentiment\":\"neutral\",\"gt_impact_score\":0,\"gt_keywords\":[]}\n",
        ),
    )
    .expect("write dataset");
    let mock = Mock::start(&[]);
    let registry = s.join("r.json");
    std::fs::write(
        &registry,
        format!(r#"[{{"name": "m", "base_url": "{}"}}]"#, mock.url),
    )
    .expect("write registry");
    let dir = s.join("b");
    let out = batch(&[
        "export",
        "--task",
        "event_eval",
        "--dataset",
        data.to_str().unwrap_or_default(),
        "--models",
        "m",
        "--model-registry",
        registry.to_str().unwrap_or_default(),
        "--out",
        dir.to_str().unwrap_or_default(),
    ]);
    let stderr = texts(&out).1;
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("nothing to export: the run stopped before sending anything")
            && stderr.contains("field `ticker` (user) is missing from 2 sample(s)")
            && stderr.contains("d.jsonl:1, sample `A`")
            && stderr.contains("then export again"),
        "{stderr}"
    );
    assert!(!stderr.contains("in process"), "not the cause: {stderr}");
    assert!(!dir.join("batch.json").exists() && !dir.join(".drive").exists());
}
