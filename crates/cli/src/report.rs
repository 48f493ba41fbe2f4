//! `evalpage report FILE --format md|csv|json --out DIR`: a saved run (its
//! directory, or its report with `results.jsonl` beside it) rendered again
//! without re-running it, through the core's renderers (`view::report_md`,
//! the same kind's renderer the run used, so `report.md` comes out as the run
//! wrote it; `saved_summary_csv`; the report type's own serializer). A lone
//! report renders what it holds, and the command says on stderr what it
//! cannot show and why. Also the one reader of saved reports that `evalpage
//! compare` uses. Exit 2 when the file cannot be read or is not a report, 1
//! when the output cannot be written.

use crate::args::{ReportArgs, ReportFormat};
use crate::error::CliError;
use evalpage_core::report::REPORT_FILES;
use evalpage_core::{saved_summary_csv, EvaluationResult, Lang};
use std::path::{Path, PathBuf};

/// Renders the report in the asked format into `--out`.
pub fn execute(args: &ReportArgs) -> Result<(), CliError> {
    let (path, report) = read_report(&args.file)?;
    let (name, text) = match args.format {
        ReportFormat::Md => ("report.md", markdown(&path, &report, args.lang.into())?),
        ReportFormat::Csv => (
            "summary.csv",
            saved_summary_csv(&report).map_err(|e| CliError::Input {
                path: path.display().to_string(),
                message: e.to_string(),
            })?,
        ),
        ReportFormat::Json => (
            // The name it was read under (spec 000's for a RAG check or a
            // retrieval run), else `report.json`.
            REPORT_FILES
                .into_iter()
                .find(|n| path.file_name().is_some_and(|f| f == *n))
                .unwrap_or(REPORT_FILES[0]),
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

/// `report.md` of the report read from `path`, with the run's
/// `results.jsonl` beside it when there is one; what a lone report cannot
/// show is said on stderr.
fn markdown(path: &Path, report: &EvaluationResult, lang: Lang) -> Result<String, CliError> {
    let results_path = path.with_file_name("results.jsonl");
    let results = match std::fs::read_to_string(&results_path) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => {
            return Err(CliError::Input {
                path: results_path.display().to_string(),
                message: format!("cannot read it: {e}"),
            })
        }
    };
    let rendered =
        evalpage_core::view::report_md(report, results.as_deref(), lang).map_err(|e| {
            CliError::Input {
                path: results_path.display().to_string(),
                message: e,
            }
        })?;
    for what in &rendered.missing {
        eprintln!("evalpage: {} alone cannot show {what}", path.display());
    }
    Ok(rendered.markdown)
}

/// Pretty JSON and a newline.
pub fn pretty(v: &serde_json::Value) -> Result<String, CliError> {
    serde_json::to_string_pretty(v)
        .map(|s| s + "\n")
        .map_err(|e| CliError::Usage(format!("cannot serialize: {e}")))
}

/// Reads a saved report: the file itself, or the report in a run directory
/// (`report.json`, or spec 000's `eval_rag_report.json` /
/// `eval_retrieval_report.json`). Errors name the file and what is wrong with it (the line and
/// column of a JSON problem).
pub fn read_report(given: &Path) -> Result<(PathBuf, EvaluationResult), CliError> {
    let path = if given.is_dir() {
        let found = REPORT_FILES
            .iter()
            .map(|n| given.join(n))
            .find(|p| p.is_file());
        match found {
            Some(inner) => inner,
            None => {
                return Err(CliError::Input {
                    path: given.display().to_string(),
                    message: format!(
                        "a directory without a report (looked for {}; give a run's output directory or its report file)",
                        REPORT_FILES.join(", ")
                    ),
                })
            }
        }
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
