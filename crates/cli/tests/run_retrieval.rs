//! `evalpage run --retrieval` against a real `evalpage mock-server` process
//! (its `/v1/retrieve` route, the demo retriever): the same numbers as the
//! offline demo retriever and as `score --retrieval` over the same lists,
//! spec 000's retrieval fields in the log, retries of injected 429s/500s, a
//! custom body and list path, answers without a list, a closed port, and
//! bad templates or paths refused before anything runs.

mod common;

use common::*;
use evalpage_core::events;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn cases() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../www/demo/demo_retrieval.jsonl")
}

fn retrieve(out: &Path, extra: &[&str]) -> std::process::Output {
    let dataset = cases();
    let mut args = vec![
        "--retrieval",
        "--dataset",
        dataset.to_str().expect("utf-8"),
        "--k",
        "3",
        "--out",
        out.to_str().expect("utf-8"),
    ];
    args.extend_from_slice(extra);
    run(&args)
}

/// metric -> mean, from eval_retrieval_report.json.
fn means(dir: &Path) -> Vec<(String, f64)> {
    let report = read_json(&dir.join("eval_retrieval_report.json"));
    report["report"]["summaries"]
        .as_array()
        .expect("summaries")
        .iter()
        .map(|s| {
            (
                s["metric"].as_str().expect("metric").to_string(),
                s["mean"].as_f64().expect("mean"),
            )
        })
        .collect()
}

fn records(dir: &Path) -> Vec<Value> {
    let bytes = std::fs::read(dir.join("eval_retrieval_report.events.jsonl")).expect("log");
    events::read(&bytes).records
}

#[test]
fn the_endpoint_run_scores_as_the_offline_retriever_and_as_score_retrieval() {
    let mock = Mock::start(&[]);
    let dir = Scratch::new("retrieval-run");
    let url = format!("{}/retrieve", mock.url);
    let (http, offline) = (dir.join("http"), dir.join("offline"));
    assert_ok(&retrieve(&http, &["--endpoint", &url]));
    assert_ok(&retrieve(&offline, &[]));
    assert_eq!(means(&http), means(&offline));
    let m = means(&http);
    let names: Vec<&str> = m.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["hit_at_k", "recall_at_k", "mrr", "ndcg_at_k"]);

    // spec 000's retrieval fields, one case record per case
    let recs = records(&http);
    let meta = &recs[0];
    assert_eq!(meta["record_type"], "meta");
    assert_eq!(meta["k"], 3);
    assert_eq!(meta["endpoint"], url.as_str());
    let case_recs: Vec<&Value> = recs.iter().filter(|r| r["record_type"] == "case").collect();
    assert_eq!(case_recs.len(), 16);
    for r in &case_recs {
        for f in [
            "bucket",
            "query",
            "expected_sources",
            "hit_at_k",
            "topk",
            "elapsed_ms",
        ] {
            assert!(!r[f].is_null(), "{f} in {r}");
        }
        assert!(r["topk"].as_array().expect("topk").len() <= 3);
    }
    let summary = recs.last().expect("summary");
    assert_eq!(summary["record_type"], "summary");
    assert_eq!(summary["metrics"]["hit_cases"], 15);
    assert!((summary["metrics"]["hit_rate"].as_f64().expect("rate") - 15.0 / 16.0).abs() < 1e-9);

    // The lists the endpoint returned, scored again by `score --retrieval`.
    let lists: String = std::fs::read_to_string(http.join("results.jsonl"))
        .expect("results")
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("json");
            format!(
                "{}\n",
                serde_json::json!({"case_id": v["sample_id"], "sources": v["raw"]["topk"]})
            )
        })
        .collect();
    let lists_file = dir.write("lists.jsonl", &lists);
    let scored = dir.join("scored");
    let mut cmd = evalpage();
    cmd.args(["score", "--retrieval", "--k", "3", "--dataset"])
        .arg(cases())
        .arg("--responses")
        .arg(&lists_file)
        .arg("--out")
        .arg(&scored);
    assert_ok(&finish(cmd));
    // hit, recall and nDCG only read the first k; MRR reads the whole list,
    // which the top-k file cuts, and the demo retriever has no hit after 3.
    assert_eq!(means(&scored), means(&http));
}

#[test]
fn injected_rate_limits_and_server_errors_are_retried() {
    let mock = Mock::start(&[
        "--rate-limit-rate",
        "0.3",
        "--fail-rate",
        "0.2",
        "--seed",
        "5",
    ]);
    let dir = Scratch::new("retrieval-faults");
    let url = format!("{}/retrieve", mock.url);
    let out = dir.join("out");
    assert_ok(&retrieve(
        &out,
        &["--endpoint", &url, "--max-attempts", "8"],
    ));
    let offline = dir.join("offline");
    assert_ok(&retrieve(&offline, &[]));
    assert_eq!(
        means(&out),
        means(&offline),
        "every case answered in the end"
    );
    let retried = records(&out)
        .iter()
        .filter(|r| r["record_type"] == "case" && r["attempts"].as_u64().unwrap_or(0) > 1)
        .count();
    assert!(retried > 0, "some case needed more than one attempt");
}

#[test]
fn a_custom_body_and_list_path_are_used() {
    let mock = Mock::start(&[]);
    let dir = Scratch::new("retrieval-custom");
    let url = format!("{}/retrieve", mock.url);
    let body = dir.write(
        "body.json.j2",
        "{\"q\": {{ query|tojson }}, \"k\": {{ k }}, \"filter\": {\"bucket\": {{ bucket|tojson }}}}",
    );
    let out = dir.join("out");
    let at_body = format!("@{}", body.display());
    assert_ok(&retrieve(
        &out,
        &[
            "--endpoint",
            &url,
            "--body",
            &at_body,
            "--list-path",
            "$.results[*].source",
        ],
    ));
    let offline = dir.join("offline");
    assert_ok(&retrieve(&offline, &[]));
    assert_eq!(means(&out), means(&offline));
    let report = read_json(&out.join("eval_retrieval_report.json"));
    let rc = &report["report"]["experiment"]["run_config"];
    assert_eq!(rc["list_path"], "$.results[*].source");
    assert_eq!(rc["mode"], "run");
}

#[test]
fn answers_without_a_list_and_a_closed_port_are_failed_cases_in_every_denominator() {
    let mock = Mock::start(&[]);
    let dir = Scratch::new("retrieval-nolist");
    let url = format!("{}/retrieve", mock.url);
    let out = dir.join("wrong-path");
    let done = retrieve(&out, &["--endpoint", &url, "--list-path", "hits[*].doc"]);
    assert_ok(&done);
    let report = read_json(&out.join("eval_retrieval_report.json"));
    let errors = report["report"]["error_cases"].as_array().expect("errors");
    assert_eq!(errors.len(), 16);
    let message = errors[0]["message"].as_str().expect("message");
    assert!(
        message.contains("no ranked list") && message.contains("hits"),
        "{message}"
    );
    assert_eq!(errors[0]["status"], "failed");
    assert_eq!(report["metrics"]["failed_calls"], 16);
    let hit = means(&out)
        .into_iter()
        .find(|(m, _)| m == "hit_at_k")
        .expect("hit");
    assert_eq!(hit.1, 0.0);
    let first = records(&out)
        .into_iter()
        .find(|r| r["record_type"] == "case")
        .expect("case");
    assert_eq!(first["error_detail"]["kind"], "invalid_response");
    assert!(first["error_detail"]["response_snippet"]
        .as_str()
        .expect("snippet")
        .contains("results"));

    let closed = format!("http://127.0.0.1:{}/retrieve", closed_port());
    let out = dir.join("closed");
    assert_ok(&retrieve(
        &out,
        &["--endpoint", &closed, "--max-attempts", "1"],
    ));
    let report = read_json(&out.join("eval_retrieval_report.json"));
    assert_eq!(report["metrics"]["failed_calls"], 16);
}

#[test]
fn bad_templates_and_paths_are_refused_before_anything_runs() {
    let dir = Scratch::new("retrieval-bad");
    for (flag, value, want) in [
        (
            "--body",
            "{\"q\": {{ query|tojson }",
            "request body template",
        ),
        ("--list-path", "results[x]", "list path"),
    ] {
        let out = dir.join(flag.trim_start_matches('-'));
        let done = retrieve(&out, &[flag, value]);
        let (_, stderr) = texts(&done);
        assert_eq!(done.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(want), "{stderr}");
        assert!(!out.join("eval_retrieval_report.json").exists());
    }
    // A body that renders to something that is not JSON: every case fails
    // without a call, and says why.
    let out = dir.join("not-json");
    assert_ok(&retrieve(
        &out,
        &["--body", "{\"q\": \"{{ query }}\" extra}"],
    ));
    let report = read_json(&out.join("eval_retrieval_report.json"));
    let message = report["report"]["error_cases"][0]["message"]
        .as_str()
        .expect("message");
    assert!(
        message.contains("not JSON") && message.contains("tojson"),
        "{message}"
    );
}

/// A retrieval run cut after 6 of its 16 cases and resumed with
/// `--resume-from` sends only the other 10 and writes the uninterrupted
/// run's report (apart from ids and times), under the interrupted run's id.
#[test]
fn a_cut_retrieval_run_resumes_from_its_log_and_sends_only_the_rest() {
    let dir = Scratch::new("retrieval-resume");
    let full_mock = Mock::start(&[]);
    let full_url = format!("{}/retrieve", full_mock.url);
    let full = dir.join("full");
    assert_ok(&retrieve(&full, &["--endpoint", &full_url]));

    // the interrupted run: its log up to the sixth settled case
    let text =
        std::fs::read_to_string(full.join("eval_retrieval_report.events.jsonl")).expect("log");
    let mut kept = Vec::new();
    let mut cases = 0;
    for line in text.lines() {
        let v: Value = serde_json::from_str(line).expect("json line");
        if v["record_type"] == "case" {
            assert!(v["answer"].is_string(), "a case record keeps its answer");
            cases += 1;
            if cases > 6 {
                break;
            }
        }
        kept.push(line);
    }
    let cut = dir.write("cut.events.jsonl", &(kept.join("\n") + "\n"));

    let mock = Mock::start_logged(&[]);
    let url = format!("{}/retrieve", mock.url);
    let resumed = dir.join("resumed");
    let out = retrieve(
        &resumed,
        &[
            "--endpoint",
            &url,
            "--resume-from",
            cut.to_str().expect("utf-8"),
        ],
    );
    assert_ok(&out);
    let (_, stderr) = texts(&out);
    assert!(
        stderr.contains("6 of 16 cases already settled, sending 10"),
        "{stderr}"
    );
    let sent = mock
        .stop_and_read_log()
        .lines()
        .filter(|l| l.contains("POST /v1/retrieve"))
        .count();
    assert_eq!(sent, 10, "only the unsettled cases are sent");

    let (a, b) = (
        read_json(&full.join("eval_retrieval_report.json")),
        read_json(&resumed.join("eval_retrieval_report.json")),
    );
    assert_eq!(a["report"]["summaries"], b["report"]["summaries"]);
    assert_eq!(a["scores"], b["scores"]);
    let first: Value = serde_json::from_str(kept[0]).expect("meta");
    let log = records(&resumed);
    assert_eq!(
        log[0]["run_id"], first["run_id"],
        "the resumed run keeps the interrupted run's id"
    );
    let n = log.iter().filter(|r| r["record_type"] == "case").count();
    assert_eq!(n, 16, "the new log is complete");
}
