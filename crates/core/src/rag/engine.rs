//! The RAG check (spec 002) as the built-in `rag_qa` task on the one
//! [`Pipeline`]: its calls, scores and resume are the task run's
//! ([`TaskKind`] with one model); the RAG page's case results, `[EVAL]`
//! lines, Notes and report are views over that run ([`CaseResult::of_sample`]).

use super::result::{CaseResult, RunConfig};
use crate::dataset::rag::RagCase;
use crate::events::resume::PriorCall;
use crate::events::ReadLog;
use crate::events::Record;
use crate::provider::{Answer, CallError, ChatMessage, ModelSettings};
use crate::run::{Call, JobOutcome, Kind, Pipeline};
use crate::run::{PoolModel, Start, TakenOver};
use crate::run::{RunIdentity, RunSettings};
use crate::task::contract::builtin::rag_qa;
use crate::task::data::rag_sample;
use crate::task::engine::{TaskKind, TaskRunConfig};
use crate::task::report::TaskInfo;

/// The RAG check as a kind of evaluation: the `rag_qa` task's run with one
/// model, and the RAG view of each settled case.
#[derive(Clone, Debug)]
pub struct RagKind {
    cfg: RunConfig,
    cases: Vec<RagCase>,
    run: TaskKind,
    results: Vec<Option<CaseResult>>,
}

impl RagKind {
    /// The RAG check of `cases` as `cfg` says (its engine: [`Engine::new`],
    /// or `Pipeline::prepare` for a run that starts from a shell's spec).
    pub fn new(cfg: RunConfig, cases: Vec<RagCase>) -> RagKind {
        // The preset and its template are checked by the tests: `rag_qa`
        // always builds, and the system prompt is a value, not a template.
        let (task, template) = rag_qa(cfg.scoring, &cfg.system_prompt)
            .unwrap_or_else(|| unreachable!("the built-in rag_qa task builds"));
        let info = TaskInfo {
            name: task.name.clone(),
            version: task.version.clone(),
            source: "preset".into(),
            prompt_name: template.name().to_string(),
            prompt_version: template.version().to_string(),
            prompt_source: "builtin".into(),
        };
        let model = ModelSettings {
            name: cfg.info.model.clone(),
            model: cfg.info.model.clone(),
            base_url: cfg.info.endpoint.clone(),
            api_key_env: None,
            params: cfg.info.parameters.as_object().cloned().unwrap_or_default(),
            engine: None,
        };
        let run_cfg = TaskRunConfig {
            run: cfg.run.clone(),
            backend: cfg.info.backend.clone(),
            repeats: Default::default(),
            models: vec![model],
        };
        let samples = cases.iter().map(rag_sample).collect();
        let run = TaskKind::new(
            run_cfg,
            task,
            info,
            &template,
            cfg.info.dataset_name.clone(),
            samples,
            None,
        );
        let n = cases.len();
        RagKind {
            cfg,
            cases,
            run,
            results: vec![None; n],
        }
    }

    /// Scores the final outcome of case `job` as the `rag_qa` task and keeps
    /// the RAG view of it.
    fn settle_case(
        &mut self,
        job: usize,
        outcome: &Result<Answer, CallError>,
        attempts: u32,
        elapsed_ms: u64,
    ) -> Option<&CaseResult> {
        let case = self.cases.get(job)?;
        let r = self.run.settle_call(job, outcome, attempts, elapsed_ms)?;
        let view = CaseResult::of_sample(job, case, r);
        let slot = self.results.get_mut(job)?;
        *slot = Some(view);
        slot.as_ref()
    }

    /// Characters of context the prompt gives the model (spec 000's
    /// `context_chars`): every message of the request but the question
    /// itself. A RAG server that retrieves on its own side adds context the
    /// page cannot see.
    fn context_chars(&self, job: usize) -> usize {
        self.run
            .call(job, &[])
            .ok()
            .flatten()
            .and_then(|c| {
                c.messages.split_last().map(|(_question, context)| {
                    context.iter().map(|m| m.content.chars().count()).sum()
                })
            })
            .unwrap_or(0)
    }

    fn record(&self, job: usize, now_ms: u64) -> Option<Record> {
        let r = self.results.get(job)?.as_ref()?;
        Some(Record::case(
            &self.cfg.run.run_id,
            &self.cases[job],
            r,
            self.context_chars(job),
            now_ms,
        ))
    }
}

impl Kind for RagKind {
    type Record = Record;

    fn identity(&self) -> &RunIdentity {
        &self.cfg.run
    }

    fn jobs(&self) -> usize {
        self.cases.len()
    }

    fn pools(&self) -> Vec<RunSettings> {
        self.run.pools()
    }

    fn case_id(&self, job: usize) -> Option<String> {
        self.run.case_id(job)
    }

    fn call(&self, job: usize, answers: &[Answer]) -> Result<Option<Call>, CallError> {
        self.run.call(job, answers)
    }

    fn settle(&mut self, job: usize, outcome: JobOutcome, now_ms: u64) -> Vec<Record> {
        use crate::planted::{on, Bug};
        let (attempts, elapsed) = (outcome.attempts, outcome.elapsed_ms);
        let failed = outcome.error.is_some();
        self.settle_case(job, &outcome.last(), attempts, elapsed);
        if failed && on(Bug::FailedCaseDropped) {
            return Vec::new();
        }
        let record: Vec<Record> = self.record(job, now_ms).into_iter().collect();
        if on(Bug::CaseWrittenTwice) {
            return record.iter().chain(&record).cloned().collect();
        }
        record
    }

    fn restored(&self, job: usize, now_ms: u64) -> Option<Record> {
        self.record(job, now_ms)
    }

    fn meta(&self, now_ms: u64) -> Record {
        Record::meta(&self.cfg, self.cases.len(), now_ms)
    }

    fn summary(&self, cancelled: bool, now_ms: u64) -> Record {
        Record::summary_of(&self.cfg, &self.results, cancelled, now_ms)
    }

    fn error(&self, message: &str, now_ms: u64) -> Option<Record> {
        Some(Record::error(&self.cfg.run.run_id, message, now_ms))
    }

    fn mock_answer(&self, job: usize, messages: &[ChatMessage]) -> Answer {
        self.run.mock_answer(job, messages)
    }
}

/// The RAG run: the one [`Pipeline`] over dataset cases with [`RagKind`].
pub type Engine = Pipeline<RagKind>;

impl Pipeline<RagKind> {
    /// A new engine over these cases.
    pub fn new(cfg: RunConfig, cases: Vec<RagCase>) -> Engine {
        Pipeline::over(RagKind::new(cfg, cases))
    }

    /// Takes over calls an earlier, interrupted run settled (from its event
    /// log, see `events::resumable`), before `start`; they are scored again
    /// with this run's settings and not sent again, and `start` re-emits their
    /// `case` records so the new log is complete. Calls of unknown jobs, or
    /// after `start`, are ignored. Returns how many were taken.
    pub fn restore(&mut self, prior: Vec<PriorCall>) -> usize {
        let mut taken = 0;
        for call in prior {
            if call.job >= self.kind().cases.len() || !self.restore_job(call.job, call.attempts) {
                continue;
            }
            let k = self.kind_mut();
            if k.settle_case(call.job, &call.outcome, call.attempts, call.elapsed_ms)
                .is_some()
            {
                taken += 1;
            }
        }
        taken
    }

    /// The current concurrency limit (lowered after 429s, recovering on success).
    pub fn current_limit(&self) -> usize {
        self.current_limits()
            .first()
            .copied()
            .unwrap_or(self.kind().cfg.run.settings.concurrency)
    }

    /// The run configuration.
    pub fn config(&self) -> &RunConfig {
        &self.kind().cfg
    }

    /// The cases, in dataset order.
    pub fn cases(&self) -> &[RagCase] {
        &self.kind().cases
    }

    /// Settled cases with their results, in dataset order.
    pub fn settled(&self) -> Vec<(&RagCase, &CaseResult)> {
        let k = self.kind();
        k.cases
            .iter()
            .zip(&k.results)
            .filter_map(|(c, r)| r.as_ref().map(|r| (c, r)))
            .collect()
    }

    /// Per-case results in dataset order (`None` while unfinished).
    pub fn results(&self) -> &[Option<CaseResult>] {
        &self.kind().results
    }
}

/// The RAG check calls one model; a resume takes over its settled cases.
impl Start for RagKind {
    type Log = ReadLog;

    fn pool_models(&self) -> Vec<PoolModel> {
        vec![PoolModel {
            name: self.cfg.info.model.clone(),
            judge: false,
        }]
    }

    fn take_over(engine: &mut Engine, log: &ReadLog) -> TakenOver {
        let prior = super::resume::resumable(log, engine.cases());
        let calls = if crate::planted::on(crate::planted::Bug::ResumeTakesNothing) {
            Vec::new()
        } else {
            prior.calls
        };
        let jobs = engine.restore(calls);
        TakenOver::cases(jobs, engine.cases().len(), &prior.unknown_ids)
    }
}
