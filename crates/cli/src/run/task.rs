//! `evalpage run --task`: a spec 004 task over one or more models. The task
//! and its template are resolved like `evalpage score` does (`task_file`), the
//! dataset is read in the task's format, each model comes from the registry
//! (or is a mock model with `--mock`), and the core's `TaskEngine` runs every
//! sample × model through the same driver as the RAG run. The event logs are
//! written record by record; at the end every artifact is written by the
//! core's renderer (the same files as `evalpage score` and the page's zip).
//!
//! A task with `llm_judge` metrics needs a judge (`--judge NAME`, a registry
//! entry, or `--judge mock`; with `--mock` the mock judge unless `--judge`
//! names another): its calls go to the judge's own pool (the pool after the
//! models), limited by `--judge-concurrency`. The judge is sent the registry
//! entry's own parameters only, not the task's `default_params` (a task's
//! `response_format: json_object` is for the answering model).

use super::clock::Clock;
use super::driver::{Caller, Request};
use super::http::At;
use super::http::{self, HttpBackend};
use super::judge::JudgeAnswerer;
use super::mcp::McpClient;
use super::registry::{read_key, read_registry};
use super::Checked;
use super::{resume, setup};
use crate::args::TaskArgs;
use crate::args::{JudgeArgs, LimitArgs, RequestArgs, RunArgs};
use crate::error::CliError;
use crate::store::Store;
use crate::task_file::{self, LoadedTask};
use evalpage_core::report::{Price, Prices};
use evalpage_core::task::{
    judged_metrics, merged_params, missing_judge, parse_problems, DatasetFormat, Job, ModelEntry,
    Repeats, Task, TaskEngine, TaskFiles, TaskJudge, TaskKind, TaskRunConfig,
};
use evalpage_core::ModelSettings;
use evalpage_core::OpenAiConfig;
use evalpage_core::Sample;
use evalpage_core::{strip_query, ApiKey, CallOutcome, ChatMessage};
use serde_json::{json, Map, Value};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// Who answers one model's requests.
enum Answerer {
    /// The deterministic mock model under this name.
    Mock {
        task: Arc<Task>,
        samples: Arc<Vec<Sample>>,
        name: String,
    },
    /// An OpenAI-compatible endpoint.
    Http(HttpBackend),
}

impl Answerer {
    fn call(
        &self,
        sample: usize,
        messages: &[ChatMessage],
        tools: Option<&Value>,
        at: At,
    ) -> CallOutcome {
        match self {
            Answerer::Mock {
                task,
                samples,
                name,
            } => match samples.get(sample) {
                Some(s) => {
                    CallOutcome::Answer(evalpage_core::task::mock_answer(task, s, name, messages))
                }
                None => CallOutcome::text(String::new()),
            },
            Answerer::Http(h) => h.call_with_tools(messages, tools, at),
        }
    }
}

/// The judge of a task with judged metrics: its settings for the core and
/// who answers it. `None` for a task without `llm_judge` metrics. With
/// `mock` (`--mock`) the judge is the mock judge unless `--judge` names one.
fn judge(
    flags: &JudgeArgs,
    mock: bool,
    limits: &LimitArgs,
    loaded: &LoadedTask,
    cache: &Option<Arc<Store>>,
) -> Result<Option<(TaskJudge, JudgeAnswerer, Option<Price>)>, CliError> {
    let task = &loaded.task;
    if judged_metrics(task).is_empty() {
        if let Some(name) = &flags.judge {
            eprintln!("evalpage: the task has no llm_judge metric; --judge {name} is not used");
        }
        return Ok(None);
    }
    let name = match (&flags.judge, mock) {
        (Some(n), _) => n.clone(),
        (None, true) => "mock".to_string(),
        (None, false) => return Err(loaded.errors(missing_judge(task))),
    };
    let settings = setup::judge_settings(limits, flags.judge_concurrency);
    let registry = flags.model_registry.as_deref();
    let (judge, answerer, price) =
        super::judge::task_judge(loaded, &name, registry, settings, limits.timeout())?;
    Ok(Some((judge, answerer.with_cache(cache.clone()), price)))
}

/// Checks `--task`'s flags and inputs into a run ready to go (nothing is
/// written before every input is read and every model resolved). The one
/// place a task run reads `RunArgs`: each helper is handed the parts it
/// reads.
pub(super) fn plan(args: &RunArgs, task_spec: &str) -> Result<Checked<TaskKind>, CliError> {
    let RunArgs {
        input,
        task: flags,
        judge: judge_flags,
        request,
        limits,
        output: out,
        ..
    } = args;
    let clock = Clock::start();
    let loaded = task_file::load(task_spec)?;
    // `--cache DIR`, opened once for every model and the judge (a directory
    // that cannot be made is an error before anything runs).
    let cache = setup::cache(out)?;
    let format = DatasetFormat::for_task(&loaded.task);
    let max = flags
        .max_samples
        .map(|n| usize::try_from(n).unwrap_or(usize::MAX));
    let (bytes, mut data) = crate::files::read_dataset_with(
        input.dataset(),
        input.metadata.as_deref(),
        format,
        max,
        flags.possible_answers.as_deref(),
    )?;
    data.samples = setup::in_shard(out.shard, std::mem::take(&mut data.samples), |s| {
        s.sample.id.as_str()
    });
    let registry = judge_flags.model_registry.as_deref();
    let price = setup::flag_price(limits);
    let (models, prices) = models(flags, registry, request, price, &loaded.task)?;
    let backend = if flags.mock { "mock" } else { "openai" };
    // A resumed run keeps the interrupted run's id.
    let resume_from = out.resume_from.as_deref();
    let (log, run_id) =
        resume::log_and_run_id(resume_from, || clock.run_id(evalpage_core::RunKind::Task))?;
    let model_settings: Vec<ModelSettings> = models.iter().map(|(m, _)| m.clone()).collect();
    let from_task = Repeats::of(&loaded.task);
    let repeats = Repeats::new(
        flags.repeats.unwrap_or(from_task.n),
        flags.pass_k.clone().unwrap_or(from_task.pass_k),
    )
    .map_err(|message| CliError::Usage(format!("--repeats/--pass-k: {message}")))?;
    let cfg = TaskRunConfig {
        run: setup::identity(input.dataset(), limits, &clock, run_id.clone()),
        backend: backend.into(),
        repeats: repeats.clone(),
        models: model_settings.clone(),
    };
    let timeout = limits.timeout();
    let agent = http::agent(timeout);
    let judged = judge(judge_flags, flags.mock, limits, &loaded, &cache)?;
    let (task_judge, judge_answerer, judge_price) = match judged {
        Some((j, a, p)) => (Some(j), Some(a), p),
        None => (None, None, None),
    };
    let judge_name = task_judge.as_ref().map(|j| j.model.name.clone());
    let LoadedTask {
        task,
        template,
        info,
        ..
    } = &loaded;
    let kind = TaskKind::judged(cfg, task.clone(), info.clone(), template, &data, task_judge);
    let spec = setup::start_spec(limits, prices, judge_price);
    let engine = setup::prepare(resume_from, kind, &spec, log.as_ref())?;
    // Pools: the models in order, then the judge.
    let max_tokens: Vec<Option<u64>> = model_settings
        .iter()
        .map(|m| {
            m.params
                .get("max_tokens")
                .and_then(serde_json::Value::as_u64)
        })
        .chain([None])
        .collect();
    // an agent's MCP server: its own pool, after the models and the judge
    let mcp_pool = engine.kind().mcp_pool();
    let mcp_client = match task.agent.as_deref().map(|a| &a.env) {
        Some(evalpage_core::ToolEnvironment::Mcp(server)) => Some(Arc::new(McpClient::new(
            server.clone(),
            loaded
                .file
                .as_ref()
                .and_then(|(f, _)| Path::new(f).parent().map(|p| p.to_path_buf())),
            timeout,
        ))),
        _ => None,
    };
    let closer: Option<super::Closer> = mcp_client.clone().map(|c| {
        let close: super::Closer = Arc::new(move |job| c.close(job));
        close
    });
    let n = data.samples.len();
    let models_n = model_settings.len();
    let task_arc = Arc::new(task.clone());
    let samples = Arc::new(data.samples.iter().map(|s| s.sample.clone()).collect());
    let answerers: Vec<Answerer> = models
        .into_iter()
        .map(|(m, key)| {
            if flags.mock {
                Answerer::Mock {
                    task: Arc::clone(&task_arc),
                    samples: Arc::clone(&samples),
                    name: m.name.clone(),
                }
            } else {
                Answerer::Http(http_backend(&m, key, &agent, timeout, cache.clone()))
            }
        })
        .collect();
    // pools: one per model, in order, then the judge's, then an MCP server's
    let call: Caller = Arc::new(move |job, request: &Request| {
        if let (Some(mcp), Some(body)) = (&mcp_client, &request.body) {
            if Some(request.pool) == mcp_pool {
                return mcp.call(job, body);
            }
        }
        let messages = &request.messages;
        let sample = Job::of(job, n, models_n, repeats.n).map_or(0, |j| j.sample);
        let at = At {
            job,
            repeat: request.repeat,
            judge: false,
        };
        match (answerers.get(request.pool), &judge_answerer) {
            (Some(a), _) => a.call(sample, messages, request.tools.as_deref(), at),
            (None, Some(j)) => j.call(job, messages, at.repeat),
            (None, None) => CallOutcome::text(String::new()),
        }
    });
    let start_line = format!(
        "[EVAL] task {} ({} {}): {} samples x {} model(s){}{}",
        info.name,
        info.prompt_name,
        info.prompt_version,
        n,
        model_settings.len(),
        if repeats.several() {
            format!(" x {} repeats", repeats.n)
        } else {
            String::new()
        },
        judge_name
            .as_ref()
            .map(|j| format!(", judged by {j}"))
            .unwrap_or_default()
    );
    let prices = engine.priced(&spec);
    Ok(Checked {
        engine,
        call,
        closer,
        clock,
        start_line,
        inputs: TaskFiles {
            task: task.clone(),
            info: info.clone(),
            data,
            dataset_bytes: bytes,
            lang: out.lang.into(),
        },
        prices,
        metadata: setup::metadata_name(input.metadata.as_deref()),
        spec,
        max_tokens,
    })
}

/// The models to run (`--models` from `registry`, or mock models with
/// `--mock`), each with its key (read from its `api_key_env`) and sent
/// `request`'s parameters, and their prices (registry entries; `price`, of
/// `--price-in` / `--price-out`, for one model).
fn models(
    flags: &TaskArgs,
    registry: Option<&Path>,
    request: &RequestArgs,
    price: Option<Price>,
    task: &Task,
) -> Result<(Models, Prices), CliError> {
    let (models, mut prices) = models_and_prices(flags, registry, request, task)?;
    if let (Some(p), [(only, _)]) = (price, models.as_slice()) {
        prices.insert(only.name.clone(), p);
    } else if price.is_some() {
        return Err(CliError::Usage(
            "--price-in / --price-out price a one-model run; with several models put \
             price_in_per_mtok / price_out_per_mtok in each registry entry"
                .into(),
        ));
    }
    Ok((models, prices))
}

type Models = Vec<(ModelSettings, Option<ApiKey>)>;

fn models_and_prices(
    flags: &TaskArgs,
    registry_file: Option<&Path>,
    request: &RequestArgs,
    task: &Task,
) -> Result<(Models, Prices), CliError> {
    if flags.mock {
        let names = if flags.models.is_empty() {
            vec!["mock".to_string()]
        } else {
            flags.models.clone()
        };
        let models = names
            .into_iter()
            .map(|name| {
                let s = ModelSettings {
                    model: name.clone(),
                    name,
                    base_url: None,
                    api_key_env: None,
                    params: task.default_params.clone(),
                    engine: None,
                };
                (s, None)
            })
            .collect();
        return Ok((models, Prices::new()));
    }
    let (Some(path), false) = (registry_file, flags.models.is_empty()) else {
        return Err(CliError::Usage(
            "with --task give --models A,B --model-registry FILE, or --mock to check the task offline".into(),
        ));
    };
    let registry = read_registry(path)?;
    let entries = registry
        .select(&flags.models)
        .map_err(|message| CliError::Input {
            path: path.display().to_string(),
            message,
        })?;
    let prices = entries
        .iter()
        .filter_map(|e| Some((e.name.clone(), e.price()?)))
        .collect();
    let models = entries
        .into_iter()
        .map(|e| {
            let key = read_key(&e, path)?;
            Ok((settings_of(&e, task, request), key))
        })
        .collect::<Result<Models, CliError>>()?;
    Ok((models, prices))
}

/// The request settings of a registry model: the task's parameters, the
/// registry's over them, and `--temperature` / `--max-tokens` over both.
fn settings_of(e: &ModelEntry, task: &Task, request: &RequestArgs) -> ModelSettings {
    let mut params: Map<String, Value> = merged_params(&task.default_params, &e.default_params);
    if let Some(t) = request.temperature {
        params.insert("temperature".into(), json!(t));
    }
    if let Some(m) = request.max_tokens {
        params.insert("max_tokens".into(), json!(m));
    }
    ModelSettings {
        name: e.name.clone(),
        model: e.model_id().to_string(),
        base_url: Some(strip_query(e.base_url.trim())),
        api_key_env: e.api_key_env.clone(),
        params,
        engine: None,
    }
}

fn http_backend(
    m: &ModelSettings,
    key: Option<ApiKey>,
    agent: &ureq::Agent,
    timeout: Duration,
    cache: Option<Arc<Store>>,
) -> HttpBackend {
    let cfg = OpenAiConfig {
        base_url: m.base_url.clone().unwrap_or_default(),
        model: m.model.clone(),
        api_key: key,
        temperature: None,
        max_tokens: None,
        params: m.params.clone(),
    };
    HttpBackend::with_agent(cfg, agent.clone(), timeout).with_cache(cache)
}

/// `[EVAL] model sample_id - ok | parse problem: ... | failed: ...`.
impl super::Console for TaskKind {
    fn job_line(engine: &TaskEngine, job: usize) -> Option<String> {
        case_line(engine, job)
    }
}

fn case_line(engine: &TaskEngine, job: usize) -> Option<String> {
    let j = engine.job(job)?;
    let r = engine.result(job)?;
    let model = &engine.config().models.get(j.model)?.name;
    let id = &engine.samples().get(j.sample)?.sample.id;
    let what = match (&r.status, &r.error) {
        (s, _) if s.answered() && r.has_parse_problem() => {
            format!("parse problem: {}", parse_problems(r).join("; "))
        }
        (s, _) if s.answered() => {
            let values: Vec<String> = r
                .scores
                .iter()
                .map(|(n, s)| match s.value {
                    Some(v) => format!("{n}={v:.3}"),
                    None if s.detail.get("outcome").and_then(Value::as_str) == Some("unscored") => {
                        format!("{n}=unscored")
                    }
                    None => format!("{n}=skipped"),
                })
                .collect();
            format!("{} | {}", r.status.code(), values.join(" "))
        }
        (_, Some(e)) => format!("failed: {}", e.cause),
        (_, None) => "failed".to_string(),
    };
    Some(format!("[EVAL] {model} {id} - {what}"))
}
