//! `--resume-from FILE`: take over the cases an interrupted run already settled
//! (a dialog run's settled turns), from its event log (json-seq or JSONL, a
//! cut last record tolerated), so only the rest is sent. The resumed run keeps
//! the interrupted run's id.

use crate::error::CliError;
use evalpage_core::events::{self, ReadLog};
use std::path::Path;

/// Reads an event log (json-seq or JSONL); a cut last record is reported and ignored.
pub fn read_log(path: &Path) -> Result<ReadLog, CliError> {
    let bytes = std::fs::read(path).map_err(|e| {
        CliError::Usage(format!("cannot read --resume-from {}: {e}", path.display()))
    })?;
    let log = events::read(&bytes);
    if log.records.is_empty() {
        return Err(CliError::Usage(format!(
            "--resume-from {}: no readable event record (expected an evalpage event log, json-seq or JSONL)",
            path.display()
        )));
    }
    if log.truncated_tail {
        eprintln!(
            "evalpage: {}: the last record was cut off and is ignored",
            path.display()
        );
    }
    Ok(log)
}

/// The interrupted run's id (its `meta` record's): a resumed run keeps it.
pub fn run_id(log: &ReadLog) -> Option<String> {
    log.of_type("meta")
        .next()
        .and_then(|m| m.get("run_id"))
        .and_then(serde_json::Value::as_str)
        .map(str::to_string)
}

/// The log of `--resume-from` (when given) and the run's id: the
/// interrupted run's (a resumed run keeps it), else `fresh()`.
pub fn log_and_run_id(
    resume_from: Option<&Path>,
    fresh: impl FnOnce() -> String,
) -> Result<(Option<ReadLog>, String), CliError> {
    let log = resume_from.map(read_log).transpose()?;
    let run_id = log.as_ref().and_then(run_id).unwrap_or_else(fresh);
    Ok((log, run_id))
}
