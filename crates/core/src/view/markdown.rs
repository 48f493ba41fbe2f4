//! A saved run's `report.md` rendered again (`evalpage report`): the same
//! file the run wrote, through the same kind's renderer, from what the run
//! saved. A RAG check and a retrieval run render from the report alone (the
//! RAG check's cases are read back from the report's case details, as the
//! viewer reads them); a task run needs its `results.jsonl` beside the
//! report for the text of each parse problem. Without it the counts are
//! still shown (from the report's verdicts) and [`Rendered::missing`] says
//! what could not be.

use crate::rag::{rag_markdown, CaseResult};
use crate::report::{report_kind, with_timings, EvaluationResult};
use crate::task::{render_markdown, ParseProblems};
use crate::Lang;
use crate::RunKind;

/// A saved report rendered again.
#[derive(Clone, Debug, PartialEq)]
pub struct Rendered {
    /// `report.md`.
    pub markdown: String,
    /// What the run's own file had that these inputs cannot give, and why.
    pub missing: Vec<String>,
}

/// `report.md` of a saved report; `results` is the run's `results.jsonl`
/// when it was given. An error names the results line that cannot be read.
pub fn report_md(
    report: &EvaluationResult,
    results: Option<&str>,
    lang: Lang,
) -> Result<Rendered, crate::task::ResultsError> {
    let r = with_timings(report);
    let mut missing = Vec::new();
    let markdown = match report_kind(&r) {
        Some(RunKind::Task) => {
            let problems = match results {
                Some(text) => ParseProblems::from_results(text)?,
                None => {
                    missing.push(
                        "the text of each parse problem: it is in the run's results.jsonl, \
                         which was not given (the report keeps each answer's verdict, so the \
                         counts are shown)"
                            .to_string(),
                    );
                    ParseProblems::from_report(&r)
                }
            };
            render_markdown(&r, &problems, lang)
        }
        Some(RunKind::Rag) => {
            let data = super::from_report(&r, "report");
            let cases = super::rag_cases(&data);
            let settled: Vec<(&crate::dataset::rag::RagCase, &CaseResult)> =
                cases.iter().map(|(_, c, r)| (c, r)).collect();
            rag_markdown(&r, &settled, lang)
        }
        Some(RunKind::Retrieval) => crate::retrieval::retrieval_markdown(&r, lang),
        // Another producer's report: spec 003's sections from the report.
        Some(RunKind::Dialog) | None => crate::report::render_md(&r, &Default::default(), lang),
    };
    Ok(Rendered { markdown, missing })
}
