//! The RAG check's room in `evalpage run` (spec 002): its config from the
//! flags (the dataset, the model, keypoint matching), its engine started
//! through the one start every kind shares, and its `[EVAL]` console lines.

use super::backend::Backend;
use super::clock::Clock;
use super::{driver, resume, setup, Checked, Console};
use crate::args::{EndpointArgs, LangArg, MatchArgs, MatchModeArg, RequestArgs, RunArgs};
use crate::error::CliError;
use evalpage_core::rag::{self, case_line, start_line, Engine, RagCase, RagKind, RunConfig};
use evalpage_core::run::RunInfo;
use evalpage_core::DEFAULT_SYSTEM_PROMPT;
use evalpage_core::{demo, strip_query, MatchMode, ScoringConfig};
use serde_json::json;
use std::path::Path;

impl Console for RagKind {
    fn job_line(engine: &Engine, job: usize) -> Option<String> {
        let lang = engine.config().info.lang;
        let (c, r) = (
            engine.cases().get(job)?,
            engine.results().get(job)?.as_ref()?,
        );
        Some(case_line(lang, c, r))
    }
}

/// The RAG check's plan: its config from the flags, its engine started as
/// they ask, its caller, pools and prices. The one place the RAG check reads
/// `RunArgs`: each helper is handed the parts it reads.
pub(super) fn plan(args: &RunArgs) -> Result<Checked<RagKind>, CliError> {
    let RunArgs {
        input,
        endpoint,
        request,
        limits,
        matching,
        output: out,
        ..
    } = args;
    let clock = Clock::start();
    let backend = setup::backend(endpoint, request, limits.timeout(), out)?;
    let data = load_dataset(input.dataset())?;
    let run_id = clock.run_id(evalpage_core::RunKind::Rag);
    let mut config = RunConfig {
        run: setup::identity(input.dataset(), limits, &clock, run_id),
        info: run_info(endpoint, request, out.lang, &backend, &data),
        scoring: scoring(matching),
        system_prompt: request
            .system_prompt
            .clone()
            .unwrap_or_else(|| DEFAULT_SYSTEM_PROMPT.to_string()),
        dataset_meta: match &input.metadata {
            Some(p) => Some(crate::files::read_metadata(p)?),
            None => None,
        },
    };
    let cases = setup::in_shard(out.shard, data.cases, |c| c.id.as_str());
    let resume_from = out.resume_from.as_deref();
    let log = resume_from.map(resume::read_log).transpose()?;
    // A resumed run keeps the interrupted run's id.
    if let Some(run_id) = log.as_ref().and_then(resume::run_id) {
        config.run.run_id = run_id;
    }
    let lang = config.info.lang;
    let prices = setup::flag_price(limits)
        .map(|p| (config.info.model.clone(), p))
        .into_iter()
        .collect();
    let spec = setup::start_spec(limits, prices, None);
    let kind = RagKind::new(config, cases);
    let engine = setup::prepare(resume_from, kind, &spec, log.as_ref())?;
    let prices = engine.priced(&spec);
    let backend = std::sync::Arc::new(backend);
    let call: driver::Caller =
        std::sync::Arc::new(move |job, r: &driver::Request| backend.call(&r.messages, job));
    Ok(Checked {
        closer: None,
        start_line: start_line(lang, engine.cases().len()),
        engine,
        call,
        clock,
        inputs: data.bytes,
        prices,
        metadata: setup::metadata_name(input.metadata.as_deref()),
        spec,
        max_tokens: vec![request.max_tokens.map(u64::from)],
    })
}

/// The dataset's cases, with the name recorded in the report.
#[derive(Debug)]
pub(super) struct Loaded {
    /// File name of the dataset.
    pub name: String,
    /// Valid cases.
    pub cases: Vec<RagCase>,
    /// Lines skipped.
    pub skipped: usize,
    /// The file's bytes (for its fingerprint).
    pub bytes: Vec<u8>,
}

/// The RAG check's model and dataset, as recorded in the log and report.
fn run_info(
    endpoint: &EndpointArgs,
    request: &RequestArgs,
    lang: LangArg,
    backend: &Backend,
    data: &Loaded,
) -> RunInfo {
    let (model, url) = match backend {
        Backend::Demo => (demo::MODEL_NAME.to_string(), None),
        Backend::OpenAi(_) => (
            endpoint.model.clone().unwrap_or_default(),
            endpoint.endpoint.as_deref(),
        ),
    };
    RunInfo {
        lang: lang.into(),
        backend: backend.name().to_string(),
        model: model.trim().to_string(),
        endpoint: url.map(|e| strip_query(e.trim())),
        parameters: json!({"temperature": request.temperature, "max_tokens": request.max_tokens}),
        dataset_name: data.name.clone(),
        dataset_line_errors: data.skipped,
    }
}

/// Reads and parses the dataset, printing one `skipped line` message per bad line.
pub(super) fn load_dataset(path: &Path) -> Result<Loaded, CliError> {
    let shown = path.display().to_string();
    let bytes = crate::files::read_dataset_bytes(path)?;
    let name = path
        .file_name()
        .map_or(shown.clone(), |n| n.to_string_lossy().into_owned());
    let data = rag::parse(&name, &bytes);
    for e in &data.errors {
        eprintln!("evalpage: skipped line {e}");
    }
    if data.cases.is_empty() {
        return Err(CliError::NoCases {
            path: shown,
            skipped: data.errors.len(),
        });
    }
    Ok(Loaded {
        name,
        cases: data.cases,
        skipped: data.errors.len(),
        bytes,
    })
}

/// Keypoint matching as `--match-mode` and `--fuzzy-threshold` ask.
fn scoring(matching: &MatchArgs) -> ScoringConfig {
    ScoringConfig {
        match_mode: match matching.match_mode {
            MatchModeArg::Strict => MatchMode::Strict,
            MatchModeArg::Fuzzy => MatchMode::Fuzzy,
        },
        fuzzy_threshold: matching.fuzzy_threshold,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::setup::tests::args;

    #[test]
    fn the_match_flags_make_the_scoring() {
        let a = args(&["--match-mode", "strict"]);
        assert_eq!(scoring(&a.matching).match_mode, MatchMode::Strict);
    }

    #[test]
    fn missing_dataset_names_the_path() {
        let e = load_dataset(Path::new("/nonexistent/evalpage/x.jsonl")).expect_err("missing");
        assert!(e.to_string().contains("/nonexistent/evalpage/x.jsonl"));
        assert_eq!(e.exit_code(), 2);
    }
}
