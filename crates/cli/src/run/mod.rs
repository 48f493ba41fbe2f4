//! `evalpage run`: the core's sans-IO engine driven from a terminal, with a
//! native HTTP transport. Flags become a plan (`setup`), the plan runs
//! (`driver`), and the outputs are written as they are produced (`output`).

mod backend;
mod clock;
mod dialog;
mod driver;
mod http;
pub(crate) mod judge;
mod output;
mod registry;
mod resume;
mod retrieval;
mod setup;
mod task;

use crate::args::RunArgs;
use crate::error::CliError;
use clock::Clock;
use evalpage_core::events::Record;
use evalpage_core::rag::{case_line, finish_line, start_line};
use evalpage_core::rag::{Engine, RagKind};
use evalpage_core::report::{RunMeta, RunMetrics};
use evalpage_core::run::{Kind, Pipeline, RunStatus};
use output::{say, Output, REPORT_JSON, REPORT_MD};

/// What the one run loop needs from a kind besides the engine: the console
/// line of a settled job.
pub(crate) trait Console: Kind<Record = Record> + Sized {
    /// The `[EVAL]` line of a settled job, if it has one.
    fn job_line(engine: &Pipeline<Self>, job: usize) -> Option<String>;

    /// A side log written line by line as the run goes (a dialog run's
    /// `progress_{run_id}.jsonl`): its file name and its lines from `from` on.
    fn side_log(_engine: &Pipeline<Self>, _from: usize) -> Option<(String, Vec<String>)> {
        None
    }
}

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

/// The one run loop of `evalpage run`, for every kind: drives the engine to
/// the end, appending each record to both event logs as it comes and
/// printing each settled job's `[EVAL]` line.
pub(crate) fn run_to_end<K: Console>(
    engine: &mut Pipeline<K>,
    call: driver::Caller,
    clock: &Clock,
    out: &mut Output,
) -> Result<(), CliError> {
    let mut side = 0;
    driver::drive(engine, call, clock, |engine, events, finished| {
        for record in events {
            out.record(record)?;
        }
        if let Some((name, lines)) = K::side_log(engine, side) {
            side += lines.len();
            for line in lines {
                out.append_line(&name, &line)?;
            }
        }
        for job in finished {
            if let Some(line) = K::job_line(engine, job) {
                say(&line);
            }
        }
        Ok(())
    })
}

/// Renders and writes a finished run's files; returns how many it wrote.
pub(crate) type Finish<K> =
    Box<dyn FnOnce(&Pipeline<K>, &Output, &Clock) -> Result<usize, CliError>>;

/// A run checked from `evalpage run`'s flags and ready to go: every input
/// read, every model resolved, every key read, a resumed run's settled cases
/// taken over. Nothing is written before a plan exists.
pub(crate) struct Checked<K: Console> {
    engine: Pipeline<K>,
    call: driver::Caller,
    clock: Clock,
    start_line: String,
    finish: Finish<K>,
    /// The file the log's `summary` names as the final report.
    report: &'static str,
}

/// `evalpage run` (the RAG check, `--task` or `--retrieval`), checked.
pub(crate) enum RunPlan {
    /// The RAG check of spec 002.
    Rag(Box<Checked<RagKind>>),
    /// A spec 004 task over one or more models.
    Task(Box<Checked<evalpage_core::TaskKind>>),
    /// Spec 000's retrieval evaluation against a retrieval endpoint.
    Retrieval(Box<Checked<evalpage_core::RetrievalKind>>),
    /// Spec 001 dialogs played turn by turn.
    Dialog(Box<Checked<evalpage_core::DialogKind>>),
}

/// Raw flags to a checked plan.
pub(crate) fn check(args: &RunArgs) -> Result<RunPlan, CliError> {
    let judged = args.judge.is_some() || args.judge_concurrency.is_some();
    if (judged || args.model_registry.is_some()) && args.task.is_none() && args.dialogs.is_none() {
        return Err(CliError::Usage(
            "--judge, --judge-concurrency and --model-registry go with --task or --dialogs".into(),
        ));
    }
    if args.judge_concurrency.is_some() && args.judge.is_none() && args.task.is_none() {
        return Err(CliError::Usage(
            "--judge-concurrency goes with --judge".into(),
        ));
    }
    Ok(match (&args.task, &args.dialogs) {
        (_, Some(path)) => RunPlan::Dialog(Box::new(dialog::plan(args, path)?)),
        (Some(spec), None) => RunPlan::Task(Box::new(task::plan(args, spec)?)),
        (None, None) if args.retrieval => RunPlan::Retrieval(Box::new(retrieval::plan(args)?)),
        (None, None) => RunPlan::Rag(Box::new(rag_plan(args)?)),
    })
}

/// Runs an evaluation: exit status 0 means it finished, failed cases included.
pub fn execute(args: &RunArgs) -> Result<(), CliError> {
    match check(args)? {
        RunPlan::Rag(p) => p.run(&args.out),
        RunPlan::Task(p) => p.run(&args.out),
        RunPlan::Retrieval(p) => p.run(&args.out),
        RunPlan::Dialog(p) => p.run(&args.out),
    }
}

impl<K: Console> Checked<K> {
    /// The one run path: open the logs, print the start line, drive the
    /// engine to the end, write the files.
    fn run(mut self, out_dir: &std::path::Path) -> Result<(), CliError> {
        let mut out = Output::create(out_dir)?;
        out.set_report(self.report);
        say(&self.start_line);
        run_to_end(&mut self.engine, self.call, &self.clock, &mut out)?;
        let written = (self.finish)(&self.engine, &out, &self.clock)?;
        eprintln!(
            "evalpage: wrote {} files and 2 event logs to {}",
            written,
            out_dir.display()
        );
        Ok(())
    }
}

/// The RAG check's plan.
fn rag_plan(args: &RunArgs) -> Result<Checked<RagKind>, CliError> {
    let clock = Clock::start();
    let argv = std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let mut plan = setup::plan(args, &clock, argv)?;
    let prior = match &args.resume_from {
        Some(path) => Some(resume::load(path, &plan.cases)?),
        None => None,
    };
    if let Some(run_id) = prior.as_ref().and_then(|p| p.run_id.clone()) {
        plan.config.info.run_id = run_id;
    }
    let lang = plan.config.info.lang;
    let dataset_bytes = std::mem::take(&mut plan.dataset_bytes);
    let mut engine = Engine::new(plan.config, plan.cases);
    engine.set_policy(setup::policy(args));
    if let Some(prior) = prior {
        let taken = engine.restore(prior.calls);
        let total = engine.cases().len();
        eprintln!(
            "evalpage: resuming: {taken} of {total} cases already settled, sending {}",
            total - taken
        );
    }
    let backend = std::sync::Arc::new(plan.backend);
    let call: driver::Caller =
        std::sync::Arc::new(move |_, r: &driver::Request| backend.call(&r.messages));
    let dataset = args.dataset().display().to_string();
    let metadata = args.metadata.as_ref().map(|p| p.display().to_string());
    let price = setup::flag_price(args);
    let out_dir = args.out.clone();
    let finish: Finish<RagKind> = Box::new(move |engine, out, clock| {
        let meta = RunMeta {
            tool: "evalpage-cli".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            argv: engine.config().info.argv.clone(),
            dataset,
            metadata,
            started_at_ms: engine.config().info.started_at_ms,
            ended_at_ms: clock.now_ms(),
        };
        let prices: evalpage_core::report::Prices = price
            .map(|p| (engine.config().info.model.clone(), p))
            .into_iter()
            .collect();
        let written = out.write_reports(engine, clock.now_ms(), &dataset_bytes, &meta, &prices)?;
        let cancelled = engine.status() == RunStatus::Cancelled;
        let metrics = RunMetrics::from_results(engine.results());
        say(&finish_line(lang, &metrics, cancelled));
        eprintln!(
            "evalpage: wrote {} and {}",
            out.path(REPORT_JSON).display(),
            out.path(REPORT_MD).display()
        );
        match engine.stopped() {
            Some(fatal) => Err(setup::stopped(fatal, metrics.not_run_cases, &out_dir)),
            None => Ok(written),
        }
    });
    Ok(Checked {
        start_line: start_line(lang, engine.cases().len()),
        engine,
        call,
        clock,
        finish,
        report: REPORT_JSON,
    })
}
