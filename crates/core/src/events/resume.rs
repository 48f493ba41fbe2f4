//! Rebuilds what an interrupted run had already settled from its event log, so
//! a new run can `Engine::restore` it and send only the rest.
//!
//! A `case` record counts as settled when its call succeeded and it carries the
//! full `answer` (re-scored with the current scoring settings, so the resumed
//! report equals an uninterrupted one), or when its call failed for a reason other
//! than a cancel, a case not run, or a fatal answer (401, 403, 404: what the resume
//! fixed). Those, cases without an answer, and records naming an
//! id the dataset does not have are sent again or reported.

use super::record::TurnRecord;
use super::ReadLog;
use crate::provider::{Answer, CallError, ErrorKind};
use serde_json::Value;
use std::collections::BTreeMap;

/// What can be taken over from a log.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Resumable {
    /// The interrupted run's id (from its `meta` record).
    pub run_id: Option<String>,
    /// Dataset name recorded in `meta`.
    pub dataset: Option<String>,
    /// Settled calls, in dataset order.
    pub calls: Vec<PriorCall>,
    /// Case ids in the log that are not in the dataset (ignored).
    pub unknown_ids: Vec<String>,
    /// Case ids that will be sent again (cancelled or without a stored answer).
    pub rerun_ids: Vec<String>,
}

/// One call an interrupted run settled, as its event log recorded it.
#[derive(Clone, Debug, PartialEq)]
pub struct PriorCall {
    /// Job number in this run (the kind's numbering).
    pub job: usize,
    /// The answer, or the error of the last attempt.
    pub outcome: Result<Answer, CallError>,
    /// Attempts made.
    pub attempts: u32,
    /// Time from first send to outcome.
    pub elapsed_ms: u64,
    /// The record's `judgements` (a judged task case: each judged metric's
    /// judge answers), for a kind that takes them over.
    pub judgements: Option<BTreeMap<String, Value>>,
    /// The record's `turns_ok` (a dialog: turn pairs answered before it ended).
    pub turns_ok: Option<usize>,
    /// The record's `trajectory` (an agent case: its messages after the
    /// prompt) and `agent` (its loop's figures).
    pub trajectory: Option<Vec<crate::toolcall::message::ChatMessage>>,
    /// The record's `agent`.
    pub agent: Option<crate::agent::AgentRecord>,
}

/// What a log gives a new run, for every kind: the settled calls by job,
/// the `case` records that name no job of this run (`model/case` or `case`),
/// and the jobs that must be sent again (cancelled, or without an answer).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Prior {
    /// The interrupted run's id (a resumed run keeps it).
    pub run_id: Option<String>,
    /// The dataset named in its `meta`.
    pub dataset: Option<String>,
    /// Settled calls, in job order.
    pub calls: Vec<PriorCall>,
    /// Records naming no job of this run.
    pub unknown: Vec<String>,
    /// Records whose job is sent again.
    pub rerun: Vec<String>,
    /// The settled turns of dialogs (`turn` records) by job, then by
    /// `turn_pair_id`; the last record of a turn counts.
    pub turns: BTreeMap<usize, BTreeMap<usize, TurnRecord>>,
    /// The jobs with `step` records (an agent's model calls), by key
    /// (`model/case`, `#repeat`): a job among them not settled is a
    /// trajectory the log cut.
    pub stepped: BTreeMap<usize, String>,
}

/// The one reader of an interrupted run's settled calls, for every kind of
/// run: `job_of(model, case_id, repeat)` numbers a record's job in the new
/// run (`None`: not one of its jobs; `repeat` is the record's, when the run
/// asked each case several times). The last record of a job counts. A record
/// counts when its call succeeded and it carries the full `answer`, or when
/// it failed for a reason other than a cancel; `skip` drops failures a kind
/// finds again by itself (a task's prompt that cannot be rendered). A dialog
/// run's `turn` records are read too (`Prior::turns`), by the same numbering.
pub fn prior_calls(
    log: &ReadLog,
    job_of: impl Fn(Option<&str>, &str, Option<u32>) -> Option<usize>,
    skip: impl Fn(&CallError) -> bool,
) -> Prior {
    let meta = log.of_type("meta").next();
    let text = |v: Option<&Value>, k: &str| {
        v.and_then(|v| v.get(k))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let mut out = Prior {
        run_id: text(meta, "run_id"),
        dataset: text(meta, "dataset"),
        ..Prior::default()
    };
    let mut latest: BTreeMap<usize, (&Value, String)> = BTreeMap::new();
    for record in log.of_type("case") {
        let Some((job, key)) = job_and_key(record, &job_of) else {
            continue;
        };
        match job {
            Some(job) => {
                latest.insert(job, (record, key));
            }
            None => out.unknown.push(key),
        }
    }
    for record in log.of_type("step") {
        if let Some((Some(job), key)) = job_and_key(record, &job_of) {
            out.stepped.insert(job, key);
        }
    }
    for record in log.of_type("turn") {
        let Ok(turn) = serde_json::from_value::<TurnRecord>(record.clone()) else {
            continue;
        };
        match job_of(None, &turn.case_id, None) {
            Some(job) => {
                out.turns
                    .entry(job)
                    .or_default()
                    .insert(turn.turn_pair_id, turn);
            }
            None if !out.unknown.contains(&turn.case_id) => out.unknown.push(turn.case_id),
            None => {}
        }
    }
    for (job, (record, key)) in latest {
        match rebuild(job, record) {
            Some(call) if call.outcome.as_ref().err().is_some_and(&skip) => {}
            Some(call) => out.calls.push(call),
            None => out.rerun.push(key),
        }
    }
    out
}

/// A record's job in the new run (`None`: not one of its jobs) and its key
/// (`model/case#repeat`); `None` without a `case_id`.
fn job_and_key(
    record: &Value,
    job_of: &impl Fn(Option<&str>, &str, Option<u32>) -> Option<usize>,
) -> Option<(Option<usize>, String)> {
    let model = record.get("model").and_then(Value::as_str);
    let id = record.get("case_id").and_then(Value::as_str)?;
    let repeat = record
        .get("repeat")
        .and_then(Value::as_u64)
        .and_then(|r| u32::try_from(r).ok());
    let mut key = model.map_or(id.to_string(), |m| format!("{m}/{id}"));
    if let Some(r) = repeat {
        key.push_str(&format!("#{r}"));
    }
    Some((job_of(model, id, repeat), key))
}

fn rebuild(job: usize, r: &Value) -> Option<PriorCall> {
    let attempts = r.get("attempts").and_then(Value::as_u64).unwrap_or(1);
    let elapsed_ms = r.get("elapsed_ms").and_then(Value::as_u64).unwrap_or(0);
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
    let judgements = r.get("judgements").and_then(Value::as_object).map(|o| {
        o.iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect::<BTreeMap<String, Value>>()
    });
    let turns_ok = r
        .get("turns_ok")
        .and_then(Value::as_u64)
        .and_then(|n| usize::try_from(n).ok());
    Some(PriorCall {
        job,
        outcome,
        attempts: u32::try_from(attempts).unwrap_or(u32::MAX),
        elapsed_ms,
        judgements,
        turns_ok,
        trajectory: r
            .get("trajectory")
            .and_then(|t| serde_json::from_value(t.clone()).ok()),
        agent: r
            .get("agent")
            .and_then(|a| serde_json::from_value(a.clone()).ok()),
    })
}

fn call_error(detail: &Value, short: Option<&str>) -> Option<CallError> {
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
