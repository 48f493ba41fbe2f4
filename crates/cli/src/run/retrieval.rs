//! `evalpage run --retrieval`: spec 000's retrieval evaluation against a
//! retrieval endpoint (or the offline demo retriever), through the one run
//! path (`Checked::run`): the engine's scheduler, retries and 429 limits,
//! both event logs written record by record, then every run's files.

use super::clock::Clock;
use super::driver::{Caller, Request};
use super::http::JsonBackend;
use super::output::say;
use super::{setup, Checked, Console, Finish};
use crate::args::RunArgs;
use crate::error::CliError;
use crate::score::{read_dataset_bytes, read_input, read_metadata, report_skipped};
use evalpage_core::render_outputs as render;
use evalpage_core::retrieval::{retrieval_outputs, ListsFrom, RetrievalInputs};
use evalpage_core::{parse_retrieval_cases, Pipeline, RunMeta};
use evalpage_core::{CallError, CallOutcome, ErrorKind};
use evalpage_core::{RetrievalEndpoint, RetrievalEngine, RetrievalKind, RetrievalRunConfig};
use evalpage_core::{RETRIEVAL_BODY, RETRIEVAL_PATH};
use std::sync::Arc;
use std::time::Duration;

impl Console for RetrievalKind {
    fn job_line(engine: &Pipeline<Self>, job: usize) -> Option<String> {
        let k = engine.config().k;
        let row = engine.row(job)?;
        let mark = |b: bool| if b { "√" } else { "×" };
        Some(match row.error() {
            Some(err) => format!("[EVAL] {} - hit@{k}: × | {}", row.case.case_id, err.message),
            None => format!(
                "[EVAL] {} - hit@{k}: {} | rr: {:.3} | ndcg@{k}: {:.3} | top: {}",
                row.case.case_id,
                mark(row.score.hit_at_k),
                row.score.reciprocal_rank,
                row.score.ndcg_at_k,
                row.score.topk.join(", ")
            ),
        })
    }
}

/// The request body template: the flag's text, a file's with `@FILE`, or
/// the default.
fn body_template(args: &RunArgs) -> Result<String, CliError> {
    match args.body.as_deref() {
        None => Ok(RETRIEVAL_BODY.to_string()),
        Some(b) => match b.strip_prefix('@') {
            Some(path) => {
                let bytes = read_input(std::path::Path::new(path))?;
                String::from_utf8(bytes).map_err(|_| CliError::Input {
                    path: path.to_string(),
                    message: "the body template is not UTF-8 text".into(),
                })
            }
            None => Ok(b.to_string()),
        },
    }
}

/// The retrieval run's plan.
pub(super) fn plan(args: &RunArgs) -> Result<Checked<RetrievalKind>, CliError> {
    let clock = Clock::start();
    let started_at_ms = clock.now_ms();
    let argv: Vec<String> = std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let cases_file = args
        .dataset()
        .file_name()
        .map_or(args.dataset().display().to_string(), |n| {
            n.to_string_lossy().into_owned()
        });
    let cases_bytes = read_dataset_bytes(args.dataset())?;
    let (cases, line_errors) = parse_retrieval_cases(&cases_file, &cases_bytes);
    report_skipped(&line_errors);
    if cases.is_empty() {
        return Err(CliError::Input {
            path: args.dataset().display().to_string(),
            message: "no valid case line; expected JSONL of {\"case_id\": ..., \"query\": \"...\", \"expected_sources\": [...], \"bucket\": \"...\"}".into(),
        });
    }
    let (url, backend) = match &args.endpoint {
        Some(url) => (url.clone(), "http"),
        None => ("demo-retriever".to_string(), "mock"),
    };
    let list_path = args.list_path.as_deref().unwrap_or(RETRIEVAL_PATH);
    let endpoint = RetrievalEndpoint::new(&url, backend, &body_template(args)?, list_path)
        .map_err(|e| CliError::Usage(format!("--retrieval: {e}")))?;
    let key = setup::read_key(args.api_key_env.as_deref())?;
    let k = usize::try_from(args.retrieval_k).unwrap_or(usize::MAX);
    let metadata = match &args.metadata {
        Some(p) => Some(read_metadata(p)?),
        None => None,
    };
    // A resumed run keeps the interrupted run's id.
    let (log, run_id) = super::resume::log_and_run_id(args.resume_from.as_deref(), || {
        format!("eval_retrieval-{started_at_ms}")
    })?;
    let cfg = RetrievalRunConfig {
        run_id,
        tool: "evalpage-cli".into(),
        started_at_ms,
        dataset: cases_file.clone(),
        k,
        endpoint: endpoint.clone(),
        settings: setup::settings(args),
        argv: argv.clone(),
    };
    let queries: Vec<String> = cases.iter().map(|c| c.query.clone()).collect();
    let prior = log
        .as_ref()
        .map(|log| evalpage_core::resumable_retrieval(log, &cases));
    let mut engine = RetrievalEngine::new(cfg, cases);
    engine.set_policy(setup::policy(args));
    if let Some(prior) = prior {
        if let Some(first) = prior.unknown.first() {
            eprintln!(
                "evalpage: --resume-from: {} case ids are not in the dataset and are ignored (first: {first})",
                prior.unknown.len()
            );
        }
        let taken = engine.restore(prior.calls);
        let total = engine.cases().len();
        eprintln!(
            "evalpage: resuming: {taken} of {total} cases already settled, sending {}",
            total - taken
        );
    }
    let timeout = Duration::from_secs_f64(args.timeout_s);
    let call: Caller = match backend {
        "http" => {
            let http = Arc::new(JsonBackend::new(&endpoint.url, key, timeout));
            Arc::new(move |_, r: &Request| match &r.body {
                Some(body) => http.call(body),
                None => CallOutcome::Failed(CallError::new(
                    ErrorKind::Prompt,
                    "no request body was rendered",
                )),
            })
        }
        _ => {
            let mock = endpoint.clone();
            Arc::new(move |job, _: &Request| {
                let q = queries.get(job).map_or("", String::as_str);
                CallOutcome::text(mock.mock_answer(q, k))
            })
        }
    };
    let dataset = args.dataset().display().to_string();
    let metadata_path = args.metadata.as_ref().map(|p| p.display().to_string());
    let lang = args.lang.into();
    let finish: Finish<RetrievalKind> = Box::new(move |engine, out, clock| {
        let evaluated = engine.evaluated();
        let meta = RunMeta {
            tool: "evalpage-cli".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            argv,
            dataset,
            metadata: metadata_path,
            started_at_ms,
            ended_at_ms: clock.now_ms(),
        };
        let from: ListsFrom = engine.config().endpoint.lists_from();
        let inputs = RetrievalInputs {
            cases_file: &cases_file,
            cases_bytes: &cases_bytes,
            line_errors: &line_errors,
            from: &from,
            metadata: metadata.as_ref(),
            run_id: &engine.config().run_id,
            meta: &meta,
            lang,
        };
        let files = render(&retrieval_outputs(&evaluated, &inputs))
            .map_err(|e| CliError::output(&out.path("summary.csv"), std::io::Error::other(e)))?;
        for (name, text) in &files {
            out.write_file(name, text)?;
        }
        let counts = evaluated.counts();
        say(&format!(
            "[EVAL] retrieval done: {} cases, k={k}, hit_rate {:.3} ({}/{}), {} without a list",
            counts.cases,
            counts.hit_rate.unwrap_or(0.0),
            evaluated.hit_cases(),
            counts.cases,
            counts.failed_calls
        ));
        Ok(files.len())
    });
    Ok(Checked {
        report: super::output::REPORT_JSON,
        start_line: format!(
            "[EVAL] retrieval: {} cases, k={k}, endpoint {}",
            engine.cases().len(),
            endpoint.url
        ),
        engine,
        call,
        clock,
        finish,
    })
}
