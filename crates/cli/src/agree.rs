//! `evalpage agree RUN LABELS... --out DIR [--scale METRIC=SCHEME]...
//! [--fail-if-kappa-below K] [--langfuse FILE] [--phoenix FILE]`: a saved
//! run's automatic verdicts measured against people's labels by the core
//! (`evalpage_core::review::agree`). RUN is a report (or the folder holding
//! one), or a dialog run's folder (spec 001): there, as in the viewer's
//! review, a case is a dialog and its verdicts are the dialog's own metric
//! values (the viewer's rows, `review::view_scores`). A labels file is evalpage's JSONL or
//! json-seq, or a Langfuse / Phoenix export (`review::read_any` tells them
//! apart). Writes `agreement.json`, `agreement.md` and `report.md` (the
//! run's, with the agreement section appended), and with --langfuse /
//! --phoenix the standing labels (`review::latest`) as Langfuse scores (a
//! JSON array) or Phoenix span annotations (`{"data": [...]}`); prints the
//! table, and gates for CI. Exit 0, 1 when the gate fails, 2 on bad input:
//! an unreadable run or labels file, a bad --scale, or labels none of which
//! match the run. Bad lines of a labels file are said (file, line, field)
//! and left out.

use crate::args::AgreeArgs;
use crate::error::CliError;
use crate::report::{pretty, read_report};
use evalpage_core::report::EvalScore;
use evalpage_core::review::{
    agree, agreement_markdown, kappa_below, latest, read_any, to_langfuse, to_phoenix, view_scores,
    AgreeOptions, LabelEvent, Scheme,
};
use evalpage_core::RunKind;
use serde_json::json;
use std::path::{Path, PathBuf};

/// The files of a dialog run (spec 001) that hold its results: what the
/// viewer opens of its folder.
const DIALOG_FILES: [&str; 4] = [
    "turn_eval.jsonl",
    "dialog_trace.jsonl",
    "metrics_summary.json",
    "run_manifest.json",
];

/// The first line of the agreement section (`agreement_markdown`).
const AGREEMENT_HEADING: &str = "## Agreement with people\n";

/// Reads, measures, writes, prints and gates.
pub fn execute(args: &AgreeArgs) -> Result<(), CliError> {
    let mut opts = AgreeOptions {
        seed: args.seed,
        ..AgreeOptions::default()
    };
    for s in &args.scale {
        let (metric, scheme) = s.split_once('=').ok_or_else(|| {
            CliError::Usage(format!(
                "--scale {s}: expected METRIC=SCHEME (correct=pass-fail, stars=1-5)"
            ))
        })?;
        let scheme =
            Scheme::parse(scheme).map_err(|e| CliError::Usage(format!("--scale {s}: {e}")))?;
        opts.schemes.insert(metric.trim().to_string(), scheme);
    }
    let (run_path, scores, run_dir) = read_run(&args.run)?;
    let mut events: Vec<LabelEvent> = Vec::new();
    let mut problems = Vec::new();
    for path in &args.labels {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| CliError::Input {
            path: shown.clone(),
            message: format!("cannot read it: {e}"),
        })?;
        let file = read_any(&text, &shown);
        events.extend(file.events);
        problems.extend(file.problems);
    }
    for p in &problems {
        eprintln!("evalpage: {p} (left out)");
    }
    let agreed = agree(&scores, &events, &opts);
    if !agreed.unmatched.is_empty() {
        let examples: Vec<String> = agreed
            .unmatched
            .iter()
            .take(3)
            .map(|l| format!("{} ({})", l.case_id, l.why))
            .collect();
        eprintln!(
            "evalpage: {} of {} labels do not match {} (e.g. {}): left out; are they the labels of another run?",
            agreed.unmatched.len(),
            agreed.labels,
            run_path.display(),
            examples.join("; ")
        );
    }
    for l in &agreed.off_scale {
        eprintln!(
            "evalpage: {}'s label of {} ({}): {} (left out; --scale {}=... names the scale)",
            l.reviewer, l.case_id, l.metric, l.why, l.metric
        );
    }
    if agreed.metrics.is_empty() {
        return Err(CliError::Usage(format!(
            "no label matches {} ({} labels read, {} bad lines): nothing to measure",
            run_path.display(),
            agreed.labels,
            problems.len()
        )));
    }
    std::fs::create_dir_all(&args.out).map_err(|e| CliError::output(&args.out, e))?;
    let doc = json!({
        "run": run_path.display().to_string(),
        "labels_files": args.labels.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
        "bad_lines": problems,
        "seed": args.seed,
        "metrics": agreed.metrics,
        "labels": agreed.labels,
        "unmatched": agreed.unmatched,
        "off_scale": agreed.off_scale,
    });
    let write = |name: &str, text: String| {
        let p = args.out.join(name);
        std::fs::write(&p, text).map_err(|e| CliError::output(&p, e))
    };
    write("agreement.json", pretty(&doc)?)?;
    let md = agreement_markdown(&agreed);
    write("agreement.md", md.clone())?;
    // the run's report.md beside it, with the agreement section appended
    let report_md = std::fs::read_to_string(run_dir.join("report.md")).unwrap_or_default();
    // written into the run's own folder before (`--out RUNDIR`, what
    // `evalpage compare --fail-if-kappa-below` reads): that section replaced
    let own = report_md
        .split_once(AGREEMENT_HEADING)
        .map_or(report_md.as_str(), |(before, _)| before);
    let joined = if own.trim().is_empty() {
        md.clone()
    } else {
        format!("{}\n\n{md}", own.trim_end())
    };
    write("report.md", joined)?;
    if args.langfuse.is_some() || args.phoenix.is_some() {
        let standing: Vec<&LabelEvent> = latest(&events).into_values().collect();
        let export = |path: &std::path::Path, doc: serde_json::Value| {
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir).map_err(|e| CliError::output(dir, e))?;
            }
            std::fs::write(path, pretty(&doc)?).map_err(|e| CliError::output(path, e))?;
            eprintln!(
                "evalpage: wrote {} standing labels to {}",
                standing.len(),
                path.display()
            );
            Ok::<(), CliError>(())
        };
        if let Some(path) = &args.langfuse {
            export(path, serde_json::Value::from(to_langfuse(&standing)))?;
        }
        if let Some(path) = &args.phoenix {
            export(path, json!({ "data": to_phoenix(&standing) }))?;
        }
    }
    print!("{md}");
    if let Some(k) = args.fail_if_kappa_below {
        let failed = kappa_below(&agreed, k);
        if !failed.is_empty() {
            for f in &failed {
                eprintln!("evalpage: gate failed: {f}");
            }
            return Err(CliError::KappaGate(failed.len()));
        }
        eprintln!("evalpage: gate passed: every metric's κ against people is at least {k}");
    }
    Ok(())
}

/// The run's scores, what to call it, and its folder: a report's scores, or
/// a dialog run's, one per dialog and metric (the viewer's rows: its
/// `turn_eval.jsonl` rows summed up per dialog, as the viewer's review mode
/// and the dialog mode's table show them).
fn read_run(given: &Path) -> Result<(PathBuf, Vec<EvalScore>, PathBuf), CliError> {
    let dir = if given.is_dir() {
        Some(given.to_path_buf())
    } else {
        let named = given.file_name().and_then(|n| n.to_str()).unwrap_or("");
        DIALOG_FILES[..3]
            .contains(&named)
            .then(|| given.parent().unwrap_or(Path::new(".")).to_path_buf())
    };
    let dialog = dir.filter(|d| {
        !RunKind::report_files().iter().any(|n| d.join(n).is_file())
            && DIALOG_FILES[..3].iter().any(|n| d.join(n).is_file())
    });
    let Some(dir) = dialog else {
        let (path, run) = read_report(given)?;
        let dir = path
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
            .to_path_buf();
        return Ok((path, run.scores, dir));
    };
    let shown = dir.display().to_string();
    if !dir.join("turn_eval.jsonl").is_file() {
        return Err(CliError::Input {
            path: shown,
            message: "a dialog run (spec 001) without its turn_eval.jsonl: each dialog's verdicts \
                      are read from its rows"
                .into(),
        });
    }
    let mut files = Vec::new();
    for name in DIALOG_FILES {
        let path = dir.join(name);
        if path.is_file() {
            let bytes = std::fs::read(&path).map_err(|e| CliError::Input {
                path: path.display().to_string(),
                message: format!("cannot read it: {e}"),
            })?;
            files.push((path.display().to_string(), bytes));
        }
    }
    let data =
        evalpage_core::view::open_files(&shown, &files).map_err(|message| CliError::Input {
            path: shown.clone(),
            message: message.to_string(),
        })?;
    for note in &data.notes {
        eprintln!("evalpage: {shown}: {note}");
    }
    let scores: Vec<EvalScore> = data
        .metrics
        .iter()
        .flat_map(|m| view_scores(&data, m))
        .collect();
    Ok((dir.clone(), scores, dir))
}
