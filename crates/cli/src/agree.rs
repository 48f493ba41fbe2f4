//! `evalpage agree RUN LABELS... --out DIR [--scale METRIC=SCHEME]...
//! [--fail-if-kappa-below K] [--langfuse FILE] [--phoenix FILE]`: a saved
//! run's automatic verdicts measured against people's labels by the core
//! (`evalpage_core::review::agree`). A labels file is evalpage's JSONL or
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
use evalpage_core::review::{
    agree, agreement_markdown, kappa_below, latest, read_any, to_langfuse, to_phoenix,
    AgreeOptions, LabelEvent, Scheme,
};
use serde_json::json;

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
    let (run_path, run) = read_report(&args.run)?;
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
    let agreed = agree(&run.scores, &events, &opts);
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
    let report_md = run_path
        .parent()
        .map(|d| d.join("report.md"))
        .and_then(|p| std::fs::read_to_string(p).ok())
        .unwrap_or_default();
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
