//! `evalpage run`: the core's sans-IO engine driven from a terminal, with a
//! native HTTP transport. Flags become a plan (`setup`), the plan runs
//! (`driver`), and the outputs are written as they are produced (`output`).

mod backend;
pub(crate) mod clock;
mod dialog;
mod driver;
pub(crate) mod http;
pub(crate) mod judge;
mod mcp;
mod output;
mod progress;
mod rag;
mod registry;
mod resume;
mod retrieval;
mod setup;
mod task;

use crate::args::RunArgs;
use crate::error::CliError;
use clock::Clock;
use evalpage_core::events::Record;
use evalpage_core::report::Prices;
use evalpage_core::run::{finish, Finish, Kind, Pipeline, RunEnd, RunStatus};
use output::{say, Output};

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

/// The one run loop of `evalpage run`, for every kind: drives the engine to
/// the end, appending each record to both event logs as it comes and
/// printing each settled job's `[EVAL]` line (above a progress bar on a
/// terminal).
pub(crate) fn run_to_end<K: Console>(
    engine: &mut Pipeline<K>,
    call: driver::Caller,
    closer: Option<&Closer>,
    clock: &Clock,
    out: &mut Output,
    progress: &mut progress::Progress,
) -> Result<(), CliError> {
    let mut side = 0;
    let ran = driver::drive(engine, call, clock, |engine, events, finished| {
        for record in events {
            progress.record(&record);
            out.record(record)?;
        }
        if let Some((name, lines)) = K::side_log(engine, side) {
            side += lines.len();
            for line in lines {
                out.append_line(&name, &line)?;
            }
        }
        for job in finished {
            if let Some(close) = closer {
                close(job);
            }
            if let Some(line) = K::job_line(engine, job) {
                progress.say(&line);
            }
        }
        progress.set(engine.progress().0, engine.spent());
        Ok(())
    });
    progress.finish();
    ran
}

/// What is held for a job until it settles (an agent case's MCP session),
/// let go of when it has.
pub(crate) type Closer = std::sync::Arc<dyn Fn(usize) + Send + Sync>;

/// A run checked from `evalpage run`'s flags and ready to go: every input
/// read, every model resolved, every key read, a resumed run's settled cases
/// taken over. Nothing is written before a plan exists.
pub(crate) struct Checked<K: Console + Finish> {
    engine: Pipeline<K>,
    call: driver::Caller,
    /// Called for each settled job (an agent case's MCP session closed).
    closer: Option<Closer>,
    clock: Clock,
    start_line: String,
    /// What the kind's files are rendered from at the end.
    inputs: K::Inputs,
    /// Prices by model name, the judge's included.
    prices: Prices,
    /// `--metadata`, as given.
    metadata: Option<String>,
    /// How the run was started (its prices: what `--estimate` prices).
    spec: evalpage_core::run::StartSpec,
    /// Each pool's answer limit (`max_tokens`), by pool number.
    max_tokens: Vec<Option<u64>>,
}

impl<K: Console + Finish + evalpage_core::run::Start> Checked<K> {
    /// `--estimate`: the calls the run would send first, per model, with an
    /// upper bound of their tokens and cost; written to `estimate.json`.
    fn estimate(&self, out_dir: &std::path::Path) -> Result<(), CliError> {
        let mut models = Vec::new();
        for e in self.engine.estimate(&self.spec, &self.max_tokens) {
            say(&format!(
                "[EVAL] estimate: {}: {} call(s), at most {} prompt tokens, {}{}",
                e.model,
                e.calls,
                e.prompt_tokens_max,
                match (e.completion_tokens_max, e.max_tokens) {
                    (Some(c), Some(m)) => format!("at most {c} completion tokens (max_tokens {m})"),
                    _ => "completion tokens unbounded (no max_tokens: set --max-tokens or the model's max_tokens)".into(),
                },
                match (e.cost_max, e.price) {
                    (Some(c), _) => format!(", cost at most {c:.4}"),
                    (None, None) => ", no price".into(),
                    (None, Some(_)) => ", cost unbounded".into(),
                }
            ));
            models.push(serde_json::json!({
                "name": e.model,
                "calls": e.calls,
                "prompt_tokens_max": e.prompt_tokens_max,
                "max_tokens": e.max_tokens,
                "completion_tokens_max": e.completion_tokens_max,
                "price": e.price.map(|p| serde_json::json!({"in_per_mtok": p.in_per_mtok, "out_per_mtok": p.out_per_mtok})),
                "cost_max": e.cost_max,
            }));
        }
        let estimate = serde_json::json!({
            "models": models,
            "method": "each model's first calls (every case's; a resumed run's cases not taken over): prompt tokens at most the UTF-8 bytes of the messages plus 4 per message and 3 (a byte-level BPE tokenizer never makes more tokens than bytes); completion tokens at most max_tokens per call; cost from the prices per million tokens",
            "not_counted": "calls that follow an answer (a judge's, a dialog's later turns): their prompts hold the answer",
        });
        std::fs::create_dir_all(out_dir).map_err(|e| CliError::output(out_dir, e))?;
        let path = out_dir.join("estimate.json");
        let text = crate::report::pretty(&estimate)?;
        std::fs::write(&path, text).map_err(|e| CliError::output(&path, e))?;
        eprintln!("evalpage: nothing was sent; wrote {}", path.display());
        Ok(())
    }
}

/// `evalpage run` (the RAG check, `--task`, `--retrieval` or `--dialogs`),
/// checked: one kind's [`Checked`] plan, behind the one interface every kind
/// shares, so that a kind is named once, in [`check`].
pub(crate) type RunPlan = Box<dyn Plan>;

/// What the commands do with a checked plan, whatever its kind.
pub(crate) trait Plan {
    /// Jobs the run would send a call for (none when an earlier run's log
    /// settled them all).
    fn unsent(&self) -> usize;
    /// `--estimate`: what the plan would send, into `out/estimate.json`.
    fn estimate(&self, out: &std::path::Path) -> Result<(), CliError>;
    /// Readies the plan for answers read from batch files: a failed call is
    /// final (never asked again) and a fatal answer stops nothing (each
    /// request of a batch stands alone). Returns each job's case id.
    fn for_batch(&mut self) -> Vec<Option<String>>;
    /// Runs the plan into `out` without a bar, per-case lines or the last
    /// lines (a batch round's drive).
    fn run_quiet(self: Box<Self>, out: &std::path::Path) -> Result<(), CliError>;
    /// Runs the plan into `out`.
    fn run(self: Box<Self>, out: &std::path::Path) -> Result<(), CliError>;
}

impl<K: Console + Finish + evalpage_core::run::Start + 'static> Plan for Checked<K> {
    fn unsent(&self) -> usize {
        self.engine.unsent()
    }

    fn estimate(&self, out: &std::path::Path) -> Result<(), CliError> {
        Checked::estimate(self, out)
    }

    fn for_batch(&mut self) -> Vec<Option<String>> {
        self.engine.answers_from_batch();
        (0..self.engine.kind().jobs())
            .map(|job| self.engine.kind().case_id(job))
            .collect()
    }

    fn run_quiet(self: Box<Self>, out: &std::path::Path) -> Result<(), CliError> {
        self.run_with(out, true)
    }

    fn run(self: Box<Self>, out: &std::path::Path) -> Result<(), CliError> {
        self.run_with(out, false)
    }
}

/// Raw flags to a checked plan: the one place each kind is named. Each
/// kind's plan is handed the flags once and hands its helpers the parts
/// they read.
pub(crate) fn check(args: &RunArgs) -> Result<RunPlan, CliError> {
    let (task, dialogs, judge) = (&args.task.task, &args.dialog.dialogs, &args.judge);
    let judged = judge.judge.is_some() || judge.judge_concurrency.is_some();
    if (judged || judge.model_registry.is_some()) && task.is_none() && dialogs.is_none() {
        return Err(CliError::Usage(
            "--judge, --judge-concurrency and --model-registry go with --task or --dialogs".into(),
        ));
    }
    if judge.judge_concurrency.is_some() && judge.judge.is_none() && task.is_none() {
        return Err(CliError::Usage(
            "--judge-concurrency goes with --judge".into(),
        ));
    }
    Ok(match (task, dialogs) {
        (_, Some(path)) => Box::new(dialog::plan(args, path)?),
        (Some(spec), None) => Box::new(task::plan(args, spec)?),
        (None, None) if args.retrieval.retrieval => Box::new(retrieval::plan(args)?),
        (None, None) => Box::new(rag::plan(args)?),
    })
}

/// Runs an evaluation: exit status 0 means it finished, failed cases included.
pub fn execute(args: &RunArgs) -> Result<(), CliError> {
    let plan = check(args)?;
    if args.output.estimate {
        return plan.estimate(&args.output.out);
    }
    plan.run(&args.output.out)
}

impl<K: Console + Finish> Checked<K> {
    /// The one run path of every kind: open the logs, print the start line
    /// (unless `quiet`), drive the engine to the end (with no bar or per-case
    /// lines when `quiet`), then the kind's end of run (its files, priced,
    /// and its last lines), written here.
    fn run_with(mut self, out_dir: &std::path::Path, quiet: bool) -> Result<(), CliError> {
        let mut out = Output::create(out_dir, K::NAMES)?;
        if !quiet {
            say(&self.start_line);
        }
        let total = self.engine.progress().1;
        let mut progress = progress::Progress::new(total, &self.prices);
        if quiet {
            progress = progress.quiet();
        }
        run_to_end(
            &mut self.engine,
            self.call,
            self.closer.as_ref(),
            &self.clock,
            &mut out,
            &mut progress,
        )?;
        let end = RunEnd {
            version: env!("CARGO_PKG_VERSION").into(),
            metadata: self.metadata,
            ended_at_ms: self.clock.now_ms(),
            prices: self.prices,
        };
        let ended = finish(&self.engine, self.inputs, &end)
            .map_err(|e| CliError::output(&out.path(K::NAMES.report), std::io::Error::other(e)))?;
        for (name, text) in &ended.files {
            out.write_file(name, text)?;
        }
        for line in ended.lines.iter().filter(|_| !quiet) {
            say(line);
        }
        if self.engine.status() == RunStatus::Cancelled {
            eprintln!("evalpage: the run stopped before every case settled");
        }
        if let (Some(reason), Some(fatal)) = (self.engine.stop_reason(), self.engine.stopped()) {
            return Err(setup::stopped(
                reason,
                fatal,
                ended.not_run,
                &out.path(K::NAMES.jsonl),
            ));
        }
        if !quiet {
            eprintln!(
                "evalpage: wrote {} files and 2 event logs to {}",
                ended.files.len(),
                out_dir.display()
            );
        }
        Ok(())
    }
}
