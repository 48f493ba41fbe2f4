//! `evalpage run --task` with the real binary, real files and a real mock
//! server on loopback: the offline mock model, several models from a registry
//! over HTTP with injected 500s (the same scores as the in-process mock), keys
//! that never reach a file, failed calls that stay recorded, prompts that cannot
//! be rendered (a run where none renders stops before any request, exit 3),
//! bad dataset lines, the refusals that exit 2, and the breakdown by length of
//! untagged samples in the run's, `score`'s and `report`'s report.md.

mod common;

use common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

const SECRET: &str = "sk-evalpage-task-secret-4242";

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/score")
        .join(name)
}

fn task_run(args: &[&str], out: &Path, env: &[(&str, &str)]) -> Output {
    let mut cmd = evalpage();
    cmd.arg("run").args(args).arg("--out").arg(out);
    for (k, v) in env {
        cmd.env(k, v);
    }
    finish(cmd)
}

fn reconcile(dir: &Path) -> Output {
    let mut cmd = evalpage();
    cmd.args(["reconcile", "--report"])
        .arg(dir.join("report.json"))
        .arg("--events")
        .arg(dir.join("report.events.json-seq"));
    finish(cmd)
}

fn every_file_text(dir: &Path) -> String {
    let mut all = String::new();
    for e in std::fs::read_dir(dir).expect("out dir").flatten() {
        all.push_str(&std::fs::read_to_string(e.path()).unwrap_or_default());
    }
    all
}

const FILES: [&str; 11] = [
    "results.jsonl",
    "scores.jsonl",
    "summary.csv",
    "report.md",
    "report.json",
    "summary.json",
    "run_meta.json",
    "dataset_fingerprint.json",
    "model_snapshot.json",
    "report.events.jsonl",
    "report.events.json-seq",
];

#[test]
fn mock_with_max_samples_writes_every_artifact_with_schema_valid_answers() {
    let s = Scratch::new("task-mock");
    let dataset = data("event_dataset.jsonl");
    let out = task_run(
        &[
            "--task",
            "event_eval",
            "--dataset",
            dataset.to_str().unwrap_or_default(),
            "--mock",
            "--models",
            "m1,m2",
            "--max-samples",
            "3",
        ],
        &s.0,
        &[],
    );
    assert_ok(&out);
    for f in FILES {
        assert!(s.join(f).is_file(), "{f} missing");
    }
    // Spec 003's summary.json is the EvaluationReport the report holds.
    assert_eq!(
        read_json(&s.join("summary.json")),
        read_json(&s.join("report.json"))["report"]
    );
    let results = read_jsonl(&s.join("results.jsonl"));
    assert_eq!(results.len(), 6, "3 samples x 2 models");
    for r in &results {
        assert_eq!(r["status"], "ok");
        assert_eq!(r["parse_problem"], false, "{r}");
        assert_eq!(r["attempts"], 1);
    }
    let models: Vec<&str> = results.iter().filter_map(|r| r["model"].as_str()).collect();
    assert_eq!(models, ["m1", "m1", "m1", "m2", "m2", "m2"]);
    let report = read_json(&s.join("report.json"));
    assert_eq!(report["metrics"]["cases"], 6);
    assert_eq!(report["report"]["experiment"]["run_config"]["mode"], "run");
    assert_eq!(
        report["report"]["experiment"]["dataset"]["counts"]["sample_count"],
        3
    );
    let meta = read_json(&s.join("run_meta.json"));
    assert_eq!(meta["command"], "run");
    assert_eq!(meta["prompt_template"]["name"], "ie_json");
    let csv = std::fs::read_to_string(s.join("summary.csv")).expect("csv");
    let header = csv.lines().next().unwrap_or_default();
    assert!(
        header.starts_with("model,samples,tm_sentiment_acc"),
        "{header}"
    );
    assert_eq!(csv.lines().count(), 3, "{csv}");
    assert_ok(&reconcile(&s.0));
}

#[test]
fn registry_models_over_http_score_like_the_in_process_mock_and_keys_stay_out() {
    let dataset = data("event_dataset.jsonl");
    let ds = dataset.to_str().unwrap_or_default();
    let mock = Mock::start(&[
        "--task",
        "event_eval",
        "--dataset",
        ds,
        "--fail-rate",
        "0.2",
        "--seed",
        "5",
    ]);
    let s = Scratch::new("task-http");
    let registry = s.write(
        "registry.json",
        &format!(
            r#"{{"models": [
                {{"name": "alpha", "base_url": "{url}", "api_key_env": "EVALPAGE_TASK_KEY", "default_params": {{"temperature": 0}}}},
                {{"name": "beta", "base_url": "{url}", "model": "beta"}}
            ]}}"#,
            url = mock.url
        ),
    );
    let http_out = s.join("http");
    let out = task_run(
        &[
            "--task",
            "event_eval",
            "--dataset",
            ds,
            "--models",
            "alpha,beta",
            "--model-registry",
            registry.to_str().unwrap_or_default(),
            "--max-attempts",
            "6",
        ],
        &http_out,
        &[("EVALPAGE_TASK_KEY", SECRET)],
    );
    assert_ok(&out);
    let mock_out = s.join("mock");
    let out = task_run(
        &[
            "--task",
            "event_eval",
            "--dataset",
            ds,
            "--mock",
            "--models",
            "alpha,beta",
        ],
        &mock_out,
        &[],
    );
    assert_ok(&out);
    let summaries = |dir: &Path| read_json(&dir.join("report.json"))["report"]["summaries"].clone();
    assert_eq!(summaries(&http_out), summaries(&mock_out));
    let retried = read_jsonl(&http_out.join("results.jsonl"))
        .iter()
        .filter(|r| r["attempts"].as_u64() > Some(1))
        .count();
    assert!(retried > 0, "a 20% fail rate retries some calls");
    let all = every_file_text(&http_out);
    assert!(!all.contains(SECRET), "the key reached an output file");
    let (stdout, stderr) = texts(&out);
    assert!(!stdout.contains(SECRET) && !stderr.contains(SECRET));
    let snapshot = read_json(&http_out.join("model_snapshot.json"));
    assert_eq!(snapshot["models"][0]["api_key_env"], "EVALPAGE_TASK_KEY");
    assert_eq!(
        snapshot["models"][0]["settings"]["response_format"]["type"],
        "json_object"
    );
    assert_eq!(snapshot["models"][0]["settings"]["temperature"], 0);
    assert_ok(&reconcile(&http_out));
}

#[test]
fn failed_calls_and_unrenderable_prompts_are_recorded_cases() {
    let s = Scratch::new("task-fail");
    let dataset = s.write(
        "d.jsonl",
        concat!(
            "{\"sample_id\":\"A\",\"ticker\":\"X\",\"news_items\":[],\"gt_sentiment\":\"neutral\",\"gt_impact_score\":0,\"gt_keywords\":[]}\n",
            "not json at all\n",
            "{\"sample_id\":\"B\",\"news_items\":[],\"gt_sentiment\":\"neutral\",\"gt_impact_score\":0,\"gt_keywords\":[]}\n",
        ),
    );
    let registry = s.write(
        "r.json",
        &format!(
            r#"[{{"name": "down", "base_url": "http://127.0.0.1:{}/v1"}}]"#,
            closed_port()
        ),
    );
    let out = task_run(
        &[
            "--task",
            "event_eval",
            "--dataset",
            dataset.to_str().unwrap_or_default(),
            "--models",
            "down",
            "--model-registry",
            registry.to_str().unwrap_or_default(),
            "--max-attempts",
            "2",
            "--timeout-s",
            "2",
        ],
        &s.join("out"),
        &[],
    );
    assert_ok(&out);
    let (_, stderr) = texts(&out);
    assert!(stderr.contains("d.jsonl:2"), "{stderr}");
    let results = read_jsonl(&s.join("out/results.jsonl"));
    assert_eq!(results.len(), 2);
    // Spec 003's status, evalpage's kind in error_detail.
    assert_eq!(results[0]["status"], "error");
    assert_eq!(results[0]["error_detail"]["kind"], "network");
    assert_eq!(results[0]["error"]["error_type"], "network");
    assert_eq!(results[0]["attempts"], 2);
    assert_eq!(results[1]["status"], "error");
    assert_eq!(results[1]["error_detail"]["kind"], "prompt");
    assert_eq!(
        results[1]["attempts"], 0,
        "nothing is sent for a prompt that cannot be rendered"
    );
    assert!(
        results[1]["error_detail"]["cause"]
            .as_str()
            .unwrap_or_default()
            .contains("ticker"),
        "{}",
        results[1]["error"]
    );
    let report = read_json(&s.join("out/report.json"));
    assert_eq!(report["metrics"]["failed_calls"], 2);
    assert_eq!(
        report["report"]["error_cases"].as_array().map(Vec::len),
        Some(2)
    );
    assert_eq!(report["report"]["line_errors"][0]["line"], 2);
    assert_eq!(
        report["report"]["summaries"][0]["sample_count"], 2,
        "failed calls stay in the denominator"
    );
    assert_ok(&reconcile(&s.join("out")));
}

#[test]
fn unusable_model_choices_exit_2_with_the_reason() {
    let s = Scratch::new("task-refuse");
    let ds = data("event_dataset.jsonl");
    let ds = ds.to_str().unwrap_or_default();
    let registry = s.write(
        "r.json",
        r#"{"models": [{"name": "a", "base_url": "http://127.0.0.1:9/v1", "api_key_env": "EVALPAGE_SURELY_UNSET_KEY"}]}"#,
    );
    let keyed = s.write(
        "keyed.json",
        &format!(r#"[{{"name": "a", "base_url": "http://h/v1", "api_key": "{SECRET}"}}]"#),
    );
    let reg = registry.to_str().unwrap_or_default();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["--models", "a"], "--model-registry"),
        (vec!["--models", "zz", "--model-registry", reg], "it has: a"),
        (
            vec!["--models", "a", "--model-registry", reg],
            "EVALPAGE_SURELY_UNSET_KEY",
        ),
        (
            vec![
                "--models",
                "a",
                "--model-registry",
                keyed.to_str().unwrap_or_default(),
            ],
            "models[0].api_key",
        ),
    ];
    for (extra, want) in cases {
        let mut args = vec!["--task", "event_eval", "--dataset", ds];
        args.extend(extra.iter().copied());
        let out = task_run(&args, &s.join("o"), &[]);
        let (_, stderr) = texts(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(want), "{args:?}: {stderr}");
        assert!(!stderr.contains(SECRET), "{stderr}");
    }
}

#[test]
fn the_rag_preset_as_a_task_scores_like_the_rag_run() {
    let s = Scratch::new("task-rag");
    let dataset = demo_dataset();
    let ds = dataset.to_str().unwrap_or_default();
    let out = task_run(
        &["--task", "rag_qa", "--dataset", ds, "--mock"],
        &s.join("task"),
        &[],
    );
    assert_ok(&out);
    assert_ok(&run_demo(&dataset, &s.join("rag"), &[]));
    let rag = read_json(&s.join("rag/eval_rag_report.json"));
    let task = read_json(&s.join("task/report.json"));
    let mean = |metric: &str| {
        task["report"]["summaries"]
            .as_array()
            .and_then(|a| a.iter().find(|m| m["metric"] == metric))
            .map(|m| m["mean"].clone())
    };
    assert_eq!(mean("accuracy"), Some(rag["metrics"]["accuracy"].clone()));
    assert_eq!(
        mean("citation"),
        Some(rag["metrics"]["citation_rate"].clone())
    );
}

#[test]
fn a_task_run_resumes_from_a_cut_log_and_reports_the_same() {
    let s = Scratch::new("task-resume");
    let dataset = data("event_dataset.jsonl");
    let ds = dataset.to_str().unwrap_or_default();
    let base = [
        "--task",
        "event_eval",
        "--dataset",
        ds,
        "--mock",
        "--models",
        "a,b",
    ];
    assert_ok(&task_run(&base, &s.join("full"), &[]));
    let log = std::fs::read_to_string(s.join("full/report.events.jsonl")).expect("log");
    // meta + three cases, then half of the fourth case record
    let lines: Vec<&str> = log.lines().collect();
    let fourth = lines[4];
    let cut = format!("{}\n{}", lines[..4].join("\n"), &fourth[..fourth.len() / 2]);
    let cut_path = s.write("cut.jsonl", &cut);
    let mut args = base.to_vec();
    args.extend(["--resume-from", cut_path.to_str().unwrap_or_default()]);
    let out = task_run(&args, &s.join("resumed"), &[]);
    assert_ok(&out);
    let (_, stderr) = texts(&out);
    assert!(stderr.contains("3 of 10 cases already settled"), "{stderr}");
    assert!(stderr.contains("cut off"), "{stderr}");
    let report = |d: &str| read_json(&s.join(d).join("report.json"));
    let (full, resumed) = (report("full"), report("resumed"));
    assert_eq!(full["report"]["summaries"], resumed["report"]["summaries"]);
    assert_eq!(full["cases"], resumed["cases"]);
    let run_id = |r: &Value| r["report"]["experiment"]["run_config"]["run_id"].clone();
    assert_eq!(
        run_id(&full),
        run_id(&resumed),
        "a resumed run keeps its id"
    );
    assert_ok(&reconcile(&s.join("resumed")));
}

#[test]
fn registry_prices_give_a_cost_per_model_and_a_fatal_answer_stops_the_task_run() {
    let dataset = data("event_dataset.jsonl");
    let ds = dataset.to_str().unwrap_or_default();
    let mock = Mock::start(&["--task", "event_eval", "--dataset", ds]);
    let s = Scratch::new("task-price");
    let registry = |url: &str| {
        format!(
            r#"{{"models": [
                {{"name": "alpha", "base_url": "{url}", "price_in_per_mtok": 1.5, "price_out_per_mtok": 6}},
                {{"name": "beta", "base_url": "{url}"}}
            ]}}"#
        )
    };
    let reg = s.write("registry.json", &registry(&mock.url));
    let args = |reg: &Path| {
        vec![
            "--task".to_string(),
            "event_eval".into(),
            "--dataset".into(),
            ds.into(),
            "--models".into(),
            "alpha,beta".into(),
            "--model-registry".into(),
            reg.display().to_string(),
        ]
    };
    let out_dir = s.join("priced");
    let a = args(&reg);
    let out = task_run(
        &a.iter().map(String::as_str).collect::<Vec<_>>(),
        &out_dir,
        &[],
    );
    assert_ok(&out);
    let report = read_json(&out_dir.join("report.json"));
    let usage = report["report"]["usage"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(usage.len(), 2);
    let (alpha, beta) = (&usage[0], &usage[1]);
    assert_eq!(alpha["model"], "alpha");
    let (p, c) = (
        alpha["prompt_tokens"].as_f64().unwrap_or(0.0),
        alpha["completion_tokens"].as_f64().unwrap_or(0.0),
    );
    assert!(p > 0.0 && c > 0.0, "{alpha}");
    let cost = alpha["cost"].as_f64().expect("alpha is priced");
    assert!((cost - (p * 1.5 + c * 6.0) / 1e6).abs() < 1e-12);
    assert!(beta.get("cost").is_none(), "beta has no price: {beta}");
    let csv = std::fs::read_to_string(out_dir.join("summary.csv")).expect("csv");
    assert!(csv.lines().next().unwrap_or("").contains(",cost,"), "{csv}");
    // a wrong path for every model: the run stops, exit 3, the rest not run
    let refusing = Mock::start(&["--fail-status", "404"]);
    let reg = s.write("refusing.json", &registry(&refusing.url));
    let out_dir = s.join("stopped");
    let a = args(&reg);
    let out = task_run(
        &a.iter().map(String::as_str).collect::<Vec<_>>(),
        &out_dir,
        &[],
    );
    let (_, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("404") && stderr.contains("--resume-from"),
        "{stderr}"
    );
    let report = read_json(&out_dir.join("report.json"));
    assert!(report["metrics"]["not_run_cases"].as_u64().unwrap_or(0) > 0);
    assert_ok(&reconcile(&out_dir));
}

/// Two samples without `ticker`, which the `ie_json` template's user part
/// prints, and a bad line between them.
const NO_TICKER: &str = concat!(
    "{\"sample_id\":\"A\",\"news_items\":[],\"gt_sentiment\":\"neutral\",\"gt_impact_score\":0,\"gt_keywords\":[]}\n",
    "not json at all\n",
    "{\"sample_id\":\"B\",\"news_items\":[],\"gt_sentiment\":\"neutral\",\"gt_impact_score\":0,\"gt_keywords\":[]}\n",
);

fn posts(log: &str) -> usize {
    log.lines()
        .filter(|l| l.contains("POST /v1/chat/completions"))
        .count()
}

#[test]
fn a_task_whose_prompt_renders_for_no_sample_stops_before_any_request_and_exits_3() {
    let s = Scratch::new("task-no-prompt");
    let dataset = s.write("d.jsonl", NO_TICKER);
    let ds = dataset.to_str().unwrap_or_default();
    let counting = Mock::start_logged(&[]);
    let registry = s.write(
        "r.json",
        &format!(r#"[{{"name": "m", "base_url": "{}"}}]"#, counting.url),
    );
    let out_dir = s.join("out");
    let reg = registry.to_str().unwrap_or_default();
    let args = ["--task", "event_eval", "--dataset", ds, "--models", "m"];
    let out = task_run(
        &[&args[..], &["--model-registry", reg]].concat(),
        &out_dir,
        &[],
    );
    let (_, stderr) = texts(&out);
    // as a run whose endpoint refuses every call: exit 3, the cause named
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains(
            "the run stopped before sending anything: no sample's prompt could be rendered"
        ) && stderr.contains("template `ie_json` v1 (builtin; reads news_items, ticker)")
            && stderr.contains("field `ticker` (user) is missing from 2 sample(s), first ")
            && stderr.contains("d.jsonl:1, sample `A`")
            && stderr.contains("evalpage task check"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("--resume-from"),
        "nothing to resume: {stderr}"
    );
    assert_eq!(
        posts(&counting.stop_and_read_log()),
        0,
        "no request is sent"
    );
    // the files are written as a fatal stop writes them
    for f in FILES {
        assert!(out_dir.join(f).is_file(), "{f} missing");
    }
    let results = read_jsonl(&out_dir.join("results.jsonl"));
    assert_eq!(results.len(), 2, "every case is recorded");
    for r in &results {
        assert_eq!(r["status"], "error", "{r}");
        assert_eq!(r["error_detail"]["kind"], "prompt", "{r}");
        assert_eq!(r["attempts"], 0, "{r}");
    }
    let log = read_jsonl(&out_dir.join("report.events.jsonl"));
    let error = log
        .iter()
        .find(|r| r["record_type"] == "error")
        .expect("an error record");
    let message = error["message"].as_str().unwrap_or_default();
    assert!(message.contains("field `ticker`"), "{message}");
    assert_eq!(
        log.last().map(|r| r["record_type"].clone()),
        Some("summary".into())
    );
    let md = std::fs::read_to_string(out_dir.join("report.md")).expect("report.md");
    assert!(md.contains("has no field `ticker`"), "{md}");
    assert_ok(&reconcile(&out_dir));
    // the in-process mock stops the same way
    let mock_dir = s.join("mock");
    let out = task_run(&[&args[..], &["--mock"]].concat(), &mock_dir, &[]);
    let (_, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("field `ticker` (user)"), "{stderr}");
    // one sample that renders: the rest runs, the failed one stays a case, exit 0
    let some = s.write(
        "some.jsonl",
        &format!("{NO_TICKER}{}", r#"{"sample_id":"C","ticker":"X","news_items":[],"gt_sentiment":"neutral","gt_impact_score":0,"gt_keywords":[]}"#),
    );
    let out = task_run(
        &[
            "--task",
            "event_eval",
            "--dataset",
            some.to_str().unwrap_or_default(),
            "--mock",
        ],
        &s.join("some"),
        &[],
    );
    assert_ok(&out);
    assert_eq!(read_jsonl(&s.join("some/results.jsonl")).len(), 3);
}

#[test]
fn untagged_samples_get_the_breakdown_by_length_in_run_score_and_report() {
    let s = Scratch::new("task-length");
    let tagged = std::fs::read_to_string(data("event_dataset.jsonl")).expect("dataset");
    // the same samples without tags or language
    let untagged: String = tagged
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .map(|mut v| {
            if let Some(o) = v.as_object_mut() {
                o.remove("tags");
                o.remove("language");
            }
            format!("{v}\n")
        })
        .collect();
    let dataset = s.write("d.jsonl", &untagged);
    let ds = dataset.to_str().unwrap_or_default();
    let run_dir = s.join("run");
    let args = [
        "--task",
        "event_eval",
        "--dataset",
        ds,
        "--mock",
        "--lang",
        "en",
    ];
    assert_ok(&task_run(&args, &run_dir, &[]));
    let md = std::fs::read_to_string(run_dir.join("report.md")).expect("report.md");
    assert!(!md.contains("## Breakdown by tag"), "{md}");
    let section = |md: &str| -> String {
        let from = md
            .find("## Breakdown by length")
            .unwrap_or_else(|| panic!("{md}"));
        let rest = &md[from..];
        let end = rest[3..].find("\n## ").map_or(rest.len(), |e| e + 3);
        rest[..end].to_string()
    };
    let run_section = section(&md);
    assert!(
        run_section.contains("| mock | sentiment_acc | short |"),
        "{run_section}"
    );
    // Chinese: the same section under its own title
    let zh_dir = s.join("zh");
    assert_ok(&task_run(&args[..args.len() - 2], &zh_dir, &[]));
    let zh = std::fs::read_to_string(zh_dir.join("report.md")).expect("report.md");
    assert!(zh.contains("## 按长度分解"), "{zh}");
    // `evalpage report` renders the run's file again, the section included
    let again_dir = s.join("again");
    let mut cmd = evalpage();
    cmd.arg("report")
        .arg(&run_dir)
        .args(["--format", "md", "--lang", "en", "--out"])
        .arg(&again_dir);
    assert_ok(&finish(cmd));
    let again = std::fs::read_to_string(again_dir.join("report.md")).expect("report.md");
    assert_eq!(section(&again), run_section);
    // `evalpage score` of answers from a file measures the samples alike
    let score_dir = s.join("score");
    let mut cmd = evalpage();
    cmd.args([
        "score",
        "--task",
        "event_eval",
        "--lang",
        "en",
        "--dataset",
        ds,
    ])
    .arg("--responses")
    .arg(data("event_responses.jsonl"))
    .arg("--out")
    .arg(&score_dir);
    assert_ok(&finish(cmd));
    let scored = std::fs::read_to_string(score_dir.join("report.md")).expect("report.md");
    assert!(
        section(&scored).contains("| alpha | sentiment_acc | short |"),
        "{scored}"
    );
}
