//! `evalpage run --dialogs DATASET`: spec 001 dialogs played turn by turn on
//! the core's one engine (`DialogEngine`), against an OpenAI-compatible
//! endpoint (`--endpoint --model`) or the core's dialog mock (`--provider
//! demo`), through the same driver and run path as the other runs. Writes the
//! event logs record by record, `progress_{run_id}.jsonl` line by line, and
//! at the end spec 001's five artifacts. `--concurrency` is `workers_dialog`.
//!
//! `--judge NAME|mock` plugs a judge into the judged metrics (M3 and M4 by a
//! judge, M5; prompts in `--lang`): each turn's judge calls follow its answer
//! on the judge's own pool, `--judge-concurrency` (`workers_judge`, default
//! `--concurrency`). Without `--judge` those metrics are `not_run`.
//!
//! `--resume-from LOG` takes over the turns an interrupted run settled (its
//! log's `turn` records, the core's `dialog::resume`): each dialog goes on at
//! its first unsettled turn, the judge's settled verdicts are not asked
//! again, and the run keeps the interrupted run's id.

use super::backend::Backend;
use super::clock::Clock;
use super::driver::{Caller, Request};
use super::{resume, setup, Checked, Console};
use crate::args::{JudgeArgs, LimitArgs, OutputArgs, RunArgs};
use crate::error::CliError;
use evalpage_core::dialog::{
    mock_reply, parse_dialogs, progress_file, TurnStatus, MOCK_MODEL_NAME,
};
use evalpage_core::dialog::{DialogJudge, DialogKind, DialogRunConfig, ScoreOptions};
use evalpage_core::report::Prices;
use evalpage_core::run::Pipeline;
use evalpage_core::{strip_query, CallOutcome};
use std::path::Path;
use std::sync::Arc;

/// Checks `--dialogs`' flags and dataset (`path`) into a run ready to go.
/// The one place a dialog run reads `RunArgs`: each helper is handed the
/// parts it reads.
pub(super) fn plan(args: &RunArgs, path: &Path) -> Result<Checked<DialogKind>, CliError> {
    let RunArgs {
        dialog,
        judge: judge_flags,
        endpoint,
        request,
        limits,
        output: out,
        ..
    } = args;
    let clock = Clock::start();
    let backend = setup::backend(endpoint, request, limits.timeout(), out)?;
    let bytes = crate::files::read_dataset_bytes(path)?;
    let name = file_name(path);
    let mut set = parse_dialogs(&name, &bytes);
    // The demo mock finds a conversation's dialog among all of the file's (as
    // `evalpage mock-server --dialogs` and the page do), so a shard's answers
    // are the unsharded run's.
    let all_dialogs = Arc::new(set.dialogs.clone());
    set.dialogs = setup::in_shard(out.shard, std::mem::take(&mut set.dialogs), |d| {
        d.dialog_id.as_str()
    });
    for e in &set.errors {
        eprintln!("evalpage: skipped line {e}");
    }
    if set.dialogs.is_empty() {
        return Err(CliError::NoCases {
            path: path.display().to_string(),
            skipped: set.errors.len(),
        });
    }
    let (model, url) = match &backend {
        Backend::Demo => (MOCK_MODEL_NAME.to_string(), None),
        Backend::OpenAi(_) => (
            endpoint
                .model
                .clone()
                .unwrap_or_default()
                .trim()
                .to_string(),
            endpoint.endpoint.as_deref().map(|e| strip_query(e.trim())),
        ),
    };
    // A resumed run keeps the interrupted run's id (and so its progress file's name).
    let resume_from = out.resume_from.as_deref();
    let (log, run_id) =
        resume::log_and_run_id(resume_from, || clock.run_id(evalpage_core::RunKind::Dialog))?;
    let cfg = DialogRunConfig {
        run: setup::identity(path, limits, &clock, run_id),
        backend: backend.name().into(),
        model_name: model.clone(),
        endpoint: url,
        dataset_name: name,
        system_prompt: request.system_prompt.clone(),
        notes: None,
        scoring: ScoreOptions {
            m1_from_conversation: dialog.m1_from_conversation,
        },
    };
    let (judge, judge_answerer) = match dialog_judge(judge_flags, limits, out)? {
        Some((j, a)) => (Some(j), Some(Arc::new(a))),
        None => (None, None),
    };
    let judge_line = judge
        .as_ref()
        .map(|j| {
            format!(
                ", judged by {} (up to {} judge calls at once)",
                j.model.name, j.settings.concurrency
            )
        })
        .unwrap_or_default();
    // Pools: the model, then the judge.
    let prices = setup::flag_price(limits)
        .map(|p| (model.clone(), p))
        .into_iter()
        .collect();
    let spec = setup::start_spec(limits, prices, judge.as_ref().and_then(|j| j.price));
    let kind = DialogKind::judged(cfg, set, judge);
    let engine = setup::prepare(resume_from, kind, &spec, log.as_ref())?;
    let model: Caller = match backend {
        Backend::Demo => Arc::new(move |_, r: &Request| {
            CallOutcome::Answer(mock_reply(&all_dialogs, &r.messages))
        }),
        Backend::OpenAi(http) => {
            let http = Arc::new(http);
            Arc::new(move |job, r: &Request| {
                http.call(
                    &r.messages,
                    super::http::At {
                        job,
                        repeat: r.repeat,
                        judge: false,
                    },
                )
            })
        }
    };
    // pool 0: the model; pool 1: the judge
    let call: Caller = match judge_answerer {
        Some(judge) => Arc::new(move |job, r: &Request| match r.pool {
            1 => judge.call(job, &r.messages, r.repeat),
            _ => model(job, r),
        }),
        None => model,
    };
    let k = engine.kind();
    let playable = evalpage_core::run::Kind::jobs(engine.kind());
    let start_line = format!(
        "[EVAL] dialogs {}: {} dialog(s), {} to play, {} skipped (not aligned), up to {} at once{judge_line}",
        k.config().dataset_name,
        k.dialogs().len(),
        playable,
        k.dialogs().len() - playable,
        k.config().run.settings.concurrency
    );
    Ok(Checked {
        closer: None,
        engine,
        call,
        clock,
        start_line,
        inputs: (),
        prices: Prices::new(),
        metadata: None,
        spec,
        max_tokens: vec![request.max_tokens.map(u64::from), None],
    })
}

/// The judge of spec 001's judged metrics (`--judge NAME|mock`, from
/// `--model-registry`), prompting in `--lang`, on its own pool of
/// `--judge-concurrency` requests, its answers taken from `out`'s cache
/// first; none without `--judge`.
fn dialog_judge(
    flags: &JudgeArgs,
    limits: &LimitArgs,
    out: &OutputArgs,
) -> Result<Option<(DialogJudge, super::judge::JudgeAnswerer)>, CliError> {
    let Some(name) = &flags.judge else {
        return Ok(None);
    };
    let j = super::judge::resolve(name, flags.model_registry.as_deref(), limits.timeout())?;
    let settings = setup::judge_settings(limits, flags.judge_concurrency);
    let mut judge = DialogJudge::new(j.model, settings, out.lang.into());
    judge.price = j.price;
    Ok(Some((judge, j.answerer.with_cache(setup::cache(out)?))))
}

/// `--resume-from`: the interrupted run's settled turns, taken over.
fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// `[EVAL] dialog ID - ok | 3/3 turns` (and the error of a failed turn).
impl Console for DialogKind {
    fn job_line(engine: &Pipeline<DialogKind>, job: usize) -> Option<String> {
        let t = engine.kind().trace_of_job(job)?;
        let ok = t
            .turns
            .iter()
            .filter(|x| x.turn_status == TurnStatus::Ok)
            .count();
        let status = serde_json::to_value(t.dialog_status)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        let error = t
            .dialog_error
            .as_deref()
            .map(|e| format!(" | {e}"))
            .unwrap_or_default();
        Some(format!(
            "[EVAL] dialog {} - {status} | {ok}/{} turns{error}",
            t.dialog_id,
            t.turns.len()
        ))
    }

    fn side_log(engine: &Pipeline<DialogKind>, from: usize) -> Option<(String, Vec<String>)> {
        let k = engine.kind();
        let lines = k.progress().iter().skip(from).map(|p| p.line()).collect();
        Some((progress_file(&k.config().run.run_id), lines))
    }
}
