//! Opening a saved run: one file (a report or an event log) or several (a
//! run's zip or folder, a dialog run's files, another tool's results).

use super::*;

/// Why a saved run could not be opened: each names the file and what was
/// expected.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum OpenError {
    /// Several files of which none is a run's report, log or dialog files.
    #[error(
        "{label}: no report ({reports}), event log or dialog evaluation files (it has: {has})"
    )]
    NoRunFile {
        /// The files as shown.
        label: String,
        /// The report names looked for, comma-separated.
        reports: String,
        /// The files' names, comma-separated.
        has: String,
    },
    /// A file that starts with neither a JSON object nor a json-seq record.
    #[error("{name}: expected a report.json (a JSON object) or an event log (.jsonl / .json-seq)")]
    NotJsonObject {
        /// The file.
        name: String,
    },
    /// A report that is not UTF-8 text.
    #[error("{name}: not UTF-8 text at byte {at}: expected a report.json")]
    NotUtf8 {
        /// The file.
        name: String,
        /// The first byte that is not.
        at: usize,
    },
    /// A JSON object that is not a report of evalpage's.
    #[error("{name}: not a report.json of evalpage ({why}); open a report.json, an event log or a run's zip")]
    NotAReport {
        /// The file.
        name: String,
        /// serde's reason.
        why: String,
    },
    /// JSON lines without a `meta` or `case` record.
    #[error("{name}: no `meta` or `case` record: not an evalpage event log")]
    NotAnEventLog {
        /// The file.
        name: String,
    },
    /// Other tools' files of more than one run.
    #[error("{label}: {runs} runs; open one run at a time (an lm-evaluation-harness output's samples and results files, or an Evals API run and its output items, are one run)")]
    SeveralRuns {
        /// The files as shown.
        label: String,
        /// How many runs they hold.
        runs: usize,
    },
    /// Another tool's files the importers could not read.
    #[error(transparent)]
    Import(#[from] crate::import::ImportError),
}

/// Opens a saved run given as several files (a run's zip or folder, or
/// files picked together), `label` naming them: a dialog evaluation's files
/// (`dialog_trace.jsonl`, `turn_eval.jsonl`, `metrics_summary.json`, ...)
/// open as one; else its report (`report.json`, or spec 000's
/// `eval_rag_report.json` / `eval_retrieval_report.json`; with `results.jsonl`
/// for the task grid's view), else its event log. One file opens as
/// [`load`] reads it.
pub fn open_files(label: &str, files: &[(String, Vec<u8>)]) -> Result<ViewData, OpenError> {
    if let Some(read) = crate::dialog::artifacts::read_back(files) {
        return Ok(dialog::view(label, read));
    }
    let pick = |want: &str| {
        files
            .iter()
            .find(|(n, _)| crate::dataset::file_name(n) == want)
    };
    let main = RunKind::report_files()
        .into_iter()
        .chain(RunKind::event_log_files())
        .find_map(pick);
    let (name, bytes) = match (main, files) {
        (Some(f), _) => f,
        (None, [one]) => one,
        (None, _) => {
            return Err(OpenError::NoRunFile {
                label: label.to_string(),
                reports: RunKind::report_files().join(", "),
                has: files
                    .iter()
                    .map(|(n, _)| n.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            })
        }
    };
    let mut data = load(name, bytes)?;
    match (&data.look, pick("results.jsonl")) {
        (Look::Task(_), Some((results, text))) => task::attach(&mut data, results, text),
        (_, Some((results, text))) => timing::attach(&mut data, results, text),
        _ => {}
    }
    Ok(data)
}

/// Whether a file is another evaluator's (promptfoo, Inspect AI, lm-eval,
/// OpenAI Evals), which the viewer opens through the import
/// (`crate::import`): an Inspect `.eval` is a zip, but not a run's zip.
pub fn is_import(name: &str, bytes: &[u8]) -> bool {
    crate::import::detect(name, bytes).is_some()
}

/// Another evaluator's run ([`is_import`]), imported and shown as a report,
/// with what the import noted (parts it could not read, where the source's
/// own figures differ, what it could not carry) among the notes. Apart from
/// [`open_files`], so that a page links the importers only where it asks for
/// them (the viewer's split point `import`).
pub fn open_import(label: &str, files: &[(String, Vec<u8>)]) -> Result<ViewData, OpenError> {
    open_import_first(label, files, None)
}

/// [`open_import`] of the first `limit` samples (a first look at a big file).
pub fn open_import_first(
    label: &str,
    files: &[(String, Vec<u8>)],
    limit: Option<usize>,
) -> Result<ViewData, OpenError> {
    let groups = crate::import::group(files)?;
    if groups.len() > 1 {
        return Err(OpenError::SeveralRuns {
            label: label.to_string(),
            runs: groups.len(),
        });
    }
    let parts: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(n, b)| (n.as_str(), b.as_slice()))
        .collect();
    let imported = crate::import::import_first(&parts, limit)?;
    let r = &imported.report;
    let ec = &r.report.experiment.evaluator_config;
    let mut notes = Vec::new();
    if let Some(n) = limit.filter(|n| r.cases.len() >= *n) {
        notes.push(format!(
            "the first {n} samples, while the rest of the file is read"
        ));
    }
    notes.push(format!(
        "imported from {} {}",
        imported.tool.name(),
        r.report.experiment.run_config["tool_version"]
            .as_str()
            .unwrap_or_default()
    ));
    for e in r.report.line_errors.iter().flatten().take(20) {
        notes.push(format!("{e} (skipped)"));
    }
    for (key, prefix) in [
        ("differences", "differs from the source"),
        ("not_carried", "not carried"),
    ] {
        for d in ec[key].as_array().into_iter().flatten() {
            notes.push(format!("{prefix}: {}", d.as_str().unwrap_or_default()));
        }
    }
    let mut data = from_report_owned(imported.report, label);
    data.notes.extend(notes);
    Ok(data)
}

/// Reads a saved run: a `report.json` (spec 003's `EvaluationResult`) or an
/// event log (JSONL or RFC 7464 json-seq, a cut-off last record tolerated).
/// The error names the file and what was expected.
pub fn load(name: &str, bytes: &[u8]) -> Result<ViewData, OpenError> {
    let first = bytes.iter().copied().find(|b| !b.is_ascii_whitespace());
    let log_name = name.ends_with(".jsonl") || name.ends_with(".json-seq");
    if first == Some(0x1e) || log_name {
        return log_view(name, bytes);
    }
    if first != Some(b'{') {
        return Err(OpenError::NotJsonObject {
            name: name.to_string(),
        });
    }
    // Read as text once: every typed reader below then shares one
    // instantiation of serde_json's reader (a `from_slice` beside the
    // `from_str`s doubled each report type's deserializer in the viewer).
    let text = std::str::from_utf8(bytes).map_err(|e| OpenError::NotUtf8 {
        name: name.to_string(),
        at: e.valid_up_to(),
    })?;
    if let Ok(r) = serde_json::from_str::<lite::Report<'_>>(text) {
        return Ok(lite::view(text, r, name));
    }
    match serde_json::from_str::<EvaluationResult>(text) {
        Ok(r) => Ok(from_report(&r, name)),
        Err(e) => {
            // One JSON object per line with `record_type`: an event log.
            let line = bytes.split(|b| *b == b'\n').next().unwrap_or_default();
            let record = serde_json::from_slice::<Value>(line)
                .ok()
                .is_some_and(|v| v.get("record_type").is_some());
            if record {
                log_view(name, bytes)
            } else {
                Err(OpenError::NotAReport {
                    name: name.to_string(),
                    why: e.to_string(),
                })
            }
        }
    }
}
