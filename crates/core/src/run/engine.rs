//! The RAG check (spec 002) as a kind of evaluation on the one [`Pipeline`].

use super::pipeline::{Call, JobOutcome, Kind, Pipeline};
use super::result::{CaseResult, RunConfig, RunSettings};
use crate::dataset::rag::RagCase;
use crate::events::Record;
use crate::prompt::rag_messages;
use crate::provider::{Answer, CallError};

/// The RAG check as a kind of evaluation: one model, one call per case
/// (spec 002's prompt), scored for accuracy and citation as it settles.
#[derive(Debug)]
pub struct RagKind {
    cfg: RunConfig,
    cases: Vec<RagCase>,
    results: Vec<Option<CaseResult>>,
}

impl RagKind {
    /// Characters of context the prompt gives the model (spec 000's
    /// `context_chars`): every message of the request but the question
    /// itself. A RAG server that retrieves on its own side adds context the
    /// page cannot see.
    fn context_chars(&self, case: &RagCase) -> usize {
        let messages = rag_messages(&self.cfg.system_prompt, case);
        messages.split_last().map_or(0, |(_question, context)| {
            context.iter().map(|m| m.content.chars().count()).sum()
        })
    }
}

impl Kind for RagKind {
    type Record = Record;

    fn jobs(&self) -> usize {
        self.cases.len()
    }

    fn pools(&self) -> Vec<RunSettings> {
        vec![self.cfg.settings]
    }

    fn call(&self, job: usize, answers: &[Answer]) -> Result<Option<Call>, CallError> {
        let Some(case) = self.cases.get(job) else {
            return Ok(None);
        };
        Ok(answers.is_empty().then(|| Call {
            pool: 0,
            messages: rag_messages(&self.cfg.system_prompt, case),
        }))
    }

    fn settle(&mut self, job: usize, outcome: JobOutcome, now_ms: u64) -> Vec<Record> {
        let case = &self.cases[job];
        let result = CaseResult::new(
            job,
            case,
            outcome.last(),
            outcome.attempts,
            outcome.elapsed_ms,
            &self.cfg.scoring,
        );
        let record = Record::case(
            &self.cfg.info.run_id,
            case,
            &result,
            self.context_chars(case),
            now_ms,
        );
        self.results[job] = Some(result);
        vec![record]
    }

    fn restored(&self, job: usize, now_ms: u64) -> Option<Record> {
        let r = self.results.get(job)?.as_ref()?;
        let case = &self.cases[job];
        Some(Record::case(
            &self.cfg.info.run_id,
            case,
            r,
            self.context_chars(case),
            now_ms,
        ))
    }

    fn meta(&self, now_ms: u64) -> Record {
        Record::meta(&self.cfg, self.cases.len(), now_ms)
    }

    fn summary(&self, cancelled: bool, now_ms: u64) -> Record {
        Record::summary_of(&self.cfg, &self.results, cancelled, now_ms)
    }

    fn error(&self, message: &str, now_ms: u64) -> Option<Record> {
        Some(Record::error(&self.cfg.info.run_id, message, now_ms))
    }
}

/// The RAG run: the one [`Pipeline`] over dataset cases with [`RagKind`].
pub type Engine = Pipeline<RagKind>;

impl Pipeline<RagKind> {
    /// A new engine over these cases.
    pub fn new(cfg: RunConfig, cases: Vec<RagCase>) -> Engine {
        let n = cases.len();
        Pipeline::over(RagKind {
            cfg,
            cases,
            results: vec![None; n],
        })
    }

    /// Marks cases as already settled by an earlier, interrupted run (from its
    /// event log or the browser's store), before `start`. They are not sent again;
    /// `start` re-emits their `case` records so the new log is complete. Results for
    /// unknown indices, or after `start`, are ignored. Returns how many were taken.
    pub fn restore(&mut self, prior: Vec<CaseResult>) -> usize {
        let mut taken = 0;
        for result in prior {
            let i = result.index;
            let same = self
                .kind()
                .cases
                .get(i)
                .is_some_and(|c| c.id == result.case_id);
            if same && self.restore_job(i, result.attempts) {
                self.kind_mut().results[i] = Some(result);
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
            .unwrap_or(self.kind().cfg.settings.concurrency)
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
