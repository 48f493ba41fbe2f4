//! `evalpage score --task T --responses R --judge NAME|mock` with the real
//! binary: the run's own answers (its `results.jsonl`) judged again give the
//! same llm_judge values, outcomes, judgements and `llm_judge_details` as
//! `evalpage run --task --judge`, against `evalpage mock-server` (a registry
//! entry) and with the mock judge; a sample without an answer line; a judge
//! that answers 401 (exit 3, nothing written); every flag that cannot apply
//! refused with exit 2 and its name; a metric with no scored sample shown as
//! `-`, never 0.

mod common;

use common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/judge")
        .join(name)
}

fn score(args: &[&str]) -> Output {
    let mut cmd = evalpage();
    cmd.arg("score").args(args);
    finish(cmd)
}

const JUDGED: [&str; 3] = ["correct", "vs_baseline", "concise"];

/// `results.jsonl`'s judged metrics by (model, sample): value, outcome and
/// the whole metric (judgements, raw answers, usage).
fn judged_metrics(out: &Path) -> Vec<(String, String, String, Value)> {
    let mut v = Vec::new();
    for r in read_jsonl(&out.join("results.jsonl")) {
        for name in JUDGED {
            v.push((
                r["model"].as_str().unwrap_or("").to_string(),
                r["sample_id"].as_str().unwrap_or("").to_string(),
                name.to_string(),
                r["metrics"][name].clone(),
            ));
        }
    }
    v
}

fn summaries(out: &Path) -> Value {
    read_json(&out.join("report.json"))["report"]["summaries"].clone()
}

fn judge_row(out: &Path) -> Value {
    read_json(&out.join("report.json"))["report"]["usage"]
        .as_array()
        .and_then(|u| u.iter().find(|u| u["role"] == "judge").cloned())
        .unwrap_or(Value::Null)
}

#[test]
fn score_with_a_registry_judge_equals_the_judged_run_against_the_mock_server() {
    let (task, dataset) = (example("judged_qa.yaml"), example("judged_qa.jsonl"));
    let (task_s, data_s) = (task.display().to_string(), dataset.display().to_string());
    let s = Scratch::new("score-judge-http");
    // one server per pass: the server counts identical judge requests (the
    // repeats of one judgement), so a second pass on one server would get
    // the later draws
    let registry = |name: &str, url: &str| {
        s.write(
            name,
            &format!(
                r#"{{"models": [{{"name": "alpha", "base_url": "{url}"}},
                    {{"name": "grader", "base_url": "{url}", "model": "grader",
                      "price_in_per_mtok": 2, "price_out_per_mtok": 8}}]}}"#
            ),
        )
        .display()
        .to_string()
    };
    let ran = s.join("run");
    let mock = Mock::start_logged(&["--task", &task_s, "--dataset", &data_s]);
    let reg = registry("run.json", &mock.url);
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
        &ran.display().to_string(),
    ]);
    assert_ok(&out);
    let run_posts = mock
        .stop_and_read_log()
        .matches("POST /v1/chat/completions -> 200")
        .count();

    let scored = s.join("scored");
    let mock = Mock::start_logged(&["--task", &task_s, "--dataset", &data_s]);
    let reg = registry("score.json", &mock.url);
    let out = score(&[
        "--task",
        &task_s,
        "--dataset",
        &data_s,
        "--responses",
        &ran.join("results.jsonl").display().to_string(),
        "--judge",
        "grader",
        "--model-registry",
        &reg,
        "--judge-concurrency",
        "3",
        "--lang",
        "en",
        "--out",
        &scored.display().to_string(),
    ]);
    assert_ok(&out);
    let score_posts = mock
        .stop_and_read_log()
        .matches("POST /v1/chat/completions -> 200")
        .count();
    // only the judge is called: the model's 8 answers come from the file
    assert_eq!(score_posts + 8, run_posts, "{score_posts} vs {run_posts}");

    assert_eq!(judged_metrics(&scored), judged_metrics(&ran));
    let report = |d: &Path| read_json(&d.join("report.json"));
    let (r, sc) = (report(&ran), report(&scored));
    assert_eq!(
        sc["report"]["llm_judge_details"],
        r["report"]["llm_judge_details"]
    );
    assert_eq!(
        sc["report"]["llm_judge_details"].as_array().map(Vec::len),
        Some(3)
    );
    assert_eq!(summaries(&scored), summaries(&ran));
    // the judge's tokens and cost are the run's
    assert_eq!(judge_row(&scored), judge_row(&ran));
    assert!(judge_row(&scored)["cost"].is_number());
    // the rest is a scoring's: answers from the file, no attempts, no run id
    assert_eq!(sc["report"]["experiment"]["run_config"]["mode"], "score");
    let rows = read_jsonl(&scored.join("results.jsonl"));
    assert!(rows
        .iter()
        .all(|r| r["status"] == "ok" && r["response_line"].is_u64()));
    let md = std::fs::read_to_string(scored.join("report.md")).expect("report.md");
    assert!(md.contains("## LLM judge"), "{md}");
    assert!(md.contains("grader (judge)"), "{md}");
    let (stdout, stderr) = texts(&out);
    assert!(stdout.contains("alpha: 8 samples, 8 answered"), "{stdout}");
    assert!(stderr.contains("judging 8 case(s)"), "{stderr}");
}

#[test]
fn score_with_the_mock_judge_equals_the_mock_run_and_fails_an_unanswered_sample() {
    let (task, dataset) = (example("judged_qa.yaml"), example("judged_qa.jsonl"));
    let (task_s, data_s) = (task.display().to_string(), dataset.display().to_string());
    let s = Scratch::new("score-judge-mock");
    let ran = s.join("run");
    // --mock: the mock model answers, the mock judge judges
    let out = run(&[
        "--task",
        &task_s,
        "--dataset",
        &data_s,
        "--mock",
        "--models",
        "mock-a,mock-b",
        "--out",
        &ran.display().to_string(),
    ]);
    assert_ok(&out);
    let whole = s.join("whole");
    let responses = ran.join("results.jsonl").display().to_string();
    let out = score(&[
        "--task",
        &task_s,
        "--dataset",
        &data_s,
        "--responses",
        &responses,
        "--judge",
        "mock",
        "--out",
        &whole.display().to_string(),
    ]);
    assert_ok(&out);
    assert_eq!(judged_metrics(&whole), judged_metrics(&ran));
    assert_eq!(summaries(&whole), summaries(&ran));
    let details =
        |d: &Path| read_json(&d.join("report.json"))["report"]["llm_judge_details"].clone();
    assert_eq!(details(&whole), details(&ran));
    assert_eq!(judge_row(&whole), judge_row(&ran));

    // mock-b has no line for q3: no_response as without a judge, never sent
    // to the judge, its judged metrics a fail; every other case as the run
    let kept: String = std::fs::read_to_string(ran.join("results.jsonl"))
        .expect("results")
        .lines()
        .filter(|l| {
            let v: Value = serde_json::from_str(l).unwrap_or(Value::Null);
            !(v["model"] == "mock-b" && v["sample_id"] == "q3")
        })
        .map(|l| format!("{l}\n"))
        .collect();
    let partial = s.write("partial.jsonl", &kept);
    let gap = s.join("gap");
    let out = score(&[
        "--task",
        &task_s,
        "--dataset",
        &data_s,
        "--responses",
        &partial.display().to_string(),
        "--judge",
        "mock",
        "--out",
        &gap.display().to_string(),
    ]);
    assert_ok(&out);
    let rows = read_jsonl(&gap.join("results.jsonl"));
    let q3 = rows
        .iter()
        .find(|r| r["model"] == "mock-b" && r["sample_id"] == "q3")
        .expect("mock-b q3");
    assert_eq!(q3["status"], "error");
    assert_eq!(q3["error_detail"]["kind"], "no_response");
    for name in JUDGED {
        let m = &q3["metrics"][name];
        assert_eq!(m["value"], 0.0, "{name}: {m}");
        assert_eq!(m["detail"]["outcome"], "fail");
        assert!(m["detail"]["judgements"].is_null(), "not sent: {m}");
        let reason = m["detail"]["reason"].as_str().unwrap_or("");
        assert!(
            reason.starts_with("no response for this sample"),
            "{reason}"
        );
    }
    let others = |d: &Path| -> Vec<(String, String, String, Value)> {
        judged_metrics(d)
            .into_iter()
            .filter(|(m, id, _, _)| !(m == "mock-b" && id == "q3"))
            .collect()
    };
    assert_eq!(others(&gap), others(&ran));
    // the same failed call without a judge: no_response, its other metrics as before
    let plain = s.join("plain");
    let out = score(&[
        "--task",
        &task_s,
        "--dataset",
        &data_s,
        "--responses",
        &partial.display().to_string(),
        "--out",
        &plain.display().to_string(),
    ]);
    assert_ok(&out);
    let plain_q3 = read_jsonl(&plain.join("results.jsonl"))
        .into_iter()
        .find(|r| r["model"] == "mock-b" && r["sample_id"] == "q3")
        .expect("q3");
    assert_eq!(plain_q3["status"], q3["status"]);
    assert_eq!(plain_q3["metrics"]["f1"], q3["metrics"]["f1"]);
    assert_eq!(plain_q3["parsed"], q3["parsed"]);
}

#[test]
fn a_judge_that_answers_401_stops_the_scoring_with_exit_3_and_nothing_written() {
    let s = Scratch::new("score-judge-401");
    let mock = Mock::start(&["--fail-status", "401"]);
    let reg = s.write(
        "reg.json",
        &format!(
            r#"{{"models": [{{"name": "grader", "base_url": "{}"}}]}}"#,
            mock.url
        ),
    );
    let ran = s.join("run");
    let (task, dataset) = (example("judged_qa.yaml"), example("judged_qa.jsonl"));
    let (task_s, data_s) = (task.display().to_string(), dataset.display().to_string());
    let out = run(&[
        "--task",
        &task_s,
        "--dataset",
        &data_s,
        "--mock",
        "--out",
        &ran.display().to_string(),
    ]);
    assert_ok(&out);
    let out_dir = s.join("out");
    let out = score(&[
        "--task",
        &task_s,
        "--dataset",
        &data_s,
        "--responses",
        &ran.join("results.jsonl").display().to_string(),
        "--judge",
        "grader",
        "--model-registry",
        &reg.display().to_string(),
        "--out",
        &out_dir.display().to_string(),
    ]);
    assert_eq!(out.status.code(), Some(3), "{:?}", texts(&out));
    let (_, stderr) = texts(&out);
    assert!(
        stderr.contains("the judge stopped at a fatal answer"),
        "{stderr}"
    );
    assert!(stderr.contains("nothing was written"), "{stderr}");
    assert!(!out_dir.exists());
}

#[test]
fn flags_that_cannot_apply_exit_2_naming_the_flag() {
    let s = Scratch::new("score-judge-flags");
    let (task, dataset) = (example("judged_qa.yaml"), example("judged_qa.jsonl"));
    let (task_s, data_s) = (task.display().to_string(), dataset.display().to_string());
    let answers = s.write(
        "answers.jsonl",
        "{\"sample_id\": \"q1\", \"response\": \"Use the reset link.\"}\n",
    );
    let answers_s = answers.display().to_string();
    let reg = s.write(
        "reg.json",
        r#"{"models": [{"name": "grader", "base_url": "http://127.0.0.1:9/v1"}]}"#,
    );
    let reg_s = reg.display().to_string();
    let retrieval = Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/tests/data/retrieval");
    let (cases, ranked) = (
        retrieval.join("cases.jsonl").display().to_string(),
        retrieval.join("ranked.jsonl").display().to_string(),
    );
    let dialogs = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../www/demo/demo_dialogs.jsonl")
        .display()
        .to_string();
    let trace = s.write("trace.jsonl", "").display().to_string();
    let judged = [
        "--task",
        &task_s,
        "--dataset",
        &data_s,
        "--responses",
        &answers_s,
    ];
    let event = [
        "--task",
        "event_eval",
        "--dataset",
        &data_s,
        "--responses",
        &answers_s,
    ];
    let ranked_lists = ["--retrieval", "--dataset", &cases, "--responses", &ranked];
    let dialog = ["--dialogs", &dialogs, "--dialog-trace", &trace];
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            [&ranked_lists[..], &["--judge", "mock"]].concat(),
            "--judge does not apply to --retrieval",
        ),
        (
            [&event[..], &["--judge", "mock"]].concat(),
            "--judge mock does not apply: task `event_eval` has no llm_judge metric",
        ),
        (
            [&judged[..], &["--k", "3"]].concat(),
            "--k does not apply to --task",
        ),
        (
            [&dialog[..], &["--k", "3"]].concat(),
            "--k does not apply to --dialogs",
        ),
        (
            [&judged[..], &["--judge-concurrency", "2"]].concat(),
            "--judge-concurrency does not apply without --judge",
        ),
        (
            [&dialog[..], &["--judge-concurrency", "2"]].concat(),
            "--judge-concurrency does not apply without --judge",
        ),
        (
            [&judged[..], &["--model-registry", &reg_s]].concat(),
            "--model-registry does not apply without --judge NAME",
        ),
        (
            [
                &judged[..],
                &["--judge", "mock", "--model-registry", &reg_s],
            ]
            .concat(),
            "--model-registry does not apply to --judge mock",
        ),
        (
            [&judged[..], &["--judge", "grader"]].concat(),
            "--judge grader: a judge is a model registry entry; give --model-registry FILE",
        ),
        (
            [
                &judged[..],
                &["--judge", "nobody", "--model-registry", &reg_s],
            ]
            .concat(),
            "--judge: model `nobody` is not in the registry",
        ),
    ];
    for (i, (args, want)) in cases.iter().enumerate() {
        let out_dir = s.join(&format!("out{i}"));
        let mut argv = args.clone();
        let out_s = out_dir.display().to_string();
        argv.extend(["--out", &out_s]);
        let out = score(&argv);
        let (_, stderr) = texts(&out);
        assert_eq!(out.status.code(), Some(2), "{argv:?}\n{stderr}");
        assert!(stderr.contains(want), "{argv:?}\n{stderr}");
        assert!(!out_dir.exists(), "{argv:?}: nothing is written");
    }
}

#[test]
fn a_metric_with_no_scored_sample_is_shown_as_a_dash_never_0() {
    let s = Scratch::new("score-judge-dash");
    let (task, dataset) = (example("judged_qa.yaml"), example("judged_qa.jsonl"));
    let (task_s, data_s) = (task.display().to_string(), dataset.display().to_string());
    let ran = s.join("run");
    assert_ok(&run(&[
        "--task",
        &task_s,
        "--dataset",
        &data_s,
        "--mock",
        "--out",
        &ran.display().to_string(),
    ]));
    // without --judge every llm_judge case is skipped ("not judged")
    let out_dir = s.join("out");
    let out = score(&[
        "--task",
        &task_s,
        "--dataset",
        &data_s,
        "--responses",
        &ran.join("results.jsonl").display().to_string(),
        "--lang",
        "en",
        "--out",
        &out_dir.display().to_string(),
    ]);
    assert_ok(&out);
    let (stdout, stderr) = texts(&out);
    assert!(
        stdout.contains("correct=- (8 skipped) vs_baseline=- (8 skipped) concise=- (8 skipped)"),
        "{stdout}"
    );
    assert!(stdout.contains("f1=0.9"), "{stdout}");
    assert!(!stdout.contains("correct=0"), "{stdout}");
    assert!(
        stderr.contains("not judged without --judge NAME|mock: correct, vs_baseline, concise"),
        "{stderr}"
    );
    let md = std::fs::read_to_string(out_dir.join("report.md")).expect("report.md");
    assert!(md.contains("| mock | correct | - | - | 0 | 8 |"), "{md}");
    let csv = std::fs::read_to_string(out_dir.join("summary.csv")).expect("summary.csv");
    let mut rows = csv.lines();
    let header: Vec<&str> = rows.next().unwrap_or("").split(',').collect();
    let row: Vec<&str> = rows.next().unwrap_or("").split(',').collect();
    let at = header
        .iter()
        .position(|h| *h == "tm_correct")
        .expect("tm_correct");
    assert_eq!(row.get(at), Some(&""), "no number: {csv}");
}

#[test]
fn a_judge_with_no_renderable_question_says_which_field_is_missing_and_writes_nothing() {
    let task = example("judged_qa.yaml").display().to_string();
    let s = Scratch::new("score-judge-no-prompt");
    // `question`, which the template prints, is `q` in every sample
    let data = s.write(
        "d.jsonl",
        concat!(
            "{\"sample_id\":\"q1\",\"q\":\"How?\",\"expected\":\"So.\",\"baseline\":\"No.\"}\n",
            "{\"sample_id\":\"q2\",\"q\":\"Where?\",\"expected\":\"There.\",\"baseline\":\"No.\"}\n",
        ),
    );
    let responses = s.write(
        "r.jsonl",
        concat!(
            "{\"sample_id\":\"q1\",\"model\":\"m\",\"response\":\"So.\"}\n",
            "{\"sample_id\":\"q2\",\"model\":\"m\",\"response\":\"There.\"}\n",
        ),
    );
    let (data, responses) = (data.display().to_string(), responses.display().to_string());
    let out_dir = s.join("out");
    let args = [
        "--task",
        &task,
        "--dataset",
        &data,
        "--responses",
        &responses,
        "--out",
        &out_dir.display().to_string(),
    ];
    let out = score(&[&args[..], &["--judge", "mock"]].concat());
    let (_, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("the judge has no question to judge: no sample's prompt could be rendered")
            && stderr.contains("field `question` (user) is missing from 2 sample(s)")
            && stderr.contains("d.jsonl:1, sample `q1`")
            && !stderr.contains("fatal answer"),
        "{stderr}"
    );
    assert!(!out_dir.join("report.json").exists(), "nothing is written");
    // without a judge the answers are scored as before
    assert_ok(&score(&args));
}
