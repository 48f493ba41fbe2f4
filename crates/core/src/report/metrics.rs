//! Run-level counts shared by the event log's `summary` and the report's `metrics`.
//! Every case counts in every denominator, failed calls included.

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
    /// Answers cut off at `max_tokens` (scored as they are, or failed calls).
    #[serde(default)]
    pub truncated_cases: usize,
    /// Cases not sent because the run stopped at a fatal answer (failed calls).
    #[serde(default)]
    pub not_run_cases: usize,
}

/// The report's top-level `metrics`, for every kind of run: the counts every
/// run has, and each kind's own (`None` and left out for other kinds). The
/// event log's `summary.metrics` carries the same counts (`cases_total` for
/// `cases`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ReportMetrics {
    /// Settled cases (× models).
    pub cases: usize,
    /// Every other count.
    #[serde(flatten)]
    pub counts: Counts,
}

/// The run-level counts besides the number of cases: the part the report's
/// `metrics` and the log's `summary.metrics` share (each names the number
/// of cases its own way).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Counts {
    /// Cases that passed (RAG: both metrics; tasks: read without a parse problem).
    pub passed_cases: usize,
    /// Pass rate (RAG).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pass_rate: Option<f64>,
    /// Accurate cases (RAG).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accurate_cases: Option<usize>,
    /// Accuracy (RAG).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accuracy: Option<f64>,
    /// Correctly citing cases (RAG).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cited_cases: Option<usize>,
    /// Citation rate (RAG).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub citation_rate: Option<f64>,
    /// Failed model calls (or samples without a response).
    pub failed_calls: usize,
    /// Answered with a parse problem (tasks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parse_problem_cases: Option<usize>,
    /// Cases with an expected source within the first k (retrieval).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hit_cases: Option<usize>,
    /// `hit_cases / cases` (retrieval).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hit_rate: Option<f64>,
    /// Answers cut off at `max_tokens` (scored as they are, or failed calls).
    #[serde(default)]
    pub truncated_cases: usize,
    /// Cases not sent because the run stopped at a fatal answer (failed calls).
    #[serde(default)]
    pub not_run_cases: usize,
    /// Agent cases that reached their step limit still calling tools (scored
    /// as they are; agent tasks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step_limit_cases: Option<usize>,
    /// Tool calls faulted on purpose (agent tasks with seeded faults).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub faulted_calls: Option<usize>,
}

impl std::ops::Deref for ReportMetrics {
    type Target = Counts;
    fn deref(&self) -> &Counts {
        &self.counts
    }
}

impl From<&RunMetrics> for ReportMetrics {
    fn from(m: &RunMetrics) -> ReportMetrics {
        ReportMetrics {
            cases: m.cases_total,
            counts: Counts {
                passed_cases: m.passed_cases,
                pass_rate: Some(m.pass_rate),
                accurate_cases: Some(m.accurate_cases),
                accuracy: Some(m.accuracy),
                cited_cases: Some(m.cited_cases),
                citation_rate: Some(m.citation_rate),
                failed_calls: m.failed_calls,
                truncated_cases: m.truncated_cases,
                not_run_cases: m.not_run_cases,
                ..Counts::default()
            },
        }
    }
}
