//! The final report (the source of truth), shaped as spec 003's
//! `EvaluationResult`, its aggregates, and its renderings.

mod aggregate;
mod build;
mod markdown;
mod metrics;
mod model;

pub use aggregate::{breakdowns, length_bucket, mean_std};
pub use build::build;
pub use markdown::{cell, render_markdown};
pub use metrics::{ReportMetrics, RunMetrics};
pub use model::*;
