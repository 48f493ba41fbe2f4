//! `evalpage`: the evalpage core from a terminal.
//!
//! `evalpage run` evaluates a RAG dataset against the demo model or an
//! OpenAI-compatible endpoint and writes `report.json`, `report.md` and the
//! event logs, or with `--task` runs a spec 004 task over several models from a
//! registry (or the offline mock model) and writes every task artifact; `evalpage mock-server` serves a deterministic OpenAI-compatible
//! endpoint on 127.0.0.1 with optional injected faults; `evalpage reconcile`
//! checks an event log against a final report; `evalpage score` scores answers
//! produced elsewhere against a task (no model call but the judge's, with
//! `--judge`); `evalpage run --dialogs` plays
//! spec 001 dialogs and `evalpage score --dialogs` scores a dialog trace; `evalpage task check`
//! validates a task file; `evalpage compare` compares two saved runs case by case
//! and gates on significant drops; `evalpage report` renders a saved report again.

mod agree;
mod args;
mod batch;
mod cache;
mod compare;
mod error;
mod files;
mod import;
mod merge;
mod mock;
mod reconcile;
mod report;
mod run;
mod score;
mod score_dialog;
mod score_retrieval;
mod store;
mod task_check;
mod task_file;

use anyhow::Context;
use args::{BatchCommand, CacheCommand, Cli, Command, TaskCommand};
use clap::Parser;
use error::CliError;
use std::process::ExitCode;

/// mimalloc serves the many small allocations of reading and scoring
/// (strings, JSON values) faster than the system allocator: 25 to 30% more
/// tool-call verdicts a second (docs/BENCHMARKS.md).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match dispatch(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("evalpage: error: {err:#}");
            let code = err
                .downcast_ref::<CliError>()
                .map_or(1, CliError::exit_code);
            ExitCode::from(code)
        }
    }
}

fn dispatch(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Run(a) => Ok(run::execute(&a)?),
        Command::MockServer(a) => mock::serve(&a).context("mock server stopped"),
        Command::Reconcile(a) => Ok(reconcile::check(&a)?),
        Command::Score(a) => Ok(score::execute(&a)?),
        Command::Task(TaskCommand::Check(a)) => Ok(task_check::check(&a)?),
        Command::Compare(a) => Ok(compare::execute(&a)?),
        Command::Report(a) => Ok(report::execute(&a)?),
        Command::Merge(a) => Ok(merge::execute(&a)?),
        Command::Import(a) => Ok(import::execute(&a)?),
        Command::Cache(a) => Ok(cache::execute(match &a.command {
            CacheCommand::Stats { dir } => cache::Action::Stats(dir),
            CacheCommand::Clear { dir, older_than } => {
                cache::Action::Clear(dir, older_than.as_deref())
            }
        })?),
        Command::Batch(BatchCommand::Export(a)) => Ok(batch::export(*a)?),
        Command::Batch(BatchCommand::Import(a)) => Ok(batch::import(&a)?),
        Command::Agree(a) => Ok(agree::execute(&a)?),
    }
}
