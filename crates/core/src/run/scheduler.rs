//! Scheduling shared by every kind of run (RAG cases, task samples × models):
//! which job to send next, retries with exponential backoff and seeded jitter,
//! `Retry-After`, the adaptive concurrency limit (halved once per burst of 429s,
//! +1 per `limit` successes), pause and cancel. It knows jobs only by index;
//! what a job sends and how its outcome is scored belong to the run around it.

use super::result::RunSettings;
use crate::provider::{Answer, CallError, CallOutcome, ErrorKind};
use std::collections::BTreeSet;

#[derive(Clone, Copy, Debug, PartialEq)]
enum JobState {
    /// Not queued in this scheduler (a pool whose calls depend on earlier
    /// answers queues each job when its call is due).
    Idle,
    Pending,
    InFlight,
    Waiting {
        due_ms: u64,
    },
    Done,
}

/// A job that finished: its final outcome, attempts and time from first send.
#[derive(Clone, Debug, PartialEq)]
pub struct Settled {
    /// Job index.
    pub job: usize,
    /// The answer, or the error of the last attempt.
    pub outcome: Result<Answer, CallError>,
    /// Attempts made.
    pub attempts: u32,
    /// Milliseconds from the first send to the outcome.
    pub elapsed_ms: u64,
    /// True when the job was in flight and the shell must abort its request.
    pub aborted: bool,
}

/// The scheduler over `n` jobs.
#[derive(Debug)]
pub struct Scheduler {
    settings: RunSettings,
    states: Vec<JobState>,
    attempts: Vec<u32>,
    first_sent_ms: Vec<Option<u64>>,
    in_flight: usize,
    limit: usize,
    successes_since_change: usize,
    /// Bumped at each step-down; a 429 for a request sent before the last
    /// step-down says nothing new, so one burst halves the limit only once.
    limit_epoch: u64,
    sent_epoch: Vec<u64>,
    done: usize,
    paused: bool,
    /// Set by [`Scheduler::stop`]: nothing new is sent and failures are not retried.
    stopped: bool,
    /// Set by [`Scheduler::no_retries`]: failures are final.
    final_answers: bool,
    /// The pending jobs, lowest first, and the waiting ones by due time:
    /// what `dispatch` and `wake_at` look at, so a step costs the same with
    /// 100,000 jobs as with 10.
    pending: BTreeSet<usize>,
    waiting: BTreeSet<(u64, usize)>,
}

impl Scheduler {
    /// A scheduler over `n` pending jobs.
    pub fn new(settings: RunSettings, n: usize) -> Scheduler {
        Scheduler {
            settings,
            states: vec![JobState::Pending; n],
            attempts: vec![0; n],
            first_sent_ms: vec![None; n],
            in_flight: 0,
            limit: settings.concurrency.max(1),
            successes_since_change: 0,
            limit_epoch: 0,
            sent_epoch: vec![0; n],
            done: 0,
            paused: false,
            stopped: false,
            final_answers: false,
            pending: (0..n).collect(),
            waiting: BTreeSet::new(),
        }
    }

    /// Moves `job` to `state`, keeping the pending and waiting sets.
    fn set_state(&mut self, job: usize, state: JobState) {
        match self.states[job] {
            JobState::Pending => {
                self.pending.remove(&job);
            }
            JobState::Waiting { due_ms } => {
                self.waiting.remove(&(due_ms, job));
            }
            _ => {}
        }
        match state {
            JobState::Pending => {
                self.pending.insert(job);
            }
            JobState::Waiting { due_ms } => {
                self.waiting.insert((due_ms, job));
            }
            _ => {}
        }
        self.states[job] = state;
    }

    /// A scheduler over `n` jobs that are not queued yet: [`Scheduler::queue`]
    /// queues each one when a call of it is due.
    pub fn idle(settings: RunSettings, n: usize) -> Scheduler {
        let mut s = Scheduler::new(settings, n);
        s.states = vec![JobState::Idle; n];
        s.pending.clear();
        s
    }

    /// Queues a call of `job`: an idle or settled job becomes pending, with
    /// its own attempts and time (a later call of a job that already had one
    /// starts afresh). False when the job is pending, in flight or waiting.
    pub fn queue(&mut self, job: usize) -> bool {
        match self.states.get(job) {
            Some(JobState::Idle) => {}
            Some(JobState::Done) => self.done -= 1,
            _ => return false,
        }
        self.set_state(job, JobState::Pending);
        self.attempts[job] = 0;
        self.first_sent_ms[job] = None;
        true
    }

    /// The settings.
    pub fn settings(&self) -> &RunSettings {
        &self.settings
    }

    /// True while `job` has not been sent and has not settled.
    pub fn is_pending(&self, job: usize) -> bool {
        self.states.get(job) == Some(&JobState::Pending)
    }

    /// True once `job` has settled.
    pub fn is_done(&self, job: usize) -> bool {
        self.states.get(job) == Some(&JobState::Done)
    }

    /// Settles a pending job without sending it (restored from an earlier run,
    /// or failed before any call, such as a prompt that cannot be rendered).
    pub fn settle_unsent(&mut self, job: usize, attempts: u32) -> bool {
        if !self.is_pending(job) {
            return false;
        }
        self.attempts[job] = attempts;
        self.set_state(job, JobState::Done);
        self.done += 1;
        true
    }

    /// Marks jobs to send now, within the limit: a due retry first (oldest due
    /// time), else the next pending job in order. Returns `(job, attempt)`.
    pub fn dispatch(&mut self, now_ms: u64) -> Vec<(usize, u32)> {
        let mut out = Vec::new();
        let limit = self.limit + usize::from(crate::planted::on(crate::planted::Bug::CapPlusOne));
        while self.in_flight < limit && !self.paused && !self.stopped {
            let Some(job) = self.next_ready(now_ms) else {
                break;
            };
            self.attempts[job] += 1;
            self.sent_epoch[job] = self.limit_epoch;
            self.first_sent_ms[job].get_or_insert(now_ms);
            self.set_state(job, JobState::InFlight);
            self.in_flight += 1;
            out.push((job, self.attempts[job]));
        }
        out
    }

    /// When the next scheduled retry falls due, if one lies in the future. A
    /// retry that is already due but waits for a free slot goes out when the
    /// next outcome frees one.
    pub fn wake_at(&self, now_ms: u64) -> Option<u64> {
        self.waiting
            .range((now_ms.saturating_add(1), 0)..)
            .next()
            .map(|(due, _)| *due)
    }

    /// An outcome for a job in flight. Returns the settled job, or `None` when
    /// a retry was scheduled or the outcome was late or a duplicate (each job
    /// settles once).
    pub fn outcome(&mut self, job: usize, outcome: CallOutcome, now_ms: u64) -> Option<Settled> {
        if self.states.get(job) != Some(&JobState::InFlight) {
            return None;
        }
        self.in_flight -= 1;
        let attempt = self.attempts[job];
        match outcome {
            CallOutcome::Answer(text) => {
                self.on_success();
                Some(self.finish(job, Ok(text), now_ms, false))
            }
            CallOutcome::Failed(err) => {
                if err.status_code == Some(429) && self.sent_epoch[job] == self.limit_epoch {
                    self.on_rate_limited();
                }
                if err.retryable()
                    && attempt
                        < self.settings.max_attempts
                            + u32::from(crate::planted::on(crate::planted::Bug::OneAttemptMore))
                    && !self.stopped
                    && !self.final_answers
                {
                    let due_ms = now_ms + self.backoff_ms(job, attempt, &err);
                    self.set_state(job, JobState::Waiting { due_ms });
                    None
                } else {
                    Some(self.finish(job, Err(err), now_ms, false))
                }
            }
        }
    }

    /// Failures are final from now on (answers read from batch files).
    pub fn no_retries(&mut self) {
        self.final_answers = true;
    }

    /// Settles every unfinished job as cancelled, in order.
    pub fn cancel(&mut self, now_ms: u64) -> Vec<Settled> {
        let mut out = Vec::new();
        for job in 0..self.states.len() {
            let aborted = match self.states[job] {
                JobState::Done | JobState::Idle => continue,
                JobState::InFlight => true,
                JobState::Pending | JobState::Waiting { .. } => false,
            };
            let err = CallError::new(
                ErrorKind::Cancelled,
                "cancelled by the user before this case finished",
            );
            out.push(self.finish(job, Err(err), now_ms, aborted));
        }
        self.in_flight = 0;
        out
    }

    /// Stops the pool after a fatal answer: every job not in flight (pending,
    /// or waiting for a retry) settles with `error` and is not sent; calls in
    /// flight still settle, without retries. Idle jobs stay idle (the run
    /// settles them itself).
    pub fn stop(&mut self, error: &CallError, now_ms: u64) -> Vec<Settled> {
        self.stopped = true;
        let mut out = Vec::new();
        for job in 0..self.states.len() {
            if matches!(
                self.states[job],
                JobState::Pending | JobState::Waiting { .. }
            ) {
                out.push(self.finish(job, Err(error.clone()), now_ms, false));
            }
        }
        out
    }

    /// True once [`Scheduler::stop`] was called.
    pub fn is_stopped(&self) -> bool {
        self.stopped
    }

    fn finish(
        &mut self,
        job: usize,
        outcome: Result<Answer, CallError>,
        now_ms: u64,
        aborted: bool,
    ) -> Settled {
        let started = self.first_sent_ms[job].unwrap_or(now_ms);
        self.set_state(job, JobState::Done);
        self.done += 1;
        Settled {
            job,
            outcome,
            attempts: self.attempts[job],
            elapsed_ms: now_ms.saturating_sub(started),
            aborted,
        }
    }

    /// Settled jobs.
    pub fn done(&self) -> usize {
        self.done
    }

    /// All jobs.
    pub fn len(&self) -> usize {
        self.states.len()
    }

    /// True when there are no jobs.
    pub fn is_empty(&self) -> bool {
        self.states.is_empty()
    }

    /// Send nothing new until `set_paused(false)`.
    pub fn set_paused(&mut self, paused: bool) {
        self.paused = paused;
    }

    /// True while paused.
    pub fn is_paused(&self) -> bool {
        self.paused
    }

    /// The current concurrency limit.
    pub fn current_limit(&self) -> usize {
        self.limit
    }

    /// Never more than `most` calls in flight (at least one), whatever the
    /// run's settings say: for a model that answers one call at a time.
    pub fn cap(&mut self, most: usize) {
        let most = most.max(1);
        self.settings.concurrency = self.settings.concurrency.min(most);
        self.limit = self.limit.min(most);
    }

    fn next_ready(&self, now_ms: u64) -> Option<usize> {
        let due = self
            .waiting
            .first()
            .filter(|(due_ms, _)| *due_ms <= now_ms)
            .map(|(_, i)| *i);
        due.or_else(|| self.pending.first().copied())
    }

    fn backoff_ms(&self, job: usize, attempt: u32, err: &CallError) -> u64 {
        let s = &self.settings;
        let exp = s
            .backoff_base_ms
            .saturating_mul(1u64 << attempt.saturating_sub(1).min(20));
        let capped = exp.min(s.backoff_max_ms);
        let jitter =
            0.5 + 0.5 * unit(s.seed ^ (job as u64).wrapping_mul(0x9E37_79B9) ^ u64::from(attempt));
        let backoff = (capped as f64 * jitter) as u64;
        if crate::planted::on(crate::planted::Bug::IgnoresRetryAfter) {
            return backoff;
        }
        err.retry_after_ms.unwrap_or(backoff)
    }

    fn on_rate_limited(&mut self) {
        self.limit_epoch += 1;
        self.limit = (self.limit / 2).max(1);
        self.successes_since_change = 0;
    }

    fn on_success(&mut self) {
        if self.limit >= self.settings.concurrency.max(1) {
            return;
        }
        self.successes_since_change += 1;
        if self.successes_since_change >= self.limit {
            self.limit += 1;
            self.successes_since_change = 0;
        }
    }
}

/// A deterministic number in [0, 1) from a seed: the first draw of the
/// project's one PRNG (SplitMix64) started there.
fn unit(seed: u64) -> f64 {
    crate::rng::SplitMix64::new(seed).next_unit()
}
