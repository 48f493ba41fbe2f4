//! `evalpage run --shard I/N` and `evalpage merge`: the shards of a run,
//! joined, give the unsharded run's report (apart from ids and times), for a
//! task over two models, the RAG check and dialogs; shards that are not one
//! run's, or do not cover it, are refused with what is wrong.

mod common;

use common::{assert_ok, comparable, evalpage, finish, read_json, texts, Scratch};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

fn demo(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../www/demo")
        .join(name)
}

fn run_into(args: &[&str], out: &Path) -> Output {
    let mut cmd = evalpage();
    cmd.arg("run").args(args).arg("--out").arg(out);
    finish(cmd)
}

fn merge(shards: &[&Path], out: &Path) -> Output {
    let mut cmd = evalpage();
    cmd.arg("merge").args(shards).arg("--out").arg(out);
    finish(cmd)
}

/// Runs `args` as N shards and unsharded, merges the shards; returns the
/// unsharded and the merged directories.
fn shard_and_merge(dir: &Scratch, args: &[&str], n: u32) -> (PathBuf, PathBuf) {
    let mut shards = Vec::new();
    let mut samples = 0;
    for i in 1..=n {
        let out = dir.join(&format!("shard{i}"));
        let shard = format!("{i}/{n}");
        let mut a = args.to_vec();
        a.extend(["--shard", &shard]);
        let done = run_into(&a, &out);
        assert_ok(&done);
        let stderr = texts(&done).1;
        let kept = stderr
            .split(&format!("shard {i}/{n}: "))
            .nth(1)
            .and_then(|s| s.split(' ').next())
            .and_then(|s| s.parse::<usize>().ok())
            .unwrap_or_else(|| panic!("no shard line in {stderr}"));
        samples += kept;
        shards.push(out);
    }
    let full = dir.join("full");
    assert_ok(&run_into(args, &full));
    let merged = dir.join("merged");
    let refs: Vec<&Path> = shards.iter().map(PathBuf::as_path).collect();
    let done = merge(&refs, &merged);
    assert_ok(&done);
    assert!(
        texts(&done).1.contains("already settled"),
        "the shards' calls are taken over: {}",
        texts(&done).1
    );
    assert!(samples > 0);
    (full, merged)
}

#[test]
fn a_task_over_two_models_in_three_shards_merges_into_the_unsharded_report() {
    let dir = Scratch::new("shards-task");
    let data = demo("tasks/event_eval.jsonl");
    let args = [
        "--task",
        "event_eval",
        "--dataset",
        data.to_str().unwrap_or_default(),
        "--mock",
        "--models",
        "mock-a,mock-b",
    ];
    let (full, merged) = shard_and_merge(&dir, &args, 3);
    let (a, b) = (
        read_json(&full.join("report.json")),
        read_json(&merged.join("report.json")),
    );
    assert_eq!(comparable(b.clone()), comparable(a.clone()));
    assert_eq!(b["metrics"]["cases"], 16, "every sample x model once");
    // summary.csv too, but for the timing columns.
    let untimed = |d: &Path| {
        let text = std::fs::read_to_string(d.join("summary.csv")).unwrap_or_default();
        let rows: Vec<Vec<String>> = text
            .lines()
            .map(|l| l.split(',').map(str::to_string).collect())
            .collect();
        let keep: Vec<usize> = rows[0]
            .iter()
            .enumerate()
            .filter(|(_, h)| !h.contains("latency") && !h.ends_with("per_s"))
            .map(|(i, _)| i)
            .collect();
        rows.iter()
            .map(|r| keep.iter().map(|&i| r[i].clone()).collect::<Vec<_>>())
            .collect::<Vec<_>>()
    };
    assert_eq!(untimed(&merged), untimed(&full));
    // The merged log reconciles with the merged report.
    let mut cmd = evalpage();
    cmd.args(["reconcile", "--report"])
        .arg(merged.join("report.json"))
        .arg("--events")
        .arg(merged.join("report.events.json-seq"));
    assert_ok(&finish(cmd));
}

#[test]
fn the_rag_check_and_dialogs_merge_too() {
    let dir = Scratch::new("shards-rag");
    let data = demo("demo_dataset.jsonl");
    let args = [
        "--dataset",
        data.to_str().unwrap_or_default(),
        "--provider",
        "demo",
    ];
    let (full, merged) = shard_and_merge(&dir, &args, 2);
    assert_eq!(
        comparable(read_json(&merged.join("eval_rag_report.json"))),
        comparable(read_json(&full.join("eval_rag_report.json")))
    );

    let dir = Scratch::new("shards-dialog");
    let dialogs = demo("demo_dialogs.jsonl");
    let args = [
        "--dialogs",
        dialogs.to_str().unwrap_or_default(),
        "--provider",
        "demo",
    ];
    let (full, merged) = shard_and_merge(&dir, &args, 2);
    let summary = |d: &Path| {
        let mut v = read_json(&d.join("metrics_summary.json"));
        v["run_id"] = Value::Null;
        v
    };
    assert_eq!(summary(&merged), summary(&full));
}

#[test]
fn shards_that_are_not_one_whole_run_are_refused_naming_the_problem() {
    let dir = Scratch::new("shards-bad");
    let data = demo("demo_dataset.jsonl");
    let ds = data.to_str().unwrap_or_default();
    let shard = |i: &str, extra: &[&str]| {
        let out = dir.join(&format!("s{}{}", i.replace('/', "of"), extra.len()));
        let mut a = vec!["--dataset", ds, "--provider", "demo", "--shard", i];
        a.extend_from_slice(extra);
        assert_ok(&run_into(&a, &out));
        out
    };
    let (one, two) = (shard("1/2", &[]), shard("2/2", &[]));
    let other = shard("2/2", &["--lang", "en"]);
    let three = shard("1/3", &[]);
    let full = dir.join("full");
    assert_ok(&run_into(&["--dataset", ds, "--provider", "demo"], &full));
    let cases: Vec<(Vec<&Path>, &str)> = vec![
        (vec![&one], "shard(s) 2/2 missing"),
        (vec![&one, &one, &two], "shard 1/2 is given twice"),
        (
            vec![&one, &other],
            "their commands differ beyond --shard and --out",
        ),
        (vec![&one, &three], "one run is split one way"),
        (
            vec![&one, &full],
            "not a shard: its command has no --shard I/N",
        ),
    ];
    for (given, expected) in cases {
        let done = merge(&given, &dir.join("x"));
        assert_eq!(done.status.code(), Some(2), "{expected}");
        assert!(
            texts(&done).1.contains(expected),
            "{expected}: {}",
            texts(&done).1
        );
    }
    // A shard cut short (its log holds its meta and one case): nothing is
    // sent; merge says a shard must be finished first.
    let log = two.join("eval_rag_report.events.jsonl");
    let text = std::fs::read_to_string(&log).expect("log");
    let kept: Vec<&str> = text.lines().take(2).collect();
    let cut = dir.join("cut");
    std::fs::create_dir_all(&cut).expect("mkdir");
    std::fs::write(
        cut.join("eval_rag_report.events.jsonl"),
        kept.join("\n") + "\n",
    )
    .expect("write");
    let done = merge(&[&one, &cut], &dir.join("y"));
    assert_eq!(done.status.code(), Some(2));
    assert!(
        texts(&done)
            .1
            .contains("job(s) unsettled (a shard stopped early)"),
        "{}",
        texts(&done).1
    );
    assert!(!dir.join("y").join("eval_rag_report.json").exists());
}
