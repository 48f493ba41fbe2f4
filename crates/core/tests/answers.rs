//! Answers as today's endpoints give them, driven through the one engine with
//! scripted outcomes: reasoning kept apart and never scored, truncation
//! counted (and, by setting, failed), usage summed per model, and a fatal
//! answer (401, 403, 404) that stops the run and resumes after the fix.

mod common;

use common::*;
use evalpage_core::events::{self, Record};
use evalpage_core::parse_response;
use evalpage_core::rag::build;
use evalpage_core::rag::Engine;
use evalpage_core::report::{set_prices, Price, Prices, RunMetrics};
use evalpage_core::run::{AnswerPolicy, Command, Input, RunStatus, Step};
use evalpage_core::{Answer, CallOutcome, ErrorKind, Usage};

fn many(n: usize) -> String {
    (0..n)
        .map(|i| format!("{{\"q\":\"q{i}\",\"gold\":[\"k{i}\"],\"doc_hint\":[\"d{i}.md\"]}}\n"))
        .collect()
}

fn sends(step: &Step<Record>) -> Vec<usize> {
    step.commands
        .iter()
        .filter_map(|c| match c {
            Command::Send { case, .. } => Some(*case),
            Command::Abort { .. } => None,
        })
        .collect()
}

fn feed(e: &mut Engine, case: usize, outcome: CallOutcome, now: u64) -> Step<Record> {
    e.handle(Input::Outcome { case, outcome }, now)
}

fn right(c: usize) -> CallOutcome {
    CallOutcome::text(format!("k{c} see d{c}.md"))
}

#[test]
fn a_fatal_answer_stops_sending_and_a_resume_sends_only_the_cases_without_an_answer() {
    let mut e = Engine::new(config("fatal", 3), cases(&many(8)));
    let mut log = Vec::new();
    let keep = |step: &Step<Record>, log: &mut Vec<Record>| log.extend(step.events.clone());
    let step = e.start(0);
    keep(&step, &mut log);
    assert_eq!(sends(&step), [0, 1, 2]);
    // case 1 answers 401: nothing new goes out, cases 3..8 are not run
    let step = feed(&mut e, 1, http_error(401), 10);
    keep(&step, &mut log);
    assert!(sends(&step).is_empty());
    assert_eq!(e.stopped().and_then(|f| f.status_code), Some(401));
    let errors: Vec<&Record> = step
        .events
        .iter()
        .filter(|r| matches!(r, Record::Error(_)))
        .collect();
    assert_eq!(errors.len(), 1, "one error record");
    let Record::Error(err) = errors[0] else {
        unreachable!()
    };
    assert!(
        err.message.contains("5 case(s) not sent"),
        "{}",
        err.message
    );
    // calls in flight finish: case 0 answers, case 2's 500 is not retried
    let step = feed(&mut e, 0, right(0), 20);
    keep(&step, &mut log);
    let step = feed(&mut e, 2, http_error(500), 30);
    keep(&step, &mut log);
    assert!(sends(&step).is_empty() && step.wake_at.is_none());
    assert_eq!(e.status(), RunStatus::Done);
    let kinds: Vec<Option<ErrorKind>> = e
        .results()
        .iter()
        .map(|r| r.as_ref().and_then(|r| r.error.as_ref()).map(|x| x.kind))
        .collect();
    assert_eq!(
        kinds[..3],
        [None, Some(ErrorKind::Http), Some(ErrorKind::Http)]
    );
    assert!(kinds[3..].iter().all(|k| *k == Some(ErrorKind::NotRun)));
    let m = RunMetrics::from_results(e.results());
    assert_eq!((m.cases_total, m.failed_calls, m.not_run_cases), (8, 7, 5));
    let report = build(&e, 40);
    assert_eq!(report.metrics.not_run_cases, 5);
    assert!(report
        .report
        .error_cases
        .iter()
        .any(|c| c.status == "not_run"));
    // resume after the fix: only case 0 is taken over (the 401 and the 500 of
    // the stopped run and the not-run cases are sent again)
    let mut bytes = Vec::new();
    for r in &log {
        events::write_jsonl(&mut bytes, r).expect("write");
    }
    let prior = evalpage_core::rag::resumable(&events::read(&bytes), &cases(&many(8)));
    assert_eq!(prior.calls.len(), 2, "case 0 and the 500 of case 2");
    let mut again = Engine::new(config("fatal", 8), cases(&many(8)));
    assert_eq!(again.restore(prior.calls), 2);
    let step = again.start(50);
    assert_eq!(sends(&step), [1, 3, 4, 5, 6, 7]);
}

#[test]
fn keep_going_on_fatal_sends_every_case() {
    let mut e = Engine::new(config("keep", 1), cases(&many(4)));
    e.set_policy(AnswerPolicy {
        keep_going_on_fatal: true,
        ..AnswerPolicy::default()
    });
    let (records, _) = drive(&mut e, |_, _| http_error(403));
    assert!(e.stopped().is_none());
    assert!(!records.iter().any(|r| matches!(r, Record::Error(_))));
    let m = RunMetrics::from_results(e.results());
    assert_eq!((m.failed_calls, m.not_run_cases), (4, 0));
}

fn truncated(c: usize) -> CallOutcome {
    CallOutcome::Answer(Answer {
        text: format!("k{c} see d{c}"),
        reasoning: None,
        finish_reason: Some("length".into()),
        ..Answer::default()
    })
}

#[test]
fn truncated_answers_are_counted_and_scored_as_they_are_unless_set_to_fail() {
    let outcome = |c: usize| if c == 1 { truncated(c) } else { right(c) };
    let mut e = Engine::new(config("t", 2), cases(&many(3)));
    let (records, _) = drive(&mut e, |c, _| outcome(c));
    let m = RunMetrics::from_results(e.results());
    assert_eq!(
        (m.truncated_cases, m.failed_calls, m.accurate_cases),
        (1, 0, 3)
    );
    let truncated_records = records
        .iter()
        .filter(|r| matches!(r, Record::Case(c) if c.truncated && c.finish_reason.as_deref() == Some("length")))
        .count();
    assert_eq!(truncated_records, 1);
    let Some(Record::Summary(s)) = records.last() else {
        panic!("summary last")
    };
    assert_eq!(s.metrics.truncated_cases, 1);

    let mut e = Engine::new(config("t", 2), cases(&many(3)));
    e.set_policy(AnswerPolicy {
        truncated_as_failure: true,
        ..AnswerPolicy::default()
    });
    drive(&mut e, |c, _| outcome(c));
    let m = RunMetrics::from_results(e.results());
    assert_eq!(
        (m.truncated_cases, m.failed_calls, m.accurate_cases),
        (1, 1, 2)
    );
    let err = e.results()[1].as_ref().and_then(|r| r.error.clone());
    assert_eq!(err.map(|e| e.kind), Some(ErrorKind::Truncated));
    assert!(e.stopped().is_none(), "a truncated answer is not fatal");
}

#[test]
fn keypoints_and_documents_named_only_in_the_reasoning_do_not_count() {
    let body = |c: usize| {
        serde_json::json!({
            "choices": [{"message": {
                "content": format!("<think>maybe k{c}, see d{c}.md or other.md</think>I do not know."),
            }, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 10 + c, "completion_tokens": 20, "completion_tokens_details": {"reasoning_tokens": 15}},
        })
        .to_string()
    };
    let mut e = Engine::new(config("r", 2), cases(&many(4)));
    let (records, now) = drive(&mut e, |c, _| parse_response("u", 200, None, &body(c)));
    let m = RunMetrics::from_results(e.results());
    assert_eq!((m.accurate_cases, m.cited_cases, m.failed_calls), (0, 0, 0));
    let r = e.results()[2].as_ref().expect("settled");
    assert_eq!(r.answer.as_deref(), Some("I do not know."));
    assert_eq!(
        r.reasoning.as_deref(),
        Some("maybe k2, see d2.md or other.md")
    );
    let Some(Record::Case(c)) = records.iter().find(|r| matches!(r, Record::Case(_))) else {
        panic!("a case record")
    };
    assert!(c
        .reasoning
        .as_deref()
        .is_some_and(|t| t.starts_with("maybe k")));
    assert_eq!(c.usage.clone().map(|u| u.completion_tokens), Some(20));
    // usage summed per model, cost only with a price
    let mut report = build(&e, now);
    let u = &report.report.usage[0];
    assert_eq!(
        (
            u.prompt_tokens,
            u.completion_tokens,
            u.reasoning_tokens,
            u.cost
        ),
        (10 + 11 + 12 + 13, 80, 60, None)
    );
    let prices: Prices = [(
        "m".to_string(),
        Price {
            in_per_mtok: 2.0,
            out_per_mtok: 10.0,
        },
    )]
    .into();
    set_prices(&mut report, &prices);
    let cost = report.report.usage[0].cost.expect("cost");
    assert!((cost - (46.0 * 2.0 + 80.0 * 10.0) / 1e6).abs() < 1e-12);
    // the detail keeps the reasoning beside the scored answer
    let d = &report.scores[0].detail;
    assert_eq!(d["answer"], "I do not know.");
    assert!(d["reasoning"].as_str().is_some_and(|t| t.contains("k0")));
    assert_eq!(
        d["usage"],
        serde_json::to_value(Usage {
            prompt_tokens: 10,
            completion_tokens: 20,
            reasoning_tokens: Some(15),
            timings: None,
        })
        .expect("json")
    );
}
