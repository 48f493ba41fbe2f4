//! The engine proper: scheduling, retries with backoff, adaptive concurrency on
//! 429, cancellation, and the event records that describe all of it.

use super::result::{CaseResult, RunConfig};
use super::scheduler::{Scheduler, Settled};
use crate::dataset::rag::RagCase;
use crate::events::Record;
use crate::prompt::rag_messages;
use crate::provider::{CallOutcome, ChatMessage};

/// What the shell tells the engine.
#[derive(Clone, Debug, PartialEq)]
pub enum Input {
    /// A call for this case settled.
    Outcome {
        /// Case index.
        case: usize,
        /// What happened.
        outcome: CallOutcome,
    },
    /// Time passed (after `wake_at`).
    Tick,
    /// The user cancelled: abort what is in flight, settle the rest as cancelled.
    Cancel,
    /// Send nothing new; calls in flight still settle.
    Pause,
    /// Start sending again after a pause.
    Resume,
}

/// What the engine asks the shell to do.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// Send this request; report back with `Input::Outcome { case, .. }`.
    Send {
        /// Case index.
        case: usize,
        /// 1-based attempt number.
        attempt: u32,
        /// The chat messages to send.
        messages: Vec<ChatMessage>,
    },
    /// Abort the request in flight for this case; its outcome will be ignored.
    Abort {
        /// Case index.
        case: usize,
    },
}

/// The engine's answer to one input.
#[derive(Clone, Debug, PartialEq)]
pub struct Step<E = Record> {
    /// Requests to send or abort.
    pub commands: Vec<Command>,
    /// Event records to append to the log, in order.
    pub events: Vec<E>,
    /// Indices of cases that finished in this step.
    pub finished: Vec<usize>,
    /// Call `handle(Input::Tick, ..)` at this time (ms) if nothing else happens first.
    pub wake_at: Option<u64>,
}

impl<E> Default for Step<E> {
    fn default() -> Self {
        Step {
            commands: Vec::new(),
            events: Vec::new(),
            finished: Vec::new(),
            wake_at: None,
        }
    }
}

/// Where the run is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunStatus {
    /// Not started.
    Idle,
    /// Cases pending or in flight.
    Running,
    /// Every case settled.
    Done,
    /// Cancelled by the user; unfinished cases are settled as cancelled.
    Cancelled,
}

/// The RAG run: the shared [`Scheduler`] over dataset cases, scored as they settle.
#[derive(Debug)]
pub struct Engine {
    cfg: RunConfig,
    cases: Vec<RagCase>,
    sched: Scheduler,
    results: Vec<Option<CaseResult>>,
    status: RunStatus,
}

impl Engine {
    /// A new engine over these cases.
    pub fn new(cfg: RunConfig, cases: Vec<RagCase>) -> Engine {
        let n = cases.len();
        Engine {
            sched: Scheduler::new(cfg.settings, n),
            cfg,
            cases,
            results: vec![None; n],
            status: RunStatus::Idle,
        }
    }

    /// Marks cases as already settled by an earlier, interrupted run (from its
    /// event log or the browser's store), before `start`. They are not sent again;
    /// `start` re-emits their `case` records so the new log is complete. Results for
    /// unknown indices, or after `start`, are ignored. Returns how many were taken.
    pub fn restore(&mut self, prior: Vec<CaseResult>) -> usize {
        if self.status != RunStatus::Idle {
            return 0;
        }
        let mut taken = 0;
        for result in prior {
            let i = result.index;
            if self.sched.is_pending(i) && self.cases[i].id == result.case_id {
                self.sched.settle_unsent(i, result.attempts);
                self.results[i] = Some(result);
                taken += 1;
            }
        }
        taken
    }

    /// Starts the run: the `meta` record and the first requests.
    pub fn start(&mut self, now_ms: u64) -> Step {
        let mut step = Step::default();
        if self.status != RunStatus::Idle {
            return step;
        }
        self.status = RunStatus::Running;
        step.events
            .push(Record::meta(&self.cfg, self.cases.len(), now_ms));
        for (i, r) in self.results.iter().enumerate() {
            if let Some(r) = r {
                step.events.push(Record::case(
                    &self.cfg.info.run_id,
                    &self.cases[i],
                    r,
                    now_ms,
                ));
                step.finished.push(i);
            }
        }
        self.dispatch(now_ms, &mut step);
        self.finish_if_done(now_ms, &mut step);
        step
    }

    /// Feeds one input in.
    pub fn handle(&mut self, input: Input, now_ms: u64) -> Step {
        let mut step = Step::default();
        if self.status != RunStatus::Running {
            return step;
        }
        match input {
            Input::Outcome { case, outcome } => {
                if let Some(s) = self.sched.outcome(case, outcome, now_ms) {
                    self.complete(s, now_ms, &mut step);
                }
            }
            Input::Tick => {}
            Input::Cancel => return self.cancel(now_ms),
            Input::Pause => self.sched.set_paused(true),
            Input::Resume => self.sched.set_paused(false),
        }
        self.dispatch(now_ms, &mut step);
        self.finish_if_done(now_ms, &mut step);
        step
    }

    /// Run status.
    pub fn status(&self) -> RunStatus {
        self.status
    }

    /// (finished cases, all cases).
    pub fn progress(&self) -> (usize, usize) {
        (self.sched.done(), self.cases.len())
    }

    /// True while paused.
    pub fn is_paused(&self) -> bool {
        self.sched.is_paused()
    }

    /// The current concurrency limit (lowered after 429s, recovering on success).
    pub fn current_limit(&self) -> usize {
        self.sched.current_limit()
    }

    /// The run configuration.
    pub fn config(&self) -> &RunConfig {
        &self.cfg
    }

    /// The cases, in dataset order.
    pub fn cases(&self) -> &[RagCase] {
        &self.cases
    }

    /// Settled cases with their results, in dataset order.
    pub fn settled(&self) -> Vec<(&RagCase, &CaseResult)> {
        self.cases
            .iter()
            .zip(&self.results)
            .filter_map(|(c, r)| r.as_ref().map(|r| (c, r)))
            .collect()
    }

    /// Per-case results in dataset order (`None` while unfinished).
    pub fn results(&self) -> &[Option<CaseResult>] {
        &self.results
    }

    fn complete(&mut self, s: Settled, now_ms: u64, step: &mut Step) {
        let case = s.job;
        if s.aborted {
            step.commands.push(Command::Abort { case });
        }
        let result = CaseResult::new(
            case,
            &self.cases[case],
            s.outcome,
            s.attempts,
            s.elapsed_ms,
            &self.cfg.scoring,
        );
        step.events.push(Record::case(
            &self.cfg.info.run_id,
            &self.cases[case],
            &result,
            now_ms,
        ));
        self.results[case] = Some(result);
        step.finished.push(case);
    }

    fn dispatch(&mut self, now_ms: u64, step: &mut Step) {
        for (case, attempt) in self.sched.dispatch(now_ms) {
            let messages = rag_messages(&self.cfg.system_prompt, &self.cases[case]);
            step.commands.push(Command::Send {
                case,
                attempt,
                messages,
            });
        }
        step.wake_at = self.sched.wake_at(now_ms);
    }

    fn cancel(&mut self, now_ms: u64) -> Step {
        let mut step = Step::default();
        for s in self.sched.cancel(now_ms) {
            self.complete(s, now_ms, &mut step);
        }
        self.status = RunStatus::Cancelled;
        step.events.push(Record::summary(self, now_ms));
        step
    }

    fn finish_if_done(&mut self, now_ms: u64, step: &mut Step) {
        if self.status == RunStatus::Running && self.sched.done() == self.cases.len() {
            self.status = RunStatus::Done;
            step.events.push(Record::summary(self, now_ms));
        }
    }
}
