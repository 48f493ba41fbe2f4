//! A task run that calls models: every sample × every model, sans-IO, on the
//! same [`Scheduler`] as the RAG run (retries, backoff, `Retry-After`, the 429
//! limit, pause, cancel), with the same [`Input`] / [`Command`] / [`Step`]
//! protocol, so the CLI and the page drive both kinds of run the same way.
//!
//! Jobs are numbered `model * samples + sample`; [`TaskEngine::job`] maps a
//! number back. Each model has its own scheduler and therefore its own
//! concurrency limit: models usually live on different endpoints, and a 429
//! from one should not slow the others. Dispatch takes turns between models,
//! so every model progresses from the start.
//!
//! Prompts are rendered once, up front. A sample whose prompt cannot be
//! rendered (a field the template needs is missing) is settled for every model
//! as a failed case (`ErrorKind::Prompt`) without a call: it is reported, it
//! stays in every denominator, and the rest runs.

use super::data::{EvalSample, TaskDataset};
use super::events::{MetaInput, TaskRecord};
use super::report::{ModelSettings, TaskInfo, TaskMetrics};
use super::score::{aggregate, score_call, ModelRun, SampleResult, Scored};
use crate::provider::{CallError, ChatMessage, ErrorKind};
use crate::run::{Command, Input, RunSettings, RunStatus, Scheduler, Settled, Step};
use crate::task::{PromptTemplate, Task};

/// Who runs what (recorded in `meta`, never a key).
#[derive(Clone, Debug, PartialEq)]
pub struct TaskRunConfig {
    /// Run id.
    pub run_id: String,
    /// `evalpage-cli` or `evalpage-web`.
    pub tool: String,
    /// Start, ms since the epoch (passed in).
    pub started_at_ms: u64,
    /// `mock` or `openai`.
    pub backend: String,
    /// The models, in report order.
    pub models: Vec<ModelSettings>,
    /// Scheduling (per model).
    pub settings: RunSettings,
    /// Argv or page parameters, without secrets.
    pub argv: Vec<String>,
}

/// One job: which model answers which sample.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Job {
    /// Model index in the config.
    pub model: usize,
    /// Sample index in the dataset.
    pub sample: usize,
}

/// The run state machine over samples × models.
#[derive(Debug)]
pub struct TaskEngine {
    cfg: TaskRunConfig,
    task: Task,
    info: TaskInfo,
    dataset: String,
    samples: Vec<EvalSample>,
    prompts: Vec<Result<Vec<ChatMessage>, String>>,
    scheds: Vec<Scheduler>,
    results: Vec<Vec<Option<SampleResult>>>,
    status: RunStatus,
    turn: usize,
}

impl TaskEngine {
    /// A run of `task` over `data` with the models of `cfg`.
    pub fn new(
        cfg: TaskRunConfig,
        task: Task,
        info: TaskInfo,
        template: &PromptTemplate,
        data: &TaskDataset,
    ) -> TaskEngine {
        let n = data.samples.len();
        let prompts = data
            .samples
            .iter()
            .map(|s| {
                template
                    .render(&s.sample, &task.serialize_fields)
                    .map(|p| p.messages)
                    .map_err(|e| e.to_string())
            })
            .collect();
        let scheds = cfg
            .models
            .iter()
            .map(|_| Scheduler::new(cfg.settings, n))
            .collect();
        let results = cfg.models.iter().map(|_| vec![None; n]).collect();
        TaskEngine {
            task,
            info,
            dataset: data.name.clone(),
            samples: data.samples.clone(),
            prompts,
            scheds,
            results,
            status: RunStatus::Idle,
            turn: 0,
            cfg,
        }
    }

    /// Takes over calls an earlier, interrupted run settled (see `resume`),
    /// before `start`; they are not sent again and `start` re-emits their `case`
    /// records so the new log is complete. Returns how many were taken.
    pub fn restore(&mut self, prior: Vec<super::resume::PriorCall>) -> usize {
        if self.status != RunStatus::Idle {
            return 0;
        }
        let mut taken = 0;
        for call in prior {
            let Some(j) = self.job(call.job) else {
                continue;
            };
            if !matches!(self.prompts.get(j.sample), Some(Ok(_)))
                || !self.scheds[j.model].settle_unsent(j.sample, call.attempts)
            {
                continue;
            }
            let r = score_call(
                &self.task,
                &self.samples[j.sample],
                j.sample,
                &call.outcome,
                call.attempts,
                call.elapsed_ms,
            );
            self.results[j.model][j.sample] = Some(r);
            taken += 1;
        }
        taken
    }

    /// Starts the run: `meta`, samples whose prompt failed, the first requests.
    pub fn start(&mut self, now_ms: u64) -> Step<TaskRecord> {
        let mut step = Step::default();
        if self.status != RunStatus::Idle {
            return step;
        }
        self.status = RunStatus::Running;
        let meta = MetaInput {
            run_id: &self.cfg.run_id,
            tool: &self.cfg.tool,
            info: &self.info,
            dataset: &self.dataset,
            cases_total: self.jobs(),
            backend: &self.cfg.backend,
            models: &self.cfg.models,
            settings: &self.cfg.settings,
            argv: &self.cfg.argv,
        };
        step.events.push(TaskRecord::meta(&meta, now_ms));
        let n = self.samples.len();
        for (m, results) in self.results.iter().enumerate() {
            for r in results.iter().flatten() {
                step.events.push(TaskRecord::case(
                    &self.cfg.run_id,
                    &self.cfg.models[m].name,
                    &self.samples[r.index],
                    r,
                    now_ms,
                ));
                step.finished.push(m * n + r.index);
            }
        }
        for m in 0..self.cfg.models.len() {
            for s in 0..self.samples.len() {
                let Err(why) = &self.prompts[s] else { continue };
                let err = CallError::new(
                    ErrorKind::Prompt,
                    format!("the prompt could not be rendered, nothing was sent: {why}"),
                );
                if !self.scheds[m].settle_unsent(s, 0) {
                    continue;
                }
                let settled = Settled {
                    job: s,
                    outcome: Err(err),
                    attempts: 0,
                    elapsed_ms: 0,
                    aborted: false,
                };
                self.complete(m, settled, now_ms, &mut step);
            }
        }
        self.dispatch(now_ms, &mut step);
        self.finish_if_done(now_ms, &mut step);
        step
    }

    /// Feeds one input in (`Input::Outcome { case }` takes a job number).
    pub fn handle(&mut self, input: Input, now_ms: u64) -> Step<TaskRecord> {
        let mut step = Step::default();
        if self.status != RunStatus::Running {
            return step;
        }
        match input {
            Input::Outcome { case, outcome } => {
                if let Some(job) = self.job(case) {
                    if let Some(s) = self.scheds[job.model].outcome(job.sample, outcome, now_ms) {
                        self.complete(job.model, s, now_ms, &mut step);
                    }
                }
            }
            Input::Tick => {}
            Input::Cancel => return self.cancel(now_ms),
            Input::Pause => self.scheds.iter_mut().for_each(|s| s.set_paused(true)),
            Input::Resume => self.scheds.iter_mut().for_each(|s| s.set_paused(false)),
        }
        self.dispatch(now_ms, &mut step);
        self.finish_if_done(now_ms, &mut step);
        step
    }

    /// The model and sample of a job number.
    pub fn job(&self, job: usize) -> Option<Job> {
        let n = self.samples.len();
        let model = job.checked_div(n)?;
        (model < self.cfg.models.len()).then_some(Job {
            model,
            sample: job % n,
        })
    }

    /// Samples × models.
    pub fn jobs(&self) -> usize {
        self.samples.len() * self.cfg.models.len()
    }

    /// Run status.
    pub fn status(&self) -> RunStatus {
        self.status
    }

    /// (settled jobs, all jobs).
    pub fn progress(&self) -> (usize, usize) {
        (self.scheds.iter().map(Scheduler::done).sum(), self.jobs())
    }

    /// Each model's current concurrency limit (lowered after its 429s).
    pub fn current_limits(&self) -> Vec<usize> {
        self.scheds.iter().map(Scheduler::current_limit).collect()
    }

    /// The lowest model's current limit (the configured concurrency when no
    /// model was rate limited), for a one-number display.
    pub fn current_limit(&self) -> usize {
        self.current_limits()
            .into_iter()
            .min()
            .unwrap_or(self.cfg.settings.concurrency)
    }

    /// True while paused.
    pub fn is_paused(&self) -> bool {
        self.scheds.first().is_some_and(Scheduler::is_paused)
    }

    /// The configuration.
    pub fn config(&self) -> &TaskRunConfig {
        &self.cfg
    }

    /// The task.
    pub fn task(&self) -> &Task {
        &self.task
    }

    /// The samples, in dataset order.
    pub fn samples(&self) -> &[EvalSample] {
        &self.samples
    }

    /// The rendered messages of a sample (an error text when rendering failed).
    pub fn prompt(&self, sample: usize) -> Option<&Result<Vec<ChatMessage>, String>> {
        self.prompts.get(sample)
    }

    /// Per model, per sample results (`None` while unsettled).
    pub fn results(&self) -> &[Vec<Option<SampleResult>>] {
        &self.results
    }

    /// Every model's settled results with their aggregates, for reports.
    /// Unsettled samples (a report of a cancelled or unfinished run) are left out.
    pub fn scored(&self) -> Scored {
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
                }
            })
            .collect();
        Scored {
            models,
            unknown: Vec::new(),
        }
    }

    fn complete(&mut self, model: usize, s: Settled, now_ms: u64, step: &mut Step<TaskRecord>) {
        let n = self.samples.len();
        let job = model * n + s.job;
        if s.aborted {
            step.commands.push(Command::Abort { case: job });
        }
        let sample = &self.samples[s.job];
        let r = score_call(
            &self.task,
            sample,
            s.job,
            &s.outcome,
            s.attempts,
            s.elapsed_ms,
        );
        step.events.push(TaskRecord::case(
            &self.cfg.run_id,
            &self.cfg.models[model].name,
            sample,
            &r,
            now_ms,
        ));
        self.results[model][s.job] = Some(r);
        step.finished.push(job);
    }

    fn dispatch(&mut self, now_ms: u64, step: &mut Step<TaskRecord>) {
        let n = self.samples.len();
        let models = self.scheds.len();
        for k in 0..models {
            let m = (self.turn + k) % models;
            for (sample, attempt) in self.scheds[m].dispatch(now_ms) {
                let messages = match &self.prompts[sample] {
                    Ok(msgs) => msgs.clone(),
                    Err(_) => Vec::new(), // settled at start, never dispatched
                };
                step.commands.push(Command::Send {
                    case: m * n + sample,
                    attempt,
                    messages,
                });
            }
        }
        if models > 0 {
            self.turn = (self.turn + 1) % models;
        }
        step.wake_at = self.scheds.iter().filter_map(|s| s.wake_at(now_ms)).min();
    }

    fn cancel(&mut self, now_ms: u64) -> Step<TaskRecord> {
        let mut step = Step::default();
        for m in 0..self.scheds.len() {
            for s in self.scheds[m].cancel(now_ms) {
                self.complete(m, s, now_ms, &mut step);
            }
        }
        self.status = RunStatus::Cancelled;
        step.events.push(self.summary(true, now_ms));
        step
    }

    fn finish_if_done(&mut self, now_ms: u64, step: &mut Step<TaskRecord>) {
        if self.status == RunStatus::Running && self.progress().0 == self.jobs() {
            self.status = RunStatus::Done;
            step.events.push(self.summary(false, now_ms));
        }
    }

    fn summary(&self, cancelled: bool, now_ms: u64) -> TaskRecord {
        TaskRecord::summary(
            &self.cfg.run_id,
            cancelled,
            TaskMetrics::of(&self.scored().models),
            now_ms.saturating_sub(self.cfg.started_at_ms),
            now_ms,
        )
    }
}
