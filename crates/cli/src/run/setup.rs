//! What every kind's `evalpage run` shares, from flags to a ready run: the
//! backend (an OpenAI-compatible endpoint with its key from the environment,
//! or the demo), the run's identity and scheduling, the shard, the cache,
//! the start spec every kind is prepared from, and the error of a run that
//! stopped. Every refusal is a `CliError` that says what to give instead.
//!
//! Each helper takes the parts of the flags it reads (`EndpointArgs`,
//! `LimitArgs`, `OutputArgs`, ...) or a value made from them, never the
//! whole `RunArgs`: a kind's plan hands them down.

use super::backend::Backend;
use super::clock::Clock;
use super::http::HttpBackend;
use crate::args::{EndpointArgs, LimitArgs, OutputArgs, Provider, RequestArgs};
use crate::error::{CliError, NOTHING_SENT, PROMPT_FIX};
use evalpage_core::events::ReadLog;
use evalpage_core::report::{Price, Prices};
use evalpage_core::run::{
    AnswerPolicy, Pipeline, RunIdentity, RunSettings, Shard, Start, StartError, StartSpec,
    StopReason,
};
use evalpage_core::ApiKey;
use evalpage_core::OpenAiConfig;
use std::path::Path;
use std::time::Duration;

/// Where the run's endpoint backends take answers from first: `--cache
/// DIR`, opened, or the answers of `evalpage batch` (which send nothing).
pub fn cache(out: &OutputArgs) -> Result<Option<std::sync::Arc<crate::store::Store>>, CliError> {
    use crate::cache::DirCache;
    use crate::store::Store;
    if let Some(book) = &out.batch {
        return Ok(Some(std::sync::Arc::new(Store::Batch(book.clone()))));
    }
    out.cache
        .as_deref()
        .map(|d| DirCache::open(d).map(|c| std::sync::Arc::new(Store::Dir(c))))
        .transpose()
}

/// The items of `--shard I/N` (all of them without it), each named by its
/// sample id; the count kept is said on stderr.
pub fn in_shard<T>(shard: Option<Shard>, items: Vec<T>, id: impl Fn(&T) -> &str) -> Vec<T> {
    let Some(shard) = shard else {
        return items;
    };
    let total = items.len();
    let kept: Vec<T> = items.into_iter().filter(|t| shard.holds(id(t))).collect();
    eprintln!("evalpage: shard {shard}: {} of {total} samples", kept.len());
    kept
}

/// Who runs what, the same for every kind `evalpage run` plays: the run
/// id, this tool, the start, the command line as given (it holds no key),
/// the dataset as given (`--dataset`, or a dialog run's `--dialogs`) and
/// the scheduling flags.
pub fn identity(dataset: &Path, limits: &LimitArgs, clock: &Clock, run_id: String) -> RunIdentity {
    let argv = std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    RunIdentity {
        run_id,
        tool: "evalpage-cli".into(),
        started_at_ms: clock.started_at_ms(),
        argv,
        dataset: dataset.display().to_string(),
        settings: settings(limits),
    }
}

/// `--metadata`, as given (the report's run metadata names it).
pub fn metadata_name(metadata: Option<&Path>) -> Option<String> {
    metadata.map(|p| p.display().to_string())
}

/// Picks the backend: demo, or openai when an endpoint and a model are
/// given, sent `request`'s parameters, each request given `timeout`, its
/// answers taken from `out`'s cache first (opened only for an endpoint).
pub fn backend(
    endpoint: &EndpointArgs,
    request: &RequestArgs,
    timeout: Duration,
    out: &OutputArgs,
) -> Result<Backend, CliError> {
    let provider = match (endpoint.provider, &endpoint.endpoint) {
        (Some(p), _) => p,
        (None, Some(_)) => Provider::Openai,
        (None, None) => return Err(need_endpoint()),
    };
    let key = read_key(endpoint.api_key_env.as_deref())?;
    match provider {
        Provider::Demo => Ok(Backend::Demo),
        Provider::Openai => openai(endpoint, request, key, timeout, out),
    }
}

/// An OpenAI-compatible backend; needs `--endpoint` (http or https) and `--model`.
fn openai(
    flags: &EndpointArgs,
    request: &RequestArgs,
    key: Option<ApiKey>,
    timeout: Duration,
    out: &OutputArgs,
) -> Result<Backend, CliError> {
    let model = flags
        .model
        .as_deref()
        .map(str::trim)
        .filter(|m| !m.is_empty());
    let (Some(endpoint), Some(model)) = (&flags.endpoint, model) else {
        return Err(need_endpoint());
    };
    let endpoint = endpoint.trim();
    if !(endpoint.starts_with("http://") || endpoint.starts_with("https://")) {
        return Err(CliError::Usage(format!(
            "--endpoint must be an http:// or https:// URL such as http://127.0.0.1:8091/v1, got `{endpoint}`"
        )));
    }
    let cfg = OpenAiConfig {
        base_url: endpoint.to_string(),
        model: model.to_string(),
        api_key: key,
        temperature: request.temperature,
        max_tokens: request.max_tokens,
        params: Default::default(),
    };
    Ok(Backend::OpenAi(
        HttpBackend::new(cfg, timeout).with_cache(cache(out)?),
    ))
}

fn need_endpoint() -> CliError {
    CliError::Usage("give --endpoint URL --model NAME, or --provider demo".to_string())
}

/// The API key from the variable named by `--api-key-env` (none when not given).
pub fn read_key(var: Option<&str>) -> Result<Option<ApiKey>, CliError> {
    let Some(var) = var else {
        return Ok(None);
    };
    let value = std::env::var(var).map_err(|e| {
        CliError::Usage(format!(
            "--api-key-env {var}: the environment variable {var} {}",
            match e {
                std::env::VarError::NotPresent => "is not set",
                std::env::VarError::NotUnicode(_) => "is not valid Unicode",
            }
        ))
    })?;
    match ApiKey::new(&value) {
        Some(key) => Ok(Some(key)),
        None => Err(CliError::Usage(format!(
            "--api-key-env {var}: the environment variable {var} is empty"
        ))),
    }
}

/// Scheduling from the flags (every kind's): `--concurrency`,
/// `--max-attempts`, `--timeout-s`.
pub(super) fn settings(limits: &LimitArgs) -> RunSettings {
    RunSettings {
        concurrency: usize::from(limits.concurrency),
        max_attempts: limits.max_attempts,
        timeout_ms: (limits.timeout_s * 1000.0).round() as u64,
        ..RunSettings::default()
    }
}

/// A judge's scheduling (a task's or a dialog run's): the run's, with at
/// most `--judge-concurrency` requests in flight (`--concurrency` without it).
pub(super) fn judge_settings(limits: &LimitArgs, judge_concurrency: Option<u16>) -> RunSettings {
    RunSettings {
        concurrency: usize::from(judge_concurrency.unwrap_or(limits.concurrency)),
        ..settings(limits)
    }
}

/// What the run does with truncated answers and fatal failures (every kind).
fn policy(limits: &LimitArgs) -> AnswerPolicy {
    AnswerPolicy {
        truncated_as_failure: limits.truncated_as_failure,
        keep_going_on_fatal: limits.keep_going_on_fatal,
    }
}

/// The start of a run as its flags ask: the answer policy, `--max-cost`,
/// and the models' and the judge's prices. The kind builds its engine from
/// it ([`prepare`]).
pub(super) fn start_spec(
    limits: &LimitArgs,
    prices: Prices,
    judge_price: Option<Price>,
) -> StartSpec {
    StartSpec {
        policy: policy(limits),
        max_cost: limits.max_cost,
        prices,
        judge_price,
    }
}

/// The engine of `kind`, started as `spec` asks and taking over what `log`
/// (read from `resume_from`, `--resume-from`) settled, saying on stderr
/// what it took over.
pub(super) fn prepare<K: Start<Log = ReadLog>>(
    resume_from: Option<&Path>,
    kind: K,
    spec: &StartSpec,
    log: Option<&ReadLog>,
) -> Result<Pipeline<K>, CliError> {
    let (engine, taken) = Pipeline::prepare(kind, spec, log).map_err(|e| match e {
        StartError::CapWithoutPrice => CliError::Usage(
            "--max-cost needs a price to count: --price-in/--price-out, or \
             price_in_per_mtok/price_out_per_mtok in the registry entries"
                .into(),
        ),
    })?;
    if let Some(t) = taken {
        let shown = resume_from
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        for note in t.notes.iter().take(NOTES_SHOWN) {
            eprintln!("evalpage: {shown}: {note}");
        }
        if let Some(more) = t.notes.len().checked_sub(NOTES_SHOWN).filter(|n| *n > 0) {
            eprintln!("evalpage: {shown}: and {more} more such note(s)");
        }
        eprintln!(
            "evalpage: resuming: {} of {} {} already settled, sending {}",
            t.jobs,
            t.total,
            t.unit,
            t.total.saturating_sub(t.jobs)
        );
    }
    Ok(engine)
}

/// The resume notes printed (a cut case each, an unknown record each); the
/// rest are counted.
const NOTES_SHOWN: usize = 5;

/// The price of `--price-in` / `--price-out` (a missing side counts as 0),
/// made once per run.
pub(super) fn flag_price(limits: &LimitArgs) -> Option<Price> {
    if limits.price_in.is_none() && limits.price_out.is_none() {
        return None;
    }
    Some(Price {
        in_per_mtok: limits.price_in.unwrap_or(0.0),
        out_per_mtok: limits.price_out.unwrap_or(0.0),
    })
}

/// The error of a run that stopped at a fatal answer: what happened, what to
/// fix, and how to send only the cases without an answer. A task run whose
/// prompt renders for no sample stops the same way, before sending anything
/// (its first line names the missing field; nothing to resume).
pub(super) fn stopped(
    reason: StopReason,
    fatal: &evalpage_core::CallError,
    not_run: usize,
    log: &std::path::Path,
) -> CliError {
    if reason == StopReason::Prompt {
        return CliError::Stopped(format!(
            "{NOTHING_SENT}: {}\n{PROMPT_FIX}; every case is recorded \
             as failed, with its cause, in the report and in {}",
            fatal.message,
            log.display()
        ));
    }
    if reason == StopReason::Budget {
        return CliError::Stopped(format!(
            "{}\n{not_run} case(s) were not sent (recorded as not_run). Send them with the same \
             command, a higher --max-cost and --resume-from {}",
            fatal.message,
            log.display()
        ));
    }
    let at = fatal
        .url
        .as_deref()
        .map(|u| format!(" from {u}"))
        .unwrap_or_default();
    CliError::Stopped(format!(
        "the run stopped at a fatal answer{at}: {}\n\
         {not_run} case(s) were not sent (recorded as not_run). Fix this, then send only the \
         cases without an answer with the same command and --resume-from {}\n\
         (--keep-going-on-fatal sends every case anyway)",
        fatal.message,
        log.display()
    ))
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::args::{Cli, Command, RunArgs};
    use clap::Parser;
    use evalpage_core::Lang;

    /// `evalpage run --dataset d.jsonl --out o` and `extra`, parsed.
    pub(in crate::run) fn args(extra: &[&str]) -> RunArgs {
        let mut argv = vec!["evalpage", "run", "--dataset", "d.jsonl", "--out", "o"];
        argv.extend_from_slice(extra);
        match Cli::try_parse_from(argv).map(|c| c.command) {
            Ok(Command::Run(a)) => *a,
            other => panic!("not a run: {other:?}"),
        }
    }

    /// The backend of `evalpage run --dataset d.jsonl --out o` and `extra`.
    fn backend_of(extra: &[&str]) -> Result<Backend, CliError> {
        let a = args(extra);
        backend(&a.endpoint, &a.request, a.limits.timeout(), &a.output)
    }

    #[test]
    fn provider_defaults_to_openai_with_an_endpoint_and_needs_one_otherwise() {
        let e = backend_of(&[]).expect_err("no provider");
        assert_eq!(
            e.to_string(),
            "give --endpoint URL --model NAME, or --provider demo"
        );
        let b = backend_of(&["--endpoint", "http://127.0.0.1:9/v1", "--model", "m"]);
        assert_eq!(b.map(|b| b.name()).ok(), Some("openai"));
        assert!(backend_of(&["--endpoint", "http://127.0.0.1:9/v1"]).is_err());
        assert!(backend_of(&["--endpoint", "http://h/v1", "--model", " "]).is_err());
        assert!(backend_of(&["--endpoint", "127.0.0.1:9", "--model", "m"]).is_err());
        let demo = backend_of(&["--provider", "demo"]);
        assert_eq!(demo.map(|b| b.name()).ok(), Some("demo"));
    }

    #[test]
    fn missing_key_variable_is_a_usage_error_naming_it() {
        let e = read_key(Some("EVALPAGE_TEST_SURELY_UNSET_VAR")).expect_err("unset");
        assert_eq!(e.exit_code(), 2);
        assert!(e
            .to_string()
            .contains("EVALPAGE_TEST_SURELY_UNSET_VAR is not set"));
        assert!(read_key(None).map(|k| k.is_none()).unwrap_or(false));
    }

    #[test]
    fn settings_follow_the_flags() {
        let a = args(&[
            "--timeout-s",
            "1.5",
            "--match-mode",
            "strict",
            "--lang",
            "en",
        ]);
        assert_eq!(settings(&a.limits).timeout_ms, 1500);
        assert_eq!(Lang::from(a.output.lang), Lang::En);
    }
}
