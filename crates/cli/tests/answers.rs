//! Answers as today's endpoints give them, end to end against a real
//! `evalpage mock-server`: reasoning that must not be scored, usage and cost
//! totals, and a wrong key that stops the run and resumes after the fix.

mod common;

use common::*;
use evalpage_core::ScoringConfig;
use serde_json::{json, Value};
use std::path::Path;

/// Six questions; the keypoint (and the document) of four of them appear
/// only in the model's reasoning.
const DATASET: &str = r#"{"q":"question one","gold":["alpha keypoint"],"doc_hint":["d1.md"]}
{"q":"question two","gold":["beta keypoint"],"doc_hint":["d2.md"]}
{"q":"question three","gold":["gamma keypoint"],"doc_hint":["d3.md"]}
{"q":"question four","gold":["delta keypoint"],"doc_hint":["d4.md"]}
{"q":"question five","gold":["epsilon keypoint"],"doc_hint":["d5.md"]}
{"q":"question six","gold":["zeta keypoint"],"doc_hint":["d6.md"]}
"#;

/// (question, reasoning, final answer, usage: prompt, completion, reasoning tokens)
const SCRIPT: [(&str, &str, &str, [u64; 3]); 6] = [
    (
        "question one",
        "the alpha keypoint is in d1.md",
        "I am not sure.",
        [100, 40, 30],
    ),
    (
        "question two",
        "d2.md says beta keypoint",
        "No idea, sorry.",
        [110, 50, 35],
    ),
    (
        "question three",
        "other.md mentions the gamma keypoint",
        "gamma keypoint. Source: d3.md",
        [120, 60, 20],
    ),
    (
        "question four",
        "let me think",
        "delta keypoint. Source: d4.md",
        [130, 70, 10],
    ),
    (
        "question five",
        "epsilon keypoint, see d5.md",
        "unknown",
        [140, 80, 60],
    ),
    (
        "question six",
        "",
        "something else. Source: d6.md",
        [150, 90, 0],
    ),
];

fn answers_file(dir: &Scratch, truncate_last: bool) -> String {
    let lines: Vec<String> = SCRIPT
        .iter()
        .enumerate()
        .map(|(i, (q, r, a, [p, c, rt]))| {
            let mut v = json!({"q": q, "answer": a,
                "usage": {"prompt_tokens": p, "completion_tokens": c,
                          "completion_tokens_details": {"reasoning_tokens": rt}}});
            if !r.is_empty() {
                v["reasoning"] = json!(r);
            }
            if truncate_last && i == 5 {
                v["finish_reason"] = json!("length");
            }
            v.to_string()
        })
        .collect();
    let path = dir.write("answers.jsonl", &(lines.join("\n") + "\n"));
    path.display().to_string()
}

/// The RAG prompt puts the question last; the scripted answers match it.
fn run_rag(url: &str, dataset: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "--dataset",
        dataset.to_str().expect("utf-8"),
        "--endpoint",
        url,
        "--model",
        "reasoner",
        "--concurrency",
        "2",
        "--out",
        out.to_str().expect("utf-8"),
    ];
    args.extend_from_slice(extra);
    run(&args)
}

fn rate(report: &Value, key: &str) -> f64 {
    report["metrics"][key].as_f64().unwrap_or(-1.0)
}

/// How a reasoning style puts the reasoning into `content`.
type Inline = fn(&str, &str) -> String;

/// Accuracy and citation rate of `results.jsonl` scored the way the product
/// did before this change: the whole `content` (reasoning block included).
fn before(results: &str, dataset: &str, inline: impl Fn(&str, &str) -> String) -> (f64, f64) {
    let cases = evalpage_core::rag::parse("d.jsonl", dataset.as_bytes()).cases;
    let (mut acc, mut cit) = (0, 0);
    for (line, case) in results.lines().zip(&cases) {
        let v: Value = serde_json::from_str(line).expect("json line");
        let answer = v["raw"]["answer"].as_str().unwrap_or("");
        let content = match v["raw"]["reasoning"].as_str() {
            Some(r) => inline(r, answer),
            None => answer.to_string(),
        };
        acc += usize::from(
            evalpage_core::testing::accuracy(&content, &case.gold, &ScoringConfig::default())
                .passed,
        );
        cit += usize::from(evalpage_core::testing::citation(&content, &case.doc_hint).passed);
    }
    let n = cases.len() as f64;
    (acc as f64 / n, cit as f64 / n)
}

#[test]
fn keypoints_only_in_the_reasoning_no_longer_count_in_any_reasoning_style() {
    let dir = Scratch::new("reasoning");
    let dataset = dir.write("d.jsonl", DATASET);
    let answers = answers_file(&dir, false);
    let styles: [(&str, Inline); 3] = [
        ("inline", |r, a| format!("<think>\n{r}\n</think>\n\n{a}")),
        ("inline-no-open", |r, a| format!("{r}\n</think>\n\n{a}")),
        ("field", |_, a| a.to_string()),
    ];
    for (style, inline) in styles {
        let mock = Mock::start(&["--answers", &answers, "--reasoning-style", style]);
        let out = dir.join(style);
        assert_ok(&run_rag(&mock.url, &dataset, &out, &[]));
        let report = read_json(&out.join("eval_rag_report.json"));
        let after = (rate(&report, "accuracy"), rate(&report, "citation_rate"));
        let results = std::fs::read_to_string(out.join("results.jsonl")).expect("results");
        let was = before(&results, DATASET, inline);
        eprintln!(
            "{style}: before accuracy {:.3} citation {:.3}; after accuracy {:.3} citation {:.3}",
            was.0, was.1, after.0, after.1
        );
        assert_eq!(
            after,
            (2.0 / 6.0, 3.0 / 6.0),
            "{style}: only the final answers count"
        );
        if style == "field" {
            assert_eq!(was, after, "a reasoning field was never scored");
        } else {
            assert_eq!(
                was,
                (5.0 / 6.0, 5.0 / 6.0),
                "{style}: the whole content was scored"
            );
        }
        // the reasoning is kept: case records, score detail, results.jsonl
        let log = std::fs::read_to_string(out.join("eval_rag_report.events.jsonl")).expect("log");
        let first_case: Value = log
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .find(|r| r["record_type"] == "case" && r["case_id"] == "Q1")
            .expect("case record");
        assert_eq!(first_case["reasoning"], "the alpha keypoint is in d1.md");
        assert_eq!(first_case["answer"], "I am not sure.");
        assert_eq!(
            report["scores"][0]["detail"]["reasoning"],
            "the alpha keypoint is in d1.md"
        );
    }
}

#[test]
fn token_and_cost_totals_equal_the_sums_of_the_scripted_answers() {
    let dir = Scratch::new("usage");
    let dataset = dir.write("d.jsonl", DATASET);
    let answers = answers_file(&dir, true);
    let mock = Mock::start(&["--answers", &answers, "--reasoning-style", "field"]);
    let out = dir.join("out");
    assert_ok(&run_rag(
        &mock.url,
        &dataset,
        &out,
        &["--price-in", "2.5", "--price-out", "10"],
    ));
    let report = read_json(&out.join("eval_rag_report.json"));
    let sum = |k: usize| SCRIPT.iter().map(|s| s.3[k]).sum::<u64>();
    let (p, c, r) = (sum(0), sum(1), sum(2));
    let u = &report["report"]["usage"][0];
    assert_eq!(u["model"], "reasoner");
    assert_eq!(
        (
            u["prompt_tokens"].as_u64(),
            u["completion_tokens"].as_u64(),
            u["reasoning_tokens"].as_u64()
        ),
        (Some(p), Some(c), Some(r))
    );
    let cost = (p as f64 * 2.5 + c as f64 * 10.0) / 1e6;
    let got = u["cost"].as_f64().expect("cost");
    assert!((got - cost).abs() < 1e-12, "{got} vs {cost}");
    eprintln!("scripted sums: prompt {p}, completion {c}, reasoning {r}, cost {cost}; report: {u}");
    // the truncated answer is counted, and scored as it is by default
    assert_eq!(report["metrics"]["truncated_cases"], 1);
    assert_eq!(report["metrics"]["failed_calls"], 0);
    assert_eq!(u["truncated"], 1);
    let timing = &report["report"]["experiment"]["run"]["latency"][0];
    assert!(timing["latency_p50_ms"].as_u64().is_some(), "{timing}");
    let csv = std::fs::read_to_string(out.join("summary.csv")).expect("csv");
    let header: Vec<&str> = csv.lines().next().unwrap_or("").split(',').collect();
    let row: Vec<&str> = csv.lines().nth(1).unwrap_or("").split(',').collect();
    let cell = |name: &str| {
        header
            .iter()
            .position(|h| *h == name)
            .and_then(|i| row.get(i).copied())
    };
    assert_eq!(cell("prompt_tokens"), Some(p.to_string().as_str()));
    assert_eq!(cell("completion_tokens"), Some(c.to_string().as_str()));
    assert_eq!(cell("truncated"), Some("1"));
    assert!(cell("cost").is_some_and(|v| (v.parse::<f64>().unwrap_or(0.0) - cost).abs() < 1e-12));
    let md = std::fs::read_to_string(out.join("report.md")).expect("md");
    assert!(md.contains("cost") && md.contains(&p.to_string()), "{md}");
    // no price, no cost
    let plain = dir.join("plain");
    assert_ok(&run_rag(&mock.url, &dataset, &plain, &[]));
    let report = read_json(&plain.join("eval_rag_report.json"));
    assert!(report["report"]["usage"][0].get("cost").is_none());
    let csv = std::fs::read_to_string(plain.join("summary.csv")).expect("csv");
    assert!(!csv.lines().next().unwrap_or("").contains("cost"));
    // counted as failed calls when asked
    let strict = dir.join("strict");
    assert_ok(&run_rag(
        &mock.url,
        &dataset,
        &strict,
        &["--truncated-as-failure"],
    ));
    let report = read_json(&strict.join("eval_rag_report.json"));
    assert_eq!(report["metrics"]["truncated_cases"], 1);
    assert_eq!(report["metrics"]["failed_calls"], 1);
    let u = &report["report"]["usage"][0];
    assert_eq!(
        (
            u["prompt_tokens"].as_u64(),
            u["completion_tokens"].as_u64(),
            u["answered"].as_u64()
        ),
        (Some(p), Some(c), Some(5)),
        "the failed truncated call still used its tokens"
    );
}

fn posts(log: &str) -> usize {
    log.lines()
        .filter(|l| l.contains("POST /v1/chat/completions"))
        .count()
}

#[test]
fn a_wrong_key_stops_the_run_and_a_resume_after_the_fix_sends_only_the_cases_without_an_answer() {
    let dir = Scratch::new("fatal");
    let all: String = (0..20)
        .map(|i| {
            format!("{{\"q\":\"question {i}\",\"gold\":[\"k{i}\"],\"doc_hint\":[\"d{i}.md\"]}}\n")
        })
        .collect();
    let first_five: String = all.lines().take(5).map(|l| format!("{l}\n")).collect();
    let dataset = dir.write("all.jsonl", &all);
    let head = dir.write("head.jsonl", &first_five);
    // five cases answered by a working endpoint
    let good = Mock::start(&[]);
    let a = dir.join("a");
    assert_ok(&run_rag(&good.url, &head, &a, &[]));
    // the rest against an endpoint that refuses the key
    let refusing = Mock::start_logged(&["--fail-status", "401"]);
    let b = dir.join("b");
    let log_a = a.join("eval_rag_report.events.jsonl");
    let out = run_rag(
        &refusing.url,
        &dataset,
        &b,
        &["--resume-from", log_a.to_str().expect("utf-8")],
    );
    let (_, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("check the API key") && stderr.contains("--resume-from"),
        "{stderr}"
    );
    let sent = posts(&refusing.stop_and_read_log());
    assert!(
        (1..=2).contains(&sent),
        "stopped after the first fatal answers, not {sent}"
    );
    let log_b = b.join("eval_rag_report.events.jsonl");
    let records: Vec<Value> = std::fs::read_to_string(&log_b)
        .expect("log")
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    assert_eq!(
        records
            .iter()
            .filter(|r| r["record_type"] == "error")
            .count(),
        1
    );
    let report = read_json(&b.join("eval_rag_report.json"));
    assert_eq!(
        report["metrics"]["cases"], 20,
        "every case stays in the denominator"
    );
    assert_eq!(report["metrics"]["not_run_cases"], 15 - sent);
    let not_run = report["report"]["error_cases"]
        .as_array()
        .map_or(0, |e| e.iter().filter(|c| c["status"] == "not_run").count());
    assert_eq!(not_run, 15 - sent, "the cases not run are listed");
    // after the fix: only the fifteen cases without an answer are sent
    let counting = Mock::start_logged(&[]);
    let c = dir.join("c");
    let out = run_rag(
        &counting.url,
        &dataset,
        &c,
        &["--resume-from", log_b.to_str().expect("utf-8")],
    );
    assert_ok(&out);
    assert_eq!(posts(&counting.stop_and_read_log()), 15);
    let report = read_json(&c.join("eval_rag_report.json"));
    assert_eq!(
        (
            report["metrics"]["failed_calls"].as_u64(),
            report["metrics"]["cases"].as_u64()
        ),
        (Some(0), Some(20))
    );
}

#[test]
fn keep_going_on_fatal_sends_every_case() {
    let dir = Scratch::new("keep-going");
    let dataset = dir.write("d.jsonl", DATASET);
    let refusing = Mock::start_logged(&["--fail-status", "403"]);
    let out = dir.join("out");
    let run = run_rag(&refusing.url, &dataset, &out, &["--keep-going-on-fatal"]);
    assert_ok(&run);
    assert_eq!(posts(&refusing.stop_and_read_log()), 6);
    let report = read_json(&out.join("eval_rag_report.json"));
    assert_eq!(report["metrics"]["failed_calls"], 6);
    assert_eq!(report["metrics"]["not_run_cases"], 0);
}
