//! `evalpage score --dialogs DATASET --dialog-trace TRACE --out DIR`: a spec
//! 001 dialog trace produced elsewhere, scored against the dialog dataset
//! with no model call (`evalpage_core::score_trace`), written as spec 001's
//! five artifacts. Bad lines of either file are reported on stderr (file,
//! line, field) and skipped. Judged metrics (M3 and M4 by a judge, M5) are
//! reported as not run: this command has no judge model.

use crate::args::ScoreArgs;
use crate::error::CliError;
use crate::score::{now_ms, read_dataset_bytes, read_input, report_skipped};
use evalpage_core::dialog::{parse_dialogs, render, Judgements};
use evalpage_core::{score_trace, OfflineRun};
use std::path::Path;

/// Runs `evalpage score --dialogs`.
pub fn execute(args: &ScoreArgs) -> Result<(), CliError> {
    let (Some(dataset), Some(trace)) = (&args.dialogs, &args.dialog_trace) else {
        return Err(CliError::Usage(
            "give --dialogs DATASET --dialog-trace dialog_trace.jsonl".into(),
        ));
    };
    let started_at_ms = now_ms();
    let set = parse_dialogs(&file_name(dataset), &read_dataset_bytes(dataset)?);
    report_skipped(&set.errors);
    if set.dialogs.is_empty() {
        return Err(CliError::NoCases {
            path: dataset.display().to_string(),
            skipped: set.errors.len(),
        });
    }
    let trace_bytes = read_input(trace)?;
    let run = OfflineRun {
        fallback_run_id: format!("scored-{started_at_ms}"),
        dataset_path: dataset.display().to_string(),
        trace_file: file_name(trace),
        model_name: None,
        started_at_ms,
        ended_at_ms: now_ms(),
    };
    let scored = score_trace(&run, &set, &trace_bytes, &Judgements::new());
    report_skipped(&scored.problems);
    let files = render(&scored.artifacts).map_err(|e| {
        CliError::output(
            &args.out.join("metrics_summary.json"),
            std::io::Error::other(e),
        )
    })?;
    std::fs::create_dir_all(&args.out).map_err(|e| CliError::output(&args.out, e))?;
    for (name, text) in &files {
        let path = args.out.join(name);
        std::fs::write(&path, text).map_err(|e| CliError::output(&path, e))?;
    }
    for (name, m) in &scored.artifacts.summary.metrics {
        let value = m.value.map_or("-".to_string(), |v| format!("{v:.3}"));
        println!(
            "[EVAL] {name}: {value} ({}; eligible {}, skipped {}, failed {})",
            m.status, m.eligible_count, m.skipped_count, m.failed_count
        );
    }
    eprintln!(
        "evalpage: wrote {} files to {}",
        files.len(),
        args.out.display()
    );
    Ok(())
}

fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}
