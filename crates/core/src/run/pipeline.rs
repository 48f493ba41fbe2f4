//! The one run engine, for every kind of evaluation: jobs (case × model)
//! scheduled over pools of models, each pool with its own [`Scheduler`] and
//! so its own concurrency limit, retries, backoff and 429 step-down.
//!
//! A job is a sequence of calls: the [`Kind`] says which call comes next from
//! the answers so far (one call for a RAG question or a task sample; one per
//! turn for a dialog; an answer then a judge call, on the judge's pool). The
//! engine queues each call in its pool as the previous one answers, settles
//! the job when the kind says it is complete or a call fails for good, and
//! hands the outcome to the kind to score and record. Sans-IO: `start` and
//! `handle` return a [`Step`] of commands and records, and nothing here reads
//! a clock.

use super::protocol::{Command, Input, RunStatus, Step};
use super::result::{AnswerPolicy, RunIdentity, RunSettings};
use super::scheduler::{Scheduler, Settled};
use crate::provider::{Answer, CallError, ChatMessage, ErrorKind};
use std::sync::Arc;

/// One call a job makes: the pool (model or endpoint) that answers it and
/// its request: chat messages, or a JSON body for an endpoint that is not a
/// chat model (a retrieval service).
#[derive(Clone, Debug, PartialEq)]
pub struct Call {
    /// Pool index (see [`Kind::pools`]).
    pub pool: usize,
    /// The chat messages to send (empty when `body` is given).
    pub messages: Vec<ChatMessage>,
    /// A JSON body to POST as it is to the pool's endpoint instead of a chat
    /// request; the answer's text is then the response body.
    pub body: Option<serde_json::Value>,
    /// Which asking of the same request this is (0 unless a run asks each
    /// sample several times): repeats are separate calls with separate
    /// cache entries.
    pub repeat: u32,
    /// The functions the model may call: the request's `tools` (OpenAI's
    /// form), when the task has any.
    pub tools: Option<Arc<serde_json::Value>>,
}

impl Call {
    /// A chat request.
    pub fn chat(pool: usize, messages: Vec<ChatMessage>) -> Call {
        Call {
            pool,
            messages,
            body: None,
            repeat: 0,
            tools: None,
        }
    }

    /// The same call offering these tools.
    pub fn with_tools(mut self, tools: Option<Arc<serde_json::Value>>) -> Call {
        self.tools = tools;
        self
    }

    /// The same call as the `repeat`-th asking of its request.
    pub fn repeat(mut self, repeat: u32) -> Call {
        self.repeat = repeat;
        self
    }

    /// A JSON request to a non-chat endpoint.
    pub fn json(pool: usize, body: serde_json::Value) -> Call {
        Call {
            pool,
            messages: Vec::new(),
            body: Some(body),
            repeat: 0,
            tools: None,
        }
    }
}

/// How a job ended: every answer it got, in order, and the error that
/// stopped it, if one did.
#[derive(Clone, Debug, PartialEq)]
pub struct JobOutcome {
    /// The answers of the calls that succeeded, in order.
    pub answers: Vec<Answer>,
    /// The final error of the call that failed for good (or a cancel).
    pub error: Option<CallError>,
    /// Attempts over all calls of the job.
    pub attempts: u32,
    /// Time from first send to outcome, summed over the job's calls, ms.
    pub elapsed_ms: u64,
    /// Each call's (attempts, ms from first send to outcome), in call order
    /// (the failed call included), so a kind can tell its calls apart (a
    /// task's answer from its judge calls).
    pub calls: Vec<(u32, u64)>,
    /// The worker that played the job: the lowest slot (0-based) free among
    /// the jobs in progress when its first call went out, held until it
    /// settled (spec 001's `worker_id`); `None` when no call went out.
    pub worker: Option<usize>,
}

impl JobOutcome {
    /// The last answer, or the error: what a one-call job scores.
    pub fn last(&self) -> Result<Answer, CallError> {
        match (&self.error, self.answers.last()) {
            (Some(e), _) => Err(e.clone()),
            (None, Some(a)) => Ok(a.clone()),
            (None, None) => Err(CallError::new(
                crate::provider::ErrorKind::InvalidResponse,
                "the job ended without an answer",
            )),
        }
    }
}

/// What a kind of evaluation supplies to the engine.
pub trait Kind {
    /// The event record type.
    type Record;
    /// Who runs what: the run's id, tool, start, argv, dataset and scheduling.
    fn identity(&self) -> &RunIdentity;
    /// Jobs (cases × models), numbered as the kind likes.
    fn jobs(&self) -> usize;
    /// Scheduling of each pool (one per model that answers calls).
    fn pools(&self) -> Vec<RunSettings>;
    /// The next call of `job` after `answers` (its earlier answers, in
    /// order): `Ok(None)` when the job is complete, `Err` when the call
    /// cannot be made (the job settles as failed without it).
    fn call(&self, job: usize, answers: &[Answer]) -> Result<Option<Call>, CallError>;
    /// A job settled: score it and return its records.
    fn settle(&mut self, job: usize, outcome: JobOutcome, now_ms: u64) -> Vec<Self::Record>;
    /// The record of a job restored from an earlier run, re-emitted at start.
    fn restored(&self, job: usize, now_ms: u64) -> Option<Self::Record>;
    /// The record that opens the log.
    fn meta(&self, now_ms: u64) -> Self::Record;
    /// The record that closes it.
    fn summary(&self, cancelled: bool, now_ms: u64) -> Self::Record;
    /// The offline mock model's answer to a call of `job`: the one mock model
    /// of every kind (deterministic; some answers wrong on purpose). By
    /// default the RAG demo model, which reads only the messages.
    fn mock_answer(&self, job: usize, messages: &[ChatMessage]) -> crate::provider::Answer {
        let _ = job;
        crate::demo::reply(messages)
    }
    /// A call of `job` (after `answers`) failed for good and was not fatal:
    /// the answer to record in its place so the job goes on, or `None` (the
    /// default) to settle the job as failed. A dialog run carries on past a
    /// failed judge call (the judgement stays unscored); a cancel or a fatal
    /// answer is never carried on past.
    fn carry_on(&self, job: usize, answers: &[Answer], error: &CallError) -> Option<Answer> {
        let _ = (job, answers, error);
        None
    }
    /// Why no call of the run can be made at all, known before any is sent
    /// (a task whose prompt renders for no sample): `start` settles every job
    /// as [`Kind::call`] says, then stops the run with this error as at a
    /// fatal answer (its `error` record, [`Pipeline::stopped`]), whatever the
    /// policy, since nothing could be sent anyway. The error's kind is
    /// `ErrorKind::Prompt` and its message says what to fix. `None` (the
    /// default) when the run can go.
    fn cannot_run(&self) -> Option<CallError> {
        None
    }
    /// A run-level error record (spec 000's `error`), e.g. the fatal answer
    /// that stopped the run; `None` when the kind's log has none.
    fn error(&self, _message: &str, _now_ms: u64) -> Option<Self::Record> {
        None
    }
    /// A call of `job` answered (the last of `answers`; `calls` holds each
    /// call's attempts and ms, in the same order) and the job goes on or is
    /// about to settle: the records to log now, before the job settles (a
    /// dialog's `turn` record once a turn and its judging are done), so an
    /// interrupted run can resume mid-job. Also asked at start for every
    /// prefix of a job's taken-over answers ([`Pipeline::restore_calls`]), so
    /// the resumed log holds them again. None by default.
    fn answered(
        &self,
        job: usize,
        answers: &[Answer],
        calls: &[(u32, u64)],
        now_ms: u64,
    ) -> Vec<Self::Record> {
        let _ = (job, answers, calls, now_ms);
        Vec::new()
    }
    /// [`answered`](Kind::answered), then [`call`](Kind::call) over the
    /// same answers: what the engine asks after each answer of a job that
    /// goes on. A kind that derives both from one piece of work (an agent's
    /// loop walked over the answers) does it once here.
    fn answered_then_call(
        &self,
        job: usize,
        answers: &[Answer],
        calls: &[(u32, u64)],
        now_ms: u64,
    ) -> (Vec<Self::Record>, Result<Option<Call>, CallError>) {
        (
            self.answered(job, answers, calls, now_ms),
            self.call(job, answers),
        )
    }
    /// The id of the case (sample, question, dialog) `job` asks about, for
    /// names a person reads (a batch request's `custom_id`); `None` by
    /// default.
    fn case_id(&self, job: usize) -> Option<String> {
        let _ = job;
        None
    }
}

/// An earlier run's calls of one job, taken over by
/// [`Pipeline::restore_calls`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PriorJob {
    /// The answers of its settled calls, in call order, each with its
    /// attempts and ms from first send to outcome.
    pub answers: Vec<(Answer, u32, u64)>,
    /// The error that ended the job, with that call's attempts and ms, when
    /// the earlier run's failure is taken over (the job settles at start).
    pub failed: Option<(CallError, u32, u64)>,
}

/// The engine over a kind.
#[derive(Debug)]
pub struct Pipeline<K> {
    kind: K,
    pools: Vec<Scheduler>,
    /// The pool a job's current call is queued in (`None` once settled or
    /// when its first call could not be made).
    active: Vec<Option<usize>>,
    /// Jobs that settle at start, with their error (a first call that
    /// cannot be made, a taken-over failure) or complete (`None` inside:
    /// taken-over answers that finish the job).
    at_start: Vec<Option<Option<CallError>>>,
    /// Jobs that go on from taken-over answers (see `restore_calls`).
    resumed: Vec<bool>,
    answers: Vec<Vec<Answer>>,
    /// The next call of a job queued after an answer, as `next_call` made it
    /// to choose its pool, kept for its first send (the kind is not asked
    /// twice for the same call: an agent's loop is walked again, a prompt
    /// rendered again, each time it is asked).
    queued_call: Vec<Option<Call>>,
    attempts: Vec<u32>,
    elapsed: Vec<u64>,
    calls: Vec<Vec<(u32, u64)>>,
    /// Each job's worker slot (see [`JobOutcome::worker`]).
    worker: Vec<Option<usize>>,
    /// Which worker slots a job in progress holds.
    busy: Vec<bool>,
    settled: Vec<bool>,
    restored: Vec<bool>,
    n_settled: usize,
    status: RunStatus,
    turn: usize,
    policy: AnswerPolicy,
    /// Why the run stopped sending, and the error that stopped it, once one did.
    stopped: Option<(StopReason, CallError)>,
    /// The cost cap, when the run has one.
    budget: Option<Budget>,
    /// What the run's priced calls cost so far.
    spent: f64,
}

/// What a run may spend: `cap` (in the prices' currency) over the calls of
/// the priced pools (`prices[pool]`; an unpriced pool costs nothing).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Budget {
    /// The cap.
    pub cap: f64,
    /// Each pool's price, by pool number.
    pub prices: Vec<Option<crate::report::Price>>,
}

impl Budget {
    /// The budget of a run with these pool prices and this cap: `None` when
    /// no pool has a price (nothing to count); without a cap (or with one
    /// that is not a number of 0 or more) the run counts what it spends
    /// ([`Pipeline::spent`]) and never stops for it.
    pub fn new(cap: Option<f64>, prices: Vec<Option<crate::report::Price>>) -> Option<Budget> {
        prices.iter().any(Option::is_some).then(|| Budget {
            cap: cap
                .filter(|c| c.is_finite() && *c >= 0.0)
                .unwrap_or(f64::INFINITY),
            prices,
        })
    }
}

use crate::report::BUDGET_STOP;

impl<K: Kind> Pipeline<K> {
    /// An engine over `kind`, every job's first call queued in its pool.
    pub fn over(kind: K) -> Pipeline<K> {
        let n = kind.jobs();
        let mut pools: Vec<Scheduler> = kind
            .pools()
            .into_iter()
            .map(|s| Scheduler::idle(s, n))
            .collect();
        let mut active = vec![None; n];
        let mut at_start = vec![None; n];
        for job in 0..n {
            match kind.call(job, &[]) {
                Ok(Some(c)) if c.pool < pools.len() => {
                    pools[c.pool].queue(job);
                    active[job] = Some(c.pool);
                }
                Ok(_) => {}
                Err(e) => at_start[job] = Some(Some(e)),
            }
        }
        Pipeline {
            kind,
            pools,
            active,
            at_start,
            resumed: vec![false; n],
            answers: vec![Vec::new(); n],
            queued_call: vec![None; n],
            attempts: vec![0; n],
            elapsed: vec![0; n],
            calls: vec![Vec::new(); n],
            worker: vec![None; n],
            busy: Vec::new(),
            settled: vec![false; n],
            restored: vec![false; n],
            n_settled: 0,
            status: RunStatus::Idle,
            turn: 0,
            policy: AnswerPolicy::default(),
            stopped: None,
            budget: None,
            spent: 0.0,
        }
    }

    /// Sets the run's cost cap (before `start`): once the priced usage of
    /// its answers reaches it, the run stops as at a fatal answer (calls in
    /// flight finish, every other job is not run, an `error` record says
    /// why); a resume sends the jobs not run.
    pub fn set_budget(&mut self, budget: Budget) {
        self.budget = Some(budget);
    }

    /// What the run's priced calls cost so far (answers of this run; cached
    /// answers and answers taken over from an earlier run cost nothing).
    pub fn spent(&self) -> f64 {
        self.spent
    }

    /// The kind.
    pub fn kind(&self) -> &K {
        &self.kind
    }

    /// The kind, mutably (for restoring results before `start`).
    pub fn kind_mut(&mut self) -> &mut K {
        &mut self.kind
    }

    /// Sets what the run does with truncated answers and fatal failures
    /// (before `start`).
    pub fn set_policy(&mut self, policy: AnswerPolicy) {
        self.policy = policy;
    }

    /// The answers come from batch files (after [`Pipeline::set_policy`]):
    /// every answer is final, so a failed call is settled as failed at once
    /// and never asked again, and a fatal answer stops nothing (each request
    /// of a batch stands alone).
    pub fn answers_from_batch(&mut self) {
        for p in &mut self.pools {
            p.no_retries();
        }
        self.policy.keep_going_on_fatal = true;
    }

    /// What the run does with truncated answers and fatal failures.
    pub fn policy(&self) -> AnswerPolicy {
        self.policy
    }

    /// The error that stopped the run (a fatal answer, the in-page engine
    /// gone, the cost cap reached), if one did.
    pub fn stopped(&self) -> Option<&CallError> {
        self.stopped.as_ref().map(|(_, e)| e)
    }

    /// Why the run stopped sending, if it did.
    pub fn stop_reason(&self) -> Option<StopReason> {
        self.stopped.as_ref().map(|(r, _)| *r)
    }

    /// Marks a job as settled by an earlier run, before `start`: it is not
    /// sent, and `start` re-emits its record. False when the job is not
    /// waiting for its first call.
    pub fn restore_job(&mut self, job: usize, attempts: u32) -> bool {
        if self.status != RunStatus::Idle {
            return false;
        }
        let Some(pool) = self.active.get(job).copied().flatten() else {
            return false;
        };
        if !self.answers[job].is_empty() || !self.pools[pool].settle_unsent(job, attempts) {
            return false;
        }
        self.active[job] = None;
        self.settled[job] = true;
        self.restored[job] = true;
        self.n_settled += 1;
        true
    }

    /// Takes over the calls an earlier run settled for `job`, before
    /// `start`: its answers are the job's first answers, so the job goes on
    /// from the call that follows them (a dialog at its first unsettled
    /// turn, its conversation rebuilt from them), or settles at start when
    /// they complete it or when `failed` ended it (scored by the kind as if
    /// they had just come). `start` asks the kind's [`Kind::answered`] for
    /// the records of the taken-over answers first. False when the job is not
    /// waiting for its first call, or there is nothing to take over.
    pub fn restore_calls(&mut self, job: usize, prior: PriorJob) -> bool {
        if self.status != RunStatus::Idle || (prior.answers.is_empty() && prior.failed.is_none()) {
            return false;
        }
        let Some(pool) = self.active.get(job).copied().flatten() else {
            return false;
        };
        if !self.answers[job].is_empty() || !self.pools[pool].is_pending(job) {
            return false;
        }
        for (answer, attempts, elapsed_ms) in prior.answers {
            self.count(job, attempts, elapsed_ms);
            self.answers[job].push(answer);
        }
        let end = match prior.failed {
            Some((e, attempts, elapsed_ms)) => {
                self.count(job, attempts, elapsed_ms);
                Some(Some(e))
            }
            None => match self.kind.call(job, &self.answers[job]) {
                Ok(Some(c)) if c.pool == pool => None,
                Ok(Some(c)) if c.pool < self.pools.len() => {
                    // the next call is on another pool: move the job there
                    self.pools[pool].settle_unsent(job, 0);
                    self.pools[c.pool].queue(job);
                    self.active[job] = Some(c.pool);
                    None
                }
                Ok(Some(_)) => Some(Some(CallError::new(
                    ErrorKind::InvalidResponse,
                    "engine invariant broken: the next call names no usable pool",
                ))),
                Ok(None) => Some(None),
                Err(e) => Some(Some(e)),
            },
        };
        if let Some(error) = end {
            self.pools[pool].settle_unsent(job, self.attempts[job]);
            self.active[job] = None;
            self.at_start[job] = Some(error);
        }
        self.resumed[job] = true;
        true
    }

    /// Starts the run: `meta`, the records of restored jobs, the records of
    /// taken-over answers, jobs that settle at start (their first call cannot
    /// be made, or taken-over calls ended them), and the first requests; or,
    /// when the kind says no call can be made ([`Kind::cannot_run`]), the
    /// stop's `error` record instead of any request.
    pub fn start(&mut self, now_ms: u64) -> Step<K::Record> {
        let mut step = Step::default();
        if self.status != RunStatus::Idle {
            return step;
        }
        self.status = RunStatus::Running;
        step.events.push(self.kind.meta(now_ms));
        for job in 0..self.settled.len() {
            if self.restored[job] {
                step.events.extend(self.kind.restored(job, now_ms));
                step.finished.push(job);
            }
        }
        for job in 0..self.at_start.len() {
            if self.resumed[job] {
                let answers = &self.answers[job];
                for n in 1..=answers.len() {
                    let calls = &self.calls[job][..n.min(self.calls[job].len())];
                    let records = self.kind.answered(job, &answers[..n], calls, now_ms);
                    step.events.extend(records);
                }
            }
            if let Some(error) = self.at_start[job].take() {
                self.settle(job, error, now_ms, &mut step);
            }
        }
        if let Some(e) = self.kind.cannot_run() {
            self.stop(StopReason::of(&e), &e, now_ms, &mut step);
        }
        // a cap already reached (a cap of 0) sends nothing (simulator seed 33)
        self.check_budget(now_ms, &mut step);
        self.dispatch(now_ms, &mut step);
        self.finish_if_done(now_ms, &mut step);
        step
    }

    /// Feeds one input in (`Input::Outcome { case }` takes a job number).
    pub fn handle(&mut self, input: Input, now_ms: u64) -> Step<K::Record> {
        let mut step = Step::default();
        if self.status != RunStatus::Running {
            return step;
        }
        match input {
            Input::Outcome { case, outcome } => {
                if let Some(pool) = self.active.get(case).copied().flatten() {
                    self.charge(pool, &outcome);
                    if let Some(s) = self.pools[pool].outcome(case, outcome, now_ms) {
                        self.call_settled(s, now_ms, &mut step);
                    }
                    if !crate::planted::on(crate::planted::Bug::CapCheckedAfterSend) {
                        self.check_budget(now_ms, &mut step);
                    }
                }
            }
            Input::Tick => {}
            Input::Cancel => return self.cancel(now_ms),
            Input::Pause => self.pools.iter_mut().for_each(|p| p.set_paused(true)),
            Input::Resume => self.pools.iter_mut().for_each(|p| p.set_paused(false)),
        }
        self.dispatch(now_ms, &mut step);
        if crate::planted::on(crate::planted::Bug::CapCheckedAfterSend) {
            self.check_budget(now_ms, &mut step);
        }
        self.finish_if_done(now_ms, &mut step);
        step
    }

    /// Run status.
    pub fn status(&self) -> RunStatus {
        self.status
    }

    /// Jobs waiting for a call to be sent (before `start`: the jobs an
    /// earlier run's taken-over calls did not settle).
    pub fn unsent(&self) -> usize {
        self.active.iter().filter(|a| a.is_some()).count()
    }

    /// Before `start`: per pool, the calls the run will send first (every
    /// job's next call; a resumed run's jobs not taken over) and an upper
    /// bound of their prompt tokens (see [`prompt_tokens_max`]). Calls that
    /// follow an answer (a judge's, a dialog's later turns) depend on it and
    /// are not counted.
    pub fn first_calls(&self) -> Vec<(usize, u64)> {
        let mut out = vec![(0usize, 0u64); self.pools.len()];
        for (job, pool) in self.active.iter().enumerate() {
            let Some(pool) = *pool else { continue };
            if let (Ok(Some(c)), Some(slot)) =
                (self.kind.call(job, &self.answers[job]), out.get_mut(pool))
            {
                slot.0 += 1;
                slot.1 += match &c.body {
                    Some(body) => body.to_string().len() as u64,
                    None => prompt_tokens_max(&c.messages),
                };
                // the declarations are prompt tokens too
                slot.1 += c.tools.as_ref().map_or(0, |t| t.to_string().len() as u64);
            }
        }
        out
    }

    /// (settled jobs, all jobs).
    pub fn progress(&self) -> (usize, usize) {
        (self.n_settled, self.settled.len())
    }

    /// Never more than `most` calls of `pool` in flight (set before
    /// `start`): a model that answers one call at a time (a model file run
    /// in the page) gets one, while the run's other pools keep theirs.
    pub fn cap_pool(&mut self, pool: usize, most: usize) {
        if let Some(p) = self.pools.get_mut(pool) {
            p.cap(most);
        }
    }

    /// Each pool's current concurrency limit (lowered after its 429s).
    pub fn current_limits(&self) -> Vec<usize> {
        self.pools.iter().map(Scheduler::current_limit).collect()
    }

    /// True while paused.
    pub fn is_paused(&self) -> bool {
        self.pools.first().is_some_and(Scheduler::is_paused)
    }

    /// A call of a job finished in its pool: queue the next call, or settle.
    fn call_settled(&mut self, s: Settled, now_ms: u64, step: &mut Step<K::Record>) {
        let job = s.job;
        if s.aborted {
            step.commands.push(Command::Abort { case: job });
        }
        self.count(job, s.attempts, s.elapsed_ms);
        let answer = match s.outcome {
            Ok(a) if a.truncated() && self.policy.truncated_as_failure => {
                let mut e = CallError::new(
                    ErrorKind::Truncated,
                    "the answer was cut off at max_tokens (finish_reason: length); \
                     this run counts truncated answers as failed calls",
                );
                e.usage = a.usage.map(Box::new);
                return self.settle(job, Some(e), now_ms, step);
            }
            Ok(a) => a,
            Err(e) => {
                // A stopped engine stops the run even when fatal answers do not:
                // every later call would fail the same way.
                let fatal = e.fatal() && !self.policy.keep_going_on_fatal
                    || e.kind == ErrorKind::EngineStopped;
                let stand_in = match e.kind {
                    _ if fatal || self.stopped.is_some() => None,
                    ErrorKind::Cancelled | ErrorKind::NotRun => None,
                    _ => self.kind.carry_on(job, &self.answers[job], &e),
                };
                if let Some(a) = stand_in {
                    self.answers[job].push(a);
                    return self.next_call(job, now_ms, step);
                }
                self.settle(job, Some(e.clone()), now_ms, step);
                if fatal {
                    self.stop(StopReason::of(&e), &e, now_ms, step);
                }
                return;
            }
        };
        self.answers[job].push(answer);
        self.next_call(job, now_ms, step);
    }

    /// Queues a job's next call after its answers so far, or settles it.
    fn next_call(&mut self, job: usize, now_ms: u64, step: &mut Step<K::Record>) {
        let (records, next) =
            self.kind
                .answered_then_call(job, &self.answers[job], &self.calls[job], now_ms);
        step.events.extend(records);
        match next {
            // a later call of a job, due after the run stopped: not sent
            Ok(Some(_)) if self.stopped.is_some() => {
                let e = self.stopped.as_ref().map(|(r, e)| not_run(*r, e));
                self.settle(job, e, now_ms, step)
            }
            Ok(Some(c)) if c.pool < self.pools.len() && self.pools[c.pool].queue(job) => {
                self.active[job] = Some(c.pool);
                self.queued_call[job] = Some(c);
            }
            Ok(Some(_)) => {
                let why = "engine invariant broken: the next call names no usable pool";
                step.events.extend(self.kind.error(why, now_ms));
                let e = CallError::new(crate::provider::ErrorKind::InvalidResponse, why);
                self.settle(job, Some(e), now_ms, step)
            }
            Ok(None) => self.settle(job, None, now_ms, step),
            Err(e) => self.settle(job, Some(e), now_ms, step),
        }
    }

    /// A fatal answer: stop sending. Every job not in flight settles as not
    /// run; calls in flight finish (without retries); the log gets an
    /// `error` record that says what to fix.
    fn stop(
        &mut self,
        reason: StopReason,
        fatal: &CallError,
        now_ms: u64,
        step: &mut Step<K::Record>,
    ) {
        if self.stopped.is_some() {
            return;
        }
        self.stopped = Some((reason, fatal.clone()));
        let e = not_run(reason, fatal);
        let mut not_sent = 0;
        let mut settled = Vec::new();
        for p in 0..self.pools.len() {
            settled.extend(self.pools[p].stop(&e, now_ms));
        }
        let mut records = std::mem::take(&mut step.events);
        let mut rest = Step::default();
        for s in settled {
            self.count(s.job, s.attempts, s.elapsed_ms);
            self.settle(s.job, s.outcome.err(), now_ms, &mut rest);
            not_sent += 1;
        }
        records.extend(
            self.kind
                .error(&stop_message(reason, fatal, not_sent), now_ms),
        );
        records.extend(rest.events);
        step.events = records;
        step.finished.extend(rest.finished);
    }

    /// Adds an attempt's priced usage to what the run spent.
    fn charge(&mut self, pool: usize, outcome: &crate::provider::CallOutcome) {
        let Some(price) = self
            .budget
            .as_ref()
            .and_then(|b| b.prices.get(pool).copied().flatten())
        else {
            return;
        };
        let usage = match outcome {
            crate::provider::CallOutcome::Answer(a) => a.usage.clone(),
            crate::provider::CallOutcome::Failed(e) => e.usage.as_deref().cloned(),
        };
        if let Some(u) = usage {
            self.spent += u.prompt_tokens as f64 * price.in_per_mtok / 1e6
                + u.completion_tokens as f64 * price.out_per_mtok / 1e6;
        }
    }

    /// Stops the run once it spent its cap.
    fn check_budget(&mut self, now_ms: u64, step: &mut Step<K::Record>) {
        let Some(cap) = self.budget.as_ref().map(|b| b.cap) else {
            return;
        };
        if self.spent >= cap && self.stopped.is_none() && self.status == RunStatus::Running {
            let e = CallError::new(
                ErrorKind::NotRun,
                format!("{BUDGET_STOP} ({:.4} spent of a cap of {cap})", self.spent),
            );
            self.stop(StopReason::Budget, &e, now_ms, step);
        }
    }

    /// Counts one settled call of a job.
    fn count(&mut self, job: usize, attempts: u32, elapsed_ms: u64) {
        self.attempts[job] += attempts;
        self.elapsed[job] += elapsed_ms;
        self.calls[job].push((attempts, elapsed_ms));
    }

    fn settle(
        &mut self,
        job: usize,
        error: Option<CallError>,
        now_ms: u64,
        step: &mut Step<K::Record>,
    ) {
        if self.settled[job] {
            return;
        }
        self.settled[job] = true;
        self.active[job] = None;
        self.queued_call[job] = None;
        self.n_settled += 1;
        let outcome = JobOutcome {
            answers: std::mem::take(&mut self.answers[job]),
            error,
            attempts: self.attempts[job],
            elapsed_ms: self.elapsed[job],
            calls: std::mem::take(&mut self.calls[job]),
            worker: self.worker[job],
        };
        if let Some(slot) = self.worker[job].and_then(|w| self.busy.get_mut(w)) {
            *slot = false;
        }
        step.events.extend(self.kind.settle(job, outcome, now_ms));
        step.finished.push(job);
    }

    fn dispatch(&mut self, now_ms: u64, step: &mut Step<K::Record>) {
        let n = self.pools.len();
        for k in 0..n {
            let p = (self.turn + k) % n;
            for (job, attempt) in self.pools[p].dispatch(now_ms) {
                self.take_worker(job);
                let call = match self.queued_call[job].take() {
                    Some(c) => Ok(Some(c)),
                    None => self.kind.call(job, &self.answers[job]),
                };
                let (messages, body, repeat, tools) = match call {
                    Ok(Some(c)) => (c.messages, c.body, c.repeat, c.tools),
                    _ => (Vec::new(), None, 0, None),
                };
                step.commands.push(Command::Send {
                    case: job,
                    attempt,
                    messages,
                    body,
                    pool: p,
                    repeat,
                    tools,
                });
            }
        }
        if n > 0 {
            self.turn = (self.turn + 1) % n;
        }
        step.wake_at = self.pools.iter().filter_map(|p| p.wake_at(now_ms)).min();
    }

    /// Gives `job` the lowest free worker slot, unless it holds one.
    fn take_worker(&mut self, job: usize) {
        if self.worker.get(job).is_none_or(Option::is_some) {
            return;
        }
        let slot = match self.busy.iter().position(|b| !b) {
            Some(free) => free,
            None => {
                self.busy.push(false);
                self.busy.len() - 1
            }
        };
        self.busy[slot] = true;
        self.worker[job] = Some(slot);
    }

    /// The run cannot go on (a shell lost its storage or its transport, or
    /// found the run stalled): an `error` record with the reason, then every
    /// unfinished case is settled as cancelled (so a resume sends it again)
    /// and the summary closes the log.
    pub fn fail(&mut self, message: &str, now_ms: u64) -> Step<K::Record> {
        if self.status != RunStatus::Running {
            return Step::default();
        }
        let error = self.kind.error(message, now_ms);
        let mut step = self.cancel(now_ms);
        if let Some(e) = error {
            step.events.insert(0, e);
        }
        step
    }

    fn cancel(&mut self, now_ms: u64) -> Step<K::Record> {
        let mut step = Step::default();
        for p in 0..self.pools.len() {
            for s in self.pools[p].cancel(now_ms) {
                let job = s.job;
                if s.aborted {
                    step.commands.push(Command::Abort { case: job });
                    if crate::planted::on(crate::planted::Bug::CancelLosesInFlight) {
                        continue;
                    }
                }
                self.count(job, s.attempts, s.elapsed_ms);
                self.settle(job, s.outcome.err(), now_ms, &mut step);
            }
        }
        self.status = RunStatus::Cancelled;
        step.events.push(self.kind.summary(true, now_ms));
        step
    }

    fn finish_if_done(&mut self, now_ms: u64, step: &mut Step<K::Record>) {
        if self.status == RunStatus::Running && self.n_settled == self.settled.len() {
            self.status = RunStatus::Done;
            step.events.push(self.kind.summary(false, now_ms));
        }
    }
}

/// Why a run stopped sending: every shell says what to do by it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// A fatal answer (401, 403, 404): the same for every case until the
    /// key, the model or the URL is fixed.
    Fatal,
    /// No sample's prompt renders: nothing was sent; fix the samples or the
    /// template and run again.
    Prompt,
    /// The engine that answers in the page (a model file) stopped: load the
    /// file again and resume.
    EngineStopped,
    /// The run spent its cost cap: resume with a higher one.
    Budget,
}

impl StopReason {
    /// The reason a run stops at the failed call `e` (never the budget: the
    /// pipeline stops itself for that).
    pub fn of(e: &CallError) -> StopReason {
        match e.kind {
            ErrorKind::EngineStopped => StopReason::EngineStopped,
            ErrorKind::Prompt => StopReason::Prompt,
            _ => StopReason::Fatal,
        }
    }
}

/// The `error` record's message of a run stopped at `fatal` with `not_sent`
/// jobs left unsent: what stopped it and what to do.
fn stop_message(reason: StopReason, fatal: &CallError, not_sent: usize) -> String {
    if reason == StopReason::Budget {
        return format!(
            "{}; {not_sent} case(s) not sent; resume from this event log with a higher cap \
             to send only the cases without an answer",
            fatal.message
        );
    }
    if reason == StopReason::Prompt {
        return format!(
            "the run stopped before sending anything: {}; add the field to the samples or \
             change the template, then run again",
            fatal.message
        );
    }
    if reason == StopReason::EngineStopped {
        return format!(
            "the run stopped, {not_sent} case(s) not asked: {}; load the model file again and \
             resume the run to ask only the cases without an answer",
            fatal.message
        );
    }
    format!(
        "the run stopped at a fatal answer, {not_sent} case(s) not sent: {}{}; \
         fix it and resume from this event log to send only the cases without an answer",
        fatal.message,
        fatal
            .url
            .as_deref()
            .map(|u| format!(" ({u})"))
            .unwrap_or_default()
    )
}

/// The error of a job that was not sent because the run stopped at `fatal`
/// (or at its cost cap).
fn not_run(reason: StopReason, fatal: &CallError) -> CallError {
    let message = if reason == StopReason::Budget {
        format!("not run: {}", fatal.message)
    } else {
        format!(
            "not run: the run stopped at a fatal answer ({})",
            fatal.message
        )
    };
    let mut e = CallError::new(ErrorKind::NotRun, message);
    e.url = fatal.url.clone();
    e
}

/// An upper bound of the prompt tokens of these chat messages: the UTF-8
/// bytes of their text (a byte-level BPE tokenizer, as OpenAI's and most
/// open models' are, never makes more tokens than bytes), plus 4 tokens per
/// message and 3 for the reply's start (the chat format's own tokens).
pub fn prompt_tokens_max(messages: &[ChatMessage]) -> u64 {
    3 + messages
        .iter()
        .map(|m| (m.role.len() + m.content.len()) as u64 + 4)
        .sum::<u64>()
}
