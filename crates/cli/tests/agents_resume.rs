//! Agent runs resumed from their event log (`examples/agent/bank.yaml` with
//! seeded faults, two mock models, so cases take one to four steps and
//! their steps interleave in the log): a log cut at every line boundary and
//! inside step and case records resumes to the uninterrupted run's
//! verdicts, never asks a settled case again, and runs a case the cut left
//! mid-trajectory again from its first step, saying so; so does a run
//! against `evalpage mock-server` over HTTP killed (SIGKILL) mid-run.

mod common;

use common::*;
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

/// The example task with seeded faults on half the calls (and room for the
/// mock's retries), written beside a copy of its prompt.
fn faulted_task(s: &Scratch) -> PathBuf {
    let text = std::fs::read_to_string(agent_example("bank.yaml")).expect("task");
    let prompt = std::fs::read_to_string(agent_example("bank_prompt.yaml")).expect("prompt");
    s.write("bank_prompt.yaml", &prompt);
    let edited = text.replace(
        "  max_steps: 4",
        "  max_steps: 6\n  faults: {seed: 11, rate: 0.5}",
    );
    assert_ne!(edited, text, "the example has its max_steps line");
    s.write("bank.yaml", &edited)
}

/// A case's key: (model, case id).
type Key = (String, String);

fn key_of(r: &Value, id_field: &str) -> Key {
    (
        r["model"].as_str().unwrap_or("").to_string(),
        r[id_field].as_str().unwrap_or("").to_string(),
    )
}

/// What a case came to, without the times a rerun measures anew: status,
/// answer, error, attempts, metrics, trajectory, and its agent record
/// (every step's calls, results and faults) with latencies left out.
fn verdicts(results: &[Value]) -> BTreeMap<Key, Value> {
    results
        .iter()
        .map(|r| {
            let mut agent = r["agent"].clone();
            for step in agent["steps"].as_array_mut().into_iter().flatten() {
                if let Some(o) = step.as_object_mut() {
                    o.remove("latency_ms");
                }
                for t in step["tools"].as_array_mut().into_iter().flatten() {
                    if let Some(o) = t.as_object_mut() {
                        o.remove("latency_ms");
                    }
                }
            }
            let v = json!({
                "status": r["status"],
                "answer": r["response_text"],
                "error": r["error"],
                "attempts": r["attempts"],
                "metrics": r["metrics"],
                "trajectory": r["trajectory"],
                "agent": agent,
            });
            (key_of(r, "sample_id"), v)
        })
        .collect()
}

/// The keys of a log's records of one type, each once, in order.
fn keys(log: &str, t: &str) -> Vec<Key> {
    let mut out: Vec<Key> = Vec::new();
    for r in records(log, t) {
        let k = key_of(&r, "case_id");
        if !out.contains(&k) {
            out.push(k);
        }
    }
    out
}

/// What a resumed run did: its results, its log, what it printed.
struct Resumed {
    results: Vec<Value>,
    log: String,
    said: String,
}

fn resume(task: &Path, cut: &Path, out: &Path, flags: &[&str]) -> Resumed {
    let mut cmd = evalpage();
    cmd.args(["run", "--task"])
        .arg(task)
        .arg("--dataset")
        .arg(agent_example("bank.jsonl"))
        .arg("--out")
        .arg(out)
        .args(flags)
        .arg("--resume-from")
        .arg(cut);
    let o = finish(cmd);
    assert_ok(&o);
    let (stdout, stderr) = texts(&o);
    Resumed {
        results: read_jsonl(&out.join("results.jsonl")),
        log: std::fs::read_to_string(out.join("report.events.jsonl")).expect("log"),
        said: format!("{stdout}{stderr}"),
    }
}

/// Checks a run resumed from `cut` (the first bytes of the uninterrupted
/// run's log) against that run's verdicts `want`; the number of cases the
/// cut left mid-trajectory.
fn check_resumed(cut: &str, r: &Resumed, want: &BTreeMap<Key, Value>, at: &str) -> usize {
    assert_eq!(&verdicts(&r.results), want, "cut {at}: the verdicts differ");
    // a case record that reads whole is settled (also without its newline)
    let settled: BTreeSet<Key> = keys(cut, "case").into_iter().collect();
    let open: BTreeSet<Key> = keys(cut, "step")
        .into_iter()
        .filter(|k| !settled.contains(k))
        .collect();
    let steps = records(&r.log, "step");
    let mut asked: BTreeMap<Key, Vec<&Value>> = BTreeMap::new();
    for s in &steps {
        asked.entry(key_of(s, "case_id")).or_default().push(s);
    }
    for k in &settled {
        assert!(
            !asked.contains_key(k),
            "cut {at}: {k:?} was settled and asked again"
        );
    }
    for (k, own) in &asked {
        // every case asked again is run from its first step, in order
        let numbers: Vec<u64> = own.iter().filter_map(|s| s["step"].as_u64()).collect();
        let from_one: Vec<u64> = (1..=own.len() as u64).collect();
        assert_eq!(numbers, from_one, "cut {at}: {k:?}");
        let restarted: Vec<bool> = own.iter().map(|s| s["restarted"] == true).collect();
        let first_only: Vec<bool> = (0..own.len()).map(|i| i == 0 && open.contains(k)).collect();
        assert_eq!(restarted, first_only, "cut {at}: {k:?} restarted");
    }
    // the run says so: a note per cut case (five at most, the rest counted)
    let noted: Vec<&str> = r
        .said
        .lines()
        .filter(|l| l.ends_with("its trajectory was cut; run again from its first step"))
        .collect();
    for k in &open {
        assert!(asked.contains_key(k), "cut {at}: {k:?} was not run again");
    }
    assert_eq!(noted.len(), open.len().min(5), "cut {at}: {}", r.said);
    for line in &noted {
        let named = |k: &Key| line.contains(&format!("`{}/{}`: its trajectory", k.0, k.1));
        assert!(open.iter().any(named), "cut {at}: {line}");
    }
    if open.len() > 5 {
        let more = format!("and {} more such note(s)", open.len() - 5);
        assert!(r.said.contains(&more), "cut {at}: {}", r.said);
    }
    // every case not settled was asked
    assert_eq!(
        asked.len() + settled.len(),
        want.len(),
        "cut {at}: a case was neither settled nor asked"
    );
    open.len()
}

#[test]
fn a_log_cut_at_every_line_or_inside_a_record_resumes_to_the_same_verdicts() {
    let s = Scratch::new("agent-every-cut");
    let task = faulted_task(&s);
    let flags = ["--mock", "--models", "mock-a,mock-b"];
    let full = run_task(&task, &agent_example("bank.jsonl"), &s.join("full"), &flags);
    let want = verdicts(&full);
    assert_eq!(want.len(), 12);
    let log = std::fs::read_to_string(s.join("full/report.events.jsonl")).expect("log");
    // the steps vary: faults were met, and cases took one to several steps
    let steps = records(&log, "step");
    assert!(steps.iter().any(|s| s["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|t| t["fault"].is_string())));
    let most = steps.iter().filter_map(|s| s["step"].as_u64()).max();
    assert!(most >= Some(3), "{most:?}");

    // the cut points: every line boundary after the meta record (to the
    // whole log), and inside records: just after the opening brace, in the
    // middle and without the closing brace, of every step record that is
    // not a case's first and of two case records
    let lines: Vec<(usize, usize)> = log
        .match_indices('\n')
        .scan(0, |start, (end, _)| {
            let line = (*start, end);
            *start = end + 1;
            Some(line)
        })
        .collect();
    let mut cuts: Vec<(usize, String)> = lines
        .iter()
        .enumerate()
        .map(|(n, &(_, end))| (end + 1, format!("after line {}", n + 1)))
        .collect();
    let mut inside = 0;
    let mut case_cuts = 0;
    for (n, &(start, end)) in lines.iter().enumerate() {
        let Ok(r) = serde_json::from_str::<Value>(&log[start..end]) else {
            panic!("line {n} is not JSON");
        };
        let pick = match r["record_type"].as_str() {
            Some("step") => r["step"].as_u64() > Some(1),
            Some("case") => {
                case_cuts += 1;
                case_cuts == 3 || case_cuts == 9
            }
            _ => false,
        };
        if pick {
            inside += 1;
            let mid = (start + end) / 2;
            for (at, what) in [(start + 1, "opening"), (mid, "middle"), (end - 1, "end")] {
                assert!(log.is_char_boundary(at));
                cuts.push((at, format!("line {} {what} ({})", n + 1, r["record_type"])));
            }
        }
    }
    assert!(inside >= 6, "{inside} records cut inside");

    // a log cut before its meta record holds nothing to resume: refused
    let empty = s.write("empty.jsonl", "");
    let o = run(&[
        "--task",
        task.to_str().unwrap_or_default(),
        "--dataset",
        agent_example("bank.jsonl").to_str().unwrap_or_default(),
        "--out",
        s.join("empty").to_str().unwrap_or_default(),
        "--mock",
        "--resume-from",
        empty.to_str().unwrap_or_default(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", texts(&o).1);

    let mut open_cuts = 0;
    let mut several_open = 0;
    let mut most_open = 0;
    for (k, (at, what)) in cuts.iter().enumerate() {
        let cut = s.write(&format!("cut{k}.jsonl"), &log[..*at]);
        let out = s.join(&format!("resumed{k}"));
        let r = resume(&task, &cut, &out, &flags);
        let open = check_resumed(&log[..*at], &r, &want, what);
        open_cuts += usize::from(open > 0);
        several_open += usize::from(open > 1);
        most_open = most_open.max(open);
        let _ = std::fs::remove_dir_all(&out);
    }
    // the cuts did land mid-trajectory, often with several cases open
    assert!(open_cuts >= 10, "{open_cuts} cuts left a case open");
    assert!(several_open >= 5, "{several_open} cuts left several open");
    assert!(
        most_open > 5,
        "a cut left more open cases than the notes show"
    );
    eprintln!(
        "{} cuts, {open_cuts} with a case open, at most {most_open}",
        cuts.len()
    );
}

/// The cases settled (a `case` record) and those mid-trajectory (steps, no
/// `case` record) in a log as far as it was written.
fn progress(log: &str) -> (BTreeSet<Key>, BTreeSet<Key>) {
    let settled: BTreeSet<Key> = keys(log, "case").into_iter().collect();
    let open = keys(log, "step")
        .into_iter()
        .filter(|k| !settled.contains(k))
        .collect();
    (settled, open)
}

#[test]
fn a_run_over_http_killed_mid_trajectory_resumes_to_the_same_verdicts() {
    let s = Scratch::new("agent-killed");
    let task = faulted_task(&s);
    let data = agent_example("bank.jsonl");
    // the task's mock model over HTTP, each answer 250 ms late: a run takes
    // seconds, and each step is long enough to be killed inside
    let mock = Mock::start(&[
        "--task",
        task.to_str().unwrap_or_default(),
        "--dataset",
        data.to_str().unwrap_or_default(),
        "--latency-ms",
        "250",
    ]);
    let registry = s.write(
        "registry.json",
        &format!(
            r#"{{"models": [{{"name": "mock-a", "base_url": "{0}"}}, {{"name": "mock-b", "base_url": "{0}"}}]}}"#,
            mock.url
        ),
    );
    let flags = [
        "--models",
        "mock-a,mock-b",
        "--model-registry",
        registry.to_str().unwrap_or_default(),
        "--concurrency",
        "2",
    ];
    let full = run_task(&task, &data, &s.join("full"), &flags);
    let want = verdicts(&full);
    assert_eq!(want.len(), 12);
    assert!(full.iter().all(|r| r["status"] == "ok"), "a clean run");

    // the same run, killed once three cases have settled and another is
    // mid-trajectory (its steps logged, its case record not): the log is
    // polled, so the kill cannot land after the run ended
    let out = s.join("killed");
    let mut child = evalpage()
        .args(["run", "--task"])
        .arg(&task)
        .arg("--dataset")
        .arg(&data)
        .arg("--out")
        .arg(&out)
        .args(flags)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn evalpage");
    let log_path = out.join("report.events.jsonl");
    let deadline = Instant::now() + RUN_LIMIT;
    loop {
        let log = std::fs::read_to_string(&log_path).unwrap_or_default();
        let (settled, open) = progress(&log);
        if settled.len() >= 3 && !open.is_empty() {
            break;
        }
        if let Ok(Some(status)) = child.try_wait() {
            panic!("the run ended ({status}) before it was mid-trajectory:\n{log}");
        }
        assert!(
            Instant::now() < deadline,
            "the run never got mid-trajectory"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().expect("SIGKILL the run");
    let status = child.wait().expect("wait");
    assert!(!status.success(), "killed, not finished: {status}");
    let cut = std::fs::read_to_string(&log_path).expect("the killed run's log");
    let (settled, open) = progress(&cut);
    assert!(
        settled.len() < want.len() && !open.is_empty(),
        "the kill landed mid-run: {} settled, {} open",
        settled.len(),
        open.len()
    );
    eprintln!(
        "killed with {} cases settled, {} mid-trajectory",
        settled.len(),
        open.len()
    );
    assert!(
        records(&cut, "summary").is_empty(),
        "the killed run wrote no summary"
    );

    // resumed from its log, over HTTP again: the uninterrupted verdicts, no
    // settled case asked again, the cut ones from their first step
    let resumed = resume(&task, &log_path, &s.join("resumed"), &flags);
    check_resumed(&cut, &resumed, &want, "at the kill");
}
