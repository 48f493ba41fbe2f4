//! `evalpage report FILE --format md|csv|json --out DIR`: a saved
//! `report.json` (of any kind of run) rendered again without re-running it,
//! through the core's renderers (`saved_markdown`, `saved_summary_csv`, the
//! report type's own serializer). Also the one reader of saved reports that
//! `evalpage compare` uses. Exit 2 when the file cannot be read or is not a
//! report, 1 when the output cannot be written.

use crate::args::{ReportArgs, ReportFormat};
use crate::error::CliError;
use evalpage_core::{saved_markdown, saved_summary_csv, EvaluationResult};
use std::path::{Path, PathBuf};

/// Renders the report in the asked format into `--out`.
pub fn execute(args: &ReportArgs) -> Result<(), CliError> {
    let (path, report) = read_report(&args.file)?;
    let (name, text) = match args.format {
        ReportFormat::Md => ("report.md", saved_markdown(&report, args.lang.into())),
        ReportFormat::Csv => (
            "summary.csv",
            saved_summary_csv(&report).map_err(|e| CliError::Input {
                path: path.display().to_string(),
                message: e.to_string(),
            })?,
        ),
        ReportFormat::Json => (
            "report.json",
            serde_json::to_string_pretty(&report)
                .map(|s| s + "\n")
                .map_err(|e| CliError::Usage(format!("cannot serialize the report: {e}")))?,
        ),
    };
    std::fs::create_dir_all(&args.out).map_err(|e| CliError::output(&args.out, e))?;
    let target = args.out.join(name);
    std::fs::write(&target, text).map_err(|e| CliError::output(&target, e))?;
    eprintln!(
        "evalpage: rendered {} as {}",
        path.display(),
        target.display()
    );
    Ok(())
}

/// Pretty JSON and a newline.
pub fn pretty(v: &serde_json::Value) -> Result<String, CliError> {
    serde_json::to_string_pretty(v)
        .map(|s| s + "\n")
        .map_err(|e| CliError::Usage(format!("cannot serialize: {e}")))
}

/// Reads a saved report: the file itself, or `report.json` in a run
/// directory. Errors name the file and what is wrong with it (the line and
/// column of a JSON problem).
pub fn read_report(given: &Path) -> Result<(PathBuf, EvaluationResult), CliError> {
    let path = if given.is_dir() {
        let inner = given.join("report.json");
        if !inner.is_file() {
            return Err(CliError::Input {
                path: given.display().to_string(),
                message: "a directory without report.json (give a run's output directory or its report.json)".into(),
            });
        }
        inner
    } else {
        given.to_path_buf()
    };
    let shown = path.display().to_string();
    let bytes = std::fs::read(&path).map_err(|e| CliError::Input {
        path: shown.clone(),
        message: format!("cannot read it: {e}"),
    })?;
    let report = serde_json::from_slice::<EvaluationResult>(&bytes).map_err(|e| {
        let what = e.to_string();
        let what = what
            .rsplit_once(" at line ")
            .map_or(what.as_str(), |(head, _)| head)
            .to_string();
        CliError::Input {
            path: format!("{shown}:{}:{}", e.line(), e.column()),
            message: format!("not a saved report.json (spec 003 EvaluationResult with metrics, scores and report): {what}"),
        }
    })?;
    Ok((path, report))
}
