//! The end of a run, owned by its kind. Every kind of evaluation says which
//! file is its report (named by the event log's `summary`) and renders every
//! file of a finished run; the shells finish every kind's run in one place
//! (the CLI's one run path, the page's one runner) through [`finish`], which
//! builds the report's run metadata from the run's [`RunIdentity`] and
//! hands the shell's prices (the judge's included) to the kind, so the page
//! and the CLI write the same files from the same run.

use super::{Kind, Pipeline, RunIdentity};
use crate::lang::Words;
use crate::report::{EvaluationResult, Prices, ReportNames, RunMeta};

/// What the shell adds at the end of a run, the same for every kind.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunEnd {
    /// The shell's version.
    pub version: String,
    /// The `metadata.json` given with the dataset, as named, if any.
    pub metadata: Option<String>,
    /// End time, ms since the epoch.
    pub ended_at_ms: u64,
    /// Prices per million tokens by model name, the judge's included: the
    /// report's cost.
    pub prices: Prices,
}

/// A finished run's files, rendered by its kind.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Ended {
    /// Every file of the run but its two event logs, the report first:
    /// (file name, text).
    pub files: Vec<(String, String)>,
    /// The report, for a shell that shows it (the kinds whose report is an
    /// `EvaluationResult`; it is `report.json`'s content).
    pub report: Option<EvaluationResult>,
    /// What the shell shows at the end (the `[EVAL]` finish line, the
    /// metrics in one line each).
    pub lines: Vec<String>,
    /// Jobs a fatal answer left unsent (the run stopped early).
    pub not_run: usize,
}

/// What a kind states about itself, once, in its own room (`rag::KIND`,
/// ...): what the shells call it and the files it writes. `RunKind::decl`
/// finds it; its tag is `RunKind::tag`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KindDecl {
    /// Its name: the page's tab, the badge of a run offered for resume.
    pub title: Words,
    /// How an unfinished run of it is introduced in a resume offer.
    pub unfinished: Words,
    /// What its settled units are, after the count in a resume offer.
    pub settled: Words,
    /// Its report and event log file names (its `Finish::NAMES`).
    pub names: ReportNames,
    /// Its report is an `EvaluationResult` (a dialog run's is spec 001's
    /// summary instead).
    pub evaluation_report: bool,
}

/// The end of a run of one kind of evaluation.
pub trait Finish: Kind + Sized {
    /// The report file, as the event log's `summary` names it, and the two
    /// event logs.
    const NAMES: ReportNames;
    /// What the files are rendered from besides the engine (the dataset's
    /// bytes and line errors, the language ...), read by the shell before
    /// the run and handed over at its end.
    type Inputs;
    /// Renders every file of the finished run: `meta` describes the run (for
    /// the report and its files), `prices` price its models.
    fn files(
        engine: &Pipeline<Self>,
        inputs: Self::Inputs,
        meta: &RunMeta,
        prices: &Prices,
    ) -> Result<Ended, String>;
}

/// The report's run metadata of a run that ends now.
pub fn run_meta(run: &RunIdentity, end: &RunEnd) -> RunMeta {
    RunMeta {
        tool: run.tool.clone(),
        version: end.version.clone(),
        argv: run.argv.clone(),
        dataset: run.dataset.clone(),
        metadata: end.metadata.clone(),
        started_at_ms: run.started_at_ms,
        ended_at_ms: end.ended_at_ms,
    }
}

/// The one end of every run: the run metadata from the run's identity, then
/// the kind's files.
pub fn finish<K: Finish>(
    engine: &Pipeline<K>,
    inputs: K::Inputs,
    end: &RunEnd,
) -> Result<Ended, String> {
    let meta = run_meta(engine.kind().identity(), end);
    K::files(engine, inputs, &meta, &end.prices)
}
