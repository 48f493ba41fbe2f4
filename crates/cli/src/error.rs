//! The CLI's error type. Each variant knows its exit code: 2 for problems with
//! what the user gave (flags, environment, dataset), 3 for a run stopped at a
//! fatal answer (401, 403, 404) or before sending anything (a task whose
//! prompt renders for no sample), 1 for other failures while running.

use std::io;
use std::path::Path;

/// Why `evalpage` stopped before finishing its work.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// Flags or environment that cannot work together.
    #[error("{0}")]
    Usage(String),
    /// The dataset file could not be read.
    #[error("cannot read dataset {path}")]
    DatasetRead {
        /// The path as given.
        path: String,
        /// The underlying error.
        source: io::Error,
    },
    /// An input file other than the dataset could not be read or parsed.
    #[error("cannot use {path}: {message}")]
    Input {
        /// The path as given.
        path: String,
        /// What was wrong.
        message: String,
    },
    /// A task or prompt template file is invalid; one located message per line.
    #[error("{path}: {} error(s):\n{}", errors.len(), errors.join("\n"))]
    TaskInvalid {
        /// The task (or template) as given.
        path: String,
        /// Every error, `file:line: `key.path`: message`.
        errors: Vec<String>,
    },
    /// The event log and the final report disagree.
    #[error("the event log does not reconcile with the report ({0} check(s) disagree)")]
    Mismatch(usize),
    /// The dataset has no usable line.
    #[error("{path}: no valid case ({skipped} line(s) skipped); nothing to evaluate")]
    NoCases {
        /// The path as given.
        path: String,
        /// Lines skipped as invalid.
        skipped: usize,
    },
    /// An output file or directory could not be written.
    #[error("cannot write {path}")]
    Output {
        /// The file or directory.
        path: String,
        /// The underlying error.
        source: io::Error,
    },
    /// The run stopped at a fatal answer (401, 403, 404), or before sending
    /// anything because no sample's prompt renders: what to fix.
    #[error("{0}")]
    Stopped(String),
    /// `evalpage compare`: a --fail-if-drop rule failed (the reasons are printed).
    #[error("the regression gate failed: {0} rule check(s) found a significant drop larger than allowed")]
    GateFailed(usize),
    /// `evalpage agree`: a --fail-if-kappa-below gate failed (the reasons are printed).
    #[error("the agreement gate failed: {0} metric(s) agree with people less than required")]
    KappaGate(usize),
    /// The mock server could not start.
    #[error("cannot listen on 127.0.0.1:{port}: {message}")]
    Listen {
        /// Requested port.
        port: u16,
        /// What the OS said.
        message: String,
    },
}

impl CliError {
    /// The process exit code for this error.
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Usage(_)
            | CliError::DatasetRead { .. }
            | CliError::Input { .. }
            | CliError::TaskInvalid { .. }
            | CliError::NoCases { .. } => 2,
            CliError::Output { .. }
            | CliError::Listen { .. }
            | CliError::Mismatch(_)
            | CliError::GateFailed(_)
            | CliError::KappaGate(_) => 1,
            CliError::Stopped(_) => 3,
        }
    }

    /// An `Output` error for this path.
    pub fn output(path: &Path, source: io::Error) -> CliError {
        CliError::Output {
            path: path.display().to_string(),
            source,
        }
    }
}

/// The first words of the error of a run that stopped before sending
/// anything (`run`, `batch export` and `score` match on them).
pub(crate) const NOTHING_SENT: &str = "the run stopped before sending anything";

/// What to do about a task run no sample's prompt of which renders.
pub(crate) const PROMPT_FIX: &str = "add the field to the samples or change the template \
     (`evalpage task check TASK` lists the fields it reads), then run again";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_errors_exit_2_and_run_errors_exit_1() {
        assert_eq!(CliError::Usage("x".into()).exit_code(), 2);
        let missing = io::Error::new(io::ErrorKind::NotFound, "gone");
        let e = CliError::DatasetRead {
            path: "d.jsonl".into(),
            source: missing,
        };
        assert_eq!(e.exit_code(), 2);
        assert!(e.to_string().contains("d.jsonl"));
        let denied = io::Error::new(io::ErrorKind::PermissionDenied, "no");
        assert_eq!(CliError::output(Path::new("o"), denied).exit_code(), 1);
    }
}
