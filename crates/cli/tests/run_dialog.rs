//! Spec 001 dialogs end to end: `evalpage run --dialogs` against a real
//! `evalpage mock-server --dialog-trace` (≥20 dialogs), every artifact checked
//! against spec 001's required fields; failed turns under injected faults;
//! `evalpage score --dialogs --dialog-trace` reproducing the run's metrics
//! from its own trace, and reading a v1.x trace with problems.

mod common;

use common::*;
use evalpage_core::events;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn dataset() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../www/demo/demo_dialogs.jsonl")
}

fn has(v: &Value, keys: &[&str], what: &str) {
    for k in keys {
        assert!(v.get(*k).is_some(), "{what} lacks required `{k}`: {v}");
    }
}

const MANIFEST: [&str; 8] = [
    "trace_version",
    "run_id",
    "dataset_path",
    "started_at",
    "model_name",
    "workers_dialog",
    "workers_judge",
    "counters",
];
const COUNTERS: [&str; 5] = [
    "total_dialogs",
    "valid_dialogs",
    "skipped_dialogs",
    "failed_dialogs",
    "total_turn_pairs",
];
const DIALOG: [&str; 6] = [
    "trace_version",
    "run_id",
    "dialog_id",
    "dataset_index",
    "dialog_status",
    "valid_dialog",
];
const TURN: [&str; 7] = [
    "turn_pair_id",
    "user_turn_abs_idx",
    "gt_assistant_abs_idx",
    "user_text",
    "gt_assistant_text",
    "gt_turn_tags",
    "turn_status",
];
const ROW: [&str; 9] = [
    "trace_version",
    "run_id",
    "dialog_id",
    "turn_pair_id",
    "eligible_m1",
    "eligible_m2",
    "eligible_m3",
    "eligible_m4",
    "eligible_m5",
];

/// Checks the five files of `out` against spec 001; returns (manifest, summary, traces, rows).
fn check_artifacts(out: &Path) -> (Value, Value, Vec<Value>, Vec<Value>) {
    let manifest = read_json(&out.join("run_manifest.json"));
    has(&manifest, &MANIFEST, "run_manifest.json");
    has(&manifest["counters"], &COUNTERS, "counters");
    assert_eq!(manifest["trace_version"], "v1");
    let started = manifest["started_at"].as_str().unwrap_or_default();
    assert!(
        started.ends_with('Z') && started.contains('T'),
        "ISO 8601: {started}"
    );
    let run_id = manifest["run_id"].as_str().unwrap_or_default().to_string();

    let traces = read_jsonl(&out.join("dialog_trace.jsonl"));
    for t in &traces {
        has(t, &DIALOG, "dialog_trace line");
        let status = t["dialog_status"].as_str().unwrap_or_default();
        assert!(
            ["ok", "partial", "failed", "skipped"].contains(&status),
            "{status}"
        );
        assert_eq!(t["run_id"], run_id.as_str());
        if t["valid_dialog"] == false {
            assert_eq!(status, "skipped");
            assert!(t["skip_reason"].as_str().is_some_and(|s| !s.is_empty()));
        }
        for turn in t["turns"].as_array().into_iter().flatten() {
            has(turn, &TURN, "turn");
            let s = turn["turn_status"].as_str().unwrap_or_default();
            assert!(["ok", "timeout", "error"].contains(&s), "{s}");
            let tags = &turn["gt_turn_tags"];
            has(
                tags,
                &[
                    "memory_required_keys_gt",
                    "risk_disclosure_required_gt",
                    "explainability_rubric_gt",
                ],
                "gt_turn_tags",
            );
        }
    }
    let rows = read_jsonl(&out.join("turn_eval.jsonl"));
    let valid: usize = traces
        .iter()
        .filter(|t| t["valid_dialog"] == true)
        .map(|t| t["turns"].as_array().map_or(0, Vec::len))
        .sum();
    assert_eq!(
        rows.len(),
        valid,
        "one row per pair of a valid dialog, none for skipped ones"
    );
    for r in &rows {
        has(r, &ROW, "turn_eval row");
        let n = r["required_keys_raw"].as_array().map_or(0, Vec::len);
        assert_eq!(
            r["resolved_keys"].as_array().map_or(0, Vec::len),
            n,
            "one resolved key per raw key"
        );
        let resolvable = r["resolved_keys"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|k| k["resolvable"] == true)
            .count();
        let flags = r["key_hit_flags"].as_array().cloned().unwrap_or_default();
        let scored = r["m1_status"] == "scored";
        assert_eq!(flags.len(), if scored { resolvable } else { 0 }, "{r}");
        assert!(flags.iter().all(|f| f == 0 || f == 1), "§5: integers: {r}");
        assert_eq!(
            r["key_hit_sources"].as_array().map_or(0, Vec::len),
            flags.len(),
            "aligned with key_hit_flags"
        );
        for m in ["m1", "m2", "m3", "m3_judge", "m4", "m4_judge", "m5"] {
            let status = r[format!("{m}_status")].as_str().unwrap_or_default();
            assert!(
                ["scored", "not_run", "unscored", "not_eligible"].contains(&status),
                "{m}_status: {r}"
            );
        }
        for k in r["resolved_keys"].as_array().into_iter().flatten() {
            has(
                k,
                &["key", "resolvable", "target_text", "resolver"],
                "resolved key",
            );
        }
        has(
            &r["m1_source_hits"],
            &["short_term", "long_term", "profile"],
            "m1_source_hits",
        );
        if r["turn_status"] != "ok" {
            for m in [
                "eligible_m1",
                "eligible_m2",
                "eligible_m3",
                "eligible_m4",
                "eligible_m5",
            ] {
                assert_eq!(r[m], false, "a failed turn is not eligible: {r}");
            }
        }
        if r["required_keys_raw"].as_array().is_some_and(Vec::is_empty) {
            assert_eq!(r["eligible_m1"], false);
        }
        if r["risk_required_raw"].as_array().is_some_and(Vec::is_empty) {
            assert_eq!(r["eligible_m3"], false);
        }
        if r["rubric_required"].as_array().is_some_and(Vec::is_empty) {
            assert_eq!(r["eligible_m5"], false);
        }
    }
    let summary = read_json(&out.join("metrics_summary.json"));
    for (name, m) in summary["metrics"].as_object().into_iter().flatten() {
        has(
            m,
            &[
                "status",
                "value",
                "eligible_count",
                "skipped_count",
                "failed_count",
            ],
            name,
        );
        let sum: u64 = ["eligible_count", "skipped_count", "failed_count"]
            .iter()
            .map(|k| m[*k].as_u64().unwrap_or(0))
            .sum();
        assert_eq!(sum as usize, rows.len(), "{name}: every row counted once");
    }
    let progress = read_jsonl(&out.join(format!("progress_{run_id}.jsonl")));
    assert_eq!(
        progress.first().and_then(|p| p["event"].as_str()),
        Some("run_started")
    );
    assert_eq!(
        progress.last().and_then(|p| p["event"].as_str()),
        Some("run_finished")
    );
    assert_eq!(progress.len(), traces.len() + 2, "one line per dialog");
    (manifest, summary, traces, rows)
}

fn value(summary: &Value, metric: &str) -> Option<f64> {
    summary["metrics"][metric]["value"].as_f64()
}

#[test]
fn twenty_dialogs_against_the_mock_server_give_every_artifact_and_varied_metrics() {
    let data = dataset();
    let data_s = data.to_str().expect("utf-8");
    let mock = Mock::start(&["--dialog-trace", "field", "--dialogs", data_s]);
    let dir = Scratch::new("dialog-run");
    let out = dir.join("out");
    let mut cmd = evalpage();
    cmd.env("EVALPAGE_DIALOG_TEST_KEY", "sk-dialog-secret-4242")
        .args([
            "run",
            "--dialogs",
            data_s,
            "--endpoint",
            &mock.url,
            "--model",
            "memfin-mock",
        ])
        .args([
            "--api-key-env",
            "EVALPAGE_DIALOG_TEST_KEY",
            "--concurrency",
            "3",
            "--system-prompt",
            "你是理财顾问",
        ])
        .arg("--out")
        .arg(&out);
    let o = finish(cmd);
    assert_ok(&o);
    let (manifest, summary, traces, rows) = check_artifacts(&out);
    assert_eq!(manifest["model_name"], "memfin-mock");
    assert_eq!(manifest["workers_dialog"], 3);
    assert_eq!(manifest["workers_judge"], 0);
    let c = &manifest["counters"];
    assert_eq!(
        (
            c["total_dialogs"].as_u64(),
            c["valid_dialogs"].as_u64(),
            c["skipped_dialogs"].as_u64()
        ),
        (Some(22), Some(21), Some(1)),
        "dialogs that do not alternate are aligned; one with no pair at all is skipped"
    );
    let notes = |id: &str| {
        traces
            .iter()
            .find(|t| t["dialog_id"] == id)
            .map(|t| t["alignment_notes"].to_string())
            .unwrap_or_default()
    };
    assert!(notes("memfin-greeting-first")
        .contains("turn 0: an assistant turn that answers no user turn"));
    let skipped = traces
        .iter()
        .find(|t| t["dialog_id"] == "memfin-skip-no-answer")
        .map(|t| t["skip_reason"].to_string())
        .unwrap_or_default();
    assert!(skipped.contains("no turn pair to align"), "{skipped}");
    assert!(c["total_turn_pairs"].as_u64().unwrap_or(0) >= 60);
    assert!(traces
        .iter()
        .filter(|t| t["valid_dialog"] == true)
        .all(|t| t["dialog_status"] == "ok"));
    // the endpoint's trace fields are recorded
    let turn = &traces[0]["turns"][0];
    assert_eq!(turn["trace_source"], "evalpage_trace");
    for k in ["recall", "compliance", "profile_snapshot"] {
        assert!(turn.get(k).is_some(), "{k}: {turn}");
    }
    // varied, explainable values, not all 0 or 1
    for m in [
        "m1_memory_recall",
        "m2_constraint_contradiction",
        "m3_risk_disclosure",
        "m4_compliance",
    ] {
        let v = value(&summary, m).unwrap_or(-1.0);
        assert!(v > 0.0 && v < 1.0, "{m} = {v}");
        assert_eq!(summary["metrics"][m]["status"], "ok");
    }
    let sources = &summary["metrics"]["m1_memory_recall"]["details"]["source_hits"];
    for s in ["short_term", "long_term", "profile"] {
        assert!(
            sources[s].as_u64().unwrap_or(0) > 0,
            "M1 attributes hits to {s}: {sources}"
        );
    }
    assert!(
        summary["metrics"]["m1_memory_recall"]["details"]["unresolvable_keys"]
            .as_u64()
            .unwrap_or(0)
            > 0
    );
    for m in [
        "m3_risk_disclosure_judge",
        "m4_compliance_judge",
        "m5_explainability",
    ] {
        let s = &summary["metrics"][m];
        assert_eq!(
            (
                s["status"].as_str(),
                s["value"].as_f64(),
                s["scored_count"].as_u64()
            ),
            (Some("not_run"), None, Some(0)),
            "{m}"
        );
        assert!(s["reason"].as_str().is_some_and(|r| r.contains("judge")));
    }
    assert!(rows.iter().any(|r| r["resolved_keys"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|k| k["resolver"] == "history_user_turn")));
    assert!(rows.iter().any(|r| r["forbidden_hits"]
        .as_array()
        .is_some_and(|h| !h.is_empty())));
    // the event log: meta, one case per played dialog, summary; the key nowhere
    let log = events::read(&std::fs::read(out.join("report.events.jsonl")).expect("log"));
    let types: Vec<&str> = log
        .records
        .iter()
        .filter_map(|r| r["record_type"].as_str())
        .collect();
    assert_eq!(types.first(), Some(&"meta"));
    assert_eq!(types.last(), Some(&"summary"));
    assert_eq!(types.iter().filter(|t| **t == "case").count(), 21);
    let summary_rec = log.records.last().cloned().unwrap_or_default();
    assert!(summary_rec["final_report_path"]
        .as_str()
        .unwrap_or_default()
        .ends_with("metrics_summary.json"));
    let (stdout, stderr) = texts(&o);
    assert!(stdout.contains("[EVAL] dialog memfin-001 - ok"), "{stdout}");
    for entry in std::fs::read_dir(&out).expect("out dir").flatten() {
        let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
        assert!(
            !text.contains("sk-dialog-secret-4242"),
            "{}",
            entry.path().display()
        );
    }
    assert!(!stdout.contains("sk-dialog-secret") && !stderr.contains("sk-dialog-secret"));

    // scoring the run's own trace, with no model call, gives the same rows and metrics
    let rescored = dir.join("rescored");
    let mut cmd = evalpage();
    cmd.args(["score", "--dialogs", data_s, "--dialog-trace"])
        .arg(out.join("dialog_trace.jsonl"))
        .arg("--out")
        .arg(&rescored);
    assert_ok(&finish(cmd));
    let (m2, s2, _, rows2) = check_artifacts(&rescored);
    assert_eq!(rows2, rows, "the same turn_eval rows");
    assert_eq!(s2["metrics"], summary["metrics"]);
    assert_eq!(m2["run_id"], manifest["run_id"]);
    assert_eq!(m2["workers_dialog"], 0);
}

#[test]
fn message_style_traces_and_failed_turns_are_recorded_and_never_eligible() {
    let data = dataset();
    let data_s = data.to_str().expect("utf-8");
    let mock = Mock::start(&[
        "--dialog-trace",
        "message",
        "--dialogs",
        data_s,
        "--fail-rate",
        "0.15",
        "--seed",
        "7",
    ]);
    let dir = Scratch::new("dialog-faults");
    let out = dir.join("out");
    let o = run(&[
        "--dialogs",
        data_s,
        "--endpoint",
        &mock.url,
        "--model",
        "m",
        "--max-attempts",
        "1",
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    assert_ok(&o);
    let (manifest, summary, traces, rows) = check_artifacts(&out);
    let failed_rows = rows.iter().filter(|r| r["turn_status"] != "ok").count();
    assert!(failed_rows > 0, "some turns failed at a 15% fault rate");
    assert_eq!(
        summary["metrics"]["m3_risk_disclosure"]["failed_count"].as_u64(),
        Some(failed_rows as u64)
    );
    let broken: Vec<&Value> = traces
        .iter()
        .filter(|t| t["dialog_status"] == "partial" || t["dialog_status"] == "failed")
        .collect();
    assert!(!broken.is_empty());
    for t in &broken {
        let turns = t["turns"].as_array().cloned().unwrap_or_default();
        let first_bad = turns
            .iter()
            .position(|x| x["turn_status"] != "ok")
            .unwrap_or(turns.len());
        assert!(
            turns[first_bad..].iter().all(|x| x["turn_status"] != "ok"),
            "a dialog stops at its failed turn"
        );
        assert!(t["dialog_error"].as_str().is_some());
    }
    let c = &manifest["counters"];
    let partial_or_failed =
        c["failed_dialogs"].as_u64().unwrap_or(0) + c["partial_dialogs"].as_u64().unwrap_or(0);
    assert_eq!(partial_or_failed as usize, broken.len());
    let ok_turn = traces
        .iter()
        .flat_map(|t| t["turns"].as_array().cloned().unwrap_or_default())
        .find(|x| x["turn_status"] == "ok")
        .unwrap_or_default();
    assert_eq!(
        ok_turn["trace_source"], "message",
        "trace fields read from the JSON message"
    );
    // `evalpage reconcile` reads a dialog run's summary against its log
    let reconcile = |summary: &Path| {
        let mut cmd = evalpage();
        cmd.args(["reconcile", "--report"])
            .arg(summary)
            .arg("--events")
            .arg(out.join("report.events.jsonl"));
        finish(cmd)
    };
    let good = reconcile(&out.join("metrics_summary.json"));
    assert_ok(&good);
    assert!(texts(&good).0.lines().all(|l| l.starts_with("ok ")));
    let mut told = read_json(&out.join("metrics_summary.json"));
    told["counters"]["failed_dialogs"] = (c["failed_dialogs"].as_u64().unwrap_or(0) + 1).into();
    let wrong = dir.write("wrong_summary.json", &told.to_string());
    let bad = reconcile(&wrong);
    assert_eq!(bad.status.code(), Some(1), "{}", texts(&bad).0);
    assert!(texts(&bad).0.contains("FAIL case records passed"));
    assert!(
        !ok_turn["pred_assistant_text"]
            .as_str()
            .unwrap_or("{")
            .starts_with('{'),
        "the answer text, not the JSON"
    );
}

#[test]
fn the_demo_provider_plays_dialogs_offline_and_bad_dataset_lines_are_located() {
    let dir = Scratch::new("dialog-demo");
    let good = std::fs::read_to_string(dataset()).expect("dataset");
    let mut lines: Vec<&str> = good.lines().take(3).collect();
    lines.insert(
        1,
        r#"{"dialog_id":"bad","turns":[{"role":"robot","content":"x"}]}"#,
    );
    lines.push("{not json");
    let data = dir.write("dialogs.jsonl", &(lines.join("\n") + "\n"));
    let out = dir.join("out");
    let mut cmd = evalpage();
    cmd.args(["run", "--provider", "demo", "--dialogs"])
        .arg(&data)
        .arg("--out")
        .arg(&out);
    let o = finish(cmd);
    assert_ok(&o);
    let (_, stderr) = texts(&o);
    assert!(
        stderr
            .contains("dialogs.jsonl:2: field `turns[0].role`: expected \"user\" or \"assistant\""),
        "{stderr}"
    );
    assert!(
        stderr.contains("dialogs.jsonl:5: not valid JSON"),
        "{stderr}"
    );
    let (manifest, _, traces, _) = check_artifacts(&out);
    assert_eq!(manifest["counters"]["bad_lines"], 2);
    assert_eq!(traces.len(), 3);
    assert_eq!(manifest["model_name"], "evalpage-dialog-mock");
}

#[test]
fn score_reads_a_v1_x_trace_reports_its_problems_and_scores_the_rest() {
    let dir = Scratch::new("dialog-score");
    let data = dataset();
    let set: Vec<Value> = read_jsonl(&data);
    let d = &set[0];
    let turns = d["turns"].as_array().cloned().unwrap_or_default();
    let user = turns[0]["content"].as_str().unwrap_or_default();
    let gt = turns[1]["content"].as_str().unwrap_or_default();
    let tags = turns[1]["gt_turn_tags"].clone();
    let turn1 = serde_json::json!({"turn_pair_id": 1, "user_turn_abs_idx": 0, "gt_assistant_abs_idx": 1,
        "user_text": user, "gt_assistant_text": gt, "gt_turn_tags": tags, "turn_status": "ok",
        "pred_assistant_text": "您是保守型投资者，请注意市场存在不确定性。", "new_in_v1_1": 1,
        "compliance": {"is_compliant": true, "violations": []}});
    let line1 = serde_json::json!({"trace_version": "v1.1", "run_id": "ext-run", "dialog_id": d["dialog_id"],
        "dataset_index": 0, "dialog_status": "partial", "valid_dialog": true, "added_field": {"x": 1},
        "turns": [turn1]});
    let line2 = serde_json::json!({"trace_version": "v2", "run_id": "ext-run", "dialog_id": "memfin-002",
        "dataset_index": 1, "dialog_status": "ok", "valid_dialog": true});
    let line3 = serde_json::json!({"trace_version": "v1", "run_id": "ext-run", "dialog_id": "not-in-dataset",
        "dataset_index": 9, "dialog_status": "ok", "valid_dialog": true});
    let trace = dir.write("trace.jsonl", &format!("{line1}\n{line2}\n{line3}\n"));
    let out = dir.join("out");
    let mut cmd = evalpage();
    cmd.args(["score", "--dialogs"])
        .arg(&data)
        .arg("--dialog-trace")
        .arg(&trace)
        .arg("--out")
        .arg(&out);
    let o = finish(cmd);
    assert_ok(&o);
    let (stdout, stderr) = texts(&o);
    assert!(
        stderr.contains("trace.jsonl:2: field `trace_version`: `v2` is not v1 or v1.x"),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "trace.jsonl:3: field `dialog_id`: `not-in-dataset` is not a dialog of the dataset"
        ),
        "{stderr}"
    );
    assert!(stdout.contains("m5_explainability: - (not_run"), "{stdout}");
    let (manifest, summary, traces, rows) = check_artifacts(&out);
    assert_eq!(manifest["run_id"], "ext-run");
    assert_eq!(traces[0]["added_field"]["x"], 1, "fields of v1.x are kept");
    assert_eq!(traces[0]["turns"][0]["new_in_v1_1"], 1);
    // memfin-001 pair 2 is missing from the trace; other dialogs have no line: failed, in the denominators
    assert_eq!(traces[1]["dialog_status"], "failed");
    assert!(traces[1]["dialog_error"]
        .as_str()
        .unwrap_or_default()
        .contains("no line for this dialog_id"));
    let first = &rows[0];
    assert_eq!(first["turn_status"], "ok");
    assert_eq!(
        (
            &first["key_hit_flags"],
            &first["m1_status"],
            &first["eligible_m1"]
        ),
        (
            &serde_json::json!([]),
            &serde_json::json!("not_run"),
            &serde_json::json!(true)
        ),
        "no recall: eligible by §7, M1 not run"
    );
    assert!(first["skip_reasons"]["m1"]
        .as_str()
        .unwrap_or_default()
        .starts_with("no recall trace"));
    assert_eq!(
        summary["metrics"]["m1_memory_recall"]["details"]["turns_without_recall"],
        1
    );
    assert_eq!(manifest["m1_from_conversation"], false);
    assert_eq!(first["pred_compliance_label"], "compliant");
    let m4 = &summary["metrics"]["m4_compliance"];
    assert_eq!(
        (m4["eligible_count"].as_u64(), m4["value"].as_f64()),
        (Some(1), Some(1.0))
    );
    assert!(m4["failed_count"].as_u64().unwrap_or(0) > 60);

    // Asked to, M1 searches the conversation sent, and the manifest says so.
    let out = dir.join("out-conversation");
    let mut cmd = evalpage();
    cmd.args(["score", "--m1-from-conversation", "--dialogs"])
        .arg(&data)
        .arg("--dialog-trace")
        .arg(&trace)
        .arg("--out")
        .arg(&out);
    assert_ok(&finish(cmd));
    let (manifest, _, _, rows) = check_artifacts(&out);
    assert_eq!(manifest["m1_from_conversation"], true);
    assert_eq!(
        (&rows[0]["key_hit_flags"], &rows[0]["m1_status"]),
        (&serde_json::json!([1]), &serde_json::json!("scored")),
        "the user's own words are in the conversation sent"
    );
}

/// `run --dialogs` of the demo dialogs against `evalpage mock-server` started
/// with `mock_flags`, with `extra` run flags: (stdout, summary, rows, traces, manifest).
fn run_against(
    mock_flags: &[&str],
    extra: &[&str],
    name: &str,
) -> (String, Value, Vec<Value>, Vec<Value>, Value) {
    let data = dataset();
    let data_s = data.to_str().expect("utf-8");
    let mock = Mock::start(mock_flags);
    let dir = Scratch::new(name);
    let out = dir.join("out");
    let mut cmd = evalpage();
    cmd.args([
        "run",
        "--dialogs",
        data_s,
        "--endpoint",
        &mock.url,
        "--model",
        "plain",
    ])
    .args(extra)
    .arg("--out")
    .arg(&out);
    let o = finish(cmd);
    assert_ok(&o);
    let (manifest, summary, traces, rows) = check_artifacts(&out);
    // `evalpage report DIR` of a dialog run prints the metric lines the run printed
    let mut cmd = evalpage();
    cmd.arg("report").arg(&out);
    let r = finish(cmd);
    assert_ok(&r);
    let printed = texts(&r).0;
    let stdout = texts(&o).0;
    assert!(!printed.is_empty());
    for line in printed.lines() {
        assert!(
            stdout.contains(line),
            "{line} not in the run's output:\n{stdout}"
        );
    }
    (stdout, summary, rows, traces, manifest)
}

#[test]
fn run_m1_comes_from_the_recall_the_endpoint_returned_or_the_opt_in_only() {
    let data = dataset();
    let data_s = data.to_str().expect("utf-8");
    // A plain chat endpoint returns no recall: M1 has no value, and says why.
    let (stdout, summary, rows, traces, manifest) = run_against(&[], &[], "m1-plain");
    let m1 = &summary["metrics"]["m1_memory_recall"];
    assert_eq!(m1["status"], "not_run", "{m1}");
    assert_eq!(m1["value"], Value::Null);
    let without = m1["details"]["turns_without_recall"].as_u64().unwrap_or(0);
    assert!(without > 0, "{m1}");
    assert_eq!(
        m1["not_run_count"].as_u64(),
        Some(without),
        "§7: eligible, not run"
    );
    assert_eq!(m1["eligible_count"].as_u64(), Some(without));
    assert!(
        m1["reason"]
            .as_str()
            .unwrap_or("")
            .contains("had no recall trace"),
        "{m1}"
    );
    assert!(stdout.contains(&format!("no recall {without}")), "{stdout}");
    assert_eq!(manifest["m1_from_conversation"], false);
    assert!(
        traces
            .iter()
            .flat_map(|t| t["turns"].as_array().cloned().unwrap_or_default())
            .all(|t| t.get("recall").is_none()),
        "no recall is made up"
    );
    assert!(rows
        .iter()
        .filter(|r| r["m1_status"] == "not_run")
        .all(|r| r["eligible_m1"] == true));
    // spec 001's per-turn and per-dialog fields the run knows
    let played: Vec<&Value> = traces
        .iter()
        .filter(|t| t["valid_dialog"] == true)
        .collect();
    for t in &played {
        let id = t["dialog_id"].as_str().unwrap_or_default();
        assert_eq!(t["session_id"], format!("session_{id}"));
        assert_eq!(t["user_id"], format!("eval_user_{id}"));
        assert!(
            t["worker_id"].as_u64().is_some_and(|w| w < 4),
            "{}",
            t["worker_id"]
        );
        for turn in t["turns"].as_array().cloned().unwrap_or_default() {
            assert!(turn["latency_ms"].as_f64().is_some(), "{turn}");
        }
    }

    // An endpoint that returns recall (spec 001 §4.3's shape in `evalpage_trace`): M1 from it.
    let (_, summary, rows, _, _) = run_against(
        &["--dialog-trace", "field", "--dialogs", data_s],
        &[],
        "m1-recall",
    );
    let m1 = &summary["metrics"]["m1_memory_recall"];
    assert_eq!(m1["status"], "ok", "{m1}");
    assert!(
        m1["value"].as_f64().is_some_and(|v| v > 0.0 && v < 1.0),
        "{m1}"
    );
    assert_eq!(m1["details"]["turns_without_recall"], 0);
    assert!(rows
        .iter()
        .any(|r| r["m1_source_hits"]["long_term"].as_u64().unwrap_or(0) > 0));

    // The opt-in: the conversation sent is the recall, marked so, and the manifest says it.
    let (_, summary, _, traces, manifest) =
        run_against(&[], &["--m1-from-conversation"], "m1-conversation");
    assert_eq!(manifest["m1_from_conversation"], true);
    assert_eq!(summary["metrics"]["m1_memory_recall"]["status"], "ok");
    let turn = &traces[0]["turns"][0];
    assert_eq!(turn["recall"]["source"], "run_conversation", "{turn}");
}
