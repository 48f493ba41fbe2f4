//! The engine proper: scheduling, retries with backoff, adaptive concurrency on
//! 429, cancellation, and the event records that describe all of it.

use super::result::{CaseResult, RunConfig};
use crate::dataset::rag::RagCase;
use crate::events::Record;
use crate::prompt::rag_messages;
use crate::provider::{CallError, CallOutcome, ChatMessage, ErrorKind};

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
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Step {
    /// Requests to send or abort.
    pub commands: Vec<Command>,
    /// Event records to append to the log, in order.
    pub events: Vec<Record>,
    /// Indices of cases that finished in this step.
    pub finished: Vec<usize>,
    /// Call `handle(Input::Tick, ..)` at this time (ms) if nothing else happens first.
    pub wake_at: Option<u64>,
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

#[derive(Clone, Copy, Debug, PartialEq)]
enum CaseState {
    Pending,
    InFlight,
    Waiting { due_ms: u64 },
    Done,
}

/// The run state machine (see the module doc of `run`).
#[derive(Debug)]
pub struct Engine {
    cfg: RunConfig,
    cases: Vec<RagCase>,
    states: Vec<CaseState>,
    attempts: Vec<u32>,
    first_sent_ms: Vec<Option<u64>>,
    results: Vec<Option<CaseResult>>,
    status: RunStatus,
    in_flight: usize,
    limit: usize,
    successes_since_change: usize,
    /// Bumped at each step-down; a 429 for a request sent before the last
    /// step-down says nothing new, so one burst halves the limit only once.
    limit_epoch: u64,
    sent_epoch: Vec<u64>,
    done: usize,
    paused: bool,
}

impl Engine {
    /// A new engine over these cases.
    pub fn new(cfg: RunConfig, cases: Vec<RagCase>) -> Engine {
        let n = cases.len();
        let limit = cfg.settings.concurrency.max(1);
        Engine {
            cfg,
            cases,
            states: vec![CaseState::Pending; n],
            attempts: vec![0; n],
            first_sent_ms: vec![None; n],
            results: vec![None; n],
            status: RunStatus::Idle,
            in_flight: 0,
            limit,
            successes_since_change: 0,
            limit_epoch: 0,
            sent_epoch: vec![0; n],
            done: 0,
            paused: false,
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
            if self.states.get(i) == Some(&CaseState::Pending) && self.cases[i].id == result.case_id
            {
                self.attempts[i] = result.attempts;
                self.states[i] = CaseState::Done;
                self.results[i] = Some(result);
                self.done += 1;
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
            Input::Outcome { case, outcome } => self.settle(case, outcome, now_ms, &mut step),
            Input::Tick => {}
            Input::Cancel => return self.cancel(now_ms),
            Input::Pause => self.paused = true,
            Input::Resume => self.paused = false,
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
        (self.done, self.cases.len())
    }

    /// True while paused.
    pub fn is_paused(&self) -> bool {
        self.paused
    }

    /// The current concurrency limit (lowered after 429s, recovering on success).
    pub fn current_limit(&self) -> usize {
        self.limit
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

    fn settle(&mut self, case: usize, outcome: CallOutcome, now_ms: u64, step: &mut Step) {
        if self.states.get(case) != Some(&CaseState::InFlight) {
            return; // late or duplicate outcome: each case is counted once
        }
        self.in_flight -= 1;
        let attempt = self.attempts[case];
        match outcome {
            CallOutcome::Answer(text) => {
                self.on_success();
                self.complete(case, Ok(text), now_ms, step);
            }
            CallOutcome::Failed(err) => {
                if err.status_code == Some(429) && self.sent_epoch[case] == self.limit_epoch {
                    self.on_rate_limited();
                }
                if err.retryable() && attempt < self.cfg.settings.max_attempts {
                    let due_ms = now_ms + self.backoff_ms(case, attempt, &err);
                    self.states[case] = CaseState::Waiting { due_ms };
                } else {
                    self.complete(case, Err(err), now_ms, step);
                }
            }
        }
    }

    fn complete(
        &mut self,
        case: usize,
        outcome: Result<String, CallError>,
        now_ms: u64,
        step: &mut Step,
    ) {
        let started = self.first_sent_ms[case].unwrap_or(now_ms);
        let result = CaseResult::new(
            case,
            &self.cases[case],
            outcome,
            self.attempts[case],
            now_ms.saturating_sub(started),
            &self.cfg.scoring,
        );
        step.events.push(Record::case(
            &self.cfg.info.run_id,
            &self.cases[case],
            &result,
            now_ms,
        ));
        self.results[case] = Some(result);
        self.states[case] = CaseState::Done;
        self.done += 1;
        step.finished.push(case);
    }

    fn dispatch(&mut self, now_ms: u64, step: &mut Step) {
        while self.in_flight < self.limit && !self.paused {
            let Some(case) = self.next_ready(now_ms) else {
                break;
            };
            self.attempts[case] += 1;
            self.sent_epoch[case] = self.limit_epoch;
            self.first_sent_ms[case].get_or_insert(now_ms);
            self.states[case] = CaseState::InFlight;
            self.in_flight += 1;
            let messages = rag_messages(&self.cfg.system_prompt, &self.cases[case]);
            step.commands.push(Command::Send {
                case,
                attempt: self.attempts[case],
                messages,
            });
        }
        // Only future retries need a wake-up: a retry that is already due but
        // waits for a free slot goes out when the next outcome frees one.
        step.wake_at = self
            .states
            .iter()
            .filter_map(|s| match s {
                CaseState::Waiting { due_ms } if *due_ms > now_ms => Some(*due_ms),
                _ => None,
            })
            .min();
    }

    /// A due retry first (oldest due time), else the next pending case in order.
    fn next_ready(&self, now_ms: u64) -> Option<usize> {
        let due = self
            .states
            .iter()
            .enumerate()
            .filter_map(|(i, s)| match s {
                CaseState::Waiting { due_ms } if *due_ms <= now_ms => Some((*due_ms, i)),
                _ => None,
            })
            .min()
            .map(|(_, i)| i);
        due.or_else(|| self.states.iter().position(|s| *s == CaseState::Pending))
    }

    fn backoff_ms(&self, case: usize, attempt: u32, err: &CallError) -> u64 {
        let s = &self.cfg.settings;
        let exp = s
            .backoff_base_ms
            .saturating_mul(1u64 << attempt.saturating_sub(1).min(20));
        let capped = exp.min(s.backoff_max_ms);
        let jitter =
            0.5 + 0.5 * unit(s.seed ^ (case as u64).wrapping_mul(0x9E37_79B9) ^ u64::from(attempt));
        let backoff = (capped as f64 * jitter) as u64;
        err.retry_after_ms.unwrap_or(backoff)
    }

    fn on_rate_limited(&mut self) {
        self.limit_epoch += 1;
        self.limit = (self.limit / 2).max(1);
        self.successes_since_change = 0;
    }

    fn on_success(&mut self) {
        if self.limit >= self.cfg.settings.concurrency.max(1) {
            return;
        }
        self.successes_since_change += 1;
        if self.successes_since_change >= self.limit {
            self.limit += 1;
            self.successes_since_change = 0;
        }
    }

    fn cancel(&mut self, now_ms: u64) -> Step {
        let mut step = Step::default();
        for case in 0..self.cases.len() {
            match self.states[case] {
                CaseState::Done => continue,
                CaseState::InFlight => step.commands.push(Command::Abort { case }),
                CaseState::Pending | CaseState::Waiting { .. } => {}
            }
            let err = CallError::new(
                ErrorKind::Cancelled,
                "cancelled by the user before this case finished",
            );
            self.complete(case, Err(err), now_ms, &mut step);
        }
        self.in_flight = 0;
        self.status = RunStatus::Cancelled;
        step.events.push(Record::summary(self, now_ms));
        step
    }

    fn finish_if_done(&mut self, now_ms: u64, step: &mut Step) {
        if self.status == RunStatus::Running && self.done == self.cases.len() {
            self.status = RunStatus::Done;
            step.events.push(Record::summary(self, now_ms));
        }
    }
}

/// A deterministic number in [0, 1) from a seed (splitmix64).
fn unit(seed: u64) -> f64 {
    let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z >> 11) as f64 / (1u64 << 53) as f64
}
