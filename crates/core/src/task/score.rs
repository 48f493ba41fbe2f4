//! Scoring answers produced elsewhere: every sample of the dataset × every
//! model of the responses file, read against the task's schema and scored by
//! every task metric.
//!
//! A sample a model did not answer is a failed call (`status: no_response`):
//! its fields are defaulted by `Schema::no_answer` and it is scored like any
//! other, so it stays in every denominator. A response whose `sample_id` is not
//! in the dataset is reported (`unknown`) and ignored.

use super::data::{EvalSample, TaskDataset};
use super::responses::ResponseSet;
use crate::dataset::LineError;
use crate::metric::{Aggregate, SampleScore};
use crate::provider::{Answer, CallError, ErrorKind, Usage};
use crate::report::ErrorDetail;
use crate::schema::{ParseStatus, ParsedAnswer};
use crate::task::contract::Task;
use serde::Serialize;
use std::collections::HashMap;

/// The reason recorded on every field of an unanswered sample.
pub const NO_RESPONSE: &str = "no response for this sample";

/// Whether a model answered a sample.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AnswerStatus {
    /// An answer was given (it may still fail to parse).
    Ok,
    /// No line of the responses file answers this sample for this model.
    NoResponse,
    /// The model call failed (after its retries), or its prompt could not be rendered.
    Failed,
    /// An agent case made its last allowed model call and still called
    /// tools: its last answer is scored as it is.
    StepLimit,
}

impl AnswerStatus {
    /// The case has an answer to score: `ok`, or an agent's last at the
    /// step limit.
    pub fn answered(self) -> bool {
        matches!(self, AnswerStatus::Ok | AnswerStatus::StepLimit)
    }

    /// `ok`, `no_response`, `failed` or `step_limit`, as written in reports.
    pub fn code(self) -> &'static str {
        match self {
            AnswerStatus::Ok => "ok",
            AnswerStatus::NoResponse => "no_response",
            AnswerStatus::Failed => "failed",
            AnswerStatus::StepLimit => "step_limit",
        }
    }
}

/// One model's result on one sample.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SampleResult {
    /// Index of the sample in the dataset.
    #[serde(skip)]
    pub index: usize,
    /// Whether an answer was given.
    pub status: AnswerStatus,
    /// The answer's line in the responses file.
    pub response_line: Option<usize>,
    /// The raw answer (none for `no_response`).
    pub raw_answer: Option<String>,
    /// The answer read against the schema.
    pub parsed: ParsedAnswer,
    /// Every metric's score, in task order.
    pub scores: Vec<(String, SampleScore)>,
    /// Attempts made, when the answer came from a model call in this run.
    pub attempts: Option<u32>,
    /// Milliseconds from the first send to the outcome, for model calls.
    pub elapsed_ms: Option<u64>,
    /// Why the call failed (status `failed`).
    pub error: Option<ErrorDetail>,
    /// The reasoning that came with the answer (kept apart, never scored).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    /// The endpoint's `finish_reason`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<String>,
    /// Token counts of the answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// The answer came from the response cache (its original latency and
    /// usage).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cached: Option<crate::provider::CacheHit>,
    /// Which asking of the sample this answer is (0-based), when the run
    /// asked each sample several times.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repeat: Option<u32>,
    /// An agent case's loop: how it ended, each step's figures and calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<Box<crate::agent::AgentRecord>>,
}

impl SampleResult {
    /// True when the answer had no JSON object or a field was not taken as written.
    pub fn has_parse_problem(&self) -> bool {
        self.status.answered()
            && (self.parsed.json_error.is_some()
                || self
                    .parsed
                    .fields
                    .iter()
                    .any(|f| f.status != ParseStatus::Parsed))
    }

    /// True when the answer was cut off at `max_tokens` (scored as it is, or
    /// counted as a failed call).
    pub fn truncated(&self) -> bool {
        self.finish_reason.as_deref() == Some("length")
            || self
                .error
                .as_ref()
                .is_some_and(|e| e.kind == ErrorKind::Truncated)
    }
}

/// One model's results on the whole dataset.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ModelRun {
    /// Model name.
    pub model: String,
    /// One result per dataset sample, in dataset order.
    pub results: Vec<SampleResult>,
    /// Each metric's aggregate, in task order.
    pub aggregates: Vec<(String, Aggregate)>,
    /// The model's price, when one is set (for the cost in the report).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub price: Option<crate::report::Price>,
}

impl ModelRun {
    /// Samples this model answered.
    pub fn answered(&self) -> usize {
        self.results.iter().filter(|r| r.status.answered()).count()
    }

    /// Answered samples with a parse problem.
    pub fn parse_problems(&self) -> usize {
        self.results
            .iter()
            .filter(|r| r.has_parse_problem())
            .count()
    }
}

/// Every model's results, plus the responses that matched no sample.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Scored {
    /// One run per model, in order of first appearance in the responses.
    pub models: Vec<ModelRun>,
    /// The judge model's price, when it has one (its usage row's cost).
    #[serde(skip)]
    pub judge_price: Option<crate::report::Price>,
    /// Responses naming a sample the dataset does not have (ignored).
    pub unknown: Vec<LineError>,
    /// How many times each sample was asked, and the k of pass@k.
    #[serde(skip)]
    pub repeats: super::contract::Repeats,
}

/// Scores every model's answers on every sample.
pub fn score(task: &Task, data: &TaskDataset, responses: &ResponseSet) -> Scored {
    let index: HashMap<&str, usize> = data
        .samples
        .iter()
        .enumerate()
        .map(|(i, s)| (s.sample.id.as_str(), i))
        .collect();
    let mut answers: HashMap<(&str, usize), &super::responses::Response> = HashMap::new();
    let mut unknown = Vec::new();
    for r in &responses.responses {
        match index.get(r.sample_id.as_str()) {
            Some(&i) => {
                answers.insert((r.model.as_str(), i), r);
            }
            None => unknown.push(unknown_sample(&responses.name, &data.name, r)),
        }
    }
    let models = responses
        .models()
        .into_iter()
        .map(|m| {
            let results: Vec<SampleResult> = (0..data.samples.len())
                .map(|i| {
                    let answer = answers.get(&(m.as_str(), i)).copied();
                    score_one(task, &data.samples[i], i, answer)
                })
                .collect();
            let aggregates = aggregate(task, &results);
            ModelRun {
                model: m,
                results,
                aggregates,
                price: None,
            }
        })
        .collect();
    Scored {
        models,
        unknown,
        judge_price: None,
        repeats: Default::default(),
    }
}

fn unknown_sample(file: &str, dataset: &str, r: &super::responses::Response) -> LineError {
    LineError {
        file: file.to_string(),
        line: r.line,
        field: Some("sample_id".into()),
        message: format!(
            "no sample `{}` in {dataset}; response of model `{}` ignored",
            r.sample_id, r.model
        ),
    }
}

fn score_one(
    task: &Task,
    s: &EvalSample,
    index: usize,
    answer: Option<&super::responses::Response>,
) -> SampleResult {
    let (status, parsed) = match answer {
        Some(r) => (AnswerStatus::Ok, {
            let mut parsed = task.parse_answer_with_calls(&r.response, r.calls.as_deref());
            parsed.trajectory = r.trajectory.clone();
            parsed.state = r.final_state.clone();
            parsed
        }),
        None => (AnswerStatus::NoResponse, task.schema.no_answer(NO_RESPONSE)),
    };
    SampleResult {
        index,
        status,
        response_line: answer.map(|r| r.line),
        raw_answer: answer.map(|r| r.response.clone()),
        scores: task.score(&s.sample, &parsed),
        parsed,
        attempts: None,
        elapsed_ms: None,
        error: None,
        reasoning: None,
        finish_reason: None,
        usage: None,
        cached: None,
        repeat: None,
        agent: None,
    }
}

/// Scores the outcome of a model call for one sample: the final answer only,
/// never its reasoning. A failed call is scored like an unanswered sample
/// (every field defaulted with the error as reason), so it stays in every
/// denominator.
pub fn score_call(
    task: &Task,
    s: &EvalSample,
    index: usize,
    outcome: &Result<Answer, CallError>,
    attempts: u32,
    elapsed_ms: u64,
) -> SampleResult {
    let mut r = read_call(task, index, outcome, attempts, elapsed_ms);
    r.scores = task.score(&s.sample, &r.parsed);
    r
}

/// A call's outcome read against the task's schema, not scored yet (its
/// `scores` empty): for a caller that adds to the parsed answer first, as an
/// agent's case adds its trajectory.
pub fn read_call(
    task: &Task,
    index: usize,
    outcome: &Result<Answer, CallError>,
    attempts: u32,
    elapsed_ms: u64,
) -> SampleResult {
    let (status, parsed, raw_answer, error) = match outcome {
        Ok(a) => (
            AnswerStatus::Ok,
            task.parse_answer_with_calls(&a.text, a.calls.as_deref()),
            Some(a.text.clone()),
            None,
        ),
        Err(e) => (
            AnswerStatus::Failed,
            task.schema
                .no_answer(&format!("model call failed: {}", e.message)),
            None,
            Some(ErrorDetail::from(e)),
        ),
    };
    SampleResult {
        index,
        status,
        response_line: None,
        raw_answer,
        scores: Vec::new(),
        parsed,
        attempts: Some(attempts),
        elapsed_ms: Some(elapsed_ms),
        error,
        reasoning: outcome.as_ref().ok().and_then(|a| a.reasoning.clone()),
        finish_reason: outcome.as_ref().ok().and_then(|a| a.finish_reason.clone()),
        usage: match outcome {
            Ok(a) => a.usage.clone(),
            Err(e) => e.usage.as_deref().cloned(),
        },
        cached: outcome
            .as_ref()
            .ok()
            .and_then(|a| a.cached.as_deref().cloned()),
        repeat: None,
        agent: None,
    }
}

/// Each task metric's aggregate over these results, in task order. Only
/// values and components are read (a sample's `detail` is for people), so
/// the page can aggregate a live run on every update as cheaply as the
/// report does at the end.
pub fn aggregate<'a>(
    task: &Task,
    results: impl IntoIterator<Item = &'a SampleResult> + Clone,
) -> Vec<(String, Aggregate)> {
    task.metrics
        .iter()
        .enumerate()
        .map(|(k, m)| {
            let scores: Vec<SampleScore> = results
                .clone()
                .into_iter()
                .filter_map(|r| r.scores.get(k))
                .map(|(_, s)| SampleScore {
                    value: s.value,
                    components: s.components.clone(),
                    detail: Default::default(),
                })
                .collect();
            (m.name.clone(), m.metric.aggregate(&scores))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::data::{load, DatasetFormat};
    use super::super::responses;
    use super::*;
    use crate::task::contract::preset;

    const DATA: &str = concat!(
        "{\"sample_id\":\"S1\",\"news_items\":[],\"gt_sentiment\":\"positive\",\"gt_impact_score\":2,\"gt_keywords\":[\"ai\"]}\n",
        "{\"sample_id\":\"S2\",\"news_items\":[],\"gt_sentiment\":\"neutral\",\"gt_impact_score\":0,\"gt_keywords\":[\"x\"]}\n",
    );

    #[test]
    fn unanswered_samples_count_and_unknown_ids_are_reported() {
        let task = preset("event_eval").expect("preset");
        let data = load("d.jsonl", DATA.as_bytes(), DatasetFormat::Samples, None);
        let resp = concat!(
            "{\"sample_id\":\"S1\",\"response\":\"{\\\"sentiment\\\":\\\"positive\\\",\\\"impact_score\\\":9,\\\"keywords\\\":[\\\"AI\\\"]}\"}\n",
            "{\"sample_id\":\"S9\",\"response\":\"{}\"}\n",
        );
        let set = responses::parse("r.jsonl", resp.as_bytes());
        let scored = score(&task, &data, &set);
        assert_eq!(scored.unknown.len(), 1);
        assert_eq!(scored.unknown[0].line, 2);
        let m = &scored.models[0];
        assert_eq!((m.model.as_str(), m.answered()), ("responses", 1));
        assert_eq!(m.results[1].status, AnswerStatus::NoResponse);
        // S1: clamped 9 -> 5, a parse problem; S2 defaulted neutral: a hit
        assert_eq!(m.parse_problems(), 1);
        let acc = &m.aggregates[0].1;
        assert_eq!((acc.mean, acc.sample_count), (1.0, 2));
        let impact = &m.aggregates[1].1;
        assert_eq!(impact.components.get("mae"), Some(&1.5));
        assert_eq!(impact.components.get("hit_rate"), Some(&0.5));
    }
}
