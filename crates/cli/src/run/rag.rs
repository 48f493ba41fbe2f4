//! The RAG check's room in `evalpage run` (spec 002): its config from the
//! flags (the dataset, the model, keypoint matching), its engine started
//! through the one start every kind shares, and its `[EVAL]` console lines.

use super::backend::Backend;
use super::clock::Clock;
use super::{driver, resume, setup, Checked, Console};
use crate::args::{MatchModeArg, RunArgs};
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
/// they ask, its caller, pools and prices.
pub(super) fn plan(args: &RunArgs) -> Result<Checked<RagKind>, CliError> {
    let clock = Clock::start();
    let mut plan = config(args, &clock)?;
    let log = args
        .output
        .resume_from
        .as_deref()
        .map(resume::read_log)
        .transpose()?;
    // A resumed run keeps the interrupted run's id.
    if let Some(run_id) = log.as_ref().and_then(resume::run_id) {
        plan.config.run.run_id = run_id;
    }
    let lang = plan.config.info.lang;
    let dataset_bytes = std::mem::take(&mut plan.dataset_bytes);
    let prices = setup::flag_price(args)
        .map(|p| (plan.config.info.model.clone(), p))
        .into_iter()
        .collect();
    let spec = setup::start_spec(args, prices, None);
    let kind = evalpage_core::rag::RagKind::new(plan.config, plan.cases);
    let engine = setup::prepare(args, kind, &spec, log.as_ref())?;
    let prices = engine.priced(&spec);
    let backend = std::sync::Arc::new(plan.backend);
    let call: driver::Caller =
        std::sync::Arc::new(move |job, r: &driver::Request| backend.call(&r.messages, job));
    Ok(Checked {
        closer: None,
        start_line: start_line(lang, engine.cases().len()),
        engine,
        call,
        clock,
        inputs: dataset_bytes,
        prices,
        metadata: setup::metadata_name(args),
        spec,
        max_tokens: vec![args.request.max_tokens.map(u64::from)],
    })
}

/// Everything `evalpage run` needs to start the engine.
#[derive(Debug)]
struct Plan {
    /// The engine's configuration.
    pub config: RunConfig,
    /// The dataset's valid cases.
    pub cases: Vec<RagCase>,
    /// Who answers.
    pub backend: Backend,
    /// The dataset file's bytes.
    pub dataset_bytes: Vec<u8>,
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

/// Resolves the flags into the RAG check's config, cases and backend.
fn config(args: &RunArgs, clock: &Clock) -> Result<Plan, CliError> {
    let backend = setup::backend(args)?;
    let data = load_dataset(args.input.dataset())?;
    let config = RunConfig {
        run: setup::identity(args, clock, clock.run_id(evalpage_core::RunKind::Rag)),
        info: run_info(args, &backend, &data),
        scoring: scoring(args),
        system_prompt: args
            .request
            .system_prompt
            .clone()
            .unwrap_or_else(|| DEFAULT_SYSTEM_PROMPT.to_string()),
        dataset_meta: match &args.input.metadata {
            Some(p) => Some(crate::files::read_metadata(p)?),
            None => None,
        },
    };
    Ok(Plan {
        config,
        cases: setup::in_shard(args, data.cases, |c| c.id.as_str()),
        backend,
        dataset_bytes: data.bytes,
    })
}

/// The RAG check's model and dataset, as recorded in the log and report.
fn run_info(args: &RunArgs, backend: &Backend, data: &Loaded) -> RunInfo {
    let (model, endpoint) = match backend {
        Backend::Demo => (demo::MODEL_NAME.to_string(), None),
        Backend::OpenAi(_) => (
            args.endpoint.model.clone().unwrap_or_default(),
            args.endpoint.endpoint.as_deref(),
        ),
    };
    RunInfo {
        lang: args.output.lang.into(),
        backend: backend.name().to_string(),
        model: model.trim().to_string(),
        endpoint: endpoint.map(|e| strip_query(e.trim())),
        parameters: json!({"temperature": args.request.temperature, "max_tokens": args.request.max_tokens}),
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

fn scoring(args: &RunArgs) -> ScoringConfig {
    ScoringConfig {
        match_mode: match args.matching.match_mode {
            MatchModeArg::Strict => MatchMode::Strict,
            MatchModeArg::Fuzzy => MatchMode::Fuzzy,
        },
        fuzzy_threshold: args.matching.fuzzy_threshold,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::setup::tests::args;

    #[test]
    fn the_match_flags_make_the_scoring() {
        let a = args(&["--match-mode", "strict"]);
        assert_eq!(scoring(&a).match_mode, MatchMode::Strict);
    }

    #[test]
    fn missing_dataset_names_the_path() {
        let e = load_dataset(Path::new("/nonexistent/evalpage/x.jsonl")).expect_err("missing");
        assert!(e.to_string().contains("/nonexistent/evalpage/x.jsonl"));
        assert_eq!(e.exit_code(), 2);
    }
}
