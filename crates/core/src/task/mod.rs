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

mod agent_case;
pub(crate) mod artifacts;
mod config;
pub(crate) mod contract;
pub(crate) mod data;
mod end;
pub(crate) use end::KIND;
pub(crate) mod engine;
pub(crate) mod events;
pub(crate) mod file_answers;
pub(crate) mod judging;
pub(crate) mod markdown;
pub(crate) mod meta;
pub(crate) mod mock;
pub(crate) mod prompts;
pub(crate) mod registry;
pub(crate) mod repeats;
pub(crate) mod report;
pub(crate) mod responses;
pub(crate) mod results;
pub(crate) mod resume;
pub(crate) mod score;
pub(crate) mod synthetic;

#[cfg(test)]
pub(crate) mod testing;

pub use crate::template::yaml::locate as locate_in_yaml;
pub use artifacts::{render as render_files, Inputs};
pub use contract::builtin::{rag_qa, Preset, TEMPLATE_NAMES};
pub use contract::{
    builtin_template, preset, RawTask, RawTools, Task, TaskMetric, Tools, MAX_REPEATS, PRESETS,
};
pub use contract::{PromptTemplate, RawTemplate, RenderedPrompt, TaskError, TaskErrors};
pub use data::{
    load as load_dataset, load_bfcl as load_bfcl_dataset, load_first as load_first_dataset,
    rag_sample,
};
pub use data::{DatasetFormat, EvalSample, TaskDataset};
pub use end::{summary_lines, TaskFiles};
pub use engine::{Job, TaskEngine, TaskKind, TaskRunConfig};
pub use events::{parse_problems, TaskRecord};
pub use file_answers::{take_judged, FileAnswers};
pub use judging::TaskJudge;
pub use judging::{
    judged_metrics, located as locate_errors, missing_judge, setups as judge_setups,
};
pub use markdown::{render as render_markdown, ParseProblems, ResultsError};
pub use meta::run_meta;
pub use mock::{answer as mock_answer, text as mock_text};
pub use prompts::{measure_lengths, render_prompts, template_reads, PROMPT_STOP};
pub use registry::{entry_line, merged_params, ModelEntry, Registry, RegistryError};
pub use repeats::{estimate, Repeats};
pub use report::{build as build_report, AnswerSource, RunDescription, TaskMetrics};
pub use report::{ReportInput, TaskInfo, TaskReport};
pub use responses::parse as parse_responses;
pub use responses::{Response, ResponseSet, DEFAULT_MODEL};
pub use resume::resumable;
pub use score::{aggregate, score as score_responses, score_call, NO_RESPONSE};
pub use score::{AnswerStatus, ModelRun, SampleResult, Scored};
