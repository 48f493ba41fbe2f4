//! The records of a task run in the one record family of every run
//! (`events::Record`: spec 000's `meta`, `case`, `error`, `summary`), with the
//! task's fields filled in. One `case` record per sample and
//! model, written when that call settles; `case_id` is the sample id and
//! `model` says whose answer it is. `passed` = the call answered and the answer
//! was read without a parse problem; `summary.metrics` carries the same counts
//! as `report.json`'s top-level `metrics` (`cases_total` = `cases`).

use super::config::TaskRunConfig;
use super::data::EvalSample;
use super::report::{TaskInfo, TaskMetrics};
use super::score::SampleResult;
use crate::events::record::SNIPPET_CHARS;
use crate::events::{CaseRecord, MetaRecord, Record, SummaryMetrics, SummaryRecord};
use crate::run::RunIdentity;
use crate::schema::ParseStatus;
use crate::text::truncate_chars;

/// A task run's records are the one record family of every run.
pub type TaskRecord = Record;

impl From<TaskMetrics> for SummaryMetrics {
    fn from(m: TaskMetrics) -> SummaryMetrics {
        crate::report::ReportMetrics::from(m).into()
    }
}

/// The `meta` record of a task run: the shared fields from the run's
/// identity, and the task, its prompt and its models.
pub fn meta(
    cfg: &TaskRunConfig,
    info: &TaskInfo,
    dataset: &str,
    cases_total: usize,
    ts_ms: u64,
) -> Record {
    Record::Meta(MetaRecord {
        task: Some(info.name.clone()),
        task_version: Some(info.version.clone()),
        prompt: Some(info.prompt_name.clone()),
        prompt_version: Some(info.prompt_version.clone()),
        models: Some(cfg.models.clone()),
        ..MetaRecord::of(
            Some(crate::RunKind::Task),
            &cfg.run,
            dataset,
            &cfg.backend,
            cases_total,
            ts_ms,
        )
    })
}

/// The `case` record of one settled sample × model; an agent task's
/// (`agent`) keeps the case's trajectory, also when the case failed part
/// way (what its loop did before).
pub fn case(
    run_id: &str,
    model: &str,
    sample: &EvalSample,
    r: &SampleResult,
    agent: bool,
    ts_ms: u64,
) -> Record {
    let ok = r.status.answered();
    Record::Case(CaseRecord {
        run_id: run_id.to_string(),
        ts_ms,
        case_id: sample.sample.id.clone(),
        case_index: r.index,
        model: Some(model.to_string()),
        repeat: r.repeat,
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
        tool_calls: r.parsed.calls.clone(),
        error: r.error.as_ref().map(|e| e.cause.clone()),
        error_detail: r.error.clone(),
        reasoning: r.reasoning.clone(),
        finish_reason: r.finish_reason.clone(),
        usage: r.usage.clone(),
        cached: r.cached.clone(),
        truncated: r.truncated(),
        judgements: judgements(r),
        trajectory: agent.then(|| r.parsed.trajectory.clone()).flatten(),
        agent: r.agent.as_deref().cloned(),
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
pub fn summary(run: &RunIdentity, cancelled: bool, metrics: TaskMetrics, ts_ms: u64) -> Record {
    Record::Summary(SummaryRecord::of(run, metrics.into(), cancelled, ts_ms))
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
