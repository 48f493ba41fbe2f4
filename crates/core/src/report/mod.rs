//! The final report (the source of truth), shaped as spec 003's
//! `EvaluationResult`, its aggregates, and its renderings.

mod aggregate;
mod assemble;

mod markdown;
pub mod metadata;
mod metrics;
mod model;
pub mod outputs;
mod run_record;
pub mod saved;
pub mod usage;

pub use aggregate::{breakdowns, length_bucket, mean_std, summaries};
pub use assemble::{assemble, ModelRows, ReportParts};

pub use markdown::{cell, more, render as render_md, MarkdownParts, MAX_LISTED};
pub use metrics::{Counts, ReportMetrics, RunMetrics};
pub use model::*;
pub use outputs::{Outputs, RunMeta, EVENT_FILES, FILES};
pub use run_record::{answer_extras, error_value, ErrorDetail, RunRecord};
pub use usage::{set_prices, CallStat, ModelLatency, ModelUsage, Price, Prices};
