//! `evalpage score --dialogs DATASET --dialog-trace TRACE --out DIR`: a spec
//! 001 dialog trace produced elsewhere, scored against the dialog dataset
//! with no model call (`evalpage_core::dialog::score_trace`), written as spec 001's
//! five artifacts. Bad lines of either file are reported on stderr (file,
//! line, field) and skipped. Judged metrics (M3 and M4 by a judge, M5) are
//! judged with `--judge NAME|mock` (a run of judge-only jobs over the
//! trace's answered turns on the core's engine, `--judge-concurrency` at
//! once, prompts in `--lang`), and reported as not run without one.

use crate::args::ScoreArgs;
use crate::error::CliError;
use crate::files::{file_name, now_ms, read_dataset_bytes, read_input, report_skipped};
use crate::files::{judge_settings, write_files, wrote};
use crate::run::judge::{judge_trace, resolve};
use evalpage_core::dialog::OfflineRun;
use evalpage_core::dialog::{
    parse_dialogs, prepare_trace, render, score_prepared, DialogJudge, JudgeOnlyKind, Judgements,
    ScoreOptions,
};

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
        dataset_path: dataset.display().to_string(),
        trace_file: file_name(trace),
        model_name: None,
        started_at_ms,
        ended_at_ms: now_ms(),
        scoring: ScoreOptions {
            m1_from_conversation: args.m1_from_conversation,
        },
    };
    let prepared = prepare_trace(&run, &set, &trace_bytes);
    let (judgements, info) = match &args.judge {
        Some(name) => {
            let (settings, timeout) = judge_settings(args);
            let j = resolve(name, args.model_registry.as_deref(), timeout)?;
            let mut judge = DialogJudge::new(j.model, settings, args.lang.into());
            judge.price = j.price;
            let kind = JudgeOnlyKind::new(
                judge,
                &prepared.run_id,
                started_at_ms,
                &set.dialogs,
                &prepared.traces,
            );
            eprintln!(
                "evalpage: judging {} turn(s) with {} (up to {} at once)",
                evalpage_core::run::Kind::jobs(&kind),
                kind.judge().model.name,
                kind.judge().settings.concurrency
            );
            let engine = judge_trace(kind, j.answerer)?;
            let info = engine.kind().judge().info();
            (engine.kind().judgements(), Some(info))
        }
        None => (Judgements::new(), None),
    };
    let mut run = run;
    run.ended_at_ms = now_ms();
    let scored = score_prepared(&run, &set, prepared, &judgements, info.as_ref());
    report_skipped(&scored.problems);
    let files = render(&scored.artifacts).map_err(|e| {
        CliError::output(
            &args.out.join("metrics_summary.json"),
            std::io::Error::other(e),
        )
    })?;
    write_files(&args.out, &files)?;
    for line in evalpage_core::dialog::metric_lines(&scored.artifacts.summary) {
        println!("{line}");
    }
    wrote(files.len(), 0, &args.out);
    Ok(())
}
