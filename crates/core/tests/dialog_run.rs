//! A spec 001 dialog run on the one engine, driven with scripted outcomes:
//! each turn's request is the conversation so far (with the model's own
//! earlier answers), trace fields in the answer are recorded, a failed turn
//! ends its dialog, unaligned dialogs are traced as skipped, and the five
//! artifacts hold spec 001's required fields.

use evalpage_core::dialog::{
    parse_dialogs, render, DialogEngine, DialogRunConfig, DialogStatus, TurnStatus,
};
use evalpage_core::events::Record;
use evalpage_core::run::{Command, Input, RunIdentity, RunSettings, RunStatus, Step};
use evalpage_core::{Answer, CallError, CallOutcome, ErrorKind};
use serde_json::{json, Value};

const DATA: &str = r#"{"dialog_id":"a","profile_gt":{"risk_level_gt":"稳健","constraints_gt":["不投资股票"]},"turns":[{"role":"user","content":"我是稳健型"},{"role":"assistant","content":"好","gt_turn_tags":{"memory_required_keys_gt":["profile_gt.risk_level_gt"],"risk_disclosure_required_gt":["市场不确定性"],"compliance_label_gt":"compliant"}},{"role":"user","content":"推荐什么"},{"role":"assistant","content":"债券","gt_turn_tags":{"memory_required_keys_gt":["history_turn_index:1"],"compliance_label_gt":"compliant"}}]}
{"dialog_id":"b","turns":[{"role":"assistant","content":"欢迎"}]}
{"dialog_id":"c","turns":[{"role":"user","content":"问一"},{"role":"assistant","content":"答一"},{"role":"user","content":"问二"},{"role":"assistant","content":"答二"}]}
not json
"#;

fn engine() -> DialogEngine {
    let set = parse_dialogs("dialogs.jsonl", DATA.as_bytes());
    assert_eq!(set.errors.len(), 1);
    DialogEngine::dialogs(config(), set)
}

/// The run of these tests: two dialogs at once, one attempt, a system prompt.
fn config() -> DialogRunConfig {
    DialogRunConfig {
        run: RunIdentity {
            run_id: "run1".into(),
            tool: "test".into(),
            started_at_ms: 1_700_000_000_000,
            dataset: "data/dialogs.jsonl".into(),
            settings: RunSettings {
                concurrency: 2,
                max_attempts: 1,
                ..RunSettings::default()
            },
            ..RunIdentity::default()
        },
        backend: "openai".into(),
        model_name: "m".into(),
        dataset_name: "dialogs.jsonl".into(),
        system_prompt: Some("你是理财顾问".into()),
        ..DialogRunConfig::default()
    }
}

fn sends(step: &Step<Record>) -> Vec<(usize, Vec<(String, String)>)> {
    step.commands
        .iter()
        .filter_map(|c| match c {
            Command::Send { case, messages, .. } => Some((
                *case,
                messages
                    .iter()
                    .map(|m| (m.role.clone(), m.content.clone()))
                    .collect(),
            )),
            Command::Abort { .. } => None,
        })
        .collect()
}

fn say(job: usize, o: CallOutcome) -> Input {
    Input::Outcome {
        case: job,
        outcome: o,
    }
}

fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter()
        .map(|(r, c)| (r.to_string(), c.to_string()))
        .collect()
}

#[test]
fn dialogs_are_played_turn_by_turn_with_the_conversation_so_far() {
    let mut e = engine();
    let step = e.start(1_700_000_000_000);
    assert!(matches!(step.events.first(), Some(Record::Meta(m)) if m.cases_total == 2));
    let s = sends(&step);
    assert_eq!(s.len(), 2, "two playable dialogs, both start");
    assert_eq!(
        s[0].1,
        pairs(&[("system", "你是理财顾问"), ("user", "我是稳健型")])
    );

    // dialog a, turn 1 answered with trace fields in evalpage_trace
    let first = Answer {
        text: "市场存在不确定性。".into(),
        trace: Some(
            json!({"recall": {"short_term_context": "user: 我是稳健型", "items": []},
            "compliance": {"is_compliant": true, "violations": []}}),
        ),
        ..Answer::default()
    };
    let step = e.handle(say(0, CallOutcome::Answer(first)), 1_700_000_000_100);
    assert_eq!(
        sends(&step)[0].1,
        pairs(&[
            ("system", "你是理财顾问"),
            ("user", "我是稳健型"),
            ("assistant", "市场存在不确定性。"),
            ("user", "推荐什么"),
        ]),
        "the model's own earlier answer is in the next request"
    );
    // the answer as a JSON message with trace fields
    let msg = r#"{"answer": "可以看看债券。", "compliance": {"is_compliant": false, "violations": ["x"]}}"#;
    e.handle(say(0, CallOutcome::text(msg)), 1_700_000_000_200);

    // dialog c: turn 1 ok, turn 2 times out -> partial
    e.handle(say(1, CallOutcome::text("答")), 1_700_000_000_300);
    let step = e.handle(
        say(
            1,
            CallOutcome::Failed(CallError::new(ErrorKind::Timeout, "no answer within 1 s")),
        ),
        1_700_000_000_400,
    );
    assert_eq!(e.status(), RunStatus::Done);
    assert!(
        matches!(step.events.last(), Some(Record::Summary(s)) if s.metrics.cases_total == 2 && s.metrics.passed_cases == 1)
    );

    let a = e.kind().artifacts(1_700_000_001_000);
    assert_eq!(
        a.traces.len(),
        3,
        "the bad line is not a dialog; the skipped one is traced"
    );
    let ids: Vec<(&str, DialogStatus, bool)> = a
        .traces
        .iter()
        .map(|t| (t.dialog_id.as_str(), t.dialog_status, t.valid_dialog))
        .collect();
    assert_eq!(
        ids,
        [
            ("a", DialogStatus::Ok, true),
            ("b", DialogStatus::Skipped, false),
            ("c", DialogStatus::Partial, true)
        ]
    );
    let a0 = &a.traces[0].turns;
    assert_eq!(a0[1].pred_assistant_text.as_deref(), Some("可以看看债券。"));
    assert_eq!(a0[0].extra["trace_source"], "evalpage_trace");
    assert_eq!(a0[1].extra["trace_source"], "message");
    assert!(a0[0].recall.is_some(), "the endpoint's recall is recorded");
    assert_eq!(
        a0[1].recall, None,
        "without recall from the endpoint the turn has none"
    );
    // spec 001 §4.2/§4.3 fields the run knows: each turn's call time, the
    // worker slot, one session and one user per dialog
    let latency: Vec<Option<f64>> = a0.iter().map(|t| t.latency_ms).collect();
    assert_eq!(latency, [Some(100.0), Some(100.0)]);
    let who = |i: usize| {
        let t = &a.traces[i];
        (t.worker_id, t.session_id.clone(), t.user_id.clone())
    };
    assert_eq!(
        who(0),
        (
            Some(0),
            Some("session_a".into()),
            Some("eval_user_a".into())
        )
    );
    assert_eq!(
        who(2),
        (
            Some(1),
            Some("session_c".into()),
            Some("eval_user_c".into())
        )
    );
    assert_eq!(who(1), (None, None, None), "a skipped dialog is not played");
    let c = &a.traces[2].turns;
    assert_eq!(
        (c[0].latency_ms, c[1].latency_ms),
        (Some(300.0), Some(100.0)),
        "the failed turn's call time too"
    );
    assert_eq!(
        (c[0].turn_status, c[1].turn_status),
        (TurnStatus::Ok, TurnStatus::Timeout)
    );
    assert_eq!(c[1].error.as_deref(), Some("no answer within 1 s"));

    assert_eq!(a.rows.len(), 4, "no rows for the skipped dialog");
    let m1 = &a.summary.metrics["m1_memory_recall"];
    assert_eq!(
        (
            m1.eligible_count,
            m1.scored_count,
            m1.not_run_count,
            m1.value
        ),
        (2, 1, 1, Some(1.0)),
        "§7: both turns with keys are eligible; the one without recall is not run"
    );
    assert_eq!(m1.details["turns_without_recall"], 1);
    let m4 = &a.summary.metrics["m4_compliance"];
    assert_eq!((m4.eligible_count, m4.value), (2, Some(0.5)));
    assert_eq!(a.manifest.counters.total_dialogs, 3);
    assert_eq!(
        (
            a.manifest.counters.valid_dialogs,
            a.manifest.counters.skipped_dialogs,
            a.manifest.counters.total_turn_pairs
        ),
        (2, 1, 4)
    );
    assert_eq!(a.manifest.counters.bad_lines, 1);
    assert_eq!(a.manifest.workers_dialog, 2);
    assert_eq!(a.manifest.started_at, "2023-11-14T22:13:20.000Z");

    let files = render(&a).expect("render");
    let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "run_manifest.json",
            "dialog_trace.jsonl",
            "turn_eval.jsonl",
            "metrics_summary.json",
            "progress_run1.jsonl"
        ]
    );
    let manifest: Value = serde_json::from_str(&files[0].1).expect("manifest json");
    for k in [
        "trace_version",
        "run_id",
        "dataset_path",
        "started_at",
        "model_name",
        "workers_dialog",
        "workers_judge",
        "counters",
    ] {
        assert!(manifest.get(k).is_some(), "manifest {k}");
    }
    let progress: Vec<Value> = files[4]
        .1
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect();
    let events: Vec<&str> = progress
        .iter()
        .filter_map(|p| p["event"].as_str())
        .collect();
    assert_eq!(
        events,
        [
            "run_started",
            "dialog_skipped",
            "dialog_finished",
            "dialog_finished",
            "run_finished"
        ]
    );
}

#[test]
fn only_the_opt_in_takes_the_conversation_sent_as_a_plain_models_recall() {
    let play = |from_conversation: bool| {
        let mut cfg = config();
        cfg.scoring.m1_from_conversation = from_conversation;
        let set = parse_dialogs("dialogs.jsonl", DATA.as_bytes());
        let mut e = DialogEngine::dialogs(cfg, set);
        e.start(0);
        e.handle(say(0, CallOutcome::text("市场存在不确定性。")), 1);
        e.handle(say(0, CallOutcome::text("债券")), 2);
        e.handle(say(1, CallOutcome::text("答一")), 3);
        e.handle(say(1, CallOutcome::text("答二")), 4);
        assert_eq!(e.status(), RunStatus::Done);
        e.kind().artifacts(5)
    };
    let plain = play(false);
    assert!(plain.traces[0].turns.iter().all(|t| t.recall.is_none()));
    let m1 = &plain.summary.metrics["m1_memory_recall"];
    assert_eq!(
        (
            m1.status.as_str(),
            m1.value,
            m1.eligible_count,
            m1.not_run_count
        ),
        ("not_run", None, 2, 2),
        "a plain model recalls nothing: M1 has no value"
    );
    assert_eq!(m1.details["turns_without_recall"], 2);
    assert!(!plain.manifest.m1_from_conversation);

    let opted = play(true);
    let r = opted.traces[0].turns[1].recall.clone().unwrap_or_default();
    assert_eq!(r.extra.get("source"), Some(&json!("run_conversation")));
    assert_eq!(
        r.short_term_context.as_deref(),
        Some("user: 我是稳健型\nassistant: 市场存在不确定性。\nuser: 推荐什么"),
        "the conversation the run sent"
    );
    let m1 = &opted.summary.metrics["m1_memory_recall"];
    assert_eq!((m1.status.as_str(), m1.value), ("ok", Some(1.0)));
    assert!(opted.manifest.m1_from_conversation);
}

#[test]
fn a_failed_first_turn_fails_the_dialog_and_later_turns_are_not_sent() {
    let mut e = engine();
    e.start(0);
    let mut bad = CallError::new(ErrorKind::Http, "bad request");
    bad.status_code = Some(400);
    let step = e.handle(say(1, CallOutcome::Failed(bad)), 5);
    assert_eq!(step.finished, [1]);
    assert!(
        sends(&step).is_empty(),
        "no second turn for a failed dialog"
    );
    let t = e.kind().trace_of_job(1).expect("settled");
    assert_eq!(t.dialog_status, DialogStatus::Failed);
    assert_eq!(
        t.turns[1].error.as_deref(),
        Some("not sent: turn pair 1 failed before it")
    );
    assert!(e.kind().rows_of_job(0).is_none(), "job 0 has not settled");
    let settled = e.kind().rows_of_job(1).expect("job 1 settled");
    let a = e.kind().artifacts(10);
    let rows: Vec<_> = a.rows.iter().filter(|r| r.dialog_id == "c").collect();
    assert_eq!(rows.len(), 2, "failed turns still get rows, none eligible");
    assert_eq!(settled.iter().collect::<Vec<_>>(), rows, "the job's rows");
    assert!(rows
        .iter()
        .all(|r| !r.eligible_m1 && !r.eligible_m3 && !r.eligible_m4));
}

#[test]
fn the_mock_model_answers_every_turn_with_trace_fields() {
    let mut e = engine();
    let mut step = e.start(0);
    let mut now = 0;
    while e.status() == RunStatus::Running {
        let s = sends(&step);
        let Some((job, messages)) = s.first().cloned() else {
            panic!("stalled")
        };
        let msgs: Vec<_> = messages
            .iter()
            .map(|(r, c)| evalpage_core::ChatMessage::new(r, c.clone()))
            .collect();
        let answer = evalpage_core::run::Kind::mock_answer(e.kind(), job, &msgs);
        assert!(answer.trace.is_some());
        now += 1;
        let next = e.handle(say(job, CallOutcome::Answer(answer)), now);
        step.commands = s
            .into_iter()
            .skip(1)
            .map(|(case, m)| Command::Send {
                case,
                attempt: 1,
                messages: m
                    .into_iter()
                    .map(|(r, c)| evalpage_core::ChatMessage::new(&r, c))
                    .collect(),
                body: None,
                pool: 0,
                repeat: 0,
                tools: None,
            })
            .chain(next.commands)
            .collect();
    }
    let a = e.kind().artifacts(now);
    assert!(a
        .traces
        .iter()
        .filter(|t| t.valid_dialog)
        .all(|t| t.dialog_status == DialogStatus::Ok));
    assert!(a.traces[0]
        .turns
        .iter()
        .all(|t| t.compliance.is_some() && t.recall.is_some()));
}

#[test]
fn a_dialog_that_does_not_alternate_sends_its_greeting_as_context_and_its_user_turns_in_a_row() {
    let data = r#"{"dialog_id":"g","turns":[{"role":"assistant","content":"您好，我是助手"},{"role":"user","content":"你好"},{"role":"user","content":"我想买基金"},{"role":"assistant","content":"好的"},{"role":"assistant","content":"还有问题吗"},{"role":"user","content":"没有"},{"role":"assistant","content":"再见"}]}"#;
    let set = parse_dialogs("dialogs.jsonl", data.as_bytes());
    let no_system_prompt = DialogRunConfig {
        system_prompt: None,
        ..config()
    };
    let mut e = DialogEngine::dialogs(no_system_prompt, set);
    let step = e.start(1);
    assert_eq!(
        sends(&step)[0].1,
        pairs(&[
            ("assistant", "您好，我是助手"),
            ("user", "你好"),
            ("user", "我想买基金"),
        ]),
        "the greeting is context, the two user turns go as consecutive messages"
    );
    let step = e.handle(say(0, CallOutcome::text("请说")), 2);
    assert_eq!(
        sends(&step)[0].1,
        pairs(&[
            ("assistant", "您好，我是助手"),
            ("user", "你好"),
            ("user", "我想买基金"),
            ("assistant", "请说"),
            ("assistant", "还有问题吗"),
            ("user", "没有"),
        ]),
        "the dataset's second assistant turn stays where it stands, as context"
    );
    e.handle(say(0, CallOutcome::text("好")), 3);
    let a = e.kind().artifacts(4);
    assert_eq!(a.traces[0].turns.len(), 2, "two pairs played and scored");
    assert_eq!(a.traces[0].turns[0].user_text, "你好\n我想买基金");
    assert!(a.traces[0].extra["alignment_notes"]
        .to_string()
        .contains("consecutive user turns"));
}
