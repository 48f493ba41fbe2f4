//! The end of a retrieval run: `eval_retrieval_report.json` (spec 000's
//! name) and the files beside it, and
//! the `[EVAL]` line of its hits.

use super::engine::RetrievalKind;
use super::report::{retrieval_outputs, RetrievalInputs};
use crate::dataset::LineError;
use crate::report::{render_outputs, DatasetMetadataFile, Prices, ReportNames, RunMeta};
use crate::run::{Ended, Finish, Pipeline};
use crate::Lang;

/// What a retrieval run's files are rendered from besides the engine.
#[derive(Clone, Debug)]
pub struct RetrievalFiles {
    /// The cases file name.
    pub cases_file: String,
    /// Its bytes (for the fingerprint).
    pub cases_bytes: Vec<u8>,
    /// Its skipped lines.
    pub line_errors: Vec<LineError>,
    /// The dataset's `metadata.json`, when given.
    pub metadata: Option<DatasetMetadataFile>,
    /// Language of `report.md`.
    pub lang: Lang,
}

impl Finish for RetrievalKind {
    const NAMES: ReportNames = super::report::KIND.names;
    type Inputs = RetrievalFiles;

    /// A retrieval service is not a priced model: `prices` are not used.
    fn files(
        engine: &Pipeline<RetrievalKind>,
        f: RetrievalFiles,
        meta: &RunMeta,
        _prices: &Prices,
    ) -> Result<Ended, String> {
        let cfg = engine.config();
        let evaluated = engine.evaluated();
        let from = cfg.endpoint.lists_from();
        let inputs = RetrievalInputs {
            cases_file: &f.cases_file,
            cases_bytes: &f.cases_bytes,
            line_errors: &f.line_errors,
            from: &from,
            metadata: f.metadata.as_ref(),
            run_id: &cfg.run.run_id,
            meta,
            lang: f.lang,
        };
        let files = render_outputs(retrieval_outputs(&evaluated, &inputs))
            .map_err(|e| format!("could not render summary.csv: {e}"))?;
        let counts = evaluated.counts();
        let line = format!(
            "[EVAL] retrieval done: {} cases, k={}, hit_rate {:.3} ({}/{}), {} without a list",
            counts.cases,
            cfg.k,
            counts.hit_rate.unwrap_or(0.0),
            evaluated.hit_cases(),
            counts.cases,
            counts.failed_calls
        );
        Ok(Ended {
            files: files.into_iter().map(|(n, t)| (n.to_string(), t)).collect(),
            report: None,
            lines: vec![line],
            not_run: counts.not_run_cases,
        })
    }
}
