//! `evalpage run`: the core's sans-IO engine driven from a terminal, with a
//! native HTTP transport. Flags become a plan (`setup`), the plan runs
//! (`driver`), and the outputs are written as they are produced (`output`).

mod backend;
mod clock;
mod driver;
mod http;
mod output;
mod resume;
mod setup;
mod task;

use crate::args::RunArgs;
use crate::error::CliError;
use clock::Clock;
use evalpage_core::console::{case_line, finish_line, start_line};
use evalpage_core::report::{RunMeta, RunMetrics};
use evalpage_core::run::{Engine, RunStatus};
use output::{say, Output, REPORT_JSON, REPORT_MD};

/// Runs an evaluation: exit status 0 means it finished, failed cases included.
pub fn execute(args: &RunArgs) -> Result<(), CliError> {
    if let Some(spec) = &args.task {
        return task::execute(args, spec);
    }
    let clock = Clock::start();
    let argv = std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let mut plan = setup::plan(args, &clock, argv)?;
    let prior = match &args.resume_from {
        Some(path) => Some(resume::load(path, &plan.cases, &plan.config.scoring)?),
        None => None,
    };
    if let Some(run_id) = prior.as_ref().and_then(|p| p.run_id.clone()) {
        plan.config.info.run_id = run_id;
    }
    let mut out = Output::create(&args.out)?;
    let lang = plan.config.info.lang;
    let dataset_bytes = std::mem::take(&mut plan.dataset_bytes);
    let mut engine = Engine::new(plan.config, plan.cases);
    engine.set_policy(setup::policy(args));
    say(&start_line(lang, engine.cases().len()));
    if let Some(prior) = prior {
        let taken = engine.restore(prior.results);
        let total = engine.cases().len();
        eprintln!(
            "evalpage: resuming: {taken} of {total} cases already settled, sending {}",
            total - taken
        );
    }
    let backend = std::sync::Arc::new(plan.backend);
    let call: driver::Caller = std::sync::Arc::new(move |_, m: &[_]| backend.call(m));
    driver::drive(&mut engine, call, &clock, |engine, events, finished| {
        for record in events {
            out.record(record)?;
        }
        let lang = engine.config().info.lang;
        for case in finished {
            if let (Some(c), Some(Some(r))) = (engine.cases().get(case), engine.results().get(case))
            {
                say(&case_line(lang, c, r));
            }
        }
        Ok(())
    })?;
    let meta = RunMeta {
        tool: "evalpage-cli".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        argv: engine.config().info.argv.clone(),
        dataset: args.dataset.display().to_string(),
        metadata: args.metadata.as_ref().map(|p| p.display().to_string()),
        started_at_ms: engine.config().info.started_at_ms,
        ended_at_ms: clock.now_ms(),
    };
    let prices: evalpage_core::report::Prices = setup::flag_price(args)
        .map(|p| (engine.config().info.model.clone(), p))
        .into_iter()
        .collect();
    let written = out.write_reports(&engine, clock.now_ms(), &dataset_bytes, &meta, &prices)?;
    let cancelled = engine.status() == RunStatus::Cancelled;
    let metrics = RunMetrics::from_results(engine.results());
    say(&finish_line(lang, &metrics, cancelled));
    eprintln!(
        "evalpage: wrote {} and {} ({} files and 2 event logs in {})",
        out.path(REPORT_JSON).display(),
        out.path(REPORT_MD).display(),
        written,
        args.out.display()
    );
    match engine.stopped() {
        Some(fatal) => Err(setup::stopped(fatal, metrics.not_run_cases, args)),
        None => Ok(()),
    }
}
