//! `evalpage import FILE... --out DIR`: other evaluators' results read by the
//! core (`evalpage_core::import`) into run folders that `report`, `compare`
//! and the viewer open like any other: `report.json` (the source of truth,
//! with the source tool's own figures and what could not be carried),
//! `report.md` and `summary.csv`.
//!
//! Exit 0 when every file was read (parts that could not be are listed in
//! the report and on standard error: the rest is kept), 2 when a file is
//! not one this reads or nothing of it could be.

use crate::args::ImportArgs;
use crate::error::CliError;
use evalpage_core::import::{group, import};
use evalpage_core::report::saved_summary_csv;
use std::path::{Path, PathBuf};

/// Reads, groups, imports and writes every run; prints one line per run.
pub fn execute(args: &ImportArgs) -> Result<(), CliError> {
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    for p in &args.files {
        let bytes = std::fs::read(p).map_err(|e| CliError::Input {
            path: p.display().to_string(),
            message: format!("cannot read it: {e}"),
        })?;
        files.push((p.display().to_string(), bytes));
    }
    let groups = group(&files).map_err(|e| CliError::Usage(e.to_string()))?;
    // Every run is imported before anything is written.
    let mut runs = Vec::new();
    for g in &groups {
        let parts: Vec<(&str, &[u8])> = g
            .iter()
            .map(|&i| (files[i].0.as_str(), files[i].1.as_slice()))
            .collect();
        let mut imported = import(&parts).map_err(|e| CliError::Usage(e.to_string()))?;
        imported.report.report.experiment.report_language = Some(args.lang.into());
        runs.push((g[0], imported));
    }
    let many = runs.len() > 1;
    for (first, run) in &runs {
        let dir = if many {
            args.out.join(folder_name(&args.files[*first]))
        } else {
            args.out.clone()
        };
        write_run(&dir, &run.report, args)?;
        let r = &run.report;
        let problems = r.report.line_errors.as_ref().map_or(0, Vec::len);
        eprintln!(
            "evalpage: imported {} ({}): {} samples, models {}, into {}{}",
            args.files[*first].display(),
            run.tool.name(),
            r.report
                .experiment
                .dataset
                .counts
                .get("sample_count")
                .and_then(|v| v.as_u64())
                .unwrap_or(0),
            r.models().join(", "),
            dir.display(),
            if problems > 0 {
                format!(" ({problems} part(s) could not be read: see report.md)")
            } else {
                String::new()
            }
        );
        for e in r.report.line_errors.iter().flatten().take(20) {
            eprintln!("evalpage:   {e}");
        }
        let ec = &r.report.experiment.evaluator_config;
        for d in ec["differences"].as_array().into_iter().flatten() {
            eprintln!(
                "evalpage:   differs from the source: {}",
                d.as_str().unwrap_or_default()
            );
        }
    }
    Ok(())
}

/// A run's folder inside `--out`: its first file's name without extension.
fn folder_name(p: &Path) -> PathBuf {
    let stem = p
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "import".into());
    PathBuf::from(stem)
}

fn write_run(
    dir: &Path,
    report: &evalpage_core::report::EvaluationResult,
    args: &ImportArgs,
) -> Result<(), CliError> {
    std::fs::create_dir_all(dir).map_err(|e| CliError::output(dir, e))?;
    let path = dir.join("report.json");
    {
        use std::io::Write;
        let file = std::fs::File::create(&path).map_err(|e| CliError::output(&path, e))?;
        let mut w = std::io::BufWriter::new(file);
        serde_json::to_writer_pretty(&mut w, report)
            .map_err(|e| CliError::Usage(format!("cannot serialize the report: {e}")))?;
        w.write_all(b"\n")
            .and_then(|()| w.flush())
            .map_err(|e| CliError::output(&path, e))?;
    }
    // spec 003's sections, as `evalpage report` renders another producer's
    // report (straight from the report: an import may hold 200,000 samples).
    let md = evalpage_core::report::render_md(report, &Default::default(), args.lang.into());
    let md_path = dir.join("report.md");
    std::fs::write(&md_path, md).map_err(|e| CliError::output(&md_path, e))?;
    let csv = saved_summary_csv(report).map_err(|e| CliError::Input {
        path: path.display().to_string(),
        message: e.to_string(),
    })?;
    let csv_path = dir.join("summary.csv");
    std::fs::write(&csv_path, csv).map_err(|e| CliError::output(&csv_path, e))
}
