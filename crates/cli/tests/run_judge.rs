//! `evalpage run --task` with `llm_judge` metrics (issue 11), with the real
//! binary against `evalpage mock-server` over loopback playing both the
//! answering model and the judge: the example task of `examples/judge/`
//! (a built-in correctness judge with human labels, a pairwise judge, a
//! task's own judge prompt with repeats), checked in report.json, report.md,
//! summary.csv and the event log; a judged task without a judge exits 2 with
//! the metric's place.

mod common;

use common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/judge")
        .join(name)
}

#[test]
fn a_judged_task_against_the_mock_server_reports_every_judgement() {
    let task = example("judged_qa.yaml");
    let dataset = example("judged_qa.jsonl");
    let (task_s, data_s) = (task.display().to_string(), dataset.display().to_string());
    let mock = Mock::start_logged(&["--task", &task_s, "--dataset", &data_s]);
    let s = Scratch::new("judge-http");
    let registry = s.write(
        "registry.json",
        &format!(
            r#"{{"models": [
                {{"name": "alpha", "base_url": "{url}"}},
                {{"name": "grader", "base_url": "{url}", "model": "grader", "default_params": {{"temperature": 0.7}}}}
            ]}}"#,
            url = mock.url
        ),
    );
    let out_dir = s.join("out");
    let reg = registry.display().to_string();
    let out = run(&[
        "--task",
        &task_s,
        "--dataset",
        &data_s,
        "--models",
        "alpha",
        "--model-registry",
        &reg,
        "--judge",
        "grader",
        "--judge-concurrency",
        "2",
        "--out",
        &out_dir.display().to_string(),
    ]);
    assert_ok(&out);
    let (stdout, _) = texts(&out);
    assert!(stdout.contains("judged by grader"), "{stdout}");

    let report = read_json(&out_dir.join("report.json"));
    let details = report["report"]["llm_judge_details"]
        .as_array()
        .expect("details");
    let metrics: Vec<&str> = details
        .iter()
        .filter_map(|d| d["metric"].as_str())
        .collect();
    assert_eq!(metrics, ["correct", "vs_baseline", "concise"]);
    for d in details {
        assert_eq!(d["model"], "alpha");
        assert_eq!(d["judge_model"], "grader");
        assert_eq!(d["sample_count"], 8);
        assert_eq!(d["sample_ids"].as_array().map(Vec::len), Some(8));
        assert!(d["criteria"].as_array().is_some_and(|c| !c.is_empty()));
        let outcomes: u64 = ["pass", "fail", "tie", "unscored"]
            .iter()
            .filter_map(|k| d[*k].as_u64())
            .sum();
        assert_eq!(outcomes, 8, "every case has one outcome: {d}");
    }
    let correct = &details[0];
    assert_eq!(
        (
            correct["prompt_id"].as_str(),
            correct["prompt_version"].as_str()
        ),
        (Some("correctness"), Some("1"))
    );
    // Spec 003: the samples' language (these carry none), the prompt's apart.
    assert_eq!(correct["language"], Value::Null);
    assert_eq!(correct["prompt_language"], "en");
    assert!(correct["human_labelled"].as_u64().is_some_and(|n| n > 0));
    assert!(correct["human_agreement"].is_number());
    let pairwise = &details[1];
    assert!(pairwise["flip_rate"].is_number(), "{pairwise}");
    let concise = &details[2];
    assert_eq!(
        (
            concise["prompt_id"].as_str(),
            concise["prompt_version"].as_str()
        ),
        (Some("concise"), Some("2"))
    );
    assert_eq!(concise["samples_per_case"], 3);
    assert!(concise["repeat_agreement"].is_number(), "{concise}");

    // the summary's mean is over scored cases, with the unscored count beside it
    for s in report["report"]["summaries"].as_array().expect("summaries") {
        if s["metric"] == "f1" {
            continue;
        }
        let c = &s["components"];
        let scored = c["pass"].as_f64().unwrap_or(0.0)
            + c["fail"].as_f64().unwrap_or(0.0)
            + c["tie"].as_f64().unwrap_or(0.0);
        assert_eq!(s["sample_count"].as_f64(), Some(scored), "{s}");
        assert_eq!(s["skipped"].as_f64(), c["unscored"].as_f64(), "{s}");
        assert!(c["unscored_rate"].is_number());
    }

    let md = std::fs::read_to_string(out_dir.join("report.md")).expect("report.md");
    assert!(md.contains("## LLM 评审"), "{md}");
    assert!(
        md.contains("| alpha | concise | grader | concise v2 (en) |"),
        "{md}"
    );
    let csv = std::fs::read_to_string(out_dir.join("summary.csv")).expect("csv");
    assert!(
        csv.contains("tm_correct_unscored_rate") && csv.contains("tm_vs_baseline_flip_rate"),
        "{csv}"
    );

    // the event log keeps each judge call's raw answer and how it was read
    let events = read_jsonl(&out_dir.join("report.events.jsonl"));
    let cases: Vec<&Value> = events
        .iter()
        .filter(|e| e["record_type"] == "case")
        .collect();
    assert_eq!(cases.len(), 8);
    let mut froms = std::collections::BTreeSet::new();
    for c in &cases {
        let j = &c["judgements"];
        for name in ["correct", "vs_baseline", "concise"] {
            let slots = j[name]["detail"]["judgements"]
                .as_array()
                .expect("judgements");
            assert!(!slots.is_empty(), "{name}: {c}");
            for slot in slots {
                for a in slot["attempts"].as_array().expect("attempts") {
                    assert!(a["raw"].is_string());
                    froms.insert(
                        a["verdict"]["from"]
                            .as_str()
                            .unwrap_or(a["verdict"]["outcome"].as_str().unwrap_or(""))
                            .to_string(),
                    );
                }
            }
        }
        assert_eq!(
            j["vs_baseline"]["detail"]["judgements"]
                .as_array()
                .map(Vec::len),
            Some(2),
            "both orders"
        );
        assert_eq!(
            j["concise"]["detail"]["judgements"]
                .as_array()
                .map(Vec::len),
            Some(3),
            "three repeats"
        );
    }
    // the mock judge answers in every form, some unreadable
    for form in ["grade_line", "json", "brackets", "unscored"] {
        assert!(froms.contains(form), "{form} not seen: {froms:?}");
    }
    let reconciled = {
        let mut cmd = evalpage();
        cmd.args(["reconcile", "--report"])
            .arg(out_dir.join("report.json"))
            .arg("--events")
            .arg(out_dir.join("report.events.json-seq"));
        finish(cmd)
    };
    assert_ok(&reconciled);
    // 8 answers, then per case 1 + 2 + 3 judge calls (and repairs) over HTTP
    let log = mock.stop_and_read_log();
    let posts = log.matches("POST /v1/chat/completions -> 200").count();
    assert!(posts >= 8 + 8 * 6, "{posts} requests\n{log}");
}

#[test]
fn a_judged_task_without_a_judge_is_refused_with_the_metric_placed() {
    let task = example("judged_qa.yaml");
    let dataset = example("judged_qa.jsonl");
    let s = Scratch::new("judge-missing");
    let registry = s.write(
        "registry.json",
        r#"{"models": [{"name": "alpha", "base_url": "http://127.0.0.1:9/v1"}]}"#,
    );
    let out = run(&[
        "--task",
        &task.display().to_string(),
        "--dataset",
        &dataset.display().to_string(),
        "--models",
        "alpha",
        "--model-registry",
        &registry.display().to_string(),
        "--out",
        &s.join("out").display().to_string(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let (_, stderr) = texts(&out);
    assert!(
        stderr.contains("judged_qa.yaml:13: `metrics[1].type`: `correct` is an llm_judge metric and needs a judge model"),
        "{stderr}"
    );
    assert!(!s.join("out").join("report.json").exists());

    // a judge prompt file that does not fit the metric is placed in the task
    let bad = s.write(
        "bad_task.yaml",
        "name: t\nversion: v1\nprompt_template: qa.yaml\nmetrics:\n  - type: llm_judge\n    judge: pair.yaml\n",
    );
    s.write(
        "qa.yaml",
        "name: qa\nversion: v1\nuser: \"{{ question }}\"\n",
    );
    s.write(
        "pair.yaml",
        "id: pair\nversion: \"1\"\nlanguage: en\nmode: pairwise\nscale:\n  labels: [A, B]\nuser: \"{{ answer_a }} {{ answer_b }}\"\n",
    );
    let mut cmd = evalpage();
    cmd.args(["task", "check"]).arg(&bad);
    let out = finish(cmd);
    assert_eq!(out.status.code(), Some(2));
    let (_, stderr) = texts(&out);
    assert!(
        stderr.contains("bad_task.yaml:5: `metrics[0].baseline_field`: missing"),
        "{stderr}"
    );
}

#[test]
fn a_judged_run_resumed_from_a_cut_log_takes_over_its_judgements_and_reports_the_same() {
    let task = example("judged_qa.yaml");
    let dataset = example("judged_qa.jsonl");
    let (task_s, data_s) = (task.display().to_string(), dataset.display().to_string());
    let s = Scratch::new("judge-resume");
    // one run against a fresh server; returns the server's answered requests
    let judged_run = |name: &str, extra: &[&str]| -> usize {
        let mock = Mock::start_logged(&["--task", &task_s, "--dataset", &data_s]);
        let registry = s.write(
            &format!("{name}.registry.json"),
            &format!(
                r#"{{"models": [{{"name": "alpha", "base_url": "{url}"}},
                    {{"name": "grader", "base_url": "{url}", "model": "grader",
                      "price_in_per_mtok": 2, "price_out_per_mtok": 8}}]}}"#,
                url = mock.url
            ),
        );
        let (reg, out) = (
            registry.display().to_string(),
            s.join(name).display().to_string(),
        );
        let mut args = vec![
            "--task",
            &task_s,
            "--dataset",
            &data_s,
            "--models",
            "alpha",
            "--model-registry",
            &reg,
            "--judge",
            "grader",
            "--concurrency",
            "1",
            "--judge-concurrency",
            "1",
            "--out",
            &out,
        ];
        args.extend_from_slice(extra);
        let o = run(&args);
        assert_ok(&o);
        let log = mock.stop_and_read_log();
        log.matches("POST /v1/chat/completions -> 200").count()
    };
    let full_calls = judged_run("full", &[]);
    let log = std::fs::read_to_string(s.join("full/report.events.jsonl")).expect("log");
    // meta and three settled cases, then half of the fourth record: a crash mid-write
    let kept: Vec<&str> = log.lines().take(5).collect();
    assert!(kept[1..4].iter().all(|l| l.contains("\"judgements\"")));
    let fourth = kept[4];
    let cut = format!("{}\n{}", kept[..4].join("\n"), &fourth[..fourth.len() / 2]);
    let cut_path = s.write("cut.jsonl", &cut);
    let cut_s = cut_path.display().to_string();
    let resumed_calls = judged_run("resumed", &["--resume-from", &cut_s]);
    assert!(
        resumed_calls < full_calls,
        "the settled cases and their judgements are not sent again: {resumed_calls} vs {full_calls}"
    );
    assert!(
        resumed_calls + 3 * 7 <= full_calls,
        "{resumed_calls} vs {full_calls}"
    );
    let report = |d: &str| read_json(&s.join(d).join("report.json"));
    let (full, resumed) = (report("full"), report("resumed"));
    assert_eq!(full["report"]["summaries"], resumed["report"]["summaries"]);
    assert_eq!(
        full["report"]["llm_judge_details"],
        resumed["report"]["llm_judge_details"]
    );
    assert_eq!(full["cases"], resumed["cases"]);
    let scores = |d: &str| {
        let mut v: Vec<Value> = read_jsonl(&s.join(d).join("scores.jsonl"));
        v.sort_by_key(|x| x.to_string());
        v
    };
    assert_eq!(
        scores("full"),
        scores("resumed"),
        "every judgement the same"
    );
}
