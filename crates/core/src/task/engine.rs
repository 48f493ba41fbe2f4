//! A task run that calls models: every sample × every model, as a kind of
//! evaluation on the one run [`Pipeline`] the RAG check runs on (retries,
//! backoff, `Retry-After`, the 429 limit, pause, cancel), with the same
//! `Input` / `Command` / `Step` protocol, so the CLI and the page drive both
//! kinds of run the same way.
//!
//! Jobs are numbered `(model * samples + sample) * repeats + repeat`
//! (`model * samples + sample` when each sample is asked once);
//! [`TaskEngine::job`] maps a number back. With `repeats` above 1 every
//! sample is asked that many times, each repeat its own call (and its own
//! cache entry), each answer scored on its own: a model's results hold one
//! result per answer, sample by sample, repeats in order. Each model has its own scheduler and therefore its own
//! concurrency limit: models usually live on different endpoints, and a 429
//! from one should not slow the others. Dispatch takes turns between models,
//! so every model progresses from the start.
//!
//! Prompts are rendered once, up front. A sample whose prompt cannot be
//! rendered (a field the template needs is missing) is settled for every model
//! as a failed case (`ErrorKind::Prompt`) without a call: it is reported, it
//! stays in every denominator, and the rest runs. When no sample's prompt
//! renders, the run stops at start, before any call, with an error naming the
//! missing field ([`Kind::cannot_run`], `prompts::no_prompt_renders`); every
//! case is still recorded as failed. Generic samples get their length bucket
//! here, from the fields the template reads (`prompts::measure_lengths`).
//!
//! With a judge (`judging::TaskJudge`, for the task's `llm_judge` metrics) a
//! job is the answer call then its judge calls, on one more pool, the
//! judge's (index = number of models); see `judge::flow` for their order.

pub use super::config::TaskRunConfig;
use super::data::{EvalSample, TaskDataset};
use super::events::{self, TaskRecord};
use super::judging::{question, TaskJudge};
use super::prompts::{measure_with, no_prompt_renders, render_all, template_reads};
use super::report::{TaskInfo, TaskMetrics};
use super::score::{aggregate, score_call, ModelRun, SampleResult, Scored};
use crate::agent::{Environment, Next, ScriptedResult, Walk};
use crate::provider::{Answer, CallError, ChatMessage, ErrorKind};
use crate::run::{Call, JobOutcome, Kind, Pipeline, RunIdentity, RunSettings};
use crate::task::contract::{PromptTemplate, Task};
use std::collections::BTreeSet;
use std::sync::Arc;

/// One job: which model answers which sample.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Job {
    /// Model index in the config.
    pub model: usize,
    /// Sample index in the dataset.
    pub sample: usize,
    /// Which asking of the sample (0-based; 0 when each is asked once).
    pub repeat: u32,
}

impl Job {
    /// The job numbered `job` of a run over `samples` samples, `models`
    /// models and `repeats` askings of each (see the module doc).
    pub fn of(job: usize, samples: usize, models: usize, repeats: u32) -> Option<Job> {
        let r = repeats.max(1) as usize;
        let per_model = samples.checked_mul(r)?;
        let model = job.checked_div(per_model)?;
        let rest = job % per_model;
        (model < models).then_some(Job {
            model,
            sample: rest / r,
            repeat: (rest % r) as u32,
        })
    }

    /// Where this job's result is kept among its model's results.
    pub(super) fn slot(self, repeats: u32) -> usize {
        self.sample * repeats.max(1) as usize + self.repeat as usize
    }
}

/// A task (spec 004) as a kind of evaluation: every sample × every model,
/// one call each, one pool per model.
#[derive(Clone, Debug)]
pub struct TaskKind {
    pub(super) cfg: TaskRunConfig,
    pub(super) task: Task,
    info: TaskInfo,
    dataset: String,
    pub(super) samples: Vec<EvalSample>,
    pub(super) prompts: Vec<Result<Vec<ChatMessage>, String>>,
    pub(super) results: Vec<Vec<Option<SampleResult>>>,
    pub(super) judge: Option<Box<TaskJudge>>,
    /// The sample fields the template reads (what a length is measured on).
    reads: BTreeSet<String>,
    /// Why nothing can be sent: no sample's prompt renders.
    blocked: Option<String>,
    /// Agent jobs whose trajectory an earlier run's log cut: run again from
    /// the first step, their first `step` record marked.
    pub(super) restarted: BTreeSet<usize>,
    /// Each sample's scripted tool results, read once (a case's loop is
    /// walked again at each of its answers): empty unless the task's tools
    /// are scripted.
    pub(super) scripts: Vec<Result<Arc<Vec<ScriptedResult>>, String>>,
}

impl TaskKind {
    /// The kind over these samples: prompts rendered once, up front, and
    /// lengths measured (see the module doc).
    pub(crate) fn new(
        cfg: TaskRunConfig,
        task: Task,
        info: TaskInfo,
        template: &PromptTemplate,
        dataset: String,
        mut samples: Vec<EvalSample>,
        judge: Option<TaskJudge>,
    ) -> TaskKind {
        let rendered = render_all(&task, template, &samples);
        let blocked = no_prompt_renders(template, &info, &dataset, &samples, &rendered);
        let prompts = rendered
            .into_iter()
            .map(|r| r.map_err(|e| e.to_string()))
            .collect();
        let reads = template_reads(&task, template);
        measure_with(&reads, &mut samples);
        let slots = samples.len() * cfg.repeats.n.max(1) as usize;
        let results = cfg.models.iter().map(|_| vec![None; slots]).collect();
        let scripts = match task.agent.as_deref().map(|a| &a.env) {
            Some(Environment::Scripted(scripts)) => samples
                .iter()
                .map(|s| scripts.for_sample(&s.sample))
                .collect(),
            _ => Vec::new(),
        };
        TaskKind {
            scripts,
            task,
            info,
            dataset,
            samples,
            prompts,
            results,
            judge: judge.map(Box::new),
            reads,
            blocked,
            restarted: BTreeSet::new(),
            cfg,
        }
    }

    /// Sets the length bucket of every sample without one, as this run's
    /// samples got theirs (for the report's dataset, read apart from the
    /// engine's).
    pub(crate) fn measure(&self, samples: &mut [EvalSample]) {
        measure_with(&self.reads, samples);
    }

    /// Scores the final outcome of `job` and keeps it; the result, or `None`
    /// for an unknown job.
    pub(crate) fn settle_call(
        &mut self,
        job: usize,
        outcome: &Result<Answer, CallError>,
        attempts: u32,
        elapsed_ms: u64,
    ) -> Option<&SampleResult> {
        let j = self.job(job)?;
        let r = score_call(
            &self.task,
            &self.samples[j.sample],
            j.sample,
            outcome,
            attempts,
            elapsed_ms,
        );
        self.keep(j, r)
    }

    /// Keeps the result of job `j` (its repeat noted when the run repeats).
    pub(super) fn keep(&mut self, j: Job, mut r: SampleResult) -> Option<&SampleResult> {
        r.repeat = (self.cfg.repeats.several()).then_some(j.repeat);
        let slot = self.results[j.model].get_mut(j.slot(self.cfg.repeats.n))?;
        *slot = Some(r);
        slot.as_ref()
    }

    pub(super) fn job(&self, job: usize) -> Option<Job> {
        Job::of(
            job,
            self.samples.len(),
            self.cfg.models.len(),
            self.cfg.repeats.n,
        )
    }

    fn result(&self, j: Job) -> Option<&SampleResult> {
        let slot = j.slot(self.cfg.repeats.n);
        self.results.get(j.model)?.get(slot)?.as_ref()
    }

    fn scored(&self) -> Scored {
        let models = self
            .cfg
            .models
            .iter()
            .zip(&self.results)
            .map(|(m, rs)| {
                let results: Vec<SampleResult> = rs.iter().flatten().cloned().collect();
                ModelRun {
                    model: m.name.clone(),
                    aggregates: aggregate(&self.task, &results),
                    results,
                    price: None,
                }
            })
            .collect();
        Scored {
            models,
            unknown: Vec::new(),
            judge_price: None,
            repeats: self.cfg.repeats.clone(),
        }
    }

    fn record(&self, j: Job, r: &SampleResult, now_ms: u64) -> TaskRecord {
        let sample = &self.samples[j.sample];
        events::case(
            &self.cfg.run.run_id,
            &self.cfg.models[j.model].name,
            sample,
            r,
            self.task.agent.is_some(),
            now_ms,
        )
    }
}

impl Kind for TaskKind {
    type Record = TaskRecord;

    fn identity(&self) -> &RunIdentity {
        &self.cfg.run
    }

    fn jobs(&self) -> usize {
        self.samples.len() * self.cfg.models.len() * self.cfg.repeats.n.max(1) as usize
    }

    fn pools(&self) -> Vec<RunSettings> {
        let mut pools = vec![self.cfg.run.settings; self.cfg.models.len()];
        pools.extend(self.judge.as_ref().map(|j| j.settings));
        // an MCP server's: one request per case in flight at most
        pools.extend(self.mcp_pool().map(|_| self.cfg.run.settings));
        pools
    }

    fn call(&self, job: usize, answers: &[Answer]) -> Result<Option<Call>, CallError> {
        let Some(j) = self.job(job) else {
            return Ok(None);
        };
        self.call_walked(j, self.agent_walk(j, answers), answers)
    }

    fn settle(&mut self, job: usize, outcome: JobOutcome, now_ms: u64) -> Vec<TaskRecord> {
        let Some(j) = self.job(job) else {
            return Vec::new();
        };
        if self.task.agent.is_some() {
            return self.settle_agent_judged(j, job, outcome, now_ms);
        }
        // the model's answer is the first; later answers are the judge's
        let (answer, (attempts, elapsed_ms)) = match &self.judge {
            None => (outcome.last(), (outcome.attempts, outcome.elapsed_ms)),
            Some(_) => (
                match outcome.answers.first() {
                    Some(a) => Ok(a.clone()),
                    None => outcome.last(),
                },
                outcome
                    .calls
                    .first()
                    .copied()
                    .unwrap_or((outcome.attempts, outcome.elapsed_ms)),
            ),
        };
        self.settle_call(job, &answer, attempts, elapsed_ms);
        let slot = j.slot(self.cfg.repeats.n);
        if let (Some(judge), Ok(prompt), Some(Some(r))) = (
            &self.judge,
            &self.prompts[j.sample],
            self.results[j.model].get_mut(slot),
        ) {
            let sample = &self.samples[j.sample].sample;
            judge.apply(sample, question(prompt), &outcome, r);
        }
        self.restored(job, now_ms).into_iter().collect()
    }

    fn restored(&self, job: usize, now_ms: u64) -> Option<TaskRecord> {
        let j = self.job(job)?;
        let r = self.result(j)?;
        Some(self.record(j, r, now_ms))
    }

    fn answered(
        &self,
        job: usize,
        answers: &[Answer],
        calls: &[(u32, u64)],
        now_ms: u64,
    ) -> Vec<TaskRecord> {
        self.step_record(job, answers, calls, now_ms)
            .into_iter()
            .collect()
    }

    fn answered_then_call(
        &self,
        job: usize,
        answers: &[Answer],
        calls: &[(u32, u64)],
        now_ms: u64,
    ) -> (Vec<TaskRecord>, Result<Option<Call>, CallError>) {
        let Some(j) = self.job(job) else {
            return (Vec::new(), Ok(None));
        };
        // an agent's loop walked once for both
        let walked = self.agent_walk(j, answers);
        let step = self.step_record_walked((job, j), walked.as_ref(), answers, calls, now_ms);
        (
            step.into_iter().collect(),
            self.call_walked(j, walked, answers),
        )
    }

    fn case_id(&self, job: usize) -> Option<String> {
        let j = self.job(job)?;
        Some(self.samples.get(j.sample)?.sample.id.clone())
    }

    fn meta(&self, now_ms: u64) -> TaskRecord {
        events::meta(&self.cfg, &self.info, &self.dataset, self.jobs(), now_ms)
    }

    fn cannot_run(&self) -> Option<CallError> {
        let why = self.blocked.as_ref()?;
        Some(CallError::new(ErrorKind::Prompt, why.clone()))
    }

    fn error(&self, message: &str, now_ms: u64) -> Option<TaskRecord> {
        Some(crate::events::Record::error(
            &self.cfg.run.run_id,
            message,
            now_ms,
        ))
    }

    fn summary(&self, cancelled: bool, now_ms: u64) -> TaskRecord {
        events::summary(
            &self.cfg.run,
            cancelled,
            TaskMetrics::counting(self.results.iter().flat_map(|rs| rs.iter().flatten())),
            now_ms,
        )
    }

    fn mock_answer(&self, job: usize, messages: &[ChatMessage]) -> crate::provider::Answer {
        let Some(j) = self.job(job) else {
            return crate::provider::Answer::from(String::new());
        };
        let (sample, model) = (
            &self.samples[j.sample].sample,
            &self.cfg.models[j.model].name,
        );
        // the model's own request (an agent's: the prompt, then its steps)
        let asked = self.prompts[j.sample]
            .as_ref()
            .is_ok_and(|p| p == messages || (self.task.agent.is_some() && messages.starts_with(p)));
        match crate::judge::mock::reply(messages, 0) {
            Some(verdict) if !asked => verdict.into(),
            _ => super::mock::answer(&self.task, sample, model, messages),
        }
    }
}

pub(crate) use crate::events::resume::PriorCall;

/// The task run: the one [`Pipeline`] over samples × models with [`TaskKind`].
pub type TaskEngine = Pipeline<TaskKind>;

impl TaskKind {
    /// A run of `task` over `data` with the models of `cfg`, its `llm_judge`
    /// metrics judged by `judge` (on its own pool); its engine:
    /// `Pipeline::prepare` (or [`TaskEngine::judged`]).
    pub fn judged(
        cfg: TaskRunConfig,
        task: Task,
        info: TaskInfo,
        template: &PromptTemplate,
        data: &TaskDataset,
        judge: Option<TaskJudge>,
    ) -> TaskKind {
        TaskKind::new(
            cfg,
            task,
            info,
            template,
            data.name.clone(),
            data.samples.clone(),
            judge,
        )
    }
}

impl Pipeline<TaskKind> {
    /// A run of `task` over `data` with the models of `cfg`.
    pub fn new(
        cfg: TaskRunConfig,
        task: Task,
        info: TaskInfo,
        template: &PromptTemplate,
        data: &TaskDataset,
    ) -> TaskEngine {
        Pipeline::judged(cfg, task, info, template, data, None)
    }

    /// A run whose `llm_judge` metrics are judged by `judge` (on its own pool).
    pub fn judged(
        cfg: TaskRunConfig,
        task: Task,
        info: TaskInfo,
        template: &PromptTemplate,
        data: &TaskDataset,
        judge: Option<TaskJudge>,
    ) -> TaskEngine {
        Pipeline::over(TaskKind::judged(cfg, task, info, template, data, judge))
    }

    /// Takes over calls an earlier, interrupted run settled (see `resume`),
    /// before `start`; they are not sent again and `start` re-emits their `case`
    /// records so the new log is complete. Returns how many were taken.
    ///
    /// With a judge, a case is taken over with its judgements: the judge
    /// answers its `case` record kept (`judgements`) are walked again through
    /// this run's judged metrics (`TaskJudge::prior_answers`) and scored as
    /// if they had just come, so the resumed report equals an uninterrupted
    /// one. A case whose judgements are missing, incomplete or ended by a
    /// failed judge call is sent again, its answer included.
    pub fn restore(&mut self, prior: Vec<PriorCall>) -> usize {
        let mut taken = 0;
        for call in prior {
            if self.kind().task.agent.is_some() {
                taken += usize::from(self.restore_agent(call));
                continue;
            }
            let Some(j) = self.job(call.job) else {
                continue;
            };
            let later = match (&self.kind().judge, &self.kind().prompts[j.sample]) {
                (None, _) => Vec::new(),
                (Some(judge), Ok(prompt)) => {
                    let k = self.kind();
                    match judge.prior_answers(
                        &k.task,
                        &k.samples[j.sample].sample,
                        question(prompt),
                        call.outcome.as_ref().ok(),
                        call.judgements.as_ref(),
                    ) {
                        Some(later) => later,
                        None => continue,
                    }
                }
                (Some(_), Err(_)) => continue,
            };
            if !self.restore_job(call.job, call.attempts) {
                continue;
            }
            let k = self.kind_mut();
            if k.settle_call(call.job, &call.outcome, call.attempts, call.elapsed_ms)
                .is_none()
            {
                continue;
            }
            taken += 1;
            let slot = j.slot(k.cfg.repeats.n);
            if let (Some(judge), Ok(prompt), Some(Some(r))) = (
                &k.judge,
                &k.prompts[j.sample],
                k.results[j.model].get_mut(slot),
            ) {
                let mut answers: Vec<Answer> = call.outcome.iter().cloned().collect();
                answers.extend(later);
                let outcome = JobOutcome {
                    answers,
                    error: None,
                    attempts: call.attempts,
                    elapsed_ms: call.elapsed_ms,
                    calls: Vec::new(),
                    worker: None,
                };
                judge.apply(&k.samples[j.sample].sample, question(prompt), &outcome, r);
            }
        }
        taken
    }

    /// The model and sample of a job number.
    pub fn job(&self, job: usize) -> Option<Job> {
        self.kind().job(job)
    }

    /// Samples × models × repeats.
    pub fn jobs(&self) -> usize {
        self.kind().jobs()
    }

    /// The lowest model's current limit (the configured concurrency when no
    /// model was rate limited), for a one-number display.
    pub fn current_limit(&self) -> usize {
        self.current_limits()
            .into_iter()
            .min()
            .unwrap_or(self.kind().cfg.run.settings.concurrency)
    }

    /// The judge, when the run has one.
    pub fn judge(&self) -> Option<&TaskJudge> {
        self.kind().judge.as_deref()
    }

    /// The configuration.
    pub fn config(&self) -> &TaskRunConfig {
        &self.kind().cfg
    }

    /// The task.
    pub fn task(&self) -> &Task {
        &self.kind().task
    }

    /// The samples, in dataset order.
    pub fn samples(&self) -> &[EvalSample] {
        &self.kind().samples
    }

    /// The rendered messages of a sample (an error text when rendering failed).
    pub fn prompt(&self, sample: usize) -> Option<&Result<Vec<ChatMessage>, String>> {
        self.kind().prompts.get(sample)
    }

    /// Every sample's prompt as rendered up front (what was sent), by sample index.
    pub fn prompts(&self) -> &[Result<Vec<ChatMessage>, String>] {
        &self.kind().prompts
    }

    /// Per model, per answer results (`None` while unsettled): sample by
    /// sample, each sample's repeats in order.
    pub fn results(&self) -> &[Vec<Option<SampleResult>>] {
        &self.kind().results
    }

    /// The result of one job, once settled.
    pub fn result(&self, job: usize) -> Option<&SampleResult> {
        let k = self.kind();
        k.result(k.job(job)?)
    }

    /// How many times each sample is asked.
    pub fn repeats(&self) -> u32 {
        self.kind().cfg.repeats.n.max(1)
    }

    /// Every model's settled results with their aggregates, for reports.
    /// Unsettled samples (a report of a cancelled or unfinished run) are left out.
    pub fn scored(&self) -> Scored {
        self.kind().scored()
    }
}

impl TaskKind {
    /// [`Kind::call`] for job `j` over its `answers`, given its agent's
    /// loop walked over them (`None` for a task that is not an agent's).
    fn call_walked(
        &self,
        j: Job,
        walked: Option<Result<Walk, CallError>>,
        answers: &[Answer],
    ) -> Result<Option<Call>, CallError> {
        // An agent's case: the model is asked again while it calls tools,
        // the MCP server sent each call; the judge reads its final answer.
        let judged: Vec<Answer>;
        let mut answers = answers;
        if let Some(walked) = walked {
            let w = walked?;
            if let Some(why) = &w.failed {
                return Err(super::agent_case::server_fault(why));
            }
            match w.next {
                Some(Next::Model(messages)) => {
                    let tools = match w.listed {
                        Some(t) => Some(t),
                        None => self
                            .task
                            .tools_for(&self.samples[j.sample].sample)
                            .ok()
                            .flatten(),
                    };
                    return Ok(Some(
                        Call::chat(j.model, messages)
                            .repeat(j.repeat)
                            .with_tools(tools),
                    ));
                }
                Some(Next::Server(body)) => {
                    let Some(pool) = self.mcp_pool() else {
                        return Ok(None);
                    };
                    return Ok(Some(Call::json(pool, body).repeat(j.repeat)));
                }
                // ended: the judge reads from the final answer on
                None => {
                    let last = w.model_at.last().and_then(|&i| answers.get(i));
                    judged = last
                        .into_iter()
                        .chain(answers.get(w.read..).unwrap_or_default())
                        .cloned()
                        .collect();
                    answers = &judged;
                }
            }
        }
        if !answers.is_empty() {
            let (Some(judge), Ok(prompt)) = (&self.judge, &self.prompts[j.sample]) else {
                return Ok(None);
            };
            let sample = &self.samples[j.sample].sample;
            let next = judge.next_call(&self.task, sample, question(prompt), answers);
            return Ok(
                next.map(|messages| Call::chat(self.cfg.models.len(), messages).repeat(j.repeat))
            );
        }
        match &self.prompts[j.sample] {
            Ok(messages) => {
                let tools = self
                    .task
                    .tools_for(&self.samples[j.sample].sample)
                    .map_err(|why| {
                        CallError::new(
                            ErrorKind::Prompt,
                            format!("the tools could not be offered, nothing was sent: {why}"),
                        )
                    })?;
                Ok(Some(
                    Call::chat(j.model, messages.clone())
                        .repeat(j.repeat)
                        .with_tools(tools),
                ))
            }
            Err(why) => Err(CallError::new(
                ErrorKind::Prompt,
                format!("the prompt could not be rendered, nothing was sent: {why}"),
            )),
        }
    }
}
