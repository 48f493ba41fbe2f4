//! The event log of a task run (spec 000): the same `record_type`s as a RAG
//! run (`meta`, `case`, `summary`; JSONL and RFC 7464 through
//! `events::write`), with the task's fields. One `case` record per sample and
//! model, written when that call settles; `case_id` is the sample id and
//! `model` says whose answer it is. `passed` = the call answered and the answer
//! was read without a parse problem; `summary.metrics` carries the same counts
//! as `report.json`'s top-level `metrics` (`cases_total` = `cases`).

use super::data::EvalSample;
use super::report::{ModelSettings, TaskInfo, TaskMetrics};
use super::score::{AnswerStatus, SampleResult};
use crate::events::record::SNIPPET_CHARS;
use crate::events::{ErrorDetail, SCHEMA_VERSION};
use crate::schema::ParseStatus;
use crate::text::truncate_chars;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One record of a task run's log.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "record_type", rename_all = "snake_case")]
pub enum TaskRecord {
    /// Start of the run.
    Meta(TaskMeta),
    /// One sample × model settled.
    Case(TaskCase),
    /// End of the run.
    Summary(TaskSummary),
}

/// `meta`: identity, task, prompt, models and scheduling. Never a key.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TaskMeta {
    /// Run id.
    pub run_id: String,
    /// Time in ms.
    pub ts_ms: u64,
    /// Writing tool.
    pub tool: String,
    /// Event schema version.
    pub schema_version: u32,
    /// Task name.
    pub task: String,
    /// Task version.
    pub task_version: String,
    /// Prompt template name.
    pub prompt: String,
    /// Prompt template version.
    pub prompt_version: String,
    /// Dataset file name.
    pub dataset: String,
    /// Samples × models.
    pub cases_total: usize,
    /// `mock` or `openai`.
    pub backend: String,
    /// The models as called.
    pub models: Vec<ModelSettings>,
    /// Most calls in flight per model.
    pub concurrency: usize,
    /// Attempts per call.
    pub max_attempts: u32,
    /// Per-request timeout, ms.
    pub timeout_ms: u64,
    /// Command line or page parameters, without secrets.
    pub argv: Vec<String>,
}

/// `case`: one model's answer to one sample, read and scored.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TaskCase {
    /// Run id.
    pub run_id: String,
    /// Time in ms.
    pub ts_ms: u64,
    /// Sample id.
    pub case_id: String,
    /// Position among the dataset's valid samples.
    pub case_index: usize,
    /// Model name.
    pub model: String,
    /// Source line of the sample.
    pub line: usize,
    /// Answered and read without a parse problem.
    pub passed: bool,
    /// The model call succeeded.
    pub llm_call_ok: bool,
    /// `field: status (reason)` for every field not taken as written, and the
    /// JSON extraction error, if any.
    pub parse_problems: Vec<String>,
    /// Each metric's value (`null` when the metric skipped the sample).
    pub metrics: BTreeMap<String, Option<f64>>,
    /// From first send to outcome, ms.
    pub elapsed_ms: u64,
    /// Attempts made.
    pub attempts: u32,
    /// Start of the answer.
    pub answer_snippet: Option<String>,
    /// The whole answer.
    pub answer: Option<String>,
    /// Short error text.
    pub error: Option<String>,
    /// Structured error (only when `llm_call_ok` is false).
    pub error_detail: Option<ErrorDetail>,
}

/// `summary`: the end of the run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TaskSummary {
    /// Run id.
    pub run_id: String,
    /// Time in ms.
    pub ts_ms: u64,
    /// `done` or `cancelled`.
    pub status: String,
    /// Counts; each equals the same count in `report.json`'s `metrics`.
    pub metrics: SummaryMetrics,
    /// Wall time in ms.
    pub elapsed_ms_total: u64,
    /// Where the final report is written, when known.
    pub final_report_path: Option<String>,
}

/// The summary's counts (`cases_total` is the report's `cases`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SummaryMetrics {
    /// Samples × models settled.
    pub cases_total: usize,
    /// Answered without a parse problem.
    pub passed_cases: usize,
    /// Failed calls.
    pub failed_calls: usize,
    /// Answered with a parse problem.
    pub parse_problem_cases: usize,
}

impl From<TaskMetrics> for SummaryMetrics {
    fn from(m: TaskMetrics) -> SummaryMetrics {
        SummaryMetrics {
            cases_total: m.cases,
            passed_cases: m.passed_cases,
            failed_calls: m.failed_calls,
            parse_problem_cases: m.parse_problem_cases,
        }
    }
}

/// Identity of a run for its `meta` record.
pub struct MetaInput<'a> {
    /// Run id.
    pub run_id: &'a str,
    /// Tool name.
    pub tool: &'a str,
    /// Task and prompt.
    pub info: &'a TaskInfo,
    /// Dataset file name.
    pub dataset: &'a str,
    /// Samples × models.
    pub cases_total: usize,
    /// `mock` or `openai`.
    pub backend: &'a str,
    /// Models.
    pub models: &'a [ModelSettings],
    /// Scheduling.
    pub settings: &'a crate::run::RunSettings,
    /// Argv without secrets.
    pub argv: &'a [String],
}

impl TaskRecord {
    /// The `meta` record.
    pub fn meta(m: &MetaInput<'_>, ts_ms: u64) -> TaskRecord {
        TaskRecord::Meta(TaskMeta {
            run_id: m.run_id.to_string(),
            ts_ms,
            tool: m.tool.to_string(),
            schema_version: SCHEMA_VERSION,
            task: m.info.name.clone(),
            task_version: m.info.version.clone(),
            prompt: m.info.prompt_name.clone(),
            prompt_version: m.info.prompt_version.clone(),
            dataset: m.dataset.to_string(),
            cases_total: m.cases_total,
            backend: m.backend.to_string(),
            models: m.models.to_vec(),
            concurrency: m.settings.concurrency,
            max_attempts: m.settings.max_attempts,
            timeout_ms: m.settings.timeout_ms,
            argv: m.argv.to_vec(),
        })
    }

    /// The `case` record of one settled sample × model.
    pub fn case(
        run_id: &str,
        model: &str,
        sample: &EvalSample,
        r: &SampleResult,
        ts_ms: u64,
    ) -> TaskRecord {
        let ok = r.status == AnswerStatus::Ok;
        TaskRecord::Case(TaskCase {
            run_id: run_id.to_string(),
            ts_ms,
            case_id: sample.sample.id.clone(),
            case_index: r.index,
            model: model.to_string(),
            line: sample.sample.line,
            passed: ok && !r.has_parse_problem(),
            llm_call_ok: ok,
            parse_problems: if ok { parse_problems(r) } else { Vec::new() },
            metrics: r
                .scores
                .iter()
                .map(|(name, s)| (name.clone(), s.value))
                .collect(),
            elapsed_ms: r.elapsed_ms.unwrap_or(0),
            attempts: r.attempts.unwrap_or(0),
            answer_snippet: r
                .raw_answer
                .as_deref()
                .map(|a| truncate_chars(a, SNIPPET_CHARS)),
            answer: r.raw_answer.clone(),
            error: r.error.as_ref().map(|e| e.cause.clone()),
            error_detail: r.error.clone(),
        })
    }

    /// The `summary` record.
    pub fn summary(
        run_id: &str,
        cancelled: bool,
        metrics: TaskMetrics,
        elapsed_ms_total: u64,
        ts_ms: u64,
    ) -> TaskRecord {
        TaskRecord::Summary(TaskSummary {
            run_id: run_id.to_string(),
            ts_ms,
            status: if cancelled { "cancelled" } else { "done" }.to_string(),
            metrics: metrics.into(),
            elapsed_ms_total,
            final_report_path: None,
        })
    }
}

/// Every parse problem of an answer, one line each.
pub fn parse_problems(r: &SampleResult) -> Vec<String> {
    let mut out: Vec<String> = r
        .parsed
        .json_error
        .iter()
        .map(|e| format!("no JSON object: {e}"))
        .collect();
    for f in r
        .parsed
        .fields
        .iter()
        .filter(|f| f.status != ParseStatus::Parsed)
    {
        let status = serde_json::to_value(f.status)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        match &f.reason {
            Some(reason) if r.parsed.json_error.is_none() => {
                out.push(format!("{}: {status} ({reason})", f.field))
            }
            Some(_) => {}
            None => out.push(format!("{}: {status}", f.field)),
        }
    }
    out
}
