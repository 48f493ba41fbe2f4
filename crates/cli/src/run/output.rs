//! What a run leaves behind: the two event logs, appended and flushed record by
//! record so a killed run leaves a readable prefix; the `[EVAL]` console lines;
//! and, at the end, the files the run's kind renders (`run::Finish`).

use crate::error::CliError;
use evalpage_core::events::{self, Record};
use evalpage_core::report::ReportNames;
use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The output directory and its open event logs.
#[derive(Debug)]
pub struct Output {
    dir: PathBuf,
    seq: File,
    jsonl: File,
    /// The kind's report and event log names (a `summary` record names the
    /// report).
    names: ReportNames,
    /// A side log opened by its first line (a dialog run's progress file).
    side: Option<(String, File)>,
}

impl Output {
    /// Creates the directory if needed and starts both event logs, named by
    /// `names`, afresh.
    pub fn create(dir: &Path, names: ReportNames) -> Result<Output, CliError> {
        std::fs::create_dir_all(dir).map_err(|e| CliError::output(dir, e))?;
        let open = |name: &str| {
            let path = dir.join(name);
            File::create(&path).map_err(|e| CliError::output(&path, e))
        };
        Ok(Output {
            dir: dir.to_path_buf(),
            seq: open(names.json_seq)?,
            jsonl: open(names.jsonl)?,
            names,
            side: None,
        })
    }

    /// Appends one line to the side log `name` (created afresh by its first
    /// line) and flushes it.
    pub fn append_line(&mut self, name: &str, line: &str) -> Result<(), CliError> {
        let path = self.path(name);
        if self.side.as_ref().is_none_or(|(n, _)| n != name) {
            let file = File::create(&path).map_err(|e| CliError::output(&path, e))?;
            self.side = Some((name.to_string(), file));
        }
        match &mut self.side {
            Some((_, file)) => {
                append(file, &format!("{line}\n")).map_err(|e| CliError::output(&path, e))
            }
            None => Ok(()),
        }
    }

    /// The path of a file in the output directory.
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// Appends one record to both logs and flushes them. A `summary` record is
    /// given the path of the final report first.
    pub fn record(&mut self, mut record: Record) -> Result<(), CliError> {
        if let Record::Summary(s) = &mut record {
            s.final_report_path = Some(self.path(self.names.report).display().to_string());
        }
        self.append_both(&events::to_jsonl(&record))
    }

    /// One JSONL line (as `events::to_jsonl` writes it) to both logs: as is,
    /// and behind the RFC 7464 record separator.
    fn append_both(&mut self, line: &str) -> Result<(), CliError> {
        append(&mut self.seq, &format!("\u{1e}{line}"))
            .map_err(|e| CliError::output(&self.path(self.names.json_seq), e))?;
        append(&mut self.jsonl, line).map_err(|e| CliError::output(&self.path(self.names.jsonl), e))
    }

    /// Writes (replaces) one file in the output directory.
    pub fn write_file(&self, name: &str, text: &str) -> Result<(), CliError> {
        let path = self.path(name);
        std::fs::write(&path, text).map_err(|e| CliError::output(&path, e))
    }
}

/// One whole record in one write, then a flush: a kill can cut at most the last one.
fn append(file: &mut File, text: &str) -> io::Result<()> {
    file.write_all(text.as_bytes())?;
    file.flush()
}

/// Prints a console line to stdout and flushes, so a pipe sees it at once.
pub fn say(line: &str) {
    let mut out = io::stdout().lock();
    // A closed stdout (e.g. `| head`) must not stop the run: the files still matter.
    let _ = writeln!(out, "{line}").and_then(|()| out.flush());
}

#[cfg(test)]
mod tests {
    use super::*;
    use evalpage_core::events::SummaryRecord;

    fn scratch(name: &str) -> PathBuf {
        std::env::temp_dir().join(format!("evalpage-cli-unit-{name}-{}", std::process::id()))
    }

    #[test]
    fn records_are_appended_to_both_logs_and_summary_names_the_report() {
        let dir = scratch("output");
        let names = evalpage_core::RunKind::Rag.names();
        let mut out = Output::create(&dir.join("nested"), names).expect("create");
        out.record(Record::error("r", "boom", 1)).expect("write");
        out.record(Record::Summary(SummaryRecord {
            run_id: "r".into(),
            ts_ms: 2,
            status: "done".into(),
            metrics: Default::default(),
            elapsed_ms_total: 1,
            final_report_path: None,
        }))
        .expect("write");
        let seq = std::fs::read(out.path(names.json_seq)).expect("read seq");
        let log = events::read(&seq);
        assert_eq!(log.records.len(), 2);
        let path = log.records[1]["final_report_path"].as_str().unwrap_or("");
        assert!(path.ends_with("eval_rag_report.json"), "{path}");
        let jsonl = std::fs::read(out.path(names.jsonl)).expect("read jsonl");
        assert_eq!(events::read(&jsonl).records, log.records);
        let _ = std::fs::remove_dir_all(dir);
    }
}
