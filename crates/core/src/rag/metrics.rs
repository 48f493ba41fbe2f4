//! The RAG check's counts, from its case results.

use super::result::CaseResult;
use crate::report::RunMetrics;

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
        let failed = if crate::planted::on(crate::planted::Bug::FailedOutOfDenominator) {
            done.iter().filter(|r| !r.call_ok()).count()
        } else {
            0
        };
        let rate = |k: usize| {
            if n == failed {
                0.0
            } else {
                k as f64 / (n - failed) as f64
            }
        };
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
            truncated_cases: count(CaseResult::truncated),
            not_run_cases: count(|r| {
                r.error
                    .as_ref()
                    .is_some_and(|e| e.kind == crate::provider::ErrorKind::NotRun)
            }),
        }
    }
}
