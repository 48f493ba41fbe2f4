//! Run-level counts shared by the event log's `summary` and the report's `metrics`.
//! Every case counts in every denominator, failed calls included.

use crate::run::CaseResult;
use serde::{Deserialize, Serialize};

/// Counts and rates as written in the `summary` record.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunMetrics {
    /// Settled cases.
    pub cases_total: usize,
    /// Cases with accuracy and citation both passed.
    pub passed_cases: usize,
    /// `passed_cases / cases_total`.
    pub pass_rate: f64,
    /// Cases covering a gold keypoint.
    pub accurate_cases: usize,
    /// `accurate_cases / cases_total`.
    pub accuracy: f64,
    /// Cases citing correctly.
    pub cited_cases: usize,
    /// `cited_cases / cases_total`.
    pub citation_rate: f64,
    /// Cases whose model call failed (they count as failed in every rate).
    pub failed_calls: usize,
}

/// The same counts as the report's top-level `metrics` (`cases` for `cases_total`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ReportMetrics {
    /// Settled cases.
    pub cases: usize,
    /// Cases with both metrics passed.
    pub passed_cases: usize,
    /// Pass rate.
    pub pass_rate: f64,
    /// Accurate cases.
    pub accurate_cases: usize,
    /// Accuracy.
    pub accuracy: f64,
    /// Correctly citing cases.
    pub cited_cases: usize,
    /// Citation rate.
    pub citation_rate: f64,
    /// Failed model calls.
    pub failed_calls: usize,
}

impl RunMetrics {
    /// Counts over the settled results (unfinished ones are skipped).
    pub fn from_results(results: &[Option<CaseResult>]) -> RunMetrics {
        RunMetrics::of(results.iter().flatten())
    }

    /// Counts over these results.
    pub fn of<'a>(results: impl IntoIterator<Item = &'a CaseResult>) -> RunMetrics {
        let done: Vec<&CaseResult> = results.into_iter().collect();
        let n = done.len();
        let count = |f: fn(&CaseResult) -> bool| done.iter().filter(|r| f(r)).count();
        let rate = |k: usize| if n == 0 { 0.0 } else { k as f64 / n as f64 };
        let (passed, accurate, cited) = (
            count(CaseResult::passed),
            count(CaseResult::accurate),
            count(CaseResult::cited),
        );
        RunMetrics {
            cases_total: n,
            passed_cases: passed,
            pass_rate: rate(passed),
            accurate_cases: accurate,
            accuracy: rate(accurate),
            cited_cases: cited,
            citation_rate: rate(cited),
            failed_calls: count(|r| !r.call_ok()),
        }
    }
}

impl From<&RunMetrics> for ReportMetrics {
    fn from(m: &RunMetrics) -> ReportMetrics {
        ReportMetrics {
            cases: m.cases_total,
            passed_cases: m.passed_cases,
            pass_rate: m.pass_rate,
            accurate_cases: m.accurate_cases,
            accuracy: m.accuracy,
            cited_cases: m.cited_cases,
            citation_rate: m.citation_rate,
            failed_calls: m.failed_calls,
        }
    }
}
