//! Agent runs with scripted tools on the CLI's `run` path
//! (`examples/agent/bank.yaml`): the loop records the scripted trajectory,
//! every step is a `step` record, the same report comes from the mock model
//! in process and from `evalpage mock-server` over HTTP, seeded faults are
//! the same at concurrency 1 and 8, the step limit ends a case as
//! `step_limit` (in every denominator), a log cut mid-run resumes without
//! asking a settled case again, and bad calls and bad scripts are told, not
//! fatal.

mod common;

use common::*;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The example task, with `edit` applied to its text, written beside a copy
/// of its prompt.
fn task_with(s: &Scratch, edit: impl Fn(String) -> String) -> PathBuf {
    let text = std::fs::read_to_string(agent_example("bank.yaml")).expect("task");
    let prompt = std::fs::read_to_string(agent_example("bank_prompt.yaml")).expect("prompt");
    s.write("bank_prompt.yaml", &prompt);
    s.write("bank.yaml", &edit(text))
}

/// One message as (role, calls as (name, arguments as JSON), tool text).
type Shape = (String, Vec<(String, Value)>, String);

/// A trajectory's messages, ids left out.
fn shape(t: &Value) -> Vec<Shape> {
    t.as_array()
        .into_iter()
        .flatten()
        .map(|m| {
            let calls = m["tool_calls"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|c| {
                    let args = c["function"]["arguments"].as_str().unwrap_or("null");
                    (
                        c["function"]["name"].as_str().unwrap_or("").to_string(),
                        serde_json::from_str(args).unwrap_or(Value::Null),
                    )
                })
                .collect();
            let text = if m["role"] == "tool" {
                m["content"].as_str().unwrap_or("").to_string()
            } else {
                String::new()
            };
            (m["role"].as_str().unwrap_or("").to_string(), calls, text)
        })
        .collect()
}

#[test]
fn the_loop_records_the_scripted_trajectory_and_logs_every_step() {
    let s = Scratch::new("agent-mock");
    let out = s.join("out");
    let results = run_task(
        &agent_example("bank.yaml"),
        &agent_example("bank.jsonl"),
        &out,
        &["--mock"],
    );
    assert_eq!(results.len(), 6);
    let samples = read_jsonl(&agent_example("bank.jsonl"));
    let mut played = 0;
    for (r, sample) in results.iter().zip(&samples) {
        assert_eq!(r["sample_id"], sample["sample_id"]);
        assert_eq!(r["status"], "ok", "{r}");
        let agent = &r["agent"];
        assert_eq!(agent["end"], "answered");
        if r["metrics"]["trajectory"]["value"] == 1.0 {
            // tools answered as scripted, the reference's messages in order
            let (got, want) = (
                shape(&r["trajectory"]),
                shape(&sample["expected_trajectory"]),
            );
            assert_eq!(got.len(), want.len(), "{}", r["sample_id"]);
            for (g, w) in got.iter().zip(&want) {
                assert_eq!((&g.0, &g.1), (&w.0, &w.1), "{}", r["sample_id"]);
                if g.0 == "tool" {
                    let (g, w): (Value, Value) = (
                        serde_json::from_str(&g.2).unwrap_or(json!(g.2)),
                        serde_json::from_str(&w.2).unwrap_or(json!(w.2)),
                    );
                    assert!(
                        w.as_object()
                            .is_none_or(|o| o.iter().all(|(k, v)| g.get(k) == Some(v)) || w == g),
                        "{g} vs {w}"
                    );
                }
            }
            played += 1;
        }
        let model_calls = agent["model_calls"].as_u64().unwrap_or(0) as usize;
        let assistants = r["trajectory"]
            .as_array()
            .map_or(0, |t| t.iter().filter(|m| m["role"] == "assistant").count());
        assert_eq!(model_calls, assistants);
        assert_eq!(agent["steps"].as_array().map_or(0, Vec::len), model_calls);
    }
    assert!(played >= 4, "{played} trajectories as the reference");
    // the mock skipped pay_rent's transfer: the diagnosis says so
    let pay = by_id(&results)["pay_rent"];
    assert_eq!(pay["metrics"]["trajectory"]["value"], 0.0);
    assert_eq!(pay["metrics"]["calls_made"]["value"], 0.0);
    let why = pay["metrics"]["calls_made"]["detail"].to_string();
    assert!(why.contains("transfer"), "{why}");
    // one step record per model call, its tools' answers with it
    let log = std::fs::read_to_string(out.join("report.events.jsonl")).expect("log");
    let steps = records(&log, "step");
    let calls: u64 = results
        .iter()
        .map(|r| r["agent"]["model_calls"].as_u64().unwrap_or(0))
        .sum();
    assert_eq!(steps.len() as u64, calls);
    let split: Vec<&Value> = steps.iter().filter(|s| s["case_id"] == "split").collect();
    assert_eq!(split.len(), 3);
    assert_eq!(split[0]["tools"].as_array().map_or(0, Vec::len), 2);
    assert_eq!(split[2]["end"], "answered");
    // the case record keeps the trajectory
    let cases = records(&log, "case");
    assert!(cases
        .iter()
        .all(|c| c["trajectory"].is_array() && c["agent"].is_object()));
}

#[test]
fn the_mock_server_over_http_gives_the_in_process_report() {
    let s = Scratch::new("agent-http");
    let (task, data) = (agent_example("bank.yaml"), agent_example("bank.jsonl"));
    let local = run_task(&task, &data, &s.join("local"), &["--mock"]);
    let mock = Mock::start(&[
        "--task",
        task.to_str().unwrap_or_default(),
        "--dataset",
        data.to_str().unwrap_or_default(),
    ]);
    let registry = s.write(
        "registry.json",
        &format!(
            r#"{{"models": [{{"name": "mock", "base_url": "{}"}}]}}"#,
            mock.url
        ),
    );
    let remote = run_task(
        &task,
        &data,
        &s.join("http"),
        &[
            "--models",
            "mock",
            "--model-registry",
            registry.to_str().unwrap_or_default(),
        ],
    );
    assert_eq!(local.len(), remote.len());
    for (a, b) in local.iter().zip(&remote) {
        assert_eq!(a["metrics"], b["metrics"], "{}", a["sample_id"]);
        assert_eq!(
            shape(&a["trajectory"]),
            shape(&b["trajectory"]),
            "{}",
            a["sample_id"]
        );
        assert_eq!(a["status"], b["status"]);
    }
}

/// Each case's faulted calls: (case, step, call, kind).
fn faults(results: &[Value]) -> Vec<(String, usize, usize, String)> {
    let mut out = Vec::new();
    for r in results {
        for (i, step) in r["agent"]["steps"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
        {
            for (k, t) in step["tools"].as_array().into_iter().flatten().enumerate() {
                if let Some(f) = t["fault"].as_str() {
                    out.push((
                        r["sample_id"].as_str().unwrap_or("").to_string(),
                        i,
                        k,
                        f.to_string(),
                    ));
                }
            }
        }
    }
    out.sort();
    out
}

#[test]
fn seeded_faults_are_the_same_at_concurrency_1_and_8() {
    let s = Scratch::new("agent-faults");
    let task = task_with(&s, |t| {
        t.replace(
            "  max_steps: 4",
            "  max_steps: 6\n  faults: {seed: 11, rate: 0.5}",
        )
    });
    let data = agent_example("bank.jsonl");
    let one = run_task(
        &task,
        &data,
        &s.join("c1"),
        &["--mock", "--concurrency", "1"],
    );
    let eight = run_task(
        &task,
        &data,
        &s.join("c8"),
        &["--mock", "--concurrency", "8"],
    );
    let f = faults(&one);
    assert!(!f.is_empty(), "a rate of 0.5 faults some calls");
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(s.join("c1/report.json")).expect("report"))
            .expect("json");
    assert_eq!(report["metrics"]["faulted_calls"], f.len());
    assert_eq!(f, faults(&eight));
    for (a, b) in one.iter().zip(&eight) {
        assert_eq!(a["metrics"], b["metrics"]);
        assert_eq!(a["agent"]["faults"], b["agent"]["faults"]);
    }
    // the mock retries a failed call once: a faulted case's trajectory is
    // longer than the reference, so strict matching fails where superset holds
    let retried = one.iter().any(|r| {
        r["metrics"]["trajectory"]["value"] == 0.0 && r["metrics"]["calls_made"]["value"] == 1.0
    });
    assert!(retried, "some case recovered from a fault");
    // another seed, other faults
    let other = task_with(&s, |t| {
        t.replace(
            "  max_steps: 4",
            "  max_steps: 6\n  faults: {seed: 12, rate: 0.5}",
        )
    });
    let again = run_task(&other, &data, &s.join("seed12"), &["--mock"]);
    assert_ne!(faults(&again), f);
}

#[test]
fn the_step_limit_ends_a_case_unexecuted_and_it_stays_in_the_denominators() {
    let s = Scratch::new("agent-limit");
    let task = task_with(&s, |t| t.replace("  max_steps: 4", "  max_steps: 1"));
    let out = s.join("out");
    let results = run_task(&task, &agent_example("bank.jsonl"), &out, &["--mock"]);
    let r = by_id(&results);
    assert_eq!(r["hello"]["status"], "ok");
    for id in ["balance", "pay_rent", "lost_card", "split", "closed"] {
        assert_eq!(r[id]["status"], "step_limit", "{id}");
        assert_eq!(r[id]["agent"]["end"], "step_limit");
        assert_eq!(
            r[id]["agent"]["tool_calls"], 0,
            "the last calls are not executed"
        );
        assert_eq!(r[id]["metrics"]["trajectory"]["value"], 0.0);
    }
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).expect("report"))
            .expect("json");
    assert_eq!(report["metrics"]["cases"], 6);
    assert_eq!(report["metrics"]["step_limit_cases"], 5);
    assert_eq!(
        report["metrics"]["failed_calls"], 0,
        "a step limit is no failed call"
    );
    let log = std::fs::read_to_string(out.join("report.events.jsonl")).expect("log");
    let steps = records(&log, "step");
    assert_eq!(steps.len(), 6, "one model call each");
    assert_eq!(steps.iter().filter(|s| s["end"] == "step_limit").count(), 5);
}

#[test]
fn a_cut_log_resumes_without_asking_a_settled_case_again() {
    let s = Scratch::new("agent-resume");
    let (task, data) = (agent_example("bank.yaml"), agent_example("bank.jsonl"));
    let full = run_task(
        &task,
        &data,
        &s.join("full"),
        &["--mock", "--concurrency", "1"],
    );
    let log = std::fs::read_to_string(s.join("full/report.events.jsonl")).expect("log");
    // cut in the middle of the third case's record
    let third = log
        .match_indices("\"record_type\":\"case\"")
        .nth(2)
        .map(|(i, _)| i)
        .expect("three cases");
    let cut = s.write("cut.jsonl", &log[..third + 10]);
    let settled: Vec<String> = records(&log[..third], "case")
        .iter()
        .map(|c| c["case_id"].as_str().unwrap_or("").to_string())
        .collect();
    assert_eq!(settled.len(), 2);
    // the third case's steps are in the cut log, its case record is not
    let third_id = records(&log, "case")[2]["case_id"]
        .as_str()
        .unwrap_or("")
        .to_string();
    assert!(records(&log[..third], "step")
        .iter()
        .any(|r| r["case_id"] == third_id.as_str()));
    let out = s.join("resumed");
    let resumed = run_task(
        &task,
        &data,
        &out,
        &["--mock", "--resume-from", cut.to_str().unwrap_or_default()],
    );
    assert_eq!(resumed.len(), full.len());
    for (a, b) in full.iter().zip(&resumed) {
        assert_eq!(a["metrics"], b["metrics"], "{}", a["sample_id"]);
        assert_eq!(a["trajectory"], b["trajectory"], "{}", a["sample_id"]);
        assert_eq!(a["agent"]["tool_calls"], b["agent"]["tool_calls"]);
    }
    let new_log = std::fs::read_to_string(out.join("report.events.jsonl")).expect("log");
    let asked: Vec<String> = records(&new_log, "step")
        .iter()
        .map(|c| c["case_id"].as_str().unwrap_or("").to_string())
        .collect();
    for id in &settled {
        assert!(!asked.contains(id), "{id} was settled and asked again");
    }
    assert!(!asked.is_empty());
    // the cut trajectory is run again from its first step, and the log says so
    let restarted: Vec<Value> = records(&new_log, "step")
        .into_iter()
        .filter(|r| r["restarted"] == true)
        .collect();
    assert_eq!(restarted.len(), 1, "{new_log}");
    assert_eq!(
        (
            restarted[0]["case_id"].as_str(),
            restarted[0]["step"].as_u64()
        ),
        (Some(third_id.as_str()), Some(1))
    );
}

#[test]
fn bad_calls_are_told_to_the_model_and_a_bad_script_fails_only_its_case() {
    let s = Scratch::new("agent-bad");
    let mut lines: Vec<Value> = read_jsonl(&agent_example("bank.jsonl"));
    // a sample without its scripted results
    if let Some(o) = lines[0].as_object_mut() {
        o.remove("tool_results");
    }
    let data = s.write(
        "bank.jsonl",
        &lines.iter().map(|l| format!("{l}\n")).collect::<String>(),
    );
    // a model that calls a tool nobody has and sends arguments that are not JSON
    let q = lines[1]["request"].as_str().unwrap_or("").to_string();
    let script = s.write(
        "script.jsonl",
        &format!(
            "{}\n",
            json!({"q": q, "answers": [
                {"role": "assistant", "content": null, "tool_calls": [
                    {"id": "a", "type": "function", "function": {"name": "rob_bank", "arguments": "{}"}},
                    {"id": "b", "type": "function", "function": {"name": "transfer", "arguments": "{from: A1"}}]},
                "I could not do it."
            ]})
        ),
    );
    let mock = Mock::start(&["--answers", script.to_str().unwrap_or_default()]);
    let registry = s.write(
        "registry.json",
        &format!(
            r#"{{"models": [{{"name": "m", "base_url": "{}"}}]}}"#,
            mock.url
        ),
    );
    let task = task_with(&s, |t| t);
    let results = run_task(
        &task,
        &data,
        &s.join("out"),
        &[
            "--models",
            "m",
            "--model-registry",
            registry.to_str().unwrap_or_default(),
        ],
    );
    let r = by_id(&results);
    let missing = r["balance"];
    assert_eq!(missing["status"], "error");
    let cause = missing["error_detail"]["cause"].to_string();
    assert!(cause.contains("field tool_results: missing"), "{cause}");
    let pay = r["pay_rent"];
    assert_eq!(pay["status"], "ok");
    assert_eq!(pay["agent"]["call_problems"], 2);
    let told: Vec<&str> = pay["trajectory"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["role"] == "tool")
        .filter_map(|m| m["content"].as_str())
        .collect();
    assert!(told[0].contains("no tool named \"rob_bank\""), "{told:?}");
    assert!(told[1].contains("not JSON"), "{told:?}");
    assert_eq!(pay["raw_answer"], "I could not do it.");
    assert!(results.iter().filter(|r| r["status"] == "ok").count() >= 4);
}

#[test]
fn repeats_with_faults_give_pass_at_k_and_pass_hat_k_over_trajectories() {
    let s = Scratch::new("agent-repeats");
    let task = task_with(&s, |t| {
        t.replace(
            "  max_steps: 4",
            "  max_steps: 6\n  faults: {seed: 5, rate: 0.4, kinds: [error]}",
        )
    });
    let out = s.join("out");
    let results = run_task(
        &task,
        &agent_example("bank.jsonl"),
        &out,
        &["--mock", "--repeats", "4"],
    );
    assert_eq!(results.len(), 24);
    // each repeat meets its own faults: a retried call makes a case's
    // strict trajectory fail in some repeats and not in others
    let mut by_case: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for r in &results {
        by_case
            .entry(r["sample_id"].as_str().unwrap_or("").to_string())
            .or_default()
            .push(r["metrics"]["trajectory"]["value"].as_f64().unwrap_or(-1.0));
    }
    assert!(
        by_case
            .values()
            .any(|v| v.contains(&1.0) && v.contains(&0.0)),
        "{by_case:?}"
    );
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).expect("report"))
            .expect("json");
    let summary = report["report"]["summaries"]
        .as_array()
        .and_then(|s| s.iter().find(|s| s["metric"] == "trajectory"))
        .expect("trajectory summary");
    // pass@4: a case passes in some repeat; pass^4: in every repeat
    let n = by_case.len() as f64;
    let any = by_case.values().filter(|v| v.contains(&1.0)).count() as f64 / n;
    let all = by_case
        .values()
        .filter(|v| v.iter().all(|x| *x == 1.0))
        .count() as f64
        / n;
    assert!(
        (summary["pass_at_k"]["4"].as_f64().unwrap_or(-1.0) - any).abs() < 1e-9,
        "{summary}"
    );
    assert!(
        (summary["pass_hat_k"]["4"].as_f64().unwrap_or(-1.0) - all).abs() < 1e-9,
        "{summary}"
    );
    assert!(all < any);
}

#[test]
fn scripted_results_are_read_from_a_file_beside_the_task() {
    let s = Scratch::new("agent-file");
    // every line's results in one file (the task no longer reads the lines')
    let mut all: Vec<Value> = Vec::new();
    for line in read_jsonl(&agent_example("bank.jsonl")) {
        all.extend(line["tool_results"].as_array().cloned().unwrap_or_default());
    }
    s.write("results.json", &Value::Array(all).to_string());
    let task = task_with(&s, |t| {
        t.replace("scripted: {field: tool_results}", "scripted: results.json")
    });
    let results = run_task(
        &task,
        &agent_example("bank.jsonl"),
        &s.join("out"),
        &["--mock"],
    );
    let r = by_id(&results);
    assert_eq!(r["balance"]["metrics"]["trajectory"]["value"], 1.0);
    assert_eq!(
        r["balance"]["trajectory"][1]["content"],
        r#"{"balance":120}"#
    );
    // a file that is not there is a located error before anything runs
    let missing = task_with(&s, |t| {
        t.replace("scripted: {field: tool_results}", "scripted: nope.json")
    });
    let mut cmd = evalpage();
    cmd.args(["run", "--mock", "--task"])
        .arg(&missing)
        .arg("--dataset")
        .arg(agent_example("bank.jsonl"))
        .arg("--out")
        .arg(s.join("bad"));
    let out = finish(cmd);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("nope.json") && err.contains("the task's scripted tool results"),
        "{err}"
    );
}

/// `evalpage compare` with these arguments: (exit code, stdout); stderr says
/// nothing unless the gate failed, and then says that.
fn compare(args: &[&std::path::Path], rules: &[&str]) -> (Option<i32>, String) {
    let mut cmd = evalpage();
    cmd.arg("compare").args(args);
    for r in rules {
        cmd.args(["--fail-if-drop", r]);
    }
    let out = finish(cmd);
    let (stdout, stderr) = texts(&out);
    let failed = "the regression gate failed: ";
    match out.status.code() {
        Some(1) => assert!(stderr.contains(failed), "{stderr}"),
        _ => assert!(stderr.trim().is_empty(), "{stderr}"),
    }
    (out.status.code(), stdout)
}

/// The printed table's row of a metric, cell by cell (the verdict one cell).
fn row(stdout: &str, metric: &str) -> Vec<String> {
    let line = stdout
        .lines()
        .find(|l| l.split_whitespace().next() == Some(metric))
        .unwrap_or_else(|| panic!("no row {metric} in\n{stdout}"));
    let cells: Vec<&str> = line
        .split("  ")
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect();
    cells.iter().map(|c| c.to_string()).collect()
}

/// A sample's trajectory value, the mean over its repeats.
fn trajectory_means(results: &[Value]) -> BTreeMap<String, f64> {
    let mut sums: BTreeMap<String, (f64, f64)> = BTreeMap::new();
    for r in results {
        let v = r["metrics"]["trajectory"]["value"]
            .as_f64()
            .expect("scored");
        let e = sums
            .entry(r["sample_id"].as_str().unwrap_or("").to_string())
            .or_default();
        *e = (e.0 + v, e.1 + 1.0);
    }
    sums.into_iter().map(|(k, (s, n))| (k, s / n)).collect()
}

#[test]
fn compare_gates_an_agent_change_on_the_trajectory_metric() {
    let s = Scratch::new("agent-compare");
    // bank.jsonl three times over (ids suffixed): enough cases for a drop to
    // be significant at 0.05
    let mut data = String::new();
    for copy in ["", "_b", "_c"] {
        for mut line in read_jsonl(&agent_example("bank.jsonl")) {
            let id = format!("{}{copy}", line["sample_id"].as_str().unwrap_or(""));
            line["sample_id"] = json!(id);
            data.push_str(&format!("{line}\n"));
        }
    }
    let data = s.write("bank.jsonl", &data);
    let base_dir = s.join("base");
    let base = run_task(&agent_example("bank.yaml"), &data, &base_dir, &["--mock"]);
    // the same agent, each case asked twice: compare takes a case's mean over
    // its repeats, so nothing changed
    let again_dir = s.join("again");
    let again = run_task(
        &agent_example("bank.yaml"),
        &data,
        &again_dir,
        &["--mock", "--repeats", "2"],
    );
    assert_eq!(again.len(), 2 * base.len());
    // a worse agent: one model call per case, so every case that needs a tool
    // ends at the step limit
    let limited = task_with(&s, |t| t.replace("  max_steps: 4", "  max_steps: 1"));
    let worse_dir = s.join("worse");
    let worse = run_task(&limited, &data, &worse_dir, &["--mock"]);

    let (b, a, w) = (
        trajectory_means(&base),
        trajectory_means(&again),
        trajectory_means(&worse),
    );
    assert_eq!(b.len(), 18);
    assert_eq!(b, a);
    let mean = |m: &BTreeMap<String, f64>| m.values().sum::<f64>() / m.len() as f64;
    let drops = b
        .iter()
        .filter(|(id, v)| **v == 1.0 && w[*id] == 0.0)
        .count();
    let rises = b
        .iter()
        .filter(|(id, v)| **v == 0.0 && w[*id] == 1.0)
        .count();
    assert_eq!(rises, 0);
    assert!(drops >= 6, "{drops} drops: too few for McNemar at 0.05");

    // equal runs: no change, the gate passes, exit 0
    let (code, out) = compare(&[&base_dir, &again_dir], &["trajectory=0.05"]);
    assert_eq!(code, Some(0), "{out}");
    let bm = format!("{:.4}", mean(&b));
    assert_eq!(
        row(&out, "trajectory")[..5],
        ["trajectory", "18", &bm, &bm, "+0.0000"],
        "{out}"
    );
    assert!(row(&out, "trajectory")
        .last()
        .is_some_and(|v| v == "no change, gate ok"));
    assert!(
        out.contains(&format!(
            "gate ok   trajectory: drop 0.0000 within the allowed 0.05 (base {bm}, new {bm}, n = 18)"
        )),
        "{out}"
    );
    assert!(!out.contains("repeated scores left out"), "{out}");

    // the worse run: the drop is larger than allowed and significant, exit 1;
    // the 0/1 metric by McNemar's test, the F1 (a mean per case) by the
    // paired bootstrap interval
    let (code, out) = compare(
        &[&base_dir, &worse_dir],
        &["trajectory=0.05", "call_f1=0.01"],
    );
    assert_eq!(code, Some(1), "{out}");
    let wm = format!("{:.4}", mean(&w));
    let drop = mean(&b) - mean(&w);
    let p = evalpage_core::fmt_p(2.0 * 0.5f64.powi(drops as i32));
    let cells = row(&out, "trajectory");
    assert_eq!(
        cells[..5],
        ["trajectory", "18", &bm, &wm, &format!("{:+.4}", -drop)],
        "{out}"
    );
    assert_eq!(cells[6], p, "{out}");
    assert_eq!(cells[7], "significant drop, gate FAIL");
    assert!(
        out.contains(&format!(
            "gate FAIL trajectory: drop {drop:.4} > allowed 0.05 and significant: McNemar exact p = {p} < 0.05 (b = {drops} regressions, c = 0 improvements)"
        )),
        "{out}"
    );
    let f1 = |rs: &[Value]| {
        rs.iter()
            .map(|r| r["metrics"]["call_f1"]["value"].as_f64().expect("scored"))
            .sum::<f64>()
            / rs.len() as f64
    };
    let f1_drop = f1(&base) - f1(&worse);
    assert!(
        out.contains(&format!(
            "gate FAIL call_f1: drop {f1_drop:.4} > allowed 0.01 and significant: paired 95% bootstrap interval of the change ["
        )) && out.contains("excludes 0"),
        "{out}"
    );
    assert_eq!(row(&out, "call_f1")[6], "-", "no McNemar for a mean F1");
    // a larger allowance than the drop passes the same runs
    let (code, out) = compare(
        &[&base_dir, &worse_dir],
        &[format!("trajectory={:.4}", drop + 0.01).as_str()],
    );
    assert_eq!(code, Some(0), "{out}");
}

/// An assistant message calling one tool.
fn calling(id: &str, name: &str, args: Value) -> Value {
    json!({"role": "assistant", "content": null, "tool_calls": [
        {"id": id, "type": "function", "function": {"name": name, "arguments": args.to_string()}}
    ]})
}

#[test]
fn tool_call_f1_scores_every_call_of_a_multi_step_trajectory() {
    let s = Scratch::new("agent-f1");
    // pay_rent expects get_balance(A1), then transfer(A1 -> LANDLORD, 800)
    let line = read_jsonl(&agent_example("bank.jsonl"))
        .into_iter()
        .find(|l| l["sample_id"] == "pay_rent")
        .expect("pay_rent");
    let data = s.write("bank.jsonl", &format!("{line}\n"));
    // a model that checks A2 too, one call a step: three calls over three steps
    let script = s.write(
        "script.jsonl",
        &format!(
            "{}\n",
            json!({"q": line["request"], "answers": [
                calling("a", "get_balance", json!({"account": "A1"})),
                calling("b", "get_balance", json!({"account": "A2"})),
                calling("c", "transfer", json!({"from": "A1", "to": "LANDLORD", "amount": 800})),
                "Sent 800 to LANDLORD."
            ]})
        ),
    );
    let mock = Mock::start(&["--answers", script.to_str().unwrap_or_default()]);
    let registry = s.write(
        "registry.json",
        &format!(
            r#"{{"models": [{{"name": "m", "base_url": "{}"}}]}}"#,
            mock.url
        ),
    );
    let results = run_task(
        &agent_example("bank.yaml"),
        &data,
        &s.join("out"),
        &[
            "--models",
            "m",
            "--model-registry",
            registry.to_str().unwrap_or_default(),
        ],
    );
    let r = &results[0];
    assert_eq!(r["agent"]["end"], "answered", "{r}");
    assert_eq!(r["agent"]["model_calls"], 4);
    assert_eq!(r["agent"]["tool_calls"], 3);
    // matched 2 of 3 made and of 2 expected: precision 2/3, recall 1,
    // F1 = 2 * (2/3) / (2/3 + 1) = 0.8 (the last step's call alone would
    // give 2/3, the first step's alone 2/3)
    let f1 = &r["metrics"]["call_f1"];
    assert_eq!(
        (
            &f1["detail"]["matched"],
            &f1["detail"]["made"],
            &f1["detail"]["expected"]
        ),
        (&json!(2), &json!(3), &json!(2)),
        "{f1}"
    );
    let close = |v: &Value, want: f64| (v.as_f64().unwrap_or(-1.0) - want).abs() < 1e-12;
    assert!(close(&f1["components"]["precision"], 2.0 / 3.0), "{f1}");
    assert!(close(&f1["components"]["recall"], 1.0), "{f1}");
    assert!(close(&f1["value"], 0.8), "{f1}");
    assert_eq!(
        f1["detail"]["calls"],
        json!([
            r#"get_balance({"account":"A1"})"#,
            r#"get_balance({"account":"A2"})"#,
            r#"transfer({"amount":800,"from":"A1","to":"LANDLORD"})"#
        ]),
        "{f1}"
    );
    // the extra call breaks the strict trajectory, not the superset one
    assert_eq!(r["metrics"]["trajectory"]["value"], 0.0);
    assert_eq!(r["metrics"]["calls_made"]["value"], 1.0);
}

#[test]
fn each_step_keeps_its_tokens_and_tools_and_the_case_sums_them() {
    let s = Scratch::new("agent-steps");
    // a tool answer whose characters are not its bytes
    let mut lines = read_jsonl(&agent_example("bank.jsonl"));
    let lost = lines
        .iter_mut()
        .find(|l| l["sample_id"] == "lost_card")
        .expect("lost_card");
    lost["tool_results"][0]["result"] = json!("gelée ✓ (frozen)");
    let data = s.write(
        "bank.jsonl",
        &lines.iter().map(|l| format!("{l}\n")).collect::<String>(),
    );
    // faults too: error answers and cut (malformed) ones are answers as well
    let task = task_with(&s, |t| {
        t.replace(
            "  max_steps: 4",
            "  max_steps: 6\n  faults: {seed: 11, rate: 0.5}",
        )
    });
    let out = s.join("out");
    let results = run_task(&task, &data, &out, &["--mock"]);
    assert_eq!(results.len(), 6);
    let log = std::fs::read_to_string(out.join("report.events.jsonl")).expect("log");
    let logged = records(&log, "step");
    let declared = ["get_balance", "transfer", "freeze_card"];
    let chars = |v: &Value| v.as_str().map_or(0, |t| t.chars().count()) as u64;
    let mut tool_answers = 0;
    let mut wide = false;
    for r in &results {
        let id = r["sample_id"].as_str().unwrap_or("");
        let agent = &r["agent"];
        let steps = agent["steps"].as_array().expect("steps");
        // tokens: each step's are its model call's usage (as the log's step
        // record says), and the case's are their sum and the run's usage
        let step_logs: Vec<&Value> = logged.iter().filter(|l| l["case_id"] == id).collect();
        assert_eq!(step_logs.len(), steps.len(), "{id}");
        for (k, (step, l)) in steps.iter().zip(&step_logs).enumerate() {
            assert_eq!(l["step"], k + 1, "{id}");
            let u = &l["answer"]["usage"];
            let want = u["prompt_tokens"].as_u64().expect("prompt")
                + u["completion_tokens"].as_u64().expect("completion");
            assert_eq!(step["tokens"], want, "{id} step {}", k + 1);
            assert!(step["latency_ms"].is_u64(), "{id} step {}", k + 1);
        }
        let summed: u64 = steps
            .iter()
            .map(|s| s["tokens"].as_u64().unwrap_or(0))
            .sum();
        assert!(summed > 0);
        assert_eq!(agent["tokens"], summed, "{id}");
        let usage = &r["raw"]["usage"];
        assert_eq!(
            usage["prompt_tokens"].as_u64().unwrap_or(0)
                + usage["completion_tokens"].as_u64().unwrap_or(0),
            summed,
            "{id}"
        );
        // which tool: each step's tools are its answer's calls, in order, by
        // name and id
        let asked: Vec<&Value> = r["trajectory"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|m| m["role"] == "assistant")
            .collect();
        assert_eq!(asked.len(), steps.len(), "{id}");
        for (step, m) in steps.iter().zip(&asked) {
            let calls: Vec<(&Value, &Value)> = m["tool_calls"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|c| (&c["id"], &c["function"]["name"]))
                .collect();
            let tools: Vec<(&Value, &Value)> = step["tools"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|t| (&t["id"], &t["name"]))
                .collect();
            assert_eq!(tools, calls, "{id}");
            assert!(tools
                .iter()
                .all(|(_, n)| n.as_str().is_some_and(|n| declared.contains(&n))));
        }
        // the result's size: the characters of the tools' answers, as the
        // model was sent them in the trajectory's tool messages
        let sent: Vec<&Value> = r["trajectory"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|m| m["role"] == "tool")
            .map(|m| &m["content"])
            .collect();
        let kept: Vec<&Value> = steps
            .iter()
            .flat_map(|s| s["tools"].as_array().into_iter().flatten())
            .map(|t| &t["content"])
            .collect();
        assert_eq!(sent, kept, "{id}");
        assert_eq!(agent["tool_calls"], kept.len(), "{id}");
        let size: u64 = sent.iter().map(|c| chars(c)).sum();
        assert_eq!(agent["result_chars"], size, "{id}");
        tool_answers += kept.len();
        wide |= sent
            .iter()
            .any(|c| c.as_str().is_some_and(|t| t.len() as u64 != chars(c)));
    }
    assert!(tool_answers >= 8, "{tool_answers} tool answers");
    assert!(
        wide,
        "a tool answer of more bytes than characters was counted"
    );
    assert!(
        results
            .iter()
            .any(|r| r["agent"]["faults"].as_u64() > Some(0)),
        "some calls were faulted"
    );
}
