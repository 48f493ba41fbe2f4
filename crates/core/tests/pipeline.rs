//! The seam of the one run engine: a case that is a sequence of calls whose
//! later request depends on the earlier answer, on two pools with their own
//! limits (an answering model and a judge), driven with scripted outcomes.

use evalpage_core::run::{
    Call, Command, Input, JobOutcome, Kind, Pipeline, RunIdentity, RunSettings, RunStatus, Step,
};
use evalpage_core::{Answer, CallError, CallOutcome, ChatMessage, ErrorKind};

/// Each case asks the model, then asks the judge about the model's answer.
struct AnswerThenJudge {
    cases: usize,
    answer: RunSettings,
    judge: RunSettings,
    settled: Vec<(usize, JobOutcome)>,
    run: RunIdentity,
    /// Every `call` asked of the kind: (job, answers so far).
    asked: std::cell::RefCell<Vec<(usize, usize)>>,
}

const ANSWER: usize = 0;
const JUDGE: usize = 1;

impl Kind for AnswerThenJudge {
    type Record = String;

    fn identity(&self) -> &RunIdentity {
        &self.run
    }

    fn jobs(&self) -> usize {
        self.cases
    }

    fn pools(&self) -> Vec<RunSettings> {
        vec![self.answer, self.judge]
    }

    fn call(&self, job: usize, answers: &[Answer]) -> Result<Option<Call>, CallError> {
        self.asked.borrow_mut().push((job, answers.len()));
        let (pool, text) = match answers {
            [] => (ANSWER, format!("q{job}")),
            [answer] => (JUDGE, format!("judge: {}", answer.text)),
            _ => return Ok(None),
        };
        Ok(Some(Call::chat(pool, vec![ChatMessage::new("user", text)])))
    }

    fn settle(&mut self, job: usize, outcome: JobOutcome, _now_ms: u64) -> Vec<String> {
        let line = format!(
            "case {job}: {:?} {:?}",
            outcome.answers.iter().map(|a| &a.text).collect::<Vec<_>>(),
            outcome.error.as_ref().and_then(|e| e.status_code)
        );
        self.settled.push((job, outcome));
        vec![line]
    }

    fn restored(&self, _job: usize, _now_ms: u64) -> Option<String> {
        None
    }

    fn meta(&self, _now_ms: u64) -> String {
        "meta".into()
    }

    fn summary(&self, cancelled: bool, _now_ms: u64) -> String {
        format!("summary cancelled={cancelled}")
    }

    fn error(&self, message: &str, _now_ms: u64) -> Option<String> {
        Some(format!("error: {message}"))
    }
}

fn engine(cases: usize) -> Pipeline<AnswerThenJudge> {
    let settings = |concurrency| RunSettings {
        concurrency,
        max_attempts: 3,
        backoff_base_ms: 100,
        ..RunSettings::default()
    };
    Pipeline::over(AnswerThenJudge {
        cases,
        answer: settings(2),
        judge: settings(1),
        settled: Vec::new(),
        run: RunIdentity::default(),
        asked: Default::default(),
    })
}

/// The (job, text of the last message) of every `Send` in a step.
fn sends(step: &Step<String>) -> Vec<(usize, String)> {
    step.commands
        .iter()
        .filter_map(|c| match c {
            Command::Send { case, messages, .. } => Some((
                *case,
                messages
                    .last()
                    .map(|m| m.content.clone())
                    .unwrap_or_default(),
            )),
            Command::Abort { .. } => None,
        })
        .collect()
}

fn answer(text: &str) -> CallOutcome {
    CallOutcome::text(text)
}

fn outcome(job: usize, o: CallOutcome) -> Input {
    Input::Outcome {
        case: job,
        outcome: o,
    }
}

#[test]
fn a_judge_call_follows_the_answer_it_judges_on_its_own_pool() {
    let mut e = engine(3);
    let step = e.start(0);
    assert_eq!(step.events, ["meta"]);
    assert_eq!(
        sends(&step),
        [(0, "q0".into()), (1, "q1".into())],
        "answer pool: limit 2"
    );

    // Case 0 answered: its judge call carries the answer; the freed slot takes case 2.
    let step = e.handle(outcome(0, answer("A0")), 10);
    // Pools take turns in dispatch; both calls go out in this step.
    assert_eq!(sends(&step), [(0, "judge: A0".into()), (2, "q2".into())]);
    assert!(
        step.finished.is_empty(),
        "a case with a call to come is not finished"
    );
    assert_eq!(e.progress(), (0, 3));

    // Case 1 answered: the judge pool (limit 1) is busy, so its judge call waits.
    let step = e.handle(outcome(1, answer("A1")), 20);
    assert_eq!(sends(&step), []);

    // The judge answers case 0: case 0 settles with both answers; case 1's judge call goes out.
    let step = e.handle(outcome(0, answer("GRADE: C")), 30);
    assert_eq!(step.finished, [0]);
    assert_eq!(step.events, ["case 0: [\"A0\", \"GRADE: C\"] None"]);
    assert_eq!(sends(&step), [(1, "judge: A1".into())]);

    let step = e.handle(outcome(2, answer("A2")), 40);
    assert_eq!(
        sends(&step),
        [],
        "case 2's judge call waits for the judge slot"
    );
    e.handle(outcome(1, answer("GRADE: I")), 50);
    let step = e.handle(outcome(2, answer("GRADE: C")), 60);
    assert_eq!(e.progress(), (3, 3));
    assert_eq!(e.status(), RunStatus::Done);
    assert_eq!(
        step.events.last().map(String::as_str),
        Some("summary cancelled=false")
    );
    let order: Vec<usize> = e.kind().settled.iter().map(|(j, _)| *j).collect();
    assert_eq!(order, [0, 1, 2]);
}

#[test]
fn a_rate_limited_judge_lowers_only_the_judge_pool_and_retries_count_per_case() {
    let mut e = engine(2);
    e.start(0);
    e.handle(outcome(0, answer("A0")), 10);
    assert_eq!(e.current_limits(), [2, 1]);
    let mut limited = CallError::new(ErrorKind::Http, "slow down");
    limited.status_code = Some(429);
    limited.retry_after_ms = Some(500);
    let step = e.handle(outcome(0, CallOutcome::Failed(limited)), 20);
    assert_eq!(sends(&step), []);
    assert_eq!(step.wake_at, Some(520), "Retry-After is honoured");
    assert_eq!(
        e.current_limits(),
        [2, 1],
        "the judge pool is at its floor of 1"
    );
    let step = e.handle(Input::Tick, 520);
    assert_eq!(
        sends(&step),
        [(0, "judge: A0".into())],
        "the same judge request again"
    );
    e.handle(outcome(0, answer("GRADE: C")), 530);
    let (_, done) = &e.kind().settled[0];
    assert_eq!(done.attempts, 3, "one answer attempt + two judge attempts");
    assert_eq!(done.elapsed_ms, 10 + 520, "time of both calls");
}

#[test]
fn a_failed_answer_settles_the_case_without_a_judge_call_and_cancel_aborts_the_rest() {
    let mut e = engine(3);
    e.start(0);
    let mut denied = CallError::new(ErrorKind::Http, "bad request");
    denied.status_code = Some(400);
    let step = e.handle(outcome(0, CallOutcome::Failed(denied)), 5);
    assert_eq!(step.finished, [0]);
    assert_eq!(step.events, ["case 0: [] Some(400)"]);
    assert_eq!(
        sends(&step),
        [(2, "q2".into())],
        "no judge call for a failed answer"
    );
    e.handle(outcome(1, answer("A1")), 6);
    let step = e.handle(Input::Cancel, 7);
    let aborted: Vec<usize> = step
        .commands
        .iter()
        .filter_map(|c| match c {
            Command::Abort { case } => Some(*case),
            Command::Send { .. } => None,
        })
        .collect();
    assert_eq!(aborted, [2, 1], "answer pool first, then the judge pool");
    assert_eq!(e.status(), RunStatus::Cancelled);
    assert_eq!(e.progress(), (3, 3));
    let (_, judged) = e
        .kind()
        .settled
        .iter()
        .find(|(j, _)| *j == 1)
        .expect("case 1");
    assert_eq!(
        judged.answers,
        [Answer::from("A1")],
        "the answer is kept; the judge call was cancelled"
    );
    assert_eq!(
        judged.error.as_ref().map(|e| e.kind),
        Some(ErrorKind::Cancelled)
    );
}

#[test]
fn a_failed_run_writes_an_error_record_and_settles_the_rest_as_cancelled() {
    let mut e = engine(3);
    e.start(0);
    e.handle(outcome(0, answer("A0")), 5);
    let step = e.fail("storage failed: quota exceeded", 6);
    assert_eq!(
        step.events.first().map(String::as_str),
        Some("error: storage failed: quota exceeded")
    );
    assert_eq!(
        step.events.last().map(String::as_str),
        Some("summary cancelled=true")
    );
    assert_eq!(e.status(), RunStatus::Cancelled);
    assert_eq!(e.progress(), (3, 3), "every case settled, none dropped");
    assert!(
        e.fail("again", 7).events.is_empty(),
        "a stopped run fails once"
    );
}

#[test]
fn a_fatal_answer_stops_every_pool_and_later_calls_of_a_job_are_not_run() {
    let mut e = engine(4);
    let step = e.start(0);
    assert_eq!(sends(&step), [(0, "q0".into()), (1, "q1".into())]);
    let mut denied = CallError::new(ErrorKind::Http, "bad key");
    denied.status_code = Some(401);
    let step = e.handle(outcome(0, CallOutcome::Failed(denied)), 5);
    assert!(sends(&step).is_empty(), "nothing new after a fatal answer");
    assert_eq!(
        step.finished,
        [0, 2, 3],
        "the fatal case, then the unsent ones"
    );
    // case 1's answer was in flight: it settles, its judge call is not sent
    let step = e.handle(outcome(1, answer("A1")), 6);
    assert!(sends(&step).is_empty());
    assert_eq!(e.status(), RunStatus::Done);
    let kinds: Vec<Option<ErrorKind>> = (0..4)
        .map(|j| {
            let (_, o) = e
                .kind()
                .settled
                .iter()
                .find(|(k, _)| *k == j)
                .expect("settled");
            o.error.as_ref().map(|x| x.kind)
        })
        .collect();
    assert_eq!(
        kinds,
        [
            Some(ErrorKind::Http),
            Some(ErrorKind::NotRun),
            Some(ErrorKind::NotRun),
            Some(ErrorKind::NotRun)
        ]
    );
}

#[test]
fn taken_over_answers_go_on_at_the_next_call_on_its_pool_or_settle_at_start() {
    use evalpage_core::run::PriorJob;
    let mut e = engine(4);
    let a = |t: &str| (Answer::from(t), 1, 10);
    // case 0: its answer taken over, so its judge call is next (judge pool)
    assert!(e.restore_calls(
        0,
        PriorJob {
            answers: vec![a("a0")],
            failed: None
        }
    ));
    // case 1: answer and verdict taken over: complete
    assert!(e.restore_calls(
        1,
        PriorJob {
            answers: vec![a("a1"), a("yes")],
            failed: None
        }
    ));
    // case 2: its failure taken over
    let failed = CallError::new(ErrorKind::Network, "reset");
    assert!(e.restore_calls(
        2,
        PriorJob {
            answers: Vec::new(),
            failed: Some((failed, 3, 30))
        }
    ));
    assert!(
        !e.restore_calls(3, PriorJob::default()),
        "nothing to take over"
    );
    let step = e.start(0);
    assert_eq!(
        step.events,
        ["meta", "case 1: [\"a1\", \"yes\"] None", "case 2: [] None"]
    );
    assert_eq!(step.finished, [1, 2]);
    assert_eq!(
        sends(&step),
        [(3, "q3".into()), (0, "judge: a0".into())],
        "case 0 on the judge's pool, case 3 from its first call"
    );
    let step = e.handle(outcome(0, answer("no")), 5);
    assert_eq!(step.events, ["case 0: [\"a0\", \"no\"] None"]);
    let settled = &e.kind().settled;
    assert_eq!((settled[0].1.attempts, settled[0].1.elapsed_ms), (2, 20));
    assert_eq!(
        settled[1].1.error.as_ref().map(|x| x.kind),
        Some(ErrorKind::Network)
    );
    assert_eq!(settled[1].1.attempts, 3);
    assert!(
        !e.restore_calls(3, PriorJob::default()),
        "only before start"
    );
}

#[test]
fn a_capped_pool_keeps_one_call_in_flight_while_the_others_keep_theirs() {
    let mut e = engine(3);
    e.cap_pool(ANSWER, 1);
    e.cap_pool(7, 1); // no such pool: nothing happens
    assert_eq!(e.current_limits(), [1, 1]);
    let step = e.start(0);
    assert_eq!(
        sends(&step),
        [(0, "q0".into())],
        "one answer call at a time"
    );
    let step = e.handle(outcome(0, answer("A0")), 10);
    assert_eq!(sends(&step), [(0, "judge: A0".into()), (1, "q1".into())]);
    // A success never lifts a capped pool above its cap.
    let step = e.handle(outcome(1, answer("A1")), 20);
    assert_eq!(sends(&step), [(2, "q2".into())]);
    assert_eq!(e.current_limits(), [1, 1]);
}

#[test]
fn a_stopped_engine_stops_the_run_even_when_fatal_answers_do_not_and_its_case_is_asked_again() {
    let mut e = engine(3);
    e.set_policy(evalpage_core::run::AnswerPolicy {
        keep_going_on_fatal: true,
        ..Default::default()
    });
    e.start(0);
    let died = CallError::new(ErrorKind::EngineStopped, "the engine's worker stopped");
    assert!(died.fatal() && died.unsettled() && !died.retryable());
    let step = e.handle(outcome(0, CallOutcome::Failed(died)), 10);
    assert_eq!(sends(&step), [], "nothing more is asked");
    let stopped = e.stopped().expect("the run stopped");
    assert_eq!(stopped.kind, ErrorKind::EngineStopped);
    assert_eq!(
        e.stop_reason(),
        Some(evalpage_core::run::StopReason::EngineStopped)
    );
    assert!(
        step.events
            .iter()
            .any(|l| l.contains("load the model file again and resume")),
        "{:?}",
        step.events
    );
}

#[test]
fn the_call_that_chose_a_job_s_pool_is_the_one_sent_and_a_retry_asks_the_kind_again() {
    let mut e = engine(1);
    let step = e.start(0);
    assert_eq!(sends(&step), [(0, "q0".to_string())]);
    let judge_asks = |e: &Pipeline<AnswerThenJudge>| {
        e.kind()
            .asked
            .borrow()
            .iter()
            .filter(|&&(job, n)| (job, n) == (0, 1))
            .count()
    };
    let step = e.handle(outcome(0, answer("A")), 10);
    assert_eq!(sends(&step), [(0, "judge: A".to_string())]);
    assert_eq!(
        judge_asks(&e),
        1,
        "asked once for the judge's call: to queue it and to send it"
    );
    // a rate-limited judge call is sent again, built again
    let mut limited = CallError::new(ErrorKind::Http, "HTTP 429".to_string());
    limited.status_code = Some(429);
    let step = e.handle(outcome(0, CallOutcome::Failed(limited)), 20);
    assert!(sends(&step).is_empty());
    let wake = step.wake_at.expect("a back-off wake-up");
    let step = e.handle(Input::Tick, wake);
    assert_eq!(sends(&step), [(0, "judge: A".to_string())]);
    assert_eq!(judge_asks(&e), 2);
    let step = e.handle(outcome(0, answer("good")), wake + 10);
    assert!(sends(&step).is_empty());
    assert_eq!(e.status(), RunStatus::Done);
}
