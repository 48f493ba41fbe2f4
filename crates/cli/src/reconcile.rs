//! `evalpage reconcile`: reads a final report and an event log and prints the
//! core's reconciliation (spec 000 section 5), one line per check. Exit 0 when
//! every check agrees, 1 when one does not, 2 when an input cannot be read.

use crate::args::ReconcileArgs;
use crate::error::CliError;
use evalpage_core::events::{self, Reconciliation};
use serde_json::Value;

/// Runs the checks and prints them to stdout.
pub fn check(args: &ReconcileArgs) -> Result<(), CliError> {
    let report: Value =
        serde_json::from_slice(&read(&args.report)?).map_err(|e| CliError::Input {
            path: args.report.display().to_string(),
            message: format!("not a JSON report: {e}"),
        })?;
    let log = events::read(&read(&args.events)?);
    let rec = events::reconcile(&report, &log);
    for line in render(&rec) {
        println!("{line}");
    }
    match rec.checks.iter().filter(|c| !c.ok).count() {
        0 => Ok(()),
        n => Err(CliError::Mismatch(n)),
    }
}

use crate::files::read_input as read;

/// `ok   name: report=.. log=..` per check, then the notes.
pub fn render(rec: &Reconciliation) -> Vec<String> {
    let checks = rec.checks.iter().map(|c| {
        let mark = if c.ok { "ok  " } else { "FAIL" };
        format!("{mark} {}: report={} log={}", c.name, c.report, c.log)
    });
    let notes = rec.notes.iter().map(|n| format!("note {n}"));
    checks.chain(notes).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use evalpage_core::events::Check;

    #[test]
    fn renders_checks_and_notes() {
        let rec = Reconciliation {
            ok: false,
            checks: vec![Check {
                name: "case records".into(),
                report: "3".into(),
                log: "2".into(),
                ok: false,
            }],
            notes: vec!["the last record of the log was cut off and was ignored".into()],
        };
        let lines = render(&rec);
        assert_eq!(lines[0], "FAIL case records: report=3 log=2");
        assert!(lines[1].starts_with("note the last record"));
    }
}
