//! Other evaluators' results read into evalpage's report (issue 32), on
//! fixtures the real tools wrote (tests/data/import/README.md says how):
//! ids, verdicts and aggregates equal to what each tool itself reported, and
//! damaged files giving located problems while the rest is kept.

use evalpage_core::import::{detect, group, import, ImportError, Part, Tool};
use evalpage_core::report::EvaluationResult;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/import")
        .join(rel)
}

fn read(rel: &str) -> (String, Vec<u8>) {
    let p = data(rel);
    let bytes = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    (p.file_name().unwrap().to_string_lossy().into_owned(), bytes)
}

fn run(files: &[(String, Vec<u8>)]) -> EvaluationResult {
    let parts: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(n, b)| (n.as_str(), b.as_slice()))
        .collect();
    import(&parts).expect("imports").report
}

/// The mean evalpage computed for a model's metric.
fn mean(r: &EvaluationResult, model: &str, metric: &str) -> f64 {
    r.report
        .summaries
        .iter()
        .find(|s| s.model.as_deref() == Some(model) && s.metric == metric)
        .unwrap_or_else(|| panic!("no summary {model} {metric}"))
        .mean
}

fn value(r: &EvaluationResult, model: &str, id: &str, metric: &str) -> f64 {
    r.scores
        .iter()
        .find(|s| s.model() == Some(model) && s.sample_id == id && s.metric == metric)
        .unwrap_or_else(|| panic!("no score {model} {id} {metric}"))
        .value
}

fn differences(r: &EvaluationResult) -> Vec<String> {
    r.report.experiment.evaluator_config["differences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}

fn close(a: f64, b: f64) {
    assert!((a - b).abs() < 1e-9, "{a} != {b}");
}

#[test]
fn promptfoo_ids_models_verdicts_and_totals_are_promptfoos() {
    let f = read("promptfoo/out.json");
    assert_eq!(detect(&f.0, &f.1), Some(Part::Promptfoo));
    let r = run(&[f]);
    assert_eq!(r.models(), ["gpt-4o-mini", "nano"]);
    // A test's description, else test-N for its Nth test.
    let ids: Vec<&str> = r
        .scores
        .iter()
        .filter(|s| s.metric == "pass" && s.model() == Some("nano"))
        .map(|s| s.sample_id.as_str())
        .collect();
    assert_eq!(
        ids,
        [
            "capital of France",
            "test-2",
            "two plus two",
            "test-4",
            "length score"
        ]
    );
    // The provider prefix is dropped, the full id kept; a label names its model.
    let s = r
        .scores
        .iter()
        .find(|s| s.model() == Some("gpt-4o-mini"))
        .unwrap();
    assert_eq!(s.detail["model_id"], "openai:chat:gpt-4o-mini");
    let n = r.scores.iter().find(|s| s.model() == Some("nano")).unwrap();
    assert_eq!(n.detail["model_id"], "openai:chat:gpt-4.1-nano");
    // promptfoo printed: 6 passed, 4 failed; per provider 4/5 and 2/5.
    let passes: f64 = r
        .scores
        .iter()
        .filter(|s| s.metric == "pass")
        .map(|s| s.value)
        .sum();
    close(passes, 6.0);
    close(mean(&r, "gpt-4o-mini", "pass"), 0.8);
    close(mean(&r, "nano", "pass"), 0.4);
    // Column scores 4.5 and 2.75 over 5 tests; named scores color and brevity.
    close(mean(&r, "gpt-4o-mini", "score"), 4.5 / 5.0);
    close(mean(&r, "nano", "score"), 2.75 / 5.0);
    close(value(&r, "nano", "length score", "brevity"), 0.25);
    close(value(&r, "nano", "test-2", "color"), 1.0);
    assert_eq!(value(&r, "gpt-4o-mini", "two plus two", "pass"), 1.0);
    assert_eq!(value(&r, "nano", "two plus two", "pass"), 0.0);
    // Tokens as promptfoo counted them: 54 prompt each, 7 and 10 completion.
    let u = |m: &str| r.report.usage.iter().find(|u| u.model == m).unwrap();
    assert_eq!(
        (
            u("gpt-4o-mini").prompt_tokens,
            u("gpt-4o-mini").completion_tokens
        ),
        (54, 7)
    );
    assert_eq!(
        (u("nano").prompt_tokens, u("nano").completion_tokens),
        (54, 10)
    );
    assert!(u("nano").cost.is_some_and(|c| (c - 9.4e-6).abs() < 1e-12));
    // Its own aggregates are kept, and equal the recomputation.
    let aggs = r.report.experiment.evaluator_config["source_aggregates"]
        .as_array()
        .unwrap()
        .len();
    assert!(aggs >= 8, "{aggs}");
    assert!(differences(&r).is_empty(), "{:?}", differences(&r));
    let rc = &r.report.experiment.run_config;
    assert_eq!(
        (
            rc["kind"].as_str(),
            rc["tool"].as_str(),
            rc["tool_version"].as_str()
        ),
        (Some("import"), Some("promptfoo"), Some("0.121.20"))
    );
    assert!(r.scores.iter().all(|s| s.detail["input_sha256"]
        .as_str()
        .is_some_and(|h| h.len() == 64)));
    assert!(!r.report.experiment.evaluator_config["not_carried"]
        .as_array()
        .unwrap()
        .is_empty());
    // Five tests, each answered by two models.
    assert_eq!(r.report.experiment.dataset.counts["sample_count"], 5);
    assert_eq!(r.cases.len(), 10);
}

#[test]
fn inspect_eval_and_json_logs_read_the_same_and_match_inspects_figures() {
    for (file, part) in [
        ("inspect/log.eval", Part::InspectEval),
        ("inspect/log.json", Part::InspectJson),
    ] {
        let f = read(file);
        assert_eq!(detect(&f.0, &f.1), Some(part), "{file}");
        let r = run(&[f]);
        assert_eq!(r.models(), ["gpt-4o-mini"], "{file}");
        // Inspect printed: match accuracy 0.5, includes accuracy 0.7.
        close(mean(&r, "gpt-4o-mini", "match"), 0.5);
        close(mean(&r, "gpt-4o-mini", "includes"), 0.7);
        assert!(differences(&r).is_empty(), "{file}: {:?}", differences(&r));
        // Ids as Inspect gave them (an integer one as its text), each epoch a repeat.
        let mut ids: Vec<String> = r
            .scores
            .iter()
            .filter(|s| s.metric == "match")
            .map(|s| format!("{}#{}", s.sample_id, s.detail["repeat"]))
            .collect();
        ids.sort();
        assert_eq!(
            ids,
            ["3#1", "3#2", "q1#1", "q1#2", "q2#1", "q2#2", "q4#1", "q4#2", "q5#1", "q5#2"],
            "{file}"
        );
        let s = r.scores.iter().find(|s| s.metric == "match").unwrap();
        assert!(["C", "I"].contains(&s.detail["source_value"].as_str().unwrap()));
        assert_eq!(s.detail["model_id"], "openai/gpt-4o-mini");
        let u = &r.report.usage[0];
        assert_eq!((u.prompt_tokens, u.completion_tokens), (56, 23), "{file}");
        assert_eq!(r.report.experiment.run_config["tool_version"], "0.3.285");
    }
}

#[test]
fn an_inspect_numeric_scorer_is_its_number() {
    let r = run(&[read("inspect/log_numeric.eval")]);
    // Inspect printed length_ratio mean 0.6779.
    assert!((mean(&r, "gpt-4o-mini", "length_ratio") - 0.6779).abs() < 1e-4);
    assert!(differences(&r).is_empty(), "{:?}", differences(&r));
}

#[test]
fn an_inspect_agent_run_carries_its_tool_calls_and_their_results() {
    // inspect/task_tools.py against the mock scripted by answers_tools.jsonl:
    // t1 calls add(2, 3) then answers; t2's first call lacks `y`, the tool
    // fails, and the model calls again. Both formats read alike.
    for file in ["inspect/log_tools.eval", "inspect/log_tools.json"] {
        let r = run(&[read(file)]);
        let calls = |id: &str| -> Vec<Value> {
            r.scores
                .iter()
                .find(|s| s.sample_id == id && s.detail.get("tool_calls").is_some())
                .unwrap_or_else(|| panic!("{file}: no calls for {id}"))
                .detail["tool_calls"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        };
        let t1 = calls("t1");
        assert_eq!(t1.len(), 1, "{file}");
        assert_eq!(
            (&t1[0]["id"], &t1[0]["name"]),
            (&Value::from("call_1"), &Value::from("add"))
        );
        let args: Value =
            serde_json::from_str(t1[0]["arguments"].as_str().unwrap_or("")).expect("JSON");
        assert_eq!(args, serde_json::json!({"x": 2, "y": 3}));
        assert_eq!(t1[0]["result"], "5");
        assert!(t1[0]["error"].is_null());
        let t2 = calls("t2");
        assert_eq!(t2.len(), 2, "{file}");
        assert!(
            t2[0]["error"]
                .as_str()
                .unwrap_or("")
                .contains("'y' is a required property"),
            "{}",
            t2[0]
        );
        assert_eq!(t2[1]["result"], "17");
        assert_eq!(value(&r, "gpt-4o-mini", "t2", "match"), 1.0);
        // the messages after the prompt, as the trajectory view reads them:
        // a failed call, the call again, the answer
        let trajectory = r
            .scores
            .iter()
            .find_map(|s| {
                (s.sample_id == "t2")
                    .then(|| s.detail.get("trajectory"))
                    .flatten()
            })
            .unwrap_or_else(|| panic!("{file}: no trajectory for t2"));
        let messages: Vec<evalpage_core::ChatMessage> =
            serde_json::from_value(trajectory.clone()).expect("chat messages");
        let (steps, _) = evalpage_core::shown_steps(&messages, None);
        assert_eq!(steps.len(), 3, "{file}: {trajectory}");
        let first = &steps[0].calls[0];
        assert_eq!(first.name, "add");
        assert!(
            first.result.as_deref().is_some_and(
                |r| r.starts_with("error: ") && r.contains("'y' is a required property")
            ),
            "{first:?}"
        );
        assert_eq!(steps[1].calls[0].result.as_deref(), Some("17"));
        assert!(steps[2].calls.is_empty());
    }
}

#[test]
fn lm_eval_samples_with_their_results_equal_lm_evals_figures() {
    let dir = "lm_eval/fixture-org__tiny-fixture-lm";
    let files: Vec<(String, Vec<u8>)> = std::fs::read_dir(data(dir))
        .unwrap()
        .map(|e| {
            read(&format!(
                "{dir}/{}",
                e.unwrap().file_name().to_string_lossy()
            ))
        })
        .collect();
    assert_eq!(
        group(&files).unwrap().len(),
        1,
        "samples and results are one run"
    );
    let r = run(&files);
    let m = "fixture-org/tiny-fixture-lm";
    assert_eq!(r.models(), [m]);
    close(mean(&r, m, "arc_easy_tiny/acc,none"), 0.5);
    close(mean(&r, m, "arc_easy_tiny/acc_norm,none"), 0.75);
    close(mean(&r, m, "gsm8k_tiny/exact_match,strict-match"), 0.5);
    close(mean(&r, m, "gsm8k_tiny/exact_match,flexible-extract"), 0.75);
    assert!(differences(&r).is_empty(), "{:?}", differences(&r));
    // One sample per document (both filters' lines), its id `<task>/<doc_id>`.
    assert_eq!(r.cases.len(), 8);
    close(
        value(
            &r,
            m,
            "gsm8k_tiny/1",
            "gsm8k_tiny/exact_match,flexible-extract",
        ),
        1.0,
    );
    close(
        value(&r, m, "gsm8k_tiny/1", "gsm8k_tiny/exact_match,strict-match"),
        0.0,
    );
    assert_eq!(r.report.experiment.run_config["tool_version"], "0.4.13");
}

#[test]
fn an_evals_api_run_with_its_items_equals_its_result_counts() {
    let files = [
        read("openai_evals/run.json"),
        read("openai_evals/output_items.json"),
    ];
    assert_eq!(detect(&files[0].0, &files[0].1), Some(Part::EvalsRun));
    assert_eq!(detect(&files[1].0, &files[1].1), Some(Part::EvalsItems));
    let r = run(&files);
    // result_counts: 2 passed, 2 failed, 1 errored.
    close(mean(&r, "gpt-4o-mini", "passed"), 0.5);
    assert_eq!(r.report.error_cases.len(), 1);
    assert!(r.report.error_cases[0]
        .message
        .as_deref()
        .unwrap()
        .starts_with("rate_limit_exceeded"));
    assert!(differences(&r).is_empty(), "{:?}", differences(&r));
    let exact = r
        .metric_names()
        .into_iter()
        .find(|m| m.starts_with("Exact answer") && !m.ends_with("/score"))
        .unwrap();
    close(mean(&r, "gpt-4o-mini", &exact), 0.5);
}

#[test]
fn an_oaieval_log_equals_its_final_report() {
    let f = read("openai_evals/oaieval_log.jsonl");
    assert_eq!(detect(&f.0, &f.1), Some(Part::OaiEvalLog));
    let r = run(&[f]);
    close(mean(&r, "gpt-4o-mini", "accuracy"), 4.0 / 6.0);
    assert!(differences(&r).is_empty(), "{:?}", differences(&r));
    assert_eq!(value(&r, "gpt-4o-mini", "capitals.dev.3", "accuracy"), 0.0);
    assert_eq!(value(&r, "gpt-4o-mini", "capitals.dev.0", "accuracy"), 1.0);
}

fn problems(r: &EvaluationResult) -> Vec<String> {
    r.report
        .line_errors
        .iter()
        .flatten()
        .map(ToString::to_string)
        .collect()
}

#[test]
fn a_cut_off_eval_zip_keeps_the_samples_before_the_cut() {
    let (name, bytes) = read("inspect/log.eval");
    let cut = bytes[..bytes.len() * 2 / 3].to_vec();
    let r = run(&[(name, cut)]);
    let p = problems(&r);
    assert!(
        p.iter()
            .any(|e| e.contains("log.eval") && e.contains("damaged zip")),
        "{p:?}"
    );
    let kept = r.scores.iter().filter(|s| s.metric == "match").count();
    assert!(kept > 0 && kept < 10, "{kept}");
    // A zip cut before any sample is an error that says so.
    let (name, bytes) = read("inspect/log.eval");
    let err = import(&[(&name, &bytes[..100])]).unwrap_err();
    assert!(matches!(err, ImportError::Unreadable { .. }), "{err}");
}

#[test]
fn a_cut_off_promptfoo_file_keeps_the_results_before_the_cut() {
    let (name, bytes) = read("promptfoo/out.json");
    let text = String::from_utf8(bytes).unwrap();
    let at = text.find("\"testIdx\": 3").unwrap();
    let r = run(&[(name, text.as_bytes()[..at].to_vec())]);
    let p = problems(&r);
    assert!(
        p.iter()
            .any(|e| e.contains("out.json") && e.contains("results.results[")),
        "{p:?}"
    );
    let kept = r.scores.iter().filter(|s| s.metric == "pass").count();
    assert!((5..10).contains(&kept), "{kept}");
}

#[test]
fn a_missing_field_and_an_unknown_version_are_named_and_the_rest_is_kept() {
    let (name, bytes) = read("promptfoo/out.json");
    let mut v: Value = serde_json::from_slice(&bytes).unwrap();
    v["results"]["version"] = 99.into();
    v["results"]["results"][1]
        .as_object_mut()
        .unwrap()
        .remove("success");
    let r = run(&[(name, serde_json::to_vec(&v).unwrap())]);
    let p = problems(&r);
    assert!(
        p.iter()
            .any(|e| e.contains("results.version") && e.contains("99")),
        "{p:?}"
    );
    assert!(
        p.iter().any(|e| e.contains("results.results[1].success")),
        "{p:?}"
    );
    assert_eq!(r.scores.iter().filter(|s| s.metric == "pass").count(), 9);

    let (name, bytes) = read("inspect/log.json");
    let mut v: Value = serde_json::from_slice(&bytes).unwrap();
    v["version"] = 7.into();
    v["samples"][0].as_object_mut().unwrap().remove("id");
    let r = run(&[(name, serde_json::to_vec(&v).unwrap())]);
    let p = problems(&r);
    assert!(
        p.iter().any(|e| e.contains("version") && e.contains('7')),
        "{p:?}"
    );
    assert!(
        p.iter()
            .any(|e| e.contains("`id`") || e.contains("id:") || e.contains(": id")),
        "{p:?}"
    );
    assert_eq!(r.scores.iter().filter(|s| s.metric == "match").count(), 9);
}

#[test]
fn a_bad_lm_eval_line_is_located_and_skipped() {
    let dir = "lm_eval/fixture-org__tiny-fixture-lm";
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(data(dir))
        .unwrap()
        .map(|e| {
            read(&format!(
                "{dir}/{}",
                e.unwrap().file_name().to_string_lossy()
            ))
        })
        .collect();
    let s = files
        .iter_mut()
        .find(|(n, _)| n.starts_with("samples_arc"))
        .unwrap();
    let text = String::from_utf8(s.1.clone()).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines[1] = "{\"doc_id\": 1, \"broken";
    s.1 = lines.join("\n").into_bytes();
    let r = run(&files);
    let p = problems(&r);
    assert!(
        p.iter()
            .any(|e| e.contains("samples_arc_easy_tiny") && e.contains(":2")),
        "{p:?}"
    );
    assert_eq!(
        r.scores
            .iter()
            .filter(|s| s.metric == "arc_easy_tiny/acc,none")
            .count(),
        3
    );
    // The source's mean is over 4 documents; evalpage's over the 3 read: said.
    assert!(
        differences(&r)
            .iter()
            .any(|d| d.contains("arc_easy_tiny/acc,none")),
        "{:?}",
        differences(&r)
    );
}

#[test]
fn a_file_of_no_tool_is_refused_by_name() {
    let err = group(&[("notes.json".to_string(), b"{\"hello\": 1}".to_vec())]).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("notes.json: not a file this reads"),
        "{err}"
    );
    assert_eq!(
        detect(
            "report.json",
            br#"{"metrics": {}, "scores": [], "report": {}}"#
        ),
        None
    );
}

#[test]
fn files_of_two_runs_are_two_imports() {
    let files = [
        read("promptfoo/out.json"),
        read("inspect/log.eval"),
        read("openai_evals/oaieval_log.jsonl"),
    ];
    assert_eq!(group(&files).unwrap(), vec![vec![0], vec![1], vec![2]]);
    let parts: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(n, b)| (n.as_str(), b.as_slice()))
        .collect();
    assert!(matches!(import(&parts[..2]), Err(ImportError::Mixed(_))));
    assert_eq!(import(&parts[1..2]).unwrap().tool, Tool::Inspect);
}

#[test]
fn a_first_look_reads_only_the_first_samples() {
    use evalpage_core::import::import_first;
    for file in ["promptfoo/out.json", "inspect/log.json", "inspect/log.eval"] {
        let (name, bytes) = read(file);
        let r = import_first(&[(&name, &bytes)], Some(3)).unwrap().report;
        assert_eq!(r.cases.len(), 3, "{file}");
        assert!(
            r.report.line_errors.is_none(),
            "{file}: {:?}",
            r.report.line_errors
        );
    }
}

/// The `not_carried` notes listing the top-level fields a reader left unread.
fn unread(r: &EvaluationResult) -> Vec<String> {
    r.report.experiment.evaluator_config["not_carried"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .filter(|s| s.starts_with("fields of "))
        .map(str::to_string)
        .collect()
}

#[test]
fn the_fields_a_reader_does_not_read_are_listed_once() {
    let r = run(&[read("promptfoo/out.json")]);
    assert_eq!(
        unread(&r),
        [
            "fields of results.results[] this import does not read: `id`, `metadata`, `promptId`, `promptIdx`, `vars`",
            "fields of the output file this import does not read: `runtimeOptions`, `vars`",
        ]
    );
    for file in ["inspect/log.json", "inspect/log_tools.eval"] {
        let u = unread(&run(&[read(file)]));
        assert_eq!(u.len(), 2, "{file}: {u:?}");
        assert!(
            u[0].starts_with("fields of a sample this import does not read: `attachments`"),
            "{file}: {u:?}"
        );
        assert!(
            u[0].contains("`events`") && u[0].contains("`uuid`"),
            "{file}: {u:?}"
        );
        assert!(
            u[1].starts_with("fields of the log header this import does not read:"),
            "{file}: {u:?}"
        );
        assert!(
            u[1].contains("`plan`") && u[1].contains("`stats`"),
            "{file}: {u:?}"
        );
    }
    let r = run(&[
        read("openai_evals/run.json"),
        read("openai_evals/output_items.json"),
    ]);
    assert_eq!(
        unread(&r),
        [
            "fields of an output item this import does not read: `created_at`, `eval_id`, `object`, `run_id`",
            "fields of the run object this import does not read: `data_source`, `error`, `metadata`, `object`, `per_model_usage`, `report_url`",
        ]
    );
    let dir = "lm_eval/fixture-org__tiny-fixture-lm";
    let mut names: Vec<String> = std::fs::read_dir(data(dir))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let files: Vec<_> = names.iter().map(|n| read(&format!("{dir}/{n}"))).collect();
    let u = unread(&run(&files));
    assert_eq!(u.len(), 2, "{u:?}");
    assert_eq!(
        u[0],
        "fields of a samples line this import does not read: `doc`, `doc_hash`, `prompt_hash`, `resps`, `target_hash`"
    );
    assert!(
        u[1].starts_with("fields of results_*.json this import does not read: `chat_template`")
            && u[1].contains("`versions`"),
        "{u:?}"
    );
    let r = run(&[read("openai_evals/oaieval_log.jsonl")]);
    assert_eq!(
        unread(&r),
        ["fields of an oaieval log line this import does not read: `created_at`, `created_by`, `event_id`, `run_id`"]
    );
}
