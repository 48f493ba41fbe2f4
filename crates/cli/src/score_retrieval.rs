//! `evalpage score --retrieval`: ranked source lists produced elsewhere,
//! scored against spec 000 retrieval cases with no call. Reads the inputs,
//! calls the core (`evalpage_core::retrieval`), writes every run's files and
//! spec 000's event log (`meta` with `k`, one `case` per case, `summary` with
//! `hit_cases` and `hit_rate`). Exit 0 when scoring finished, 2 when the
//! inputs cannot be used.

use crate::args::ScoreArgs;
use crate::error::CliError;
use crate::files::{file_name, read_dataset_bytes, read_input, read_metadata};
use crate::files::{report_skipped, run_meta, write_files, wrote};
use evalpage_core::events::{to_json_seq, to_jsonl};
use evalpage_core::report::render_outputs as render;
use evalpage_core::retrieval::{
    evaluate, parse_cases, parse_ranked, retrieval_outputs, retrieval_records, ListsFrom,
    RetrievalInputs, METRICS,
};
use evalpage_core::RunKind;

/// Runs `evalpage score --retrieval`.
pub fn execute(args: &ScoreArgs) -> Result<(), CliError> {
    let clock = crate::run::clock::Clock::start();
    let started_at_ms = clock.started_at_ms();
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
    let meta = run_meta(args, started_at_ms);
    let line_errors: Vec<_> = case_errors.into_iter().chain(list_errors).collect();
    let run_id = clock.run_id(RunKind::Retrieval);
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
    let mut files = render(retrieval_outputs(&evaluated, &inputs))
        .map_err(|e| CliError::output(&out.join("summary.csv"), std::io::Error::other(e)))?;
    let n_files = files.len();
    let mut records = retrieval_records(&evaluated, &inputs);
    for r in &mut records {
        if let evalpage_core::events::Record::Summary(s) = r {
            s.final_report_path = Some(
                out.join(RunKind::Retrieval.names().report)
                    .display()
                    .to_string(),
            );
        }
    }
    let jsonl: String = records.iter().map(to_jsonl).collect();
    let seq: String = records.iter().map(to_json_seq).collect();
    files.extend([
        (RunKind::Retrieval.names().jsonl, jsonl),
        (RunKind::Retrieval.names().json_seq, seq),
    ]);
    write_files(out, &files)?;
    let counts = evaluated.counts();
    println!(
        "[EVAL] retrieval: {} cases, k={k}, hit_rate {:.3} ({}/{})",
        counts.cases,
        counts.hit_rate.unwrap_or(0.0),
        evaluated.hit_cases(),
        counts.cases
    );
    let report = evalpage_core::retrieval::retrieval_report(&evaluated, &inputs);
    for s in &report.report.summaries {
        if METRICS.contains(&s.metric.as_str()) {
            println!("{}: {:.4}", s.metric, s.mean);
        }
    }
    wrote(n_files, 2, out);
    Ok(())
}
