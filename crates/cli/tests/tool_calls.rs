//! Tool calls on the CLI's paths, against BFCL's own verdicts
//! (`crates/core/tests/data/bfcl`, made by bfcl-eval 2026.3.23's checker):
//! `evalpage score --task bfcl` on BFCL's files with every answer of the
//! fixture, and `evalpage run --task bfcl` against `evalpage mock-server`
//! scripted to answer with those tool calls; both give BFCL's verdict on every
//! answer (a call whose arguments are not a JSON object is `parse_error`, the
//! one deliberate difference). Then bad input: located errors, the rest scored.

mod common;

use common::*;
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

fn bfcl() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/tests/data/bfcl")
}

/// The categories of the fixture, by file.
fn categories() -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(bfcl())
        .expect("fixture dir")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with("BFCL_v4_"))
        .collect();
    out.sort();
    out
}

/// BFCL's verdict, as evalpage gives it: (valid, error type).
fn expected(answer: &Value, verdict: &Value) -> (bool, Option<String>) {
    let variant = answer["variant"].as_str().unwrap_or("");
    let valid = verdict["valid"].as_bool().expect("valid");
    let t = verdict["error_type"].as_str();
    let unparsable = variant == "bad_json" || variant == "not_object";
    match t {
        Some(t) if t.starts_with("ast_decoder:") && variant != "text" => {
            (false, Some("parse_error".into()))
        }
        Some("relevance_error:decoder_failed") if unparsable => (false, Some("parse_error".into())),
        _ if valid && unparsable => (false, Some("parse_error".into())),
        _ => (valid, t.map(str::to_string)),
    }
}

/// `n` results, each an answer (not an error) that made a call list.
fn all_answered_with_calls(results: &[Value], n: usize) {
    assert_eq!(results.len(), n);
    assert!(
        results
            .iter()
            .all(|r| r["status"] == "ok" && r["tool_calls"].is_array()),
        "{results:?}"
    );
}

/// (id, variant) -> (answer, BFCL's verdict).
fn fixture() -> Vec<(Value, Value)> {
    let answers = read_jsonl(&bfcl().join("answers.jsonl"));
    let verdicts = read_jsonl(&bfcl().join("verdicts.jsonl"));
    assert_eq!(answers.len(), verdicts.len());
    answers.into_iter().zip(verdicts).collect()
}

/// scores.jsonl's `tool_call` rows as (sample, model) -> (value, error type).
fn scores(out: &Path) -> HashMap<(String, String), (Option<f64>, Option<String>)> {
    read_jsonl(&out.join("scores.jsonl"))
        .into_iter()
        .filter(|r| r["metric"] == "tool_call")
        .map(|r| {
            (
                (
                    r["sample_id"].as_str().unwrap_or("").to_string(),
                    r["detail"]["model"].as_str().unwrap_or("").to_string(),
                ),
                (
                    r["value"].as_f64(),
                    r["detail"]["error_type"].as_str().map(str::to_string),
                ),
            )
        })
        .collect()
}

#[test]
fn score_gives_bfcls_verdict_on_every_answer_of_every_category() {
    let s = Scratch::new("bfcl-score");
    let all = fixture();
    let mut checked = 0;
    for file in categories() {
        // each entry's answers as models v0, v1, ... (one answer per sample and model)
        let ids: HashSet<String> = read_jsonl(&bfcl().join(&file))
            .iter()
            .filter_map(|e| e["id"].as_str().map(str::to_string))
            .collect();
        let mut nth: HashMap<String, usize> = HashMap::new();
        let mut want = BTreeMap::new();
        let mut text = String::new();
        for (a, v) in all
            .iter()
            .filter(|(a, _)| ids.contains(a["id"].as_str().unwrap_or("")))
        {
            let id = a["id"].as_str().unwrap_or("").to_string();
            let n = nth.entry(id.clone()).or_default();
            let model = format!("v{n}");
            *n += 1;
            text.push_str(
                &json!({"sample_id": id, "model": model, "response": a["response"]}).to_string(),
            );
            text.push('\n');
            want.insert((id, model), (expected(a, v), a["variant"].clone()));
        }
        let responses = s.write(&format!("{file}.answers.jsonl"), &text);
        let out_dir = s.join(&file.replace(".json", ""));
        let mut cmd = evalpage();
        cmd.args(["score", "--task", "bfcl", "--dataset"])
            .arg(bfcl().join(&file))
            .arg("--responses")
            .arg(&responses)
            .arg("--out")
            .arg(&out_dir);
        let out = finish(cmd);
        assert_ok(&out);
        let got = scores(&out_dir);
        for ((id, model), ((valid, error_type), variant)) in &want {
            let (value, got_type) = got
                .get(&(id.clone(), model.clone()))
                .unwrap_or_else(|| panic!("{file}: no score for {id} {model}"));
            assert_eq!(
                (*value == Some(1.0), got_type),
                (*valid, error_type),
                "{file} {id} {variant}"
            );
            checked += 1;
        }
        // the report's breakdown: by category (tag) and by error type (components)
        let md = std::fs::read_to_string(out_dir.join("report.md")).expect("report.md");
        assert!(
            md.contains(&file.replace("BFCL_v4_", "").replace(".json", "")),
            "{file}: the category in the breakdown"
        );
        // each failed answer's error type and calls listed (the first ones)
        assert!(
            md.contains("## 工具调用失败") && md.contains("| tool_call | "),
            "{file}: report.md lists the failures"
        );
    }
    assert_eq!(checked, all.len(), "every answer of the fixture was scored");
}

#[test]
fn run_against_the_mock_server_gives_the_same_verdicts() {
    let s = Scratch::new("bfcl-run");
    let all = fixture();
    // One scripted answer per question: entry i of a category answers with
    // its (i mod k)-th variant, so every kind of answer is sent somewhere.
    let mut per_id: BTreeMap<String, Vec<&(Value, Value)>> = BTreeMap::new();
    for p in &all {
        per_id
            .entry(p.0["id"].as_str().unwrap_or("").to_string())
            .or_default()
            .push(p);
    }
    let mut script = String::new();
    let mut want: HashMap<String, ((bool, Option<String>), String)> = HashMap::new();
    let mut questions: HashMap<String, usize> = HashMap::new();
    let mut picked: HashMap<String, (String, &Value)> = HashMap::new();
    for file in categories() {
        for (i, e) in read_jsonl(&bfcl().join(&file)).iter().enumerate() {
            let id = e["id"].as_str().unwrap_or("").to_string();
            let last_user = e["question"][0]
                .as_array()
                .and_then(|m| m.iter().rev().find(|m| m["role"] == "user"))
                .and_then(|m| m["content"].as_str())
                .unwrap_or("")
                .to_string();
            *questions.entry(last_user.clone()).or_default() += 1;
            let Some(vs) = per_id.get(&id) else { continue };
            let (a, v) = vs[i % vs.len()];
            picked.insert(id.clone(), (last_user, a));
            want.insert(
                id,
                (
                    expected(a, v),
                    a["variant"].as_str().unwrap_or("").to_string(),
                ),
            );
        }
    }
    // a question asked by two entries cannot be scripted apart: left out
    want.retain(|id, _| questions[&picked[id].0] == 1);
    for (id, (q, a)) in &picked {
        if want.contains_key(id) {
            script.push_str(&json!({"q": q, "answer": a["response"]}).to_string());
            script.push('\n');
        }
    }
    assert!(want.len() > 250, "{} entries scripted", want.len());
    let answers = s.write("script.jsonl", &script);
    let mock = Mock::start(&["--answers", answers.to_str().unwrap_or_default()]);
    let registry = s.write(
        "registry.json",
        &format!(
            r#"{{"models": [{{"name": "fc", "base_url": "{}"}}]}}"#,
            mock.url
        ),
    );
    let mut checked = 0;
    for file in categories() {
        let out_dir = s.join(&file.replace(".json", ""));
        let mut cmd = evalpage();
        cmd.args([
            "run",
            "--task",
            "bfcl",
            "--models",
            "fc",
            "--model-registry",
        ])
        .arg(&registry)
        .arg("--dataset")
        .arg(bfcl().join(&file))
        .arg("--out")
        .arg(&out_dir);
        let out = finish(cmd);
        assert_ok(&out);
        let got = scores(&out_dir);
        let results = read_jsonl(&out_dir.join("results.jsonl"));
        for r in &results {
            let id = r["sample_id"].as_str().unwrap_or("");
            let Some(((valid, error_type), variant)) = want.get(id) else {
                continue;
            };
            assert_eq!(r["status"], "ok", "{id}: {r}");
            let (value, got_type) = &got[&(id.to_string(), "fc".to_string())];
            assert_eq!(
                (*value == Some(1.0), got_type),
                (*valid, error_type),
                "{file} {id} {variant}"
            );
            // the request carried the entry's functions as tools, and the
            // calls are in results.jsonl as the model sent them
            if let Some(calls) = r.get("tool_calls").and_then(Value::as_array) {
                assert!(calls
                    .iter()
                    .all(|c| c["name"].is_string() && c["arguments"].is_string()));
            }
            checked += 1;
        }
        let events = std::fs::read_to_string(out_dir.join("report.events.jsonl")).expect("events");
        assert!(
            events.contains("\"tool_calls\":[") || file.contains("irrelevance"),
            "{file}: calls in the event log"
        );
    }
    assert_eq!(checked, want.len());
}

#[test]
fn the_requests_carry_the_entry_s_functions_as_tools() {
    // The mock server logs the functions each chat request offered; the
    // task mock answers with calls (an offline tool-calling model).
    let s = Scratch::new("bfcl-tools");
    let data = bfcl().join("BFCL_v4_multiple.json");
    let mock = Mock::start_logged(&[
        "--task",
        "bfcl",
        "--dataset",
        data.to_str().unwrap_or_default(),
    ]);
    let registry = s.write(
        "registry.json",
        &format!(
            r#"{{"models": [{{"name": "fc", "base_url": "{}"}}]}}"#,
            mock.url
        ),
    );
    let mut cmd = evalpage();
    cmd.args([
        "run",
        "--task",
        "bfcl",
        "--models",
        "fc",
        "--max-samples",
        "3",
        "--model-registry",
    ])
    .arg(&registry)
    .arg("--dataset")
    .arg(&data)
    .arg("--out")
    .arg(s.join("out"));
    assert_ok(&finish(cmd));
    let log = mock.stop_and_read_log();
    let entries = read_jsonl(&data);
    for e in entries.iter().take(3) {
        let names: Vec<String> = e["function"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|f| f["name"].as_str().map(|n| n.replace('.', "_")))
            .collect();
        assert!(
            log.contains(&format!("tools {}", names.join(","))),
            "{names:?} not offered:\n{log}"
        );
    }
    all_answered_with_calls(&read_jsonl(&s.join("out/results.jsonl")), 3);
}

#[test]
fn bad_input_is_located_and_the_rest_is_scored() {
    let s = Scratch::new("bfcl-bad");
    // a BFCL file without its possible answers
    let lonely = s.write(
        "BFCL_v4_simple_python.json",
        &std::fs::read_to_string(bfcl().join("BFCL_v4_simple_python.json")).expect("fixture"),
    );
    let resp = s.write(
        "r.jsonl",
        "{\"sample_id\":\"simple_python_0\",\"response\":\"x\"}\n",
    );
    let mut cmd = evalpage();
    cmd.args(["score", "--task", "bfcl", "--dataset"])
        .arg(&lonely)
        .arg("--responses")
        .arg(&resp)
        .arg("--out")
        .arg(s.join("o1"));
    let out = finish(cmd);
    let (_, err) = texts(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("possible_answer/BFCL_v4_simple_python.json")
            && err.contains("--possible-answers"),
        "{err}"
    );
    // --possible-answers names it; bad responses are located and skipped
    let first = |n: usize| -> Vec<Value> {
        read_jsonl(&bfcl().join("answers.jsonl"))
            .into_iter()
            .filter(|a| {
                a["variant"] == "right"
                    && a["id"].as_str().unwrap_or("").starts_with("simple_python_")
            })
            .take(n)
            .collect()
    };
    let good = first(3);
    let text = [
        json!({"sample_id": good[0]["id"], "response": good[0]["response"]}).to_string(),
        json!({"sample_id": good[1]["id"], "response": {"role": "assistant", "tool_calls": {"name": "f"}}}).to_string(),
        json!({"sample_id": good[2]["id"], "response": {"role": "assistant", "content": null, "tool_calls": [{"id": "c", "type": "function", "function": {"name": "calculate_triangle_area", "arguments": "{\"base\": 10,"}}]}}).to_string(),
    ]
    .join("\n");
    let resp = s.write("r2.jsonl", &text);
    let mut cmd = evalpage();
    cmd.args(["score", "--task", "bfcl", "--dataset"])
        .arg(&lonely)
        .arg("--possible-answers")
        .arg(bfcl().join("possible_answer/BFCL_v4_simple_python.json"))
        .arg("--responses")
        .arg(&resp)
        .arg("--out")
        .arg(s.join("o2"));
    let out = finish(cmd);
    assert_ok(&out);
    let (_, err) = texts(&out);
    assert!(
        err.contains(
            "r2.jsonl:2: field `response.tool_calls`: expected a list of calls, found an object"
        ),
        "{err}"
    );
    let got = scores(&s.join("o2"));
    let id = |i: usize| good[i]["id"].as_str().unwrap_or("").to_string();
    assert_eq!(got[&(id(0), "responses".into())].0, Some(1.0));
    assert_eq!(
        got[&(id(2), "responses".into())],
        (Some(0.0), Some("parse_error".into()))
    );
    // the sample whose line was skipped is scored as unanswered (in every denominator)
    assert_eq!(got[&(id(1), "responses".into())].0, Some(0.0));
    // a task whose tools are not declarations
    let task = s.write(
        "t.yaml",
        "name: t\nversion: v1\nprompt_template: bfcl\ntools:\n  - name: f\n    parameters: {type: string}\nmetrics:\n  - type: tool_call\n",
    );
    let mut cmd = evalpage();
    cmd.args(["task", "check"]).arg(&task);
    let out = finish(cmd);
    let (o, e) = texts(&out);
    assert_ne!(out.status.code(), Some(0));
    assert!(
        format!("{o}{e}").contains("tools[0].parameters.type"),
        "{o}{e}"
    );
}

#[test]
fn batch_files_carry_the_tools_and_import_reads_the_calls_back() {
    let data = bfcl().join("BFCL_v4_multiple.json");
    let ds = data.to_str().unwrap_or_default();
    let mock = Mock::start(&["--task", "bfcl", "--dataset", ds]);
    let s = Scratch::new("bfcl-batch");
    let reg = s.write(
        "registry.json",
        &format!(
            r#"{{"models": [{{"name": "fc", "base_url": "{}"}}]}}"#,
            mock.url
        ),
    );
    let dir = s.join("batch");
    let flags = [
        "--task",
        "bfcl",
        "--dataset",
        ds,
        "--models",
        "fc",
        "--max-samples",
        "4",
        "--model-registry",
        reg.to_str().unwrap_or_default(),
    ];
    let mut cmd = evalpage();
    cmd.args(["batch", "export"])
        .args(flags)
        .arg("--out")
        .arg(&dir);
    assert_ok(&finish(cmd));
    let requests: Vec<Value> = std::fs::read_dir(dir.join("round-1"))
        .expect("round")
        .flatten()
        .flat_map(|e| read_jsonl(&e.path()))
        .collect();
    assert_eq!(requests.len(), 4);
    assert!(
        requests
            .iter()
            .all(|r| r["body"]["tools"].as_array().is_some_and(|t| !t.is_empty())),
        "every request offers the entry's functions"
    );
    // the batch engine's answers: each body asked of the mock (calls come back)
    let mut answered: Vec<Value> = requests
        .iter()
        .map(|r| {
            let body = chat_completion(&mock.url, &r["body"]);
            json!({"custom_id": r["custom_id"], "response": {"status_code": 200, "body": body}, "error": null})
        })
        .collect();
    // the first request answered twice: a failure after its answer
    let twice = answered[0]["custom_id"].as_str().unwrap_or("").to_string();
    answered
        .push(json!({"custom_id": twice, "response": null, "error": {"message": "overloaded"}}));
    let text: String = answered.iter().map(|a| format!("{a}\n")).collect();
    let answers = s.write("answers.jsonl", &text);
    let mut cmd = evalpage();
    cmd.args(["batch", "import"]).arg(&dir).arg(&answers);
    let out = finish(cmd);
    assert_ok(&out);
    let (_, err) = texts(&out);
    assert!(
        err.contains(&format!("custom_id {twice} is answered more than once"))
            && err.contains("answers.jsonl answer 1")
            && err.contains("an answer beats a failure"),
        "{err}"
    );
    all_answered_with_calls(&read_jsonl(&dir.join("results.jsonl")), 4);
}

#[test]
fn the_mock_server_plays_an_agent_loop() {
    // A question's n-th request gets the n-th scripted item: a call, then the
    // answer; the conversation it reads holds calls (content null) and results.
    let s = Scratch::new("bfcl-agent");
    let script = s.write(
        "script.jsonl",
        &format!(
            "{}\n",
            json!({"q": "2 + 3?", "answers": [
                {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "add", "arguments": "{\"x\": 2, \"y\": 3}"}}]},
                "5"
            ]})
        ),
    );
    let mock = Mock::start(&["--answers", script.to_str().unwrap_or_default()]);
    let ask =
        |messages: Value| chat_completion(&mock.url, &json!({"model": "m", "messages": messages}));
    let first = ask(json!([{"role": "user", "content": "2 + 3?"}]));
    let message = &first["choices"][0]["message"];
    assert_eq!(message["content"], Value::Null);
    assert_eq!(message["tool_calls"][0]["function"]["name"], "add");
    assert_eq!(first["choices"][0]["finish_reason"], "tool_calls");
    let second = ask(json!([
        {"role": "user", "content": "2 + 3?"},
        message,
        {"role": "tool", "tool_call_id": "c1", "content": "5"}
    ]));
    assert_eq!(second["choices"][0]["message"]["content"], "5");
    assert!(second["choices"][0]["message"].get("tool_calls").is_none());
}

#[test]
fn a_task_s_tools_file_is_read_beside_it_and_a_bad_one_is_located() {
    let s = Scratch::new("tools-file");
    s.write(
        "w.yaml",
        "name: w\nversion: v1\nprompt_template: ask\ntools: tools.json\nmetrics:\n  - type: tool_call_f1\n",
    );
    s.write("ask.yaml", "name: ask\nversion: v1\nuser: \"{{ q }}\"\n");
    s.write(
        "tools.json",
        r#"{"tools": [{"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}]}"#,
    );
    let data = s.write(
        "d.jsonl",
        r#"{"sample_id": "a", "q": "Weather in Paris?", "expected_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]}"#,
    );
    let mut cmd = evalpage();
    cmd.args(["run", "--mock", "--task"])
        .arg(s.join("w.yaml"))
        .arg("--dataset")
        .arg(&data)
        .arg("--out")
        .arg(s.join("out"));
    assert_ok(&finish(cmd));
    let r = &read_jsonl(&s.join("out/results.jsonl"))[0];
    assert_eq!(r["tool_calls"][0]["name"], "get_weather", "{r}");
    s.write("tools.json", r#"[{"name": "g", "parameters": "x"}]"#);
    let mut cmd = evalpage();
    cmd.args(["task", "check"]).arg(s.join("w.yaml"));
    let out = finish(cmd);
    let (o, e) = texts(&out);
    assert_ne!(out.status.code(), Some(0));
    assert!(
        format!("{o}{e}")
            .contains("tools.json: `tools[0].parameters`: expected a JSON Schema object"),
        "{o}{e}"
    );
}
