//! Opening a saved run: one file (a report or an event log) or several (a
//! run's zip or folder, a dialog run's files, another tool's results).

use super::*;

/// Opens a saved run given as several files (a run's zip or folder, or
/// files picked together), `label` naming them: a dialog evaluation's files
/// (`dialog_trace.jsonl`, `turn_eval.jsonl`, `metrics_summary.json`, ...)
/// open as one; else its report (`report.json`, or spec 000's
/// `eval_rag_report.json` / `eval_retrieval_report.json`; with `results.jsonl`
/// for the task grid's view), else its event log. One file opens as
/// [`load`] reads it.
pub fn open_files(label: &str, files: &[(String, Vec<u8>)]) -> Result<ViewData, String> {
    if let Some(read) = crate::dialog::artifacts::read_back(files) {
        return Ok(dialog::view(label, read));
    }
    let pick = |want: &str| {
        files
            .iter()
            .find(|(n, _)| crate::dataset::file_name(n) == want)
    };
    let main = crate::report::REPORT_FILES
        .iter()
        .chain(&crate::report::EVENT_LOG_FILES)
        .find_map(|want| pick(want));
    let (name, bytes) = match (main, files) {
        (Some(f), _) => f,
        (None, [one]) => one,
        (None, _) => {
            return Err(format!(
                "{label}: no report.json (eval_rag_report.json, eval_retrieval_report.json), event log or dialog evaluation files (it has: {})",
                files
                    .iter()
                    .map(|(n, _)| n.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
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
pub fn open_import(label: &str, files: &[(String, Vec<u8>)]) -> Result<ViewData, String> {
    open_import_first(label, files, None)
}

/// [`open_import`] of the first `limit` samples (a first look at a big file).
pub fn open_import_first(
    label: &str,
    files: &[(String, Vec<u8>)],
    limit: Option<usize>,
) -> Result<ViewData, String> {
    let groups = crate::import::group(files).map_err(|e| e.to_string())?;
    if groups.len() > 1 {
        return Err(format!(
            "{label}: {} runs; open one run at a time (an lm-evaluation-harness output's samples and results files, or an Evals API run and its output items, are one run)",
            groups.len()
        ));
    }
    let parts: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(n, b)| (n.as_str(), b.as_slice()))
        .collect();
    let imported = crate::import::import_first(&parts, limit).map_err(|e| e.to_string())?;
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
pub fn load(name: &str, bytes: &[u8]) -> Result<ViewData, String> {
    let first = bytes.iter().copied().find(|b| !b.is_ascii_whitespace());
    let log_name = name.ends_with(".jsonl") || name.ends_with(".json-seq");
    if first == Some(0x1e) || log_name {
        return log_view(name, bytes);
    }
    if first != Some(b'{') {
        return Err(format!(
            "{name}: expected a report.json (a JSON object) or an event log (.jsonl / .json-seq)"
        ));
    }
    // Read as text once: every typed reader below then shares one
    // instantiation of serde_json's reader (a `from_slice` beside the
    // `from_str`s doubled each report type's deserializer in the viewer).
    let text = std::str::from_utf8(bytes).map_err(|e| {
        format!(
            "{name}: not UTF-8 text at byte {}: expected a report.json",
            e.valid_up_to()
        )
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
                Err(format!(
                    "{name}: not a report.json of evalpage ({e}); open a report.json, an event log or a run's zip"
                ))
            }
        }
    }
}
