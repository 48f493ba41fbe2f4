//! Task runs without a model call: answers produced elsewhere, scored against
//! a task (spec 004) and written as every artifact the spec lists
//! (`evalpage score`); a task's `llm_judge` metrics judged on the run engine
//! over those answers (`file_answers`, `evalpage score --judge`).
//!
//! The flow is pure: `data::load` reads the dataset in the task's format,
//! `responses::parse` the answers, `score::score` scores every sample × model,
//! and the renderers turn the result into `results.jsonl`, `summary.csv`,
//! `scores.jsonl` / `report.json`, `report.md`, `dataset_fingerprint.json`,
//! `run_meta.json` and `model_snapshot.json`. The CLI only reads and writes files.

pub mod artifacts;
pub mod data;
pub mod engine;
pub use crate::dataset::fingerprint;
pub mod events;
pub mod file_answers;
pub mod judging;
pub mod markdown;
pub mod meta;
pub mod mock;
pub mod registry;
pub mod report;
pub mod responses;
pub mod results;
pub mod resume;
pub mod score;
pub mod synthetic;

#[cfg(test)]
pub(crate) mod testing;

pub use data::{DatasetFormat, EvalSample, TaskDataset};
pub use report::{ReportInput, TaskInfo, TaskReport};
pub use responses::{Response, ResponseSet, DEFAULT_MODEL};
pub use score::{AnswerStatus, ModelRun, SampleResult, Scored};
