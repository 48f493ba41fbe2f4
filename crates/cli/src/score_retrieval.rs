//! `evalpage score --retrieval`: ranked source lists produced elsewhere,
//! scored against spec 000 retrieval cases with no call. Reads the inputs,
//! calls the core (`evalpage_core::retrieval`), writes every run's files and
//! spec 000's event log (`meta` with `k`, one `case` per case, `summary` with
//! `hit_cases` and `hit_rate`). Exit 0 when scoring finished, 2 when the
//! inputs cannot be used.

use crate::args::ScoreArgs;
use crate::error::CliError;
use crate::score::{now_ms, read_dataset_bytes, read_input, read_metadata, report_skipped};
use evalpage_core::events::{to_json_seq, to_jsonl};
use evalpage_core::render_outputs as render;
use evalpage_core::report::{retrieval_outputs, retrieval_records, ListsFrom, RetrievalInputs};
use evalpage_core::retrieval::{evaluate, METRICS};
use evalpage_core::RunMeta;
use evalpage_core::{parse_ranked, parse_retrieval_cases as parse_cases};
use std::path::Path;

/// The file name shown in reports (the path's last part).
fn file_name(path: &Path) -> String {
    path.file_name().map_or(path.display().to_string(), |n| {
        n.to_string_lossy().into_owned()
    })
}

/// Runs `evalpage score --retrieval`.
pub fn execute(args: &ScoreArgs) -> Result<(), CliError> {
    let started_at_ms = now_ms();
    let (cases_file, cases_bytes) = (
        file_name(args.dataset()),
        read_dataset_bytes(args.dataset())?,
    );
    let (cases, case_errors) = parse_cases(&cases_file, &cases_bytes);
    report_skipped(&case_errors);
    if cases.is_empty() {
        return Err(CliError::Input {
            path: args.dataset().display().to_string(),
            message: "no valid case line; expected JSONL of {\"case_id\": ..., \"query\": \"...\", \"expected_sources\": [...], \"bucket\": \"...\"}".into(),
        });
    }
    let (lists_file, lists_bytes) = (file_name(args.responses()), read_input(args.responses())?);
    let (lists, list_errors) = parse_ranked(&lists_file, &lists_bytes);
    report_skipped(&list_errors);
    let k = usize::try_from(args.k()).unwrap_or(usize::MAX);
    let evaluated = evaluate(&cases, &lists, k, &lists_file);
    report_skipped(&evaluated.unknown);
    let metadata = match &args.metadata {
        Some(p) => Some(read_metadata(p)?),
        None => None,
    };
    let meta = RunMeta {
        tool: "evalpage-cli".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        argv: std::env::args().collect(),
        dataset: args.dataset().display().to_string(),
        metadata: args.metadata.as_ref().map(|p| p.display().to_string()),
        started_at_ms,
        ended_at_ms: now_ms(),
    };
    let line_errors: Vec<_> = case_errors.into_iter().chain(list_errors).collect();
    let run_id = format!("eval_retrieval-{started_at_ms}");
    let from = ListsFrom::File(lists_file.clone());
    let inputs = RetrievalInputs {
        cases_file: &cases_file,
        cases_bytes: &cases_bytes,
        line_errors: &line_errors,
        from: &from,
        metadata: metadata.as_ref(),
        run_id: &run_id,
        meta: &meta,
        lang: args.lang.into(),
    };
    let out = &args.out;
    std::fs::create_dir_all(out).map_err(|e| CliError::output(out, e))?;
    let files = render(&retrieval_outputs(&evaluated, &inputs))
        .map_err(|e| CliError::output(&out.join("summary.csv"), std::io::Error::other(e)))?;
    let records = retrieval_records(&evaluated, &inputs);
    let jsonl: String = records.iter().map(to_jsonl).collect();
    let seq: String = records.iter().map(to_json_seq).collect();
    let logs = [
        ("report.events.jsonl", jsonl),
        ("report.events.json-seq", seq),
    ];
    for (name, text) in files.iter().map(|(n, t)| (*n, t.clone())).chain(logs) {
        let path = out.join(name);
        std::fs::write(&path, text).map_err(|e| CliError::output(&path, e))?;
    }
    let counts = evaluated.counts();
    println!(
        "[EVAL] retrieval: {} cases, k={k}, hit_rate {:.3} ({}/{})",
        counts.cases,
        counts.hit_rate.unwrap_or(0.0),
        evaluated.hit_cases(),
        counts.cases
    );
    let report = evalpage_core::report::retrieval_report(&evaluated, &inputs);
    for s in &report.report.summaries {
        if METRICS.contains(&s.metric.as_str()) {
            println!("{}: {:.4}", s.metric, s.mean);
        }
    }
    eprintln!(
        "evalpage: wrote {} files and 2 event logs to {}",
        files.len(),
        out.display()
    );
    Ok(())
}
