//! Resuming a task run from its event log (`evalpage run --task
//! --resume-from`, the page's reload): the `case` records of the interrupted
//! run become prior outcomes for [`TaskEngine::restore`], so only the rest is
//! sent. Same rules as the RAG run's `events::resumable`: a record counts when
//! its call succeeded and it carries the full `answer` (scored again, so the
//! resumed report equals an uninterrupted one), or when its call failed for a
//! reason other than a cancel. Cancelled calls and records without an answer
//! are sent again; records naming a model or sample this run does not have are
//! reported; prompt failures are not taken over (they are found again at start).

use super::engine::{PriorCall, TaskEngine};
use crate::events::resume::call_error;
use crate::events::ReadLog;
use crate::provider::ErrorKind;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};

/// What can be taken over from a task run's log.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TaskResumable {
    /// The interrupted run's id (from `meta`).
    pub run_id: Option<String>,
    /// Settled calls, in job order.
    pub calls: Vec<PriorCall>,
    /// `model/sample` of records this run has no job for (ignored).
    pub unknown: Vec<String>,
    /// `model/sample` of records that will be sent again.
    pub rerun: Vec<String>,
}

/// Reads the settled calls of `log` against the jobs of `engine`.
pub fn resumable(log: &ReadLog, engine: &TaskEngine) -> TaskResumable {
    let meta = log.of_type("meta").next();
    let mut out = TaskResumable {
        run_id: meta
            .and_then(|m| m.get("run_id"))
            .and_then(Value::as_str)
            .map(str::to_string),
        ..TaskResumable::default()
    };
    let n = engine.samples().len();
    let samples: HashMap<&str, usize> = engine
        .samples()
        .iter()
        .enumerate()
        .map(|(i, s)| (s.sample.id.as_str(), i))
        .collect();
    let models: HashMap<&str, usize> = engine
        .config()
        .models
        .iter()
        .enumerate()
        .map(|(i, m)| (m.name.as_str(), i))
        .collect();
    let mut latest: BTreeMap<usize, (&Value, String)> = BTreeMap::new();
    for record in log.of_type("case") {
        let text = |k: &str| record.get(k).and_then(Value::as_str);
        let (Some(model), Some(id)) = (text("model"), text("case_id")) else {
            continue;
        };
        let key = format!("{model}/{id}");
        match (models.get(model), samples.get(id)) {
            (Some(m), Some(s)) => {
                latest.insert(m * n + s, (record, key));
            }
            _ => out.unknown.push(key),
        }
    }
    for (job, (record, key)) in latest {
        match rebuild(job, record) {
            Some(Some(call)) => out.calls.push(call),
            Some(None) => {}
            None => out.rerun.push(key),
        }
    }
    out
}

/// `Some(Some(call))` to take over, `Some(None)` to skip (a prompt failure),
/// `None` to send again.
fn rebuild(job: usize, r: &Value) -> Option<Option<PriorCall>> {
    let attempts = r.get("attempts").and_then(Value::as_u64).unwrap_or(1);
    let elapsed_ms = r.get("elapsed_ms").and_then(Value::as_u64).unwrap_or(0);
    let outcome = if r.get("llm_call_ok").and_then(Value::as_bool)? {
        Ok(crate::events::record::answer_of(r)?)
    } else {
        let mut e = call_error(
            r.get("error_detail")?,
            r.get("error").and_then(Value::as_str),
        )?;
        e.usage = crate::events::record::usage_of(r).map(Box::new);
        if e.kind == ErrorKind::Prompt {
            return Some(None);
        }
        Err(e)
    };
    Some(Some(PriorCall {
        job,
        outcome,
        attempts: u32::try_from(attempts).unwrap_or(u32::MAX),
        elapsed_ms,
    }))
}
