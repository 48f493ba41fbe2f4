//! One component per file: props in, callbacks out.

pub mod case_table;
pub mod console;
pub mod dataset_panel;
pub mod downloads;
pub mod error_summary;
pub mod header;
pub mod metrics;
pub mod model_panel;
pub mod reconcile_view;
pub mod resume_banner;
pub mod run_controls;
