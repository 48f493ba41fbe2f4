//! `evalpage report FILE [--format md|csv|json] [--out DIR] [--lang zh|en]`:
//! a saved run (its directory, or its report with `results.jsonl` beside it)
//! rendered again without re-running it, through the core's renderers
//! (`view::report_md`, the same kind's renderer the run used, in the
//! language the run recorded, so `report.md` comes out as the run wrote it;
//! `saved_summary_csv`; the report type's own serializer). Without `--out`
//! the rendering goes to standard output: `evalpage report DIR` prints the
//! run's report.md. A lone report renders what it holds, and the command
//! says on stderr what it cannot show and why, and what it had to guess (the
//! language of a report written before runs recorded it). Also the one
//! reader of saved reports that `evalpage compare` uses. Exit 2 when the
//! file cannot be read or is not a report, 1 when the output cannot be
//! written.

use crate::args::{ReportArgs, ReportFormat};
use crate::error::CliError;
use evalpage_core::dialog::{metric_lines, MetricsSummary};
use evalpage_core::report::{saved_summary_csv, EvaluationResult, TASK_NAMES};
use evalpage_core::Lang;
use evalpage_core::RunKind;
use std::path::{Path, PathBuf};

/// Renders the report in the asked format into `--out`.
pub fn execute(args: &ReportArgs) -> Result<(), CliError> {
    if let Some(summary) = dialog_summary(&args.file)? {
        return print_dialog(args, &summary);
    }
    let (path, report) = read_report(&args.file)?;
    let (name, text) = match args.format {
        ReportFormat::Md => {
            let lang = language(&path, &report, args.lang.map(Lang::from));
            ("report.md", markdown(&path, &report, lang)?)
        }
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
            RunKind::report_files()
                .into_iter()
                .find(|n| path.file_name().is_some_and(|f| f == *n))
                .unwrap_or(TASK_NAMES.report),
            serde_json::to_string_pretty(&report)
                .map(|s| s + "\n")
                .map_err(|e| CliError::Usage(format!("cannot serialize the report: {e}")))?,
        ),
    };
    let Some(out) = &args.out else {
        use std::io::Write;
        let mut stdout = std::io::stdout().lock();
        return stdout
            .write_all(text.as_bytes())
            .and_then(|()| stdout.flush())
            .map_err(|e| CliError::output(Path::new("standard output"), e));
    };
    std::fs::create_dir_all(out).map_err(|e| CliError::output(out, e))?;
    let target = out.join(name);
    std::fs::write(&target, text).map_err(|e| CliError::output(&target, e))?;
    eprintln!(
        "evalpage: rendered {} as {}",
        path.display(),
        target.display()
    );
    Ok(())
}

/// A dialog run's directory (spec 001: `metrics_summary.json`, no report):
/// its summary, read.
fn dialog_summary(given: &Path) -> Result<Option<(PathBuf, MetricsSummary)>, CliError> {
    let path = given.join("metrics_summary.json");
    if !given.is_dir()
        || !path.is_file()
        || RunKind::report_files()
            .iter()
            .any(|n| given.join(n).is_file())
    {
        return Ok(None);
    }
    let shown = path.display().to_string();
    let bytes = std::fs::read(&path).map_err(|e| CliError::Input {
        path: shown.clone(),
        message: format!("cannot read it: {e}"),
    })?;
    let summary = serde_json::from_slice(&bytes).map_err(|e| CliError::Input {
        path: format!("{shown}:{}:{}", e.line(), e.column()),
        message: format!("not a spec 001 metrics_summary.json: {e}"),
    })?;
    Ok(Some((path, summary)))
}

/// A dialog run writes no report.md: its metric lines, as the run printed
/// them, on standard output (`--format md`, no `--out`); other asks are
/// refused, saying where the run's files are.
fn print_dialog(
    args: &ReportArgs,
    (path, summary): &(PathBuf, MetricsSummary),
) -> Result<(), CliError> {
    if args.format != ReportFormat::Md || args.out.is_some() {
        return Err(CliError::Input {
            path: args.file.display().to_string(),
            message: "a dialog run (spec 001) writes no report.json or report.md to render: its \
                      summary is metrics_summary.json, beside run_manifest.json, dialog_trace.jsonl \
                      and turn_eval.jsonl (`evalpage report DIR` alone prints its metric lines)"
                .into(),
        });
    }
    eprintln!(
        "evalpage: {} is a dialog run's summary (spec 001): its metric lines",
        path.display()
    );
    for line in metric_lines(summary) {
        println!("{line}");
    }
    Ok(())
}

/// The language to render `report.md` in: `--lang` when given, else the
/// one the run recorded, else Chinese, said on stderr (a report written
/// before runs recorded their language).
fn language(path: &Path, report: &EvaluationResult, asked: Option<Lang>) -> Lang {
    if let Some(lang) = asked {
        return lang;
    }
    if let Some(lang) = report.report.experiment.report_language {
        return lang;
    }
    eprintln!(
        "evalpage: {} does not record the language its report.md was written in \
         (a report written before runs recorded it): rendered in Chinese (zh); \
         --lang en renders it in English",
        path.display()
    );
    Lang::Zh
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
                message: e.to_string(),
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
        let found = RunKind::report_files()
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
                        RunKind::report_files().join(", ")
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
