//! A judged dialog run resumed from its event log, end to end: `evalpage run
//! --dialogs --judge` against `evalpage mock-server --dialog-trace` (which
//! answers the judge's requests too, the judge a registry entry on it),
//! killed with SIGKILL mid-run, then `--resume-from` its log writes the same
//! five spec 001 files as an uninterrupted run (apart from the run id, times
//! and the mock's address), under the interrupted run's id, and every turn
//! and judge call is answered once across the two processes.

mod common;

use common::*;
use evalpage_core::events;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// The first eight dialogs of the demo set, all played (24 turn pairs, each
/// judged for its ground truth; the eighth opens with an assistant greeting,
/// sent as context).
const TURNS: usize = 2 + 3 + 4 + 5 + 2 + 3 + 4 + 1;

fn dialogs(dir: &Scratch) -> PathBuf {
    let all = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../www/demo/demo_dialogs.jsonl");
    let text = std::fs::read_to_string(all).expect("demo dialogs");
    let eight: String = text.lines().take(8).map(|l| format!("{l}\n")).collect();
    dir.write("dialogs.jsonl", &eight)
}

/// Every readable record of an event log, JSONL or json-seq (a cut last
/// record is left out).
fn records(path: &Path) -> Vec<Value> {
    events::read(&std::fs::read(path).unwrap_or_default()).records
}

fn of_type<'a>(log: &'a [Value], t: &'a str) -> impl Iterator<Item = &'a Value> + 'a {
    log.iter().filter(move |r| r["record_type"] == t)
}

/// The calls answered in a log's `turn` records.
fn settled_calls(log: &[Value]) -> usize {
    of_type(log, "turn")
        .map(|t| t["calls"].as_array().map_or(0, Vec::len))
        .sum()
}

/// Chat requests a mock server answered, from its `--log` lines.
fn answered(mock: Mock) -> usize {
    mock.stop_and_read_log()
        .matches("POST /v1/chat/completions -> 200")
        .count()
}

/// The `evalpage run --dialogs` command of this test against `mock`, judged
/// by a registry entry on the same server.
fn command(
    dir: &Scratch,
    data: &Path,
    mock: &Mock,
    out: &str,
    extra: &[&str],
) -> std::process::Command {
    let registry = dir.write(
        &format!("{out}.registry.json"),
        &format!(
            r#"{{"models": [{{"name": "grader", "base_url": "{}", "model": "grader-1"}}]}}"#,
            mock.url
        ),
    );
    let mut cmd = evalpage();
    cmd.args(["run", "--dialogs"])
        .arg(data)
        .args(["--endpoint", &mock.url, "--model", "memfin-mock"])
        .args(["--judge", "grader", "--model-registry"])
        .arg(registry)
        .args(["--concurrency", "1", "--judge-concurrency", "1"])
        .arg("--out")
        .arg(dir.join(out))
        .args(extra);
    cmd
}

/// Waits until the killed run's log has whole dialogs and a dialog with
/// settled turns but no `case` record yet, then kills it with SIGKILL.
fn kill_mid_run(mut child: Child, log: &Path) {
    let deadline = Instant::now() + RUN_LIMIT;
    loop {
        let records = records(log);
        let done: BTreeSet<&str> = of_type(&records, "case")
            .filter_map(|c| c["case_id"].as_str())
            .collect();
        let going = of_type(&records, "turn")
            .any(|t| t["case_id"].as_str().is_some_and(|id| !done.contains(id)));
        if done.len() >= 2 && going {
            break;
        }
        let finished = child.try_wait().expect("wait").is_some();
        assert!(!finished, "the run ended before it could be killed mid-run");
        assert!(Instant::now() < deadline, "the run did not get going");
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().expect("SIGKILL");
    let _ = child.wait();
}

/// A run's five spec 001 files with what differs between two identical
/// runs made the same: the run id, times, the mock's address. The progress
/// file's dialog lines follow the order dialogs finished in (dialogs go on
/// side by side while others are judged), so they are compared as a set,
/// without their running count.
fn five_files(out: &Path, urls: &[&str]) -> Vec<(String, String)> {
    let manifest = read_json(&out.join("run_manifest.json"));
    let run_id = manifest["run_id"].as_str().expect("run_id").to_string();
    let names = [
        "run_manifest.json".to_string(),
        "dialog_trace.jsonl".to_string(),
        "turn_eval.jsonl".to_string(),
        "metrics_summary.json".to_string(),
        format!("progress_{run_id}.jsonl"),
    ];
    names
        .iter()
        .map(|name| {
            let mut text = std::fs::read_to_string(out.join(name))
                .unwrap_or_else(|e| panic!("{name}: {e}"))
                .replace(&run_id, "RUN");
            for url in urls {
                text = text.replace(url, "URL");
            }
            // times, and the worker slot (which dialogs were in progress together)
            let timeless = |v: &mut Value| {
                for key in ["ts", "started_at", "ended_at", "elapsed_ms"] {
                    if let Some(x) = v.get_mut(key) {
                        *x = Value::Null;
                    }
                }
                // (a dialog the resume took over whole was played by no worker of its own)
                if let Some(o) = v.as_object_mut() {
                    o.remove("worker_id");
                }
                if let Some(turns) = v.get_mut("turns").and_then(Value::as_array_mut) {
                    for t in turns {
                        t["latency_ms"] = Value::Null;
                    }
                }
            };
            let text = if name.ends_with(".jsonl") {
                let mut lines: Vec<String> = text
                    .lines()
                    .map(|l| {
                        let mut v: Value = serde_json::from_str(l).expect("a JSON line");
                        timeless(&mut v);
                        if name.starts_with("progress_") {
                            v["done"] = Value::Null;
                        }
                        v.to_string()
                    })
                    .collect();
                if name.starts_with("progress_") {
                    lines.sort();
                }
                lines.join("\n")
            } else {
                let mut v: Value = serde_json::from_str(&text).expect("JSON");
                timeless(&mut v);
                v.to_string()
            };
            (name.replace(&run_id, "RUN"), text)
        })
        .collect()
}

#[test]
fn a_judged_dialog_run_killed_mid_run_resumes_from_its_log_and_writes_what_an_uninterrupted_run_does(
) {
    let dir = Scratch::new("dialog-resume");
    let data = dialogs(&dir);
    let data_s = data.to_str().expect("utf-8 path");
    let trace = ["--dialog-trace", "field", "--dialogs", data_s];

    // the run killed with SIGKILL mid-run, against a slow mock
    let mut slow_flags = trace.to_vec();
    slow_flags.extend(["--latency-ms", "40"]);
    let slow = Mock::start_logged(&slow_flags);
    let child = command(&dir, &data, &slow, "a", &[])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn the run");
    kill_mid_run(child, &dir.join("a/report.events.jsonl"));
    let asked_a = answered(slow);
    // resumed from the json-seq log (written first of the two, record by record)
    let log_path = dir.join("a/report.events.json-seq");
    let log_a = records(&log_path);
    assert_eq!(
        of_type(&log_a, "summary").count(),
        0,
        "killed before its end"
    );
    let turns_a = of_type(&log_a, "turn").count();
    assert!((1..TURNS).contains(&turns_a), "{turns_a} turns settled");
    let settled_a = settled_calls(&log_a);
    assert!(settled_a <= asked_a, "{settled_a} settled, {asked_a} asked");
    let run_id = log_a[0]["run_id"]
        .as_str()
        .expect("meta run_id")
        .to_string();

    // resumed from its log, against a fresh mock that counts what is sent
    let fresh = Mock::start_logged(&trace);
    let resume = ["--resume-from", log_path.to_str().expect("utf-8 path")];
    let o = finish(command(&dir, &data, &fresh, "b", &resume));
    assert_ok(&o);
    let (_, stderr) = texts(&o);
    assert!(stderr.contains("evalpage: resuming: "), "{stderr}");
    let fresh_url = fresh.url.clone();
    let asked_b = answered(fresh);

    // uninterrupted, against another fresh mock
    let full = Mock::start_logged(&trace);
    let full_url = full.url.clone();
    assert_ok(&finish(command(&dir, &data, &full, "c", &[])));
    let asked_c = answered(full);

    // every turn and judge call answered once across the two processes: what
    // the killed run settled is not sent again, the resumed run sends the rest
    // (a turn whose judging the kill cut is sent again, answer and all: it
    // was not settled)
    assert_eq!(
        settled_a + asked_b,
        asked_c,
        "{settled_a} settled by the killed run + {asked_b} sent by the resumed one"
    );
    assert!(asked_b < asked_c && settled_a > 0);

    // the resumed run keeps the run id and writes the same five files
    let b = dir.join("b");
    assert_eq!(
        read_json(&b.join("run_manifest.json"))["run_id"],
        run_id.as_str()
    );
    assert!(b.join(format!("progress_{run_id}.jsonl")).exists());
    let urls = [fresh_url.as_str(), full_url.as_str()];
    let (resumed, uninterrupted) = (five_files(&b, &urls), five_files(&dir.join("c"), &urls));
    assert_eq!(resumed.len(), 5);
    for ((name, r), (_, u)) in resumed.iter().zip(&uninterrupted) {
        assert_eq!(r, u, "{name}");
    }
    let summary = read_json(&b.join("metrics_summary.json"));
    assert!(
        summary["judge"]["calls"].as_u64().unwrap_or(0) > 0,
        "judged"
    );

    // its log holds every turn and dialog again, so it could be resumed in turn
    let log_b = records(&b.join("report.events.jsonl"));
    assert_eq!(of_type(&log_b, "turn").count(), TURNS);
    assert_eq!(of_type(&log_b, "case").count(), 8);
    assert_eq!(settled_calls(&log_b), asked_c);
    assert!(log_b.iter().all(|r| r["run_id"] == run_id.as_str()));
}
