//! Helpers shared by the integration tests: a config and a scripted driver.

#![allow(dead_code)]

use evalpage_core::events::Record;
use evalpage_core::rag::{self, Engine, RagCase, RunConfig};
use evalpage_core::run::{Command, Input, RunIdentity, RunInfo, RunSettings, Step};
use evalpage_core::Lang;
use evalpage_core::ScoringConfig;
use evalpage_core::{CallError, CallOutcome, ErrorKind};
use serde_json::json;

pub fn config(run_id: &str, concurrency: usize) -> RunConfig {
    RunConfig {
        run: RunIdentity {
            run_id: run_id.to_string(),
            tool: "test".into(),
            started_at_ms: 1_000,
            argv: vec![],
            dataset: "t.jsonl".into(),
            settings: RunSettings {
                concurrency,
                ..RunSettings::default()
            },
        },
        info: RunInfo {
            lang: Lang::Zh,
            backend: "openai".into(),
            model: "m".into(),
            endpoint: Some("http://127.0.0.1:1/v1".into()),
            parameters: json!({"temperature": 0}),
            dataset_name: "t.jsonl".into(),
            dataset_line_errors: 0,
        },
        scoring: ScoringConfig::default(),
        system_prompt: "sys".into(),
        dataset_meta: None,
    }
}

pub fn cases(jsonl: &str) -> Vec<RagCase> {
    let d = rag::parse("t.jsonl", jsonl.as_bytes());
    assert!(d.errors.is_empty(), "{:?}", d.errors);
    d.cases
}

pub fn http_error(status: u16) -> CallOutcome {
    let mut e = CallError::new(ErrorKind::Http, format!("HTTP {status}"));
    e.status_code = Some(status);
    CallOutcome::Failed(e)
}

/// Drives an engine to the end. `reply(case, attempt)` gives each outcome; sends
/// are answered in reverse order of issue to shake out order dependence.
pub fn drive(
    engine: &mut Engine,
    mut reply: impl FnMut(usize, u32) -> CallOutcome,
) -> (Vec<Record>, u64) {
    let mut now = 1_000;
    let mut events = Vec::new();
    let mut queue: Vec<(usize, u32)> = Vec::new();
    let absorb = |step: Step<Record>, queue: &mut Vec<(usize, u32)>, events: &mut Vec<Record>| {
        for c in step.commands {
            if let Command::Send { case, attempt, .. } = c {
                queue.push((case, attempt));
            }
        }
        events.extend(step.events);
        step.wake_at
    };
    let mut wake = absorb(engine.start(now), &mut queue, &mut events);
    for _ in 0..100_000 {
        now += 10;
        let step = if let Some((case, attempt)) = queue.pop() {
            engine.handle(
                Input::Outcome {
                    case,
                    outcome: reply(case, attempt),
                },
                now,
            )
        } else if let Some(w) = wake {
            now = now.max(w);
            engine.handle(Input::Tick, now)
        } else {
            break;
        };
        wake = absorb(step, &mut queue, &mut events);
    }
    (events, now)
}
