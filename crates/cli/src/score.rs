//! `evalpage score`: answers produced elsewhere, scored with no model call:
//! against a task (this file), ranked source lists of a retrieval system
//! (`score_retrieval`), or a dialog trace (`score_dialog`). This file checks
//! the flags for the kind of scoring they ask for (a flag that cannot apply
//! is an error naming it, exit 2; what the three share, reading inputs and
//! writing files, is in `files`), and scores a
//! task: it reads the inputs, calls the core (`evalpage_core::task`) and
//! writes the artifacts; bad input lines are reported on stderr and skipped.
//!
//! With `--judge NAME|mock` a task's `llm_judge` metrics are judged as `run
//! --task --judge` judges them: on the run engine, each model call answered
//! from the responses file (no request) and each judge call sent to the
//! judge's own pool (`--judge-concurrency`, default 4), so the judged
//! values, outcomes and `llm_judge_details` are the run's
//! (`evalpage_core::task::FileAnswers`). Everything else is scored as without a
//! judge. Exit 0 when scoring finished, 2 when the inputs cannot be used (no
//! valid sample, no valid response, a bad task, a flag that does not apply),
//! 3 when the judge gave a fatal answer (401, 403, 404) or has no question to
//! judge because no sample's prompt renders (nothing is written; the error
//! names the template's missing field). Samples are measured for the
//! breakdown by length as a run measures them (`task::measure_lengths`).

use crate::args::ScoreArgs;
use crate::error::CliError;
use crate::files::{judge_settings, now_ms, read_dataset_with, read_input, report_skipped};
use crate::files::{run_meta, write_files, wrote};
use crate::run::judge::{judge_answers, task_judge};
use crate::task_file::{self, LoadedTask};
use crate::{score_dialog, score_retrieval};

use evalpage_core::task::{
    judged_metrics, render_prompts, take_judged, AnswerSource, DatasetFormat, FileAnswers, Scored,
    TaskDataset,
};
use evalpage_core::LineError;
use std::path::Path;

/// What `evalpage score` scores, from its flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scoring<'a> {
    /// A task's metrics over answers (`--task`).
    Task(&'a str),
    /// Ranked source lists (`--retrieval`).
    Retrieval,
    /// A dialog trace (`--dialogs`).
    Dialogs,
}

impl Scoring<'_> {
    /// The flag that picks this kind of scoring.
    fn flag(self) -> &'static str {
        match self {
            Scoring::Task(_) => "--task",
            Scoring::Retrieval => "--retrieval",
            Scoring::Dialogs => "--dialogs",
        }
    }
}

/// Runs `evalpage score`.
pub fn execute(args: &ScoreArgs) -> Result<(), CliError> {
    match check(args)? {
        Scoring::Retrieval => score_retrieval::execute(args),
        Scoring::Dialogs => score_dialog::execute(args),
        Scoring::Task(spec) => score_task(args, spec),
    }
}

/// The kind of scoring the flags ask for, every flag checked against it: a
/// flag that cannot apply is an error naming it and why. (clap refuses the
/// flags of two kinds together, e.g. `--task` with `--retrieval`, and the
/// files a kind does not read, e.g. `--responses` with `--dialogs`; the task
/// path checks `--judge` against the task's metrics once it is read.)
fn check(args: &ScoreArgs) -> Result<Scoring<'_>, CliError> {
    let scoring = match (&args.task, args.retrieval, &args.dialogs) {
        (_, true, _) => Scoring::Retrieval,
        (_, _, Some(_)) => Scoring::Dialogs,
        (Some(task), _, _) => Scoring::Task(task),
        (None, false, None) => {
            return Err(CliError::Usage(
                "give --task, --retrieval or --dialogs".into(),
            ))
        }
    };
    let refuse =
        |flag: &str, why: &str| Err(CliError::Usage(format!("{flag} does not apply {why}")));
    let with = scoring.flag();
    if args.k.is_some() && scoring != Scoring::Retrieval {
        return refuse(
            "--k",
            &format!("to {with}: it is the cut-off of --retrieval's ranked lists (hit_at_k, recall_at_k, ndcg_at_k)"),
        );
    }
    match (&args.judge, scoring) {
        (Some(_), Scoring::Retrieval) => {
            return refuse(
                "--judge",
                "to --retrieval: ranked source lists are scored with no model (hit_at_k, recall_at_k, mrr, ndcg_at_k); \
                 a judge grades a task's llm_judge metrics (--task) or a dialog trace's judged metrics (--dialogs)",
            )
        }
        (None, _) if args.judge_concurrency.is_some() => {
            return refuse(
                "--judge-concurrency",
                "without --judge: it limits the judge's requests in flight",
            )
        }
        (None, _) if args.model_registry.is_some() => {
            return refuse(
                "--model-registry",
                "without --judge NAME: it holds the judge's entry (score calls no other model)",
            )
        }
        (Some(name), _) if name == "mock" && args.model_registry.is_some() => {
            return refuse(
                "--model-registry",
                "to --judge mock: the mock judge is built in (--model-registry holds the entry of --judge NAME)",
            )
        }
        _ => {}
    }
    Ok(scoring)
}

/// Scores answers against a task (`--task`), judged with `--judge`.
fn score_task(args: &ScoreArgs, spec: &str) -> Result<(), CliError> {
    let started_at_ms = now_ms();
    let loaded = task_file::load(spec)?;
    let judged: Vec<&str> = judged_metrics(&loaded.task)
        .into_iter()
        .map(|(_, name, _)| name)
        .collect();
    let judge = match (&args.judge, judged.is_empty()) {
        (Some(name), true) => {
            let metrics: Vec<String> = loaded
                .task
                .metrics
                .iter()
                .map(|m| format!("{} ({})", m.name, m.kind))
                .collect();
            return Err(CliError::Usage(format!(
                "--judge {name} does not apply: task `{}` has no llm_judge metric to judge (its metrics: {})",
                loaded.info.name,
                metrics.join(", ")
            )));
        }
        (Some(name), false) => {
            let (settings, timeout) = judge_settings(args);
            let registry = args.model_registry.as_deref();
            Some(task_judge(&loaded, name, registry, settings, timeout)?)
        }
        (None, false) => {
            eprintln!(
                "evalpage: not judged without --judge NAME|mock: {} (llm_judge)",
                judged.join(", ")
            );
            None
        }
        (None, true) => None,
    };
    let format = DatasetFormat::for_task(&loaded.task);
    let (bytes, mut data) = read_dataset_with(
        args.dataset(),
        args.metadata.as_deref(),
        format,
        None,
        args.possible_answers.as_deref(),
    )?;
    // the breakdown by length, measured as a run measures it
    evalpage_core::task::measure_lengths(&loaded.task, &loaded.template, &mut data.samples);
    let resp = read_responses(args.responses())?;
    let mut scored = evalpage_core::task::score_responses(&loaded.task, &data, &resp);
    report_skipped(&scored.unknown);
    if let Some((task_judge, answerer, price)) = judge {
        let answers = FileAnswers::new(&data, &resp);
        eprintln!(
            "evalpage: judging {} case(s) ({} model(s) x {} samples) with {} (up to {} at once)",
            answers.jobs(),
            answers.models().len(),
            data.samples.len(),
            task_judge.model.name,
            task_judge.settings.concurrency,
        );
        let LoadedTask {
            task,
            info,
            template,
            ..
        } = &loaded;
        let engine = answers.engine(task, info, template, &data, task_judge, started_at_ms);
        let engine = judge_answers(engine, answers, answerer)?;
        if let Some(fatal) = engine.stopped() {
            return Err(judge_stopped(fatal));
        }
        take_judged(task, &mut scored, &engine.scored());
        scored.judge_price = price;
    }
    let mut from_responses: Vec<LineError> =
        resp.errors.iter().chain(&scored.unknown).cloned().collect();
    from_responses.sort_by_key(|e| e.line);
    let line_errors: Vec<LineError> = data.errors.iter().cloned().chain(from_responses).collect();
    let inputs = Inputs {
        loaded: &loaded,
        data: &data,
        scored: &scored,
        dataset_bytes: &bytes,
        line_errors: &line_errors,
    };
    let written = write_all(args, &inputs, started_at_ms)?;
    print_summary(&scored);
    wrote(written, 0, &args.out);
    Ok(())
}

/// The judge gave an answer that would be the same for every call (401,
/// 403, 404), or has nothing to judge (no sample's prompt renders, so no
/// question): what it said and what to fix; nothing is written.
fn judge_stopped(fatal: &evalpage_core::CallError) -> CliError {
    if fatal.kind == evalpage_core::ErrorKind::Prompt {
        return CliError::Stopped(format!(
            "the judge has no question to judge: {}\n\
             nothing was written; {}",
            fatal.message,
            crate::error::PROMPT_FIX.replace("run again", "score again")
        ));
    }
    let at = fatal
        .url
        .as_deref()
        .map(|u| format!(" from {u}"))
        .unwrap_or_default();
    CliError::Stopped(format!(
        "the judge stopped at a fatal answer{at}: {}\n\
         nothing was written; fix the judge's entry (its key, model or URL) and score again",
        fatal.message
    ))
}

/// What the writers read.
struct Inputs<'a> {
    loaded: &'a LoadedTask,
    data: &'a TaskDataset,
    scored: &'a Scored,
    dataset_bytes: &'a [u8],
    line_errors: &'a [LineError],
}

fn read_responses(path: &Path) -> Result<evalpage_core::task::ResponseSet, CliError> {
    let shown = path.display().to_string();
    let bytes = read_input(path)?;
    let set = evalpage_core::task::parse_responses(&shown, &bytes);
    report_skipped(&set.errors);
    if set.responses.is_empty() {
        return Err(CliError::Input {
            path: shown,
            message: format!(
                "no valid response line ({} line(s) skipped); expected JSONL of {{\"sample_id\": ..., \"response\": \"...\", \"model\": \"...\"}}",
                set.errors.len()
            ),
        });
    }
    Ok(set)
}

/// Renders and writes every file of a task scoring; returns how many.
fn write_all(args: &ScoreArgs, i: &Inputs<'_>, started_at_ms: u64) -> Result<usize, CliError> {
    let out = &args.out;
    let source = AnswerSource::Score {
        responses: args.responses().display().to_string(),
    };
    let files = evalpage_core::task::render_files(&evalpage_core::task::Inputs {
        task: &i.loaded.task,
        info: &i.loaded.info,
        // Answers read from a file: the prompts that would have been sent.
        prompts: &render_prompts(&i.loaded.task, &i.loaded.template, &i.data.samples),
        data: i.data,
        dataset_bytes: i.dataset_bytes,
        scored: i.scored,
        line_errors: i.line_errors,
        source: &source,
        meta: &run_meta(args, started_at_ms),
        lang: args.lang.into(),
    })
    .map_err(|e| CliError::output(&out.join("summary.csv"), std::io::Error::other(e)))?;
    write_files(out, &files)
}

/// One line per model on stdout: answered, parse problems, metric means. A
/// metric with no scored sample has no mean: `name=- (N skipped)`, never 0.
pub(crate) fn print_summary(scored: &Scored) {
    for line in evalpage_core::task::summary_lines(scored) {
        println!("{line}");
    }
}
