//! Rebuilds what an interrupted run had already settled from its event log, so
//! a new run can `Engine::restore` it and send only the rest.
//!
//! A `case` record counts as settled when its call succeeded and it carries the
//! full `answer` (re-scored with the current scoring settings, so the resumed
//! report equals an uninterrupted one), or when its call failed for a reason other
//! than a cancel, a case not run, or a fatal answer (401, 403, 404: what the resume
//! fixed). Those, cases without an answer, and records naming an
//! id the dataset does not have are sent again or reported.

use super::ReadLog;
use crate::dataset::rag::RagCase;
use crate::provider::{CallError, ErrorKind};
use crate::run::CaseResult;
use crate::scorer::ScoringConfig;
use serde_json::Value;
use std::collections::HashMap;

/// What can be taken over from a log.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Resumable {
    /// The interrupted run's id (from its `meta` record).
    pub run_id: Option<String>,
    /// Dataset name recorded in `meta`.
    pub dataset: Option<String>,
    /// Settled results, in dataset order.
    pub results: Vec<CaseResult>,
    /// Case ids in the log that are not in the dataset (ignored).
    pub unknown_ids: Vec<String>,
    /// Case ids that will be sent again (cancelled or without a stored answer).
    pub rerun_ids: Vec<String>,
}

/// Reads the settled cases of `log` against this dataset.
pub fn resumable(log: &ReadLog, cases: &[RagCase], scoring: &ScoringConfig) -> Resumable {
    let meta = log.of_type("meta").next();
    let text = |v: Option<&Value>, k: &str| {
        v.and_then(|v| v.get(k))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let mut out = Resumable {
        run_id: text(meta, "run_id"),
        dataset: text(meta, "dataset"),
        ..Resumable::default()
    };
    let index: HashMap<&str, usize> = cases
        .iter()
        .enumerate()
        .map(|(i, c)| (c.id.as_str(), i))
        .collect();
    let mut latest: HashMap<usize, &Value> = HashMap::new();
    for record in log.of_type("case") {
        let Some(id) = record.get("case_id").and_then(Value::as_str) else {
            continue;
        };
        match index.get(id) {
            Some(i) => {
                latest.insert(*i, record);
            }
            None => out.unknown_ids.push(id.to_string()),
        }
    }
    let mut settled: Vec<(usize, &Value)> = latest.into_iter().collect();
    settled.sort_by_key(|(i, _)| *i);
    for (i, record) in settled {
        match rebuild(i, &cases[i], record, scoring) {
            Some(r) => out.results.push(r),
            None => out.rerun_ids.push(cases[i].id.clone()),
        }
    }
    out
}

fn rebuild(i: usize, case: &RagCase, r: &Value, scoring: &ScoringConfig) -> Option<CaseResult> {
    let attempts = r.get("attempts").and_then(Value::as_u64).unwrap_or(1) as u32;
    let elapsed = r.get("elapsed_ms").and_then(Value::as_u64).unwrap_or(0);
    let outcome = if r.get("llm_call_ok").and_then(Value::as_bool)? {
        Ok(super::record::answer_of(r)?)
    } else {
        let mut error = call_error(
            r.get("error_detail")?,
            r.get("error").and_then(Value::as_str),
        )?;
        error.usage = super::record::usage_of(r).map(Box::new);
        Err(error)
    };
    Some(CaseResult::new(
        i, case, outcome, attempts, elapsed, scoring,
    ))
}

pub(crate) fn call_error(detail: &Value, short: Option<&str>) -> Option<CallError> {
    let kind: ErrorKind = serde_json::from_value(detail.get("kind")?.clone()).ok()?;
    if matches!(kind, ErrorKind::Cancelled | ErrorKind::NotRun) {
        return None;
    }
    let text = |k: &str| detail.get(k).and_then(Value::as_str).map(str::to_string);
    let mut e = CallError::new(
        kind,
        text("cause")
            .or(short.map(str::to_string))
            .unwrap_or_default(),
    );
    e.status_code = detail
        .get("status_code")
        .and_then(Value::as_u64)
        .and_then(|s| u16::try_from(s).ok());
    e.url = text("url");
    e.timeout = detail
        .get("timeout")
        .and_then(Value::as_bool)
        .unwrap_or(kind == ErrorKind::Timeout);
    e.response_snippet = text("response_snippet");
    // a fatal answer (401, 403, 404) is what the resume fixed: send it again
    (!e.fatal()).then_some(e)
}
