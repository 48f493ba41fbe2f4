//! The records of a task run in the one record family of every run
//! (`events::Record`: spec 000's `meta`, `case`, `error`, `summary`), with the
//! task's fields filled in. One `case` record per sample and
//! model, written when that call settles; `case_id` is the sample id and
//! `model` says whose answer it is. `passed` = the call answered and the answer
//! was read without a parse problem; `summary.metrics` carries the same counts
//! as `report.json`'s top-level `metrics` (`cases_total` = `cases`).

use super::data::EvalSample;
use super::report::{ModelSettings, TaskInfo, TaskMetrics};
use super::score::{AnswerStatus, SampleResult};
use crate::events::record::SNIPPET_CHARS;
use crate::events::{CaseRecord, MetaRecord, Record, SummaryRecord, SCHEMA_VERSION};
use crate::schema::ParseStatus;
use crate::text::truncate_chars;

/// A task run's records are the one record family of every run.
pub type TaskRecord = Record;

/// The summary's counts of a task run.
pub type SummaryMetrics = crate::events::SummaryMetrics;

impl From<TaskMetrics> for SummaryMetrics {
    fn from(m: TaskMetrics) -> SummaryMetrics {
        crate::report::ReportMetrics::from(m).into()
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

/// The `meta` record of a task run.
pub fn meta(m: &MetaInput<'_>, ts_ms: u64) -> Record {
    Record::Meta(MetaRecord {
        run_id: m.run_id.to_string(),
        ts_ms,
        tool: m.tool.to_string(),
        schema_version: SCHEMA_VERSION,
        task: Some(m.info.name.clone()),
        task_version: Some(m.info.version.clone()),
        prompt: Some(m.info.prompt_name.clone()),
        prompt_version: Some(m.info.prompt_version.clone()),
        dataset: m.dataset.to_string(),
        cases_total: m.cases_total,
        backend: m.backend.to_string(),
        model: None,
        endpoint: None,
        models: Some(m.models.to_vec()),
        concurrency: m.settings.concurrency,
        max_attempts: m.settings.max_attempts,
        timeout_ms: m.settings.timeout_ms,
        scoring: None,
        lang: None,
        argv: m.argv.to_vec(),
        k: None,
    })
}

/// The `case` record of one settled sample × model.
pub fn case(
    run_id: &str,
    model: &str,
    sample: &EvalSample,
    r: &SampleResult,
    ts_ms: u64,
) -> Record {
    let ok = r.status == AnswerStatus::Ok;
    Record::Case(CaseRecord {
        run_id: run_id.to_string(),
        ts_ms,
        case_id: sample.sample.id.clone(),
        case_index: r.index,
        model: Some(model.to_string()),
        line: sample.sample.line,
        passed: ok && !r.has_parse_problem(),
        llm_call_ok: ok,
        accuracy: None,
        citation: None,
        missing: None,
        matched: None,
        cited_docs: None,
        wrong_docs: None,
        context_chars: None,
        parse_problems: Some(if ok { parse_problems(r) } else { Vec::new() }),
        metrics: Some(
            r.scores
                .iter()
                .map(|(name, s)| (name.clone(), s.value))
                .collect(),
        ),
        elapsed_ms: r.elapsed_ms.unwrap_or(0),
        attempts: r.attempts.unwrap_or(0),
        answer_snippet: r
            .raw_answer
            .as_deref()
            .map(|a| truncate_chars(a, SNIPPET_CHARS)),
        answer: r.raw_answer.clone(),
        error: r.error.as_ref().map(|e| e.cause.clone()),
        error_detail: r.error.clone(),
        reasoning: r.reasoning.clone(),
        finish_reason: r.finish_reason.clone(),
        usage: r.usage,
        truncated: r.truncated(),
        judgements: judgements(r),
        ..CaseRecord::default()
    })
}

/// The judged metrics' judgements of a case (`None` without any).
fn judgements(r: &SampleResult) -> Option<std::collections::BTreeMap<String, serde_json::Value>> {
    let judged: std::collections::BTreeMap<String, serde_json::Value> = r
        .scores
        .iter()
        .filter(|(_, s)| s.detail.contains_key("judge_prompt"))
        .map(|(name, s)| {
            let v = serde_json::json!({
                "value": s.value,
                "components": s.components,
                "detail": s.detail,
            });
            (name.clone(), v)
        })
        .collect();
    (!judged.is_empty()).then_some(judged)
}

/// The `summary` record of a task run.
pub fn summary(
    run_id: &str,
    cancelled: bool,
    metrics: TaskMetrics,
    elapsed_ms_total: u64,
    ts_ms: u64,
) -> Record {
    Record::Summary(SummaryRecord {
        run_id: run_id.to_string(),
        ts_ms,
        status: if cancelled { "cancelled" } else { "done" }.to_string(),
        metrics: metrics.into(),
        elapsed_ms_total,
        final_report_path: None,
    })
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
