//! The final report (the source of truth), shaped as spec 003's
//! `EvaluationResult`, its aggregates, and its renderings.

mod aggregate;
mod assemble;

mod markdown;
pub(crate) mod metadata;
mod metrics;
mod model;
pub(crate) mod outputs;
mod run_record;
pub(crate) mod saved;
pub(crate) mod usage;

/// The start of the message of a run stopped at its cost cap (the `error`
/// record, each not-run case's error, `report.md`'s line).
pub const BUDGET_STOP: &str = "the run reached its cost cap";

pub use aggregate::{breakdowns, length_bucket, mean_std, summaries};
pub use assemble::{assemble, ModelRows, ReportParts};

pub use markdown::{cell, more, render as render_md, MarkdownParts, MAX_LISTED};
pub use metadata::{parse as parse_metadata, DatasetMetadataFile, MetadataError};
pub use metrics::{Counts, ReportMetrics, RunMetrics};
pub use model::*;
pub use outputs::render as render_outputs;
pub use outputs::{files, Outputs, ReportNames, RunMeta, FILES, TASK_NAMES};
pub use run_record::{answer_extras, error_value, ErrorDetail, Outcome, RunRecord};
pub use saved::summary_csv as saved_summary_csv;
pub use saved::{experiment_lines, report_kind, skipped_lines, with_timings};
pub use usage::{set_prices, CallStat, ModelLatency, ModelUsage, Price, Prices, TokenLimitHint};
