//! `evalpage run --retrieval`: spec 000's retrieval evaluation against a
//! retrieval endpoint (or the offline demo retriever), through the one run
//! path (`Checked::run_with`): the engine's scheduler, retries and 429 limits,
//! both event logs written record by record, then every run's files.

use super::clock::Clock;
use super::driver::{Caller, Request};
use super::http::JsonBackend;
use super::{setup, Checked, Console};
use crate::args::RunArgs;
use crate::error::CliError;
use crate::files::{read_dataset_bytes, read_input, read_metadata, report_skipped};
use evalpage_core::report::Prices;
use evalpage_core::retrieval::{
    parse_cases, RetrievalEndpoint, RetrievalFiles, RetrievalKind, RetrievalRunConfig,
    DEFAULT_BODY, DEFAULT_PATH,
};
use evalpage_core::run::Pipeline;
use evalpage_core::{CallError, CallOutcome, ErrorKind};
use std::path::Path;
use std::sync::Arc;

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

/// The request body template: `--body`'s text, a file's with `@FILE`, or
/// the default.
fn body_template(body: Option<&str>) -> Result<String, CliError> {
    match body {
        None => Ok(DEFAULT_BODY.to_string()),
        Some(b) => match b.strip_prefix('@') {
            Some(path) => {
                let bytes = read_input(Path::new(path))?;
                String::from_utf8(bytes).map_err(|_| CliError::Input {
                    path: path.to_string(),
                    message: "the body template is not UTF-8 text".into(),
                })
            }
            None => Ok(b.to_string()),
        },
    }
}

/// The retrieval run's plan. The one place a retrieval run reads
/// `RunArgs`: each helper is handed the parts it reads.
pub(super) fn plan(args: &RunArgs) -> Result<Checked<RetrievalKind>, CliError> {
    let RunArgs {
        input,
        retrieval,
        endpoint: flags,
        limits,
        output: out,
        ..
    } = args;
    let clock = Clock::start();
    let dataset = input.dataset();
    let cases_file = dataset
        .file_name()
        .map_or(dataset.display().to_string(), |n| {
            n.to_string_lossy().into_owned()
        });
    let cases_bytes = read_dataset_bytes(dataset)?;
    let (cases, line_errors) = parse_cases(&cases_file, &cases_bytes);
    let cases = setup::in_shard(out.shard, cases, |c| c.case_id.as_str());
    report_skipped(&line_errors);
    if cases.is_empty() {
        return Err(CliError::Input {
            path: dataset.display().to_string(),
            message: "no valid case line; expected JSONL of {\"case_id\": ..., \"query\": \"...\", \"expected_sources\": [...], \"bucket\": \"...\"}".into(),
        });
    }
    let (url, backend) = match &flags.endpoint {
        Some(url) => (url.clone(), "http"),
        None => ("demo-retriever".to_string(), "mock"),
    };
    let list_path = retrieval.list_path.as_deref().unwrap_or(DEFAULT_PATH);
    let endpoint = RetrievalEndpoint::new(
        &url,
        backend,
        &body_template(retrieval.body.as_deref())?,
        list_path,
    )
    .map_err(|e| CliError::Usage(format!("--retrieval: {e}")))?;
    let key = setup::read_key(flags.api_key_env.as_deref())?;
    let k = usize::try_from(retrieval.retrieval_k).unwrap_or(usize::MAX);
    let metadata = match &input.metadata {
        Some(p) => Some(read_metadata(p)?),
        None => None,
    };
    // A resumed run keeps the interrupted run's id.
    let resume_from = out.resume_from.as_deref();
    let (log, run_id) = super::resume::log_and_run_id(resume_from, || {
        clock.run_id(evalpage_core::RunKind::Retrieval)
    })?;
    let cfg = RetrievalRunConfig {
        run: setup::identity(dataset, limits, &clock, run_id),
        dataset: cases_file.clone(),
        k,
        endpoint: endpoint.clone(),
    };
    let queries: Vec<String> = cases.iter().map(|c| c.query.clone()).collect();
    // A retrieval service is not priced: a cap has nothing to count.
    let spec = setup::start_spec(limits, Default::default(), None);
    let engine = setup::prepare(
        resume_from,
        RetrievalKind::new(cfg, cases),
        &spec,
        log.as_ref(),
    )?;
    let call = match backend {
        "http" => {
            let cache = setup::cache(out)?;
            http_caller(JsonBackend::new(&endpoint.url, key, limits.timeout()).with_cache(cache))
        }
        _ => mock_caller(endpoint.clone(), queries, k),
    };
    let start_line = format!(
        "[EVAL] retrieval: {} cases, k={k}, endpoint {}",
        engine.cases().len(),
        endpoint.url
    );
    Ok(Checked {
        closer: None,
        start_line,
        engine,
        call,
        clock,
        inputs: RetrievalFiles {
            cases_file,
            cases_bytes,
            line_errors,
            metadata,
            lang: out.lang.into(),
        },
        prices: Prices::new(),
        spec,
        max_tokens: vec![None],
        metadata: setup::metadata_name(input.metadata.as_deref()),
    })
}

/// Each call POSTs its job's rendered body to the retrieval endpoint.
fn http_caller(http: JsonBackend) -> Caller {
    let http = Arc::new(http);
    Arc::new(move |_, r: &Request| match &r.body {
        Some(body) => http.call(body),
        None => CallOutcome::Failed(CallError::new(
            ErrorKind::Prompt,
            "no request body was rendered",
        )),
    })
}

/// Each call is answered by the offline demo retriever over its job's query.
fn mock_caller(endpoint: RetrievalEndpoint, queries: Vec<String>, k: usize) -> Caller {
    Arc::new(move |job, _: &Request| {
        let q = queries.get(job).map_or("", String::as_str);
        CallOutcome::text(endpoint.mock_answer(q, k))
    })
}
