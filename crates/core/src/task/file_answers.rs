//! Answers read from a file, judged as a run judges them (`evalpage score
//! --judge`): the task's `llm_judge` metrics get the same values, outcomes
//! and `llm_judge_details` as `evalpage run --task ... --judge` with the same
//! answers, because they come from the same engine.
//!
//! The run is a judged [`TaskEngine`] over the responses file's models:
//! each job's first call (the model's) is answered from the file by the
//! shell, with no request ([`FileAnswers::answer`]), and the judge calls go
//! to the judge's own pool exactly as in a run. A sample a model has no line
//! for is settled before the run starts as a failed call
//! ([`FileAnswers::unanswered`]), so nothing is sent for it and its judged
//! metrics are a fail, as a run's failed call is. Job numbers are the run's
//! (`model × samples + sample`, models in order of first appearance in the
//! file, which is the run's order for its own `results.jsonl`), so the mock
//! judge, which counts repeats per job, answers both alike.
//!
//! The rest of the report is `score::score`'s: [`take_judged`] replaces only
//! the judged metrics' scores of the scored answers with the judged run's
//! and aggregates again, so statuses (`no_response`), response lines and
//! every other metric stay as `evalpage score` gives them.

use super::data::TaskDataset;
use super::engine::{PriorCall, TaskEngine, TaskRunConfig};
use super::judging::judged_metrics;
use super::judging::TaskJudge;
use super::report::{ModelSettings, TaskInfo};
use super::responses::ResponseSet;
use super::score::{aggregate, AnswerStatus, Scored, NO_RESPONSE};
use crate::metric::SampleScore;
use crate::provider::{Answer, CallError, ErrorKind};
use crate::run::RunIdentity;
use crate::task::contract::{PromptTemplate, Task};
use std::collections::HashMap;

/// The answers of a responses file by job: model (in order of first
/// appearance) × dataset sample.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FileAnswers {
    models: Vec<String>,
    samples: usize,
    /// By job; `None` where the model has no line for the sample.
    answers: Vec<Option<String>>,
}

impl FileAnswers {
    /// The answers of `responses` to the samples of `data` (a line naming a
    /// sample the dataset does not have is left out, as `score::score`
    /// leaves it out).
    pub fn new(data: &TaskDataset, responses: &ResponseSet) -> FileAnswers {
        let index: HashMap<&str, usize> = data
            .samples
            .iter()
            .enumerate()
            .map(|(i, s)| (s.sample.id.as_str(), i))
            .collect();
        let models = responses.models();
        let samples = data.samples.len();
        let mut answers = vec![None; models.len() * samples];
        for r in &responses.responses {
            let (Some(&i), Some(m)) = (
                index.get(r.sample_id.as_str()),
                models.iter().position(|m| *m == r.model),
            ) else {
                continue;
            };
            answers[m * samples + i] = Some(r.response.clone());
        }
        FileAnswers {
            models,
            samples,
            answers,
        }
    }

    /// The models, in job order.
    pub fn models(&self) -> &[String] {
        &self.models
    }

    /// Models × samples.
    pub fn jobs(&self) -> usize {
        self.answers.len()
    }

    /// The answer to job `job`'s model call, as a model would give it (the
    /// text only: no reasoning, usage or finish reason); `None` for a sample
    /// without a line, or a job that does not exist.
    pub fn answer(&self, job: usize) -> Option<Answer> {
        self.answers.get(job).cloned().flatten().map(Answer::from)
    }

    /// The jobs without an answer as calls settled before the run (failed,
    /// never sent), for [`TaskEngine::restore`].
    pub fn unanswered(&self) -> Vec<PriorCall> {
        self.answers
            .iter()
            .enumerate()
            .filter(|(_, a)| a.is_none())
            .map(|(job, _)| PriorCall {
                job,
                outcome: Err(CallError::new(ErrorKind::InvalidResponse, NO_RESPONSE)),
                attempts: 0,
                elapsed_ms: 0,
                judgements: None,
                turns_ok: None,
                trajectory: None,
                agent: None,
            })
            .collect()
    }

    /// The judged run over these answers: one pool per model (answered from
    /// the file by the shell, at the judge's concurrency, for no request
    /// waits), then the judge's; unanswered jobs already settled. Its `meta`
    /// and run id are never written (`evalpage score` writes no event log).
    pub fn engine(
        &self,
        task: &Task,
        info: &TaskInfo,
        template: &PromptTemplate,
        data: &TaskDataset,
        judge: TaskJudge,
        started_at_ms: u64,
    ) -> TaskEngine {
        let models = self
            .models
            .iter()
            .map(|name| ModelSettings {
                name: name.clone(),
                model: name.clone(),
                base_url: None,
                api_key_env: None,
                params: Default::default(),
                engine: None,
            })
            .collect();
        let cfg = TaskRunConfig {
            run: RunIdentity {
                run_id: crate::RunKind::scored_run_id(started_at_ms),
                tool: "evalpage".into(),
                started_at_ms,
                argv: Vec::new(),
                dataset: data.name.clone(),
                settings: judge.settings,
            },
            backend: "responses".into(),
            repeats: Default::default(),
            models,
        };
        let mut engine =
            TaskEngine::judged(cfg, task.clone(), info.clone(), template, data, Some(judge));
        engine.restore(self.unanswered());
        engine
    }
}

/// Replaces the judged metrics' scores of `scored` (answers scored from a
/// file) with those of `judged` (the judged run over the same answers, see
/// [`FileAnswers::engine`]), by model name and sample, and aggregates every
/// model's metrics again. A sample without an answer keeps `no_response` as
/// the reason of its fail; a sample whose prompt could not be rendered is
/// skipped (the judge is shown the question the model was asked).
pub fn take_judged(task: &Task, scored: &mut Scored, judged: &Scored) {
    let metrics: Vec<usize> = judged_metrics(task)
        .into_iter()
        .map(|(i, _, _)| i)
        .collect();
    for m in &mut scored.models {
        let Some(from) = judged.models.iter().find(|j| j.model == m.model) else {
            continue;
        };
        for r in &mut m.results {
            let Some(j) = from.results.iter().find(|j| j.index == r.index) else {
                continue;
            };
            let prompt_error = j
                .error
                .as_ref()
                .filter(|e| e.kind == ErrorKind::Prompt)
                .map(|e| e.cause.clone());
            for &k in &metrics {
                let (Some(to), Some((_, score))) = (r.scores.get_mut(k), j.scores.get(k)) else {
                    continue;
                };
                to.1 = match (&prompt_error, r.status) {
                    (Some(why), _) => SampleScore::skipped(format!(
                        "not judged: the judge is shown the question the model was asked ({why})"
                    )),
                    (None, AnswerStatus::NoResponse) => no_response(score.clone()),
                    (None, _) => score.clone(),
                };
            }
        }
        m.aggregates = aggregate(task, &m.results);
    }
}

/// A judged fail of a sample without an answer, its reason saying so.
fn no_response(mut s: SampleScore) -> SampleScore {
    if s.detail.contains_key("reason") {
        s.detail.insert(
            "reason".into(),
            format!("{NO_RESPONSE}: not sent to the judge, counted as a fail").into(),
        );
    }
    s
}
