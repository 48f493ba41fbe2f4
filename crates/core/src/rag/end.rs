//! The end of a RAG check: `eval_rag_report.json` (spec 000's name) and the
//! files beside it, priced,
//! and the `[EVAL]` finish line.

use super::console::finish_line;
use super::report::{build, rag_outputs};
use super::RagKind;
use crate::report::{render_outputs, set_prices, Prices, ReportNames, RunMeta, RunMetrics};
use crate::run::{Ended, Finish, Pipeline, RunStatus};

impl Finish for RagKind {
    const NAMES: ReportNames = super::report::KIND.names;
    /// The dataset file's bytes (for its fingerprint).
    type Inputs = Vec<u8>;

    fn files(
        engine: &Pipeline<RagKind>,
        dataset_bytes: Vec<u8>,
        meta: &RunMeta,
        prices: &Prices,
    ) -> Result<Ended, String> {
        let mut report = build(engine, meta.ended_at_ms);
        set_prices(&mut report, prices);
        let lang = engine.config().info.lang;
        let outputs = rag_outputs(engine, &report, lang, &dataset_bytes, meta);
        let files =
            render_outputs(outputs).map_err(|e| format!("could not render summary.csv: {e}"))?;
        let metrics = RunMetrics::from_results(engine.results());
        let cancelled = engine.status() == RunStatus::Cancelled;
        Ok(Ended {
            files: files.into_iter().map(|(n, t)| (n.to_string(), t)).collect(),
            report: Some(report),
            lines: vec![finish_line(lang, &metrics, cancelled)],
            not_run: metrics.not_run_cases,
        })
    }
}
