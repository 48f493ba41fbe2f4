//! The judge model of a run or a scoring (`--judge NAME|mock`,
//! `--judge-concurrency N`): the deterministic mock judge, or a model
//! registry entry (`--model-registry`) sent its own `default_params` only,
//! its key read from its `api_key_env` (never written anywhere). Used by
//! `run --task` and `score --task` (llm_judge metrics), `run --dialogs` and
//! `score --dialogs` (spec 001's judged metrics).

use super::clock::Clock;
use super::driver::{drive, Caller, Request};
use super::http::{self, HttpBackend};
use super::registry::{read_key, read_registry};
use crate::error::CliError;
use crate::task_file::LoadedTask;
use evalpage_core::dialog::{JudgeOnlyEngine, JudgeOnlyKind};
use evalpage_core::report::Price;
use evalpage_core::run::RunSettings;
use evalpage_core::task::{judge_setups, FileAnswers, TaskEngine, TaskJudge};
use evalpage_core::{strip_query, CallError, CallOutcome, ChatMessage, ErrorKind};
use evalpage_core::{MockJudge, ModelSettings, OpenAiConfig};
use serde_json::Map;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Who answers the judge's requests.
pub(crate) enum JudgeAnswerer {
    /// The deterministic mock judge; `seen` counts identical requests of one
    /// job (the repeats of one judgement), so repeats can differ as a real
    /// judge's do. The page's mock judge counts the same way.
    Mock { seen: Mutex<MockJudge> },
    /// An OpenAI-compatible endpoint.
    Http(HttpBackend),
}

impl JudgeAnswerer {
    /// An endpoint judge answers from `cache` first (the mock judge is not
    /// cached: its repeats differ on purpose).
    pub(crate) fn with_cache(
        self,
        cache: Option<std::sync::Arc<crate::store::Store>>,
    ) -> JudgeAnswerer {
        match self {
            JudgeAnswerer::Http(h) => JudgeAnswerer::Http(h.with_cache(cache)),
            mock => mock,
        }
    }

    /// Answers one judge request (blocks until the endpoint answers); the
    /// `repeat`-th asking of a sample has its own cache entry.
    pub(crate) fn call(&self, job: usize, messages: &[ChatMessage], repeat: u32) -> CallOutcome {
        let at = super::http::At {
            job,
            repeat,
            judge: true,
        };
        match self {
            JudgeAnswerer::Mock { seen } => match seen.lock() {
                Ok(mut judge) => CallOutcome::Answer(judge.answer(job, messages)),
                Err(_) => CallOutcome::Answer(MockJudge::default().answer(job, messages)),
            },
            JudgeAnswerer::Http(h) => h.call(messages, at),
        }
    }
}

/// A resolved judge: the model as called (no key), who answers it, and its
/// price when its registry entry has one.
pub(crate) struct JudgeModel {
    /// The model as the outputs name it.
    pub model: ModelSettings,
    /// Who answers.
    pub answerer: JudgeAnswerer,
    /// Its price per million tokens.
    pub price: Option<Price>,
}

/// Resolves `--judge NAME`: `mock`, or the registry entry `NAME`.
pub(crate) fn resolve(
    name: &str,
    registry: Option<&Path>,
    timeout: Duration,
) -> Result<JudgeModel, CliError> {
    if name == "mock" {
        return Ok(JudgeModel {
            model: ModelSettings {
                name: "mock".into(),
                model: "mock".into(),
                base_url: None,
                api_key_env: None,
                params: Map::new(),
                engine: None,
            },
            answerer: JudgeAnswerer::Mock {
                seen: Mutex::new(MockJudge::default()),
            },
            price: None,
        });
    }
    let Some(path) = registry else {
        return Err(CliError::Usage(format!(
            "--judge {name}: a judge is a model registry entry; give --model-registry FILE (or --judge mock)"
        )));
    };
    let registry = read_registry(path)?;
    let entry = registry
        .select(&[name.to_string()])
        .map_err(|message| CliError::Input {
            path: path.display().to_string(),
            message: format!("--judge: {message}"),
        })?
        .into_iter()
        .next()
        .ok_or_else(|| CliError::Usage(format!("--judge {name}: no such registry entry")))?;
    let key = read_key(&entry, path)?;
    let model = ModelSettings {
        name: entry.name.clone(),
        model: entry.model_id().to_string(),
        base_url: Some(strip_query(entry.base_url.trim())),
        api_key_env: entry.api_key_env.clone(),
        params: entry.default_params.clone(),
        engine: None,
    };
    let cfg = OpenAiConfig {
        base_url: model.base_url.clone().unwrap_or_default(),
        model: model.model.clone(),
        api_key: key,
        temperature: None,
        max_tokens: None,
        params: model.params.clone(),
    };
    let backend = HttpBackend::with_agent(cfg, http::agent(timeout), timeout);
    Ok(JudgeModel {
        price: entry.price(),
        model,
        answerer: JudgeAnswerer::Http(backend),
    })
}

/// The judge of a task's `llm_judge` metrics (`run --task`, `score --task`):
/// the metrics' prompts resolved (errors placed on the task's lines), the
/// judge `name` resolved, on a pool of `settings`; who answers it and its
/// price.
pub(crate) fn task_judge(
    loaded: &LoadedTask,
    name: &str,
    registry: Option<&Path>,
    settings: RunSettings,
    timeout: Duration,
) -> Result<(TaskJudge, JudgeAnswerer, Option<Price>), CliError> {
    let setups = judge_setups(&loaded.task, &loaded.judges).map_err(|e| loaded.errors(e))?;
    let j = resolve(name, registry, timeout)?;
    let judge = TaskJudge {
        model: j.model,
        settings,
        setups,
    };
    Ok((judge, j.answerer, j.price))
}

/// Judges answers read from a file (`score --task --judge`): drives the
/// judged run of `FileAnswers::engine` to the end, each model call answered
/// from the file (no request), each judge call sent to the judge (no event
/// log: a scoring writes only its files); the engine holds the judgements.
pub(crate) fn judge_answers(
    mut engine: TaskEngine,
    answers: FileAnswers,
    judge: JudgeAnswerer,
) -> Result<TaskEngine, CliError> {
    let clock = Clock::start();
    let models = answers.models().len();
    let call: Caller = Arc::new(move |job, r: &Request| {
        if r.pool < models {
            return match answers.answer(job) {
                Some(a) => CallOutcome::Answer(a),
                // unanswered jobs are settled before the run and never asked
                None => CallOutcome::Failed(CallError::new(
                    ErrorKind::InvalidResponse,
                    "no response for this sample",
                )),
            };
        }
        judge.call(job, &r.messages, r.repeat)
    });
    drive(&mut engine, call, &clock, |_, _, _| Ok(()))?;
    Ok(engine)
}

/// Runs the judge-only jobs of a trace to the end (no event log: a scoring
/// writes only its five files); the kind holds the verdicts.
pub(crate) fn judge_trace(
    kind: JudgeOnlyKind,
    answerer: JudgeAnswerer,
) -> Result<JudgeOnlyEngine, CliError> {
    let clock = Clock::start();
    let mut engine = JudgeOnlyEngine::over(kind);
    let answerer = Arc::new(answerer);
    let call: Caller = Arc::new(move |job, r: &Request| answerer.call(job, &r.messages, r.repeat));
    drive(&mut engine, call, &clock, |_, _, _| Ok(()))?;
    Ok(engine)
}
