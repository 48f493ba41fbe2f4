//! `evalpage run --task ... --repeats N --pass-k ...` against a real
//! `evalpage mock-server` playing a sampled model (`"answers": [...]`, the
//! n-th request for a prompt gets the n-th answer): N requests per sample,
//! each answer scored, the mean over all answers, pass@k and pass^k equal to
//! the formulas on the known per-repeat outcomes, every repeat in
//! results.jsonl and the log, and a second run with `--cache` sends nothing
//! and reports the same.

mod common;

use common::{assert_ok, evalpage, finish, read_json, Mock, Scratch};
use serde_json::Value;
use std::path::Path;

/// (title, label, the three answers the sampled model gives in turn)
const SAMPLES: [(&str, &str, [&str; 3]); 3] = [
    // 2 of 3 right
    ("Stocks rally", "up", ["up", "up", "down"]),
    // none right
    ("Rates rise", "up", ["down", "flat", "flat"]),
    // all right
    ("Markets calm", "flat", ["flat", "flat", "flat"]),
];

fn setup(s: &Scratch) -> (String, String) {
    s.write(
        "mood_prompt.yaml",
        "name: mood_prompt\nversion: v1\nsystem: You read one headline and answer with JSON.\nuser: \"Headline: {{ title }}.\"\n",
    );
    let task = s.write(
        "task.yaml",
        "name: headline_mood\nversion: v1\nprompt_template: mood_prompt\nparse_schema:\n  - field: mood\n    type: enum\n    values: [up, down, flat]\n    default: flat\nmetrics:\n  - type: exact_match\n    name: mood_acc\n    pred_field: mood\n    label_field: gt_mood\n",
    );
    let mut dataset = String::new();
    let mut script = String::new();
    for (i, (title, label, answers)) in SAMPLES.iter().enumerate() {
        dataset.push_str(&format!(
            "{{\"id\": \"s{i}\", \"title\": \"{title}\", \"gt_mood\": \"{label}\"}}\n"
        ));
        let answers: Vec<String> = answers
            .iter()
            .map(|a| serde_json::json!({ "mood": a }).to_string())
            .collect();
        script.push_str(
            &serde_json::json!({"q": format!("Headline: {title}."), "answers": answers})
                .to_string(),
        );
        script.push('\n');
    }
    let ds = s.write("dataset.jsonl", &dataset);
    s.write("answers.jsonl", &script);
    (
        task.to_string_lossy().into_owned(),
        ds.to_string_lossy().into_owned(),
    )
}

fn registry(s: &Scratch, url: &str) -> String {
    s.write(
        "registry.json",
        &format!(r#"{{"models": [{{"name": "sampled", "base_url": "{url}"}}]}}"#),
    )
    .to_string_lossy()
    .into_owned()
}

fn posts(log: &str) -> usize {
    log.lines()
        .filter(|l| l.contains("POST /v1/chat/completions"))
        .count()
}

fn run(task: &str, ds: &str, reg: &str, out: &Path, extra: &[&str]) -> std::process::Output {
    let mut cmd = evalpage();
    cmd.args(["run", "--task", task, "--dataset", ds])
        .args(["--models", "sampled", "--model-registry", reg])
        .args(extra)
        .arg("--out")
        .arg(out);
    finish(cmd)
}

fn summary(report: &Value) -> Value {
    report["report"]["summaries"]
        .as_array()
        .and_then(|s| s.iter().find(|m| m["metric"] == "mood_acc"))
        .cloned()
        .unwrap_or(Value::Null)
}

fn close(v: &Value, want: f64) -> bool {
    v.as_f64().is_some_and(|x| (x - want).abs() < 1e-9)
}

#[test]
fn three_repeats_send_three_calls_per_sample_and_pass_k_follows_the_formulas() {
    let s = Scratch::new("repeats");
    let (task, ds) = setup(&s);
    let answers = s.join("answers.jsonl");
    let mock = Mock::start_logged(&["--answers", answers.to_str().unwrap_or_default()]);
    let reg = registry(&s, &mock.url);
    let out = s.join("out");
    let cache = s.join("cache");
    let cache_arg = cache.to_str().unwrap_or_default().to_string();
    let args = [
        "--repeats",
        "3",
        "--pass-k",
        "1,2,3",
        "--cache",
        cache_arg.as_str(),
    ];
    assert_ok(&run(&task, &ds, &reg, &out, &args));
    let report = read_json(&out.join("report.json"));
    let m = summary(&report);
    // per sample c of n = 3: 2, 0, 3
    assert_eq!(m["sample_count"], 9, "every answer is scored: {m}");
    assert!(close(&m["mean"], 5.0 / 9.0), "mean over all answers: {m}");
    // pass@1 = mean(2/3, 0, 1); pass@2 = mean(1 - C(1,2)/C(3,2), 0, 1);
    // pass@3 = mean(1, 0, 1)
    assert!(close(&m["pass_at_k"]["1"], 5.0 / 9.0), "{m}");
    assert!(close(&m["pass_at_k"]["2"], 2.0 / 3.0), "{m}");
    assert!(close(&m["pass_at_k"]["3"], 2.0 / 3.0), "{m}");
    // pass^1 = pass@1; pass^2 = mean(C(2,2)/C(3,2), 0, 1); pass^3 = mean(0, 0, 1)
    assert!(close(&m["pass_hat_k"]["1"], 5.0 / 9.0), "{m}");
    assert!(close(&m["pass_hat_k"]["2"], 4.0 / 9.0), "{m}");
    assert!(close(&m["pass_hat_k"]["3"], 1.0 / 3.0), "{m}");
    // per sample: the repeats' values and their mean
    let samples = report["report"]["repeats"]["samples"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(report["report"]["repeats"]["n"], 3);
    assert_eq!(samples.len(), 3);
    let mut passes: Vec<f64> = samples
        .iter()
        .map(|x| {
            let vs = x["values"]["mood_acc"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            assert_eq!(vs.len(), 3, "three values per sample: {x}");
            vs.iter().filter_map(Value::as_f64).sum()
        })
        .collect();
    passes.sort_by(f64::total_cmp);
    assert_eq!(passes, vec![0.0, 2.0, 3.0]);
    // every repeat is a line of results.jsonl and a case record, numbered
    let results = std::fs::read_to_string(out.join("results.jsonl")).unwrap_or_default();
    let repeats: Vec<u64> = results
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|l| l["repeat"].as_u64())
        .collect();
    assert_eq!(repeats.len(), 9);
    assert_eq!(repeats.iter().filter(|r| **r == 2).count(), 3);
    let log = std::fs::read_to_string(out.join("report.events.jsonl")).unwrap_or_default();
    let cases = log
        .lines()
        .filter(|l| l.contains("\"record_type\":\"case\""))
        .count();
    assert_eq!(cases, 9, "one case record per answer");
    // the log reconciles with the report asking by asking (seed 1 of the
    // simulator: the report named a repeated case once, so each sample's
    // askings were one case and their verdicts could disagree)
    assert!(
        report["cases"]
            .as_array()
            .is_some_and(|c| c.iter().filter(|c| c["repeat"] == 2).count() == 3),
        "each asking is a case row: {}",
        report["cases"]
    );
    let mut cmd = evalpage();
    cmd.args(["reconcile", "--report"])
        .arg(out.join("report.json"))
        .arg("--events")
        .arg(out.join("report.events.jsonl"));
    let rec = finish(cmd);
    assert_ok(&rec);
    let said = String::from_utf8_lossy(&rec.stdout).to_string();
    assert!(said.contains("ok   case records: report=9 log=9"), "{said}");
    // report.md and summary.csv carry pass@k
    let md = std::fs::read_to_string(out.join("report.md")).unwrap_or_default();
    assert!(md.contains("pass@2"), "report.md names pass@k:\n{md}");
    let csv = std::fs::read_to_string(out.join("summary.csv")).unwrap_or_default();
    assert!(
        csv.contains("tm_mood_acc_pass@3") && csv.contains("tm_mood_acc_pass^2"),
        "{csv}"
    );
    // a second run from the cache: no request, the same figures
    let again = s.join("again");
    assert_ok(&run(&task, &ds, &reg, &again, &args));
    let log = mock.stop_and_read_log();
    assert_eq!(
        posts(&log),
        9,
        "3 per sample, then none from the cache:\n{log}"
    );
    let second = read_json(&again.join("report.json"));
    let (a, b) = (summary(&report), summary(&second));
    for key in ["mean", "pass_at_k", "pass_hat_k", "sample_count"] {
        assert_eq!(a[key], b[key], "{key}");
    }
}

#[test]
fn the_task_file_sets_repeats_and_bad_values_are_refused_where_they_are() {
    let s = Scratch::new("repeats-yaml");
    let (task, ds) = setup(&s);
    let text = std::fs::read_to_string(&task).unwrap_or_default();
    let with = s.write("with.yaml", &format!("{text}repeats: 2\n"));
    let out = s.join("out");
    let mut cmd = evalpage();
    cmd.args(["run", "--mock", "--task"])
        .arg(&with)
        .args(["--dataset", &ds, "--out"])
        .arg(&out);
    assert_ok(&finish(cmd));
    let report = read_json(&out.join("report.json"));
    assert_eq!(report["report"]["repeats"]["n"], 2);
    assert_eq!(
        report["report"]["repeats"]["pass_k"],
        serde_json::json!([1, 2])
    );
    assert_eq!(summary(&report)["sample_count"], 6);
    // k above the repeats: refused at the key, nothing run
    let bad = s.write("bad.yaml", &format!("{text}repeats: 2\npass_k: [1, 3]\n"));
    let mut cmd = evalpage();
    cmd.args(["run", "--mock", "--task"])
        .arg(&bad)
        .args(["--dataset", &ds, "--out"])
        .arg(s.join("bad"));
    let o = finish(cmd);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("pass_k[1]") && err.contains("bad.yaml"),
        "{err}"
    );
    // --pass-k above --repeats: a usage error
    let mut cmd = evalpage();
    cmd.args(["run", "--mock", "--task", &task, "--dataset", &ds])
        .args(["--repeats", "2", "--pass-k", "5", "--out"])
        .arg(s.join("bad2"));
    let o = finish(cmd);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--pass-k"));
}
