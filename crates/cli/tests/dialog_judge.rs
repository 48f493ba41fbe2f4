//! Spec 001's judged metrics with a judge, end to end: `evalpage run
//! --dialogs --judge NAME` against `evalpage mock-server --dialog-trace`
//! (which also answers the judge's requests), the judge a registry entry on
//! the same server; and `evalpage score --dialogs --judge mock` judging the
//! run's own trace. The five artifacts carry judged metrics with eligible and
//! unscored counts, the judge's name and prompts, every raw judge answer.

mod common;

use common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn dataset() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../www/demo/demo_dialogs.jsonl")
}

const JUDGED: [&str; 3] = [
    "m3_risk_disclosure_judge",
    "m4_compliance_judge",
    "m5_explainability",
];

/// Each judged metric is ok with eligible turns, its unscored ones counted apart.
fn judged_ok(summary: &Value, rows: usize) {
    for name in JUDGED {
        let m = &summary["metrics"][name];
        assert_eq!(m["status"], "ok", "{name}: {m}");
        let eligible = m["eligible_count"].as_u64().unwrap_or(0);
        assert!(eligible >= 10, "{name}: {m}");
        let v = m["value"].as_f64().unwrap_or(-1.0);
        assert!((0.0..=1.0).contains(&v), "{name}: {m}");
        let unscored = m["unscored_count"].as_u64().expect("unscored_count");
        let skipped = m["skipped_count"].as_u64().unwrap_or(0);
        assert!(
            unscored <= skipped,
            "{name}: unscored turns are skipped ones"
        );
        let sum = eligible + skipped + m["failed_count"].as_u64().unwrap_or(0);
        assert_eq!(sum as usize, rows, "{name}: every row counted once");
    }
}

#[test]
fn a_dialog_run_with_a_registry_judge_on_the_mock_server_has_judged_metrics() {
    let data = dataset();
    let data_s = data.to_str().expect("utf-8");
    let mock = Mock::start(&["--dialog-trace", "field", "--dialogs", data_s]);
    let dir = Scratch::new("dialog-judge-run");
    let registry = dir.write(
        "registry.json",
        &format!(
            r#"{{"models": [{{"name": "grader", "base_url": "{}", "model": "grader-1", "api_key_env": "EVALPAGE_DIALOG_JUDGE_KEY", "price_in_per_mtok": 1, "price_out_per_mtok": 4}}]}}"#,
            mock.url
        ),
    );
    let out = dir.join("out");
    let mut cmd = evalpage();
    cmd.env("EVALPAGE_DIALOG_JUDGE_KEY", "sk-judge-secret-7777")
        .args(["run", "--dialogs", data_s, "--endpoint", &mock.url])
        .args(["--model", "memfin-mock", "--concurrency", "3"])
        .args(["--judge", "grader", "--judge-concurrency", "2"])
        .arg("--model-registry")
        .arg(&registry)
        .arg("--out")
        .arg(&out);
    let o = finish(cmd);
    assert_ok(&o);
    let (stdout, _) = texts(&o);
    assert!(stdout.contains("judged by grader"), "{stdout}");
    assert!(stdout.contains("unscored"), "{stdout}");

    let manifest = read_json(&out.join("run_manifest.json"));
    assert_eq!(
        (
            manifest["workers_dialog"].as_u64(),
            manifest["workers_judge"].as_u64()
        ),
        (Some(3), Some(2))
    );
    let rows = read_jsonl(&out.join("turn_eval.jsonl"));
    let summary = read_json(&out.join("metrics_summary.json"));
    judged_ok(&summary, rows.len());
    let judge = &summary["judge"];
    assert_eq!(judge["model"], "grader");
    assert_eq!(judge["model_id"], "grader-1");
    assert_eq!(judge["workers_judge"], 2);
    for (part, id) in [
        ("risk_tags", "dialog_risk_tags"),
        ("compliance_label", "dialog_compliance"),
        ("rubric_hit_items", "dialog_rubric_items"),
        ("score_1_5", "dialog_explain_score"),
    ] {
        assert_eq!(judge["prompts"][part]["id"], id);
        assert_eq!(judge["prompts"][part]["version"], "1");
        assert_eq!(judge["prompts"][part]["language"], "zh");
    }
    assert!(judge["repairs"].as_u64().unwrap_or(0) > 0, "{judge}");
    // Spec 003's LLMJudgeDetail per judged part, its turns named.
    let details = summary["llm_judge_details"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let ids: Vec<&str> = details
        .iter()
        .filter_map(|d| d["prompt_id"].as_str())
        .collect();
    assert_eq!(
        ids,
        [
            "dialog_risk_tags",
            "dialog_compliance",
            "dialog_rubric_items",
            "dialog_explain_score"
        ]
    );
    for d in &details {
        let n = d["sample_count"].as_u64().unwrap_or(0);
        assert!(n >= 10, "{d}");
        assert_eq!(d["sample_ids"].as_array().map(Vec::len), Some(n as usize));
        assert_eq!(d["judge_model"], "grader");
        assert_eq!(d["language"], Value::Null, "dialogs carry no language");
        assert_eq!(d["prompt_language"], "zh");
    }
    assert_eq!(details[0]["metric"], "m3_risk_disclosure_judge");
    assert!(judge["prompt_tokens"].as_u64().unwrap_or(0) > 0, "{judge}");
    let cost = judge["prompt_tokens"].as_f64().unwrap_or(0.0) / 1e6
        + judge["completion_tokens"].as_f64().unwrap_or(0.0) * 4.0 / 1e6;
    assert!(
        (judge["cost"].as_f64().unwrap_or(0.0) - cost).abs() < 1e-12,
        "{judge}"
    );
    // the M3/M4 by lexicon and trace are still there, unchanged in kind
    assert_eq!(summary["metrics"]["m3_risk_disclosure"]["status"], "ok");

    // rows keep the judge's raw answers and how each verdict was read
    let judged_row = rows
        .iter()
        .find(|r| r["judgements"]["risk_tags"]["attempts"][0]["raw"].is_string())
        .expect("a judged row");
    let a = &judged_row["judgements"]["risk_tags"]["attempts"][0];
    assert!(a["verdict"]["outcome"].is_string(), "{a}");
    assert_eq!(
        judged_row["judgements"]["risk_tags"]["prompt"]["id"],
        "dialog_risk_tags"
    );
    let unscored = rows.iter().any(|r| {
        r["skip_reasons"]["m3_judge"]
            .as_str()
            .is_some_and(|s| s.starts_with("unscored"))
    });
    let m3_unscored = summary["metrics"]["m3_risk_disclosure_judge"]["unscored_count"]
        .as_u64()
        .unwrap_or(0);
    assert_eq!(unscored, m3_unscored > 0);
    let all_unscored: u64 = JUDGED
        .iter()
        .map(|n| {
            summary["metrics"][n]["unscored_count"]
                .as_u64()
                .unwrap_or(0)
        })
        .sum();
    assert!(
        all_unscored > 0 && judge["unscored_parts"].as_u64().unwrap_or(0) > 0,
        "the mock judge leaves some verdicts unreadable after the repair: {judge}"
    );

    // the event log's case records carry the judgements
    let log = std::fs::read_to_string(out.join("report.events.jsonl")).expect("log");
    let case = log
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|r| r["record_type"] == "case" && r["judgements"].is_object())
        .expect("a case with judgements");
    assert!(case["judgements"]["turn_pair_1"].is_object(), "{case}");
    assert!(
        case["metrics"]["m5_explainability"].is_number()
            || case["metrics"]["m5_explainability"].is_null()
    );

    // the key is never written
    for entry in std::fs::read_dir(&out).expect("out") {
        let path = entry.expect("entry").path();
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(!text.contains("sk-judge-secret-7777"), "{}", path.display());
    }

    // the run's own trace scored again with the mock judge
    let out2 = dir.join("scored");
    let mut cmd = evalpage();
    cmd.args(["score", "--dialogs", data_s, "--dialog-trace"])
        .arg(out.join("dialog_trace.jsonl"))
        .args([
            "--judge",
            "mock",
            "--judge-concurrency",
            "3",
            "--lang",
            "en",
        ])
        .arg("--out")
        .arg(&out2);
    let o = finish(cmd);
    assert_ok(&o);
    let rows2 = read_jsonl(&out2.join("turn_eval.jsonl"));
    let summary2 = read_json(&out2.join("metrics_summary.json"));
    judged_ok(&summary2, rows2.len());
    assert_eq!(summary2["judge"]["model"], "mock");
    assert_eq!(summary2["judge"]["prompts"]["risk_tags"]["language"], "en");
    assert_eq!(
        read_json(&out2.join("run_manifest.json"))["workers_judge"],
        3
    );
    assert_eq!(
        summary2["metrics"]["m1_memory_recall"]["value"],
        summary["metrics"]["m1_memory_recall"]["value"]
    );
    for name in JUDGED {
        let n = |s: &Value| s["metrics"][name]["eligible_count"].as_u64().unwrap_or(0);
        assert_eq!(
            n(&summary2),
            n(&summary),
            "{name}: the same turns are judged"
        );
    }

    // without a judge they stay not run
    let out3 = dir.join("plain");
    let mut cmd = evalpage();
    cmd.args(["score", "--dialogs", data_s, "--dialog-trace"])
        .arg(out.join("dialog_trace.jsonl"))
        .arg("--out")
        .arg(&out3);
    assert_ok(&finish(cmd));
    let plain = read_json(&out3.join("metrics_summary.json"));
    for name in JUDGED {
        assert_eq!(plain["metrics"][name]["status"], "not_run", "{name}");
    }
    assert!(
        plain.get("llm_judge_details").is_none(),
        "no judge, no details"
    );
}

#[test]
fn a_judge_flag_without_a_task_or_dialogs_is_refused() {
    let dir = Scratch::new("dialog-judge-usage");
    let o = run(&[
        "run",
        "--dataset",
        demo_dataset().to_str().expect("utf-8"),
        "--provider",
        "demo",
        "--judge",
        "mock",
        "--out",
        dir.join("out").to_str().expect("utf-8"),
    ]);
    assert_eq!(o.status.code(), Some(2), "{:?}", texts(&o));
}
