//! The viewer shows a saved run as its live mode showed it: a RAG check's
//! report reads back into the very cases and results the engine held (so
//! the page's √/×, reasons and Notes are the same), and a dialog run's files
//! (as the page zips them or the CLI writes them) read back into its
//! conversations, turn rows and `metrics_summary.json`, one table row per
//! dialog with the values of its event-log `case` record; a bad line is
//! reported at its file and line and skipped.

mod common;

use evalpage_core::dialog::{parse_dialogs, render, DialogEngine, DialogJudge, DialogRunConfig};
use evalpage_core::events::Record;
use evalpage_core::rag::{notes, notes_of, reasons, Engine, RagCase};
use evalpage_core::run::{
    Command, Input, Kind, Pipeline, RunIdentity, RunSettings, RunStatus, Step,
};
use evalpage_core::view::{dialog_columns, open_files, rag_cases, Look};
use evalpage_core::{CallOutcome, ChatMessage};
use evalpage_core::{Lang, ModelSettings};
use std::collections::VecDeque;

/// Runs an engine to the end with its kind's mock model answering every
/// send, in send order; returns the event records.
fn run_mock<K: Kind<Record = Record>>(e: &mut Pipeline<K>) -> Vec<Record> {
    let mut queue: VecDeque<(usize, Vec<ChatMessage>)> = VecDeque::new();
    let mut records = Vec::new();
    let mut step: Step<Record> = e.start(0);
    let mut now = 0;
    loop {
        records.append(&mut step.events);
        for c in step.commands.drain(..) {
            if let Command::Send { case, messages, .. } = c {
                queue.push_back((case, messages));
            }
        }
        if e.status() != RunStatus::Running {
            break;
        }
        let Some((job, messages)) = queue.pop_front() else {
            panic!("stalled")
        };
        now += 1;
        let answer = e.kind().mock_answer(job, &messages);
        step = e.handle(
            Input::Outcome {
                case: job,
                outcome: CallOutcome::Answer(answer),
            },
            now,
        );
    }
    records
}

#[test]
fn a_rag_report_reads_back_into_the_cases_the_engine_held() {
    let data = evalpage_core::demo::DATASET;
    let cases = common::cases(data);
    let mut engine = Engine::new(common::config("r1", 3), cases);
    run_mock(&mut engine);
    let report = evalpage_core::rag::build(&engine, 5_000);
    let text = serde_json::to_string_pretty(&report).expect("json");
    let files = vec![("run.zip/report.json".to_string(), text.into_bytes())];
    let view = open_files("run.zip", &files).expect("opens");
    assert_eq!(view.look, Look::Rag);
    let back = rag_cases(&view);
    let live = engine.settled();
    assert_eq!(back.len(), live.len());
    assert!(
        live.iter().any(|(_, r)| !r.passed()) && live.iter().any(|(_, r)| r.passed()),
        "the demo model gets some cases wrong"
    );
    for ((_, c, r), (lc, lr)) in back.iter().zip(&live) {
        assert_eq!(
            (&c.id, &c.q, &c.gold, &c.doc_hint),
            (&lc.id, &lc.q, &lc.gold, &lc.doc_hint)
        );
        assert_eq!(
            (&r.answer, &r.reasoning, &r.accuracy, &r.citation),
            (&lr.answer, &lr.reasoning, &lr.accuracy, &lr.citation)
        );
        assert_eq!(r.truncated(), lr.truncated());
        for lang in [Lang::Zh, Lang::En] {
            assert_eq!(reasons(lang, c, r), reasons(lang, lc, lr), "{}", c.id);
        }
    }
    let pairs: Vec<(&RagCase, &_)> = back.iter().map(|(_, c, r)| (c, r)).collect();
    for lang in [Lang::Zh, Lang::En] {
        assert_eq!(notes_of(lang, &pairs), notes(lang, &engine));
    }
}

mod erased {
    /// A value as JSON, for comparing through serde.
    pub trait Ser {
        fn value(&self) -> serde_json::Value;
    }
    impl<T: serde::Serialize> Ser for T {
        fn value(&self) -> serde_json::Value {
            serde_json::to_value(self).unwrap_or_default()
        }
    }
}

/// Equal JSON, numbers within 1e-12 (serde_json reads a float back to
/// within an ulp).
fn close(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    use serde_json::Value as V;
    match (a, b) {
        (V::Number(x), V::Number(y)) => match (x.as_f64(), y.as_f64()) {
            (Some(x), Some(y)) => (x - y).abs() < 1e-12,
            _ => x == y,
        },
        (V::Array(x), V::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| close(x, y))
        }
        (V::Object(x), V::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| close(v, w)))
        }
        _ => a == b,
    }
}

fn dialog_config() -> DialogRunConfig {
    DialogRunConfig {
        run: RunIdentity {
            run_id: "eval_dialog-1".into(),
            tool: "test".into(),
            started_at_ms: 1_700_000_000_000,
            dataset: "demo_dialogs.jsonl".into(),
            settings: RunSettings {
                concurrency: 3,
                max_attempts: 1,
                ..RunSettings::default()
            },
            ..RunIdentity::default()
        },
        backend: "demo".into(),
        model_name: "evalpage-dialog-mock".into(),
        dataset_name: "demo_dialogs.jsonl".into(),
        ..DialogRunConfig::default()
    }
}

fn mock_judge() -> DialogJudge {
    DialogJudge::new(
        ModelSettings {
            name: "mock".into(),
            model: "mock".into(),
            base_url: None,
            api_key_env: None,
            params: serde_json::Map::new(),
            engine: None,
        },
        RunSettings::default(),
        Lang::Zh,
    )
}

#[test]
fn a_dialog_run_s_files_read_back_into_its_conversations_and_summary() {
    let set = parse_dialogs(
        "demo_dialogs.jsonl",
        evalpage_core::demo::DIALOG_DATASET.as_bytes(),
    );
    let mut e = DialogEngine::judged_dialogs(dialog_config(), set, Some(mock_judge()));
    let records = run_mock(&mut e);
    let a = e.kind().artifacts(1_700_000_001_000);
    let files: Vec<(String, Vec<u8>)> = render(&a)
        .expect("renders")
        .into_iter()
        .map(|(n, t)| (format!("evalpage-dialog-run.zip/{n}"), t.into_bytes()))
        .collect();
    let view = open_files("evalpage-dialog-run.zip", &files).expect("opens");
    let Look::Dialog(look) = &view.look else {
        panic!("a dialog look: {:?}", view.look)
    };
    let json = |v: &dyn erased::Ser| v.value();
    assert!(
        close(
            &json(look.summary.as_ref().expect("summary")),
            &json(&a.summary)
        ),
        "the summary as written"
    );
    assert!(!look.summary_computed);
    assert_eq!(look.manifest.as_ref(), Some(&a.manifest));
    assert_eq!(view.kind, "dialog");
    assert_eq!(view.rows.len(), a.traces.len(), "one row per dialog");
    assert!(view.notes.is_empty(), "{:?}", view.notes);
    for ((row, d), t) in view.rows.iter().zip(&look.dialogs).zip(&a.traces) {
        let mut read = d.trace.clone().expect("a trace");
        assert!(read.line > 0);
        read.line = 0;
        assert!(close(&json(&read), &json(t)), "{}", t.dialog_id);
        let rows: Vec<_> = a
            .rows
            .iter()
            .filter(|r| r.dialog_id == t.dialog_id)
            .cloned()
            .collect();
        assert!(close(&json(&d.rows), &json(&rows)), "{}", t.dialog_id);
        assert_eq!(row.id, t.dialog_id);
        let status = serde_json::to_value(t.dialog_status).expect("status");
        assert_eq!(Some(row.status.as_str()), status.as_str());
    }
    assert!(view.rows.iter().any(|r| r.status == "skipped"));
    // Each played dialog's values are its `case` record's.
    let mut played = 0;
    for r in &records {
        let Record::Case(c) = r else { continue };
        played += 1;
        let row = view.rows.iter().find(|x| x.id == c.case_id).expect("a row");
        let logged = c.metrics.as_ref().expect("metrics");
        for (m, v) in logged {
            let col = view.metric_index(m).expect(m);
            let same = match (row.values[col], v) {
                (Some(x), Some(y)) => (x - y).abs() < 1e-12,
                (x, y) => x == *y,
            };
            assert!(same, "{} {m}", c.case_id);
        }
        assert_eq!(row.attempts, Some(c.attempts));
        assert_eq!(row.latency_ms, Some(c.elapsed_ms as f64));
    }
    assert_eq!(played, a.traces.iter().filter(|t| t.valid_dialog).count());
    // The columns: every M1–M5 metric of a judged run; M1–M4 without the
    // judge's verdicts; none before any dialog has rows.
    assert_eq!(view.metrics.len(), 7, "{:?}", view.metrics);
    let unjudged: Vec<_> = a
        .rows
        .iter()
        .cloned()
        .map(|mut r| {
            r.judgements.clear();
            r
        })
        .collect();
    assert_eq!(
        dialog_columns([unjudged.as_slice(), &[]]),
        view.metrics[..]
            .iter()
            .filter(|m| !m.ends_with("_judge") && !m.starts_with("m5"))
            .cloned()
            .collect::<Vec<_>>()
    );
    assert_eq!(dialog_columns([&[][..], &[]]), Vec::<String>::new());

    // The CLI's folder given file by file, one turn_eval line broken and no
    // summary: the line is reported at its place, the summary computed.
    let mut some: Vec<(String, Vec<u8>)> = files
        .iter()
        .filter(|(n, _)| n.ends_with("dialog_trace.jsonl") || n.ends_with("turn_eval.jsonl"))
        .map(|(n, b)| (n.rsplit('/').next().unwrap_or(n).to_string(), b.clone()))
        .collect();
    let turn = some
        .iter_mut()
        .find(|(n, _)| n == "turn_eval.jsonl")
        .expect("turn_eval");
    let text = String::from_utf8(turn.1.clone()).expect("utf8");
    let mut lines: Vec<&str> = text.lines().collect();
    let dropped = lines[2].to_string();
    lines[2] = "{\"trace_version\":\"v1\",\"run_id\":\"x\"";
    turn.1 = (lines.join("\n") + "\n").into_bytes();
    let partial = open_files("2 files", &some).expect("opens");
    assert!(
        partial.notes[0].starts_with("turn_eval.jsonl:3: "),
        "{:?}",
        partial.notes
    );
    assert!(partial
        .notes
        .iter()
        .any(|n| n.contains("metrics_summary.json was not given")));
    let Look::Dialog(p) = &partial.look else {
        panic!("dialog")
    };
    assert!(p.summary_computed);
    let summary = p.summary.as_ref().expect("computed");
    assert_eq!(summary.turn_rows, a.rows.len() - 1);
    let row: serde_json::Value = serde_json::from_str(&dropped).expect("json");
    let id = row["dialog_id"].as_str().expect("id");
    let d = p
        .dialogs
        .iter()
        .find(|d| d.trace.as_ref().is_some_and(|t| t.dialog_id == id))
        .expect("the dialog");
    assert_eq!(
        d.rows.len(),
        a.rows.iter().filter(|r| r.dialog_id == id).count() - 1
    );
}
