//! evalpage-core: the pure heart of evalpage.
//!
//! Everything that decides a number lives here: dataset parsing, text normalization,
//! scoring, the sans-IO run engine, the event log and the final report. The crate
//! never touches a clock, a socket, a file or a random source: time, seeds and
//! model answers are passed in by the caller (the Yew page or the CLI), so both
//! shells produce the same report from the same answers.

pub mod compare;

pub mod dataset;
pub mod demo;
pub mod dialog;
pub mod events;
pub mod json_path;
pub mod judge;
pub mod lang;
pub mod metric;
pub mod position;
pub mod prompt;
pub mod provider;
pub mod rag;
pub mod report;
pub mod retrieval;
pub(crate) mod rng;
pub mod run;
pub mod schema;
pub mod scorer;
pub(crate) mod stats;
pub mod task;
pub mod task_run;
pub mod template;
pub mod text;
pub mod timefmt;
pub mod view;

pub use lang::Lang;

// The facade: what the shells (the page and the CLI) use, by name, so they
// never reach into the core's module tree. Modules stay public for the
// crate's own tests, benches and fuzz targets.
pub use compare::stats::SplitMix64;
pub use compare::{
    check_gate, compare, fmt_p, level as ci_level, CaseDiff, CaseKey, CompareError, Comparison,
    GateError, MetricRow, Models as CompareModels, Options as CompareOptions,
    Outcome as GateOutcome, Pairing, Rule as GateRule, Verdict as GateVerdict,
};
pub use dataset::rag::{RagCase, RagDataset};
pub use dataset::sample::Sample;
pub use dataset::LineError;
pub use dialog::{
    parse_dialogs, score_trace, DialogEngine, DialogKind, DialogRunConfig, DialogSet, Offline,
    OfflineRun,
};
pub use events::{read as read_events, reconcile, Record, SummaryRecord};
pub use judge::mock::{reply as mock_judge_reply, MockJudge};
pub use judge::prompt::JudgePrompt;
pub use provider::openai::{build_json_request, parse_json_response};
pub use provider::openai::{build_request, parse_response, HttpRequest, OpenAiConfig};
pub use provider::{ApiKey, CallError, CallOutcome, ChatMessage, ErrorKind, ModelSettings};
pub use rag::resumable;
pub use rag::{Engine, RunConfig};
pub use report::metadata::DatasetMetadata as DatasetMetadataFile;
pub use report::outputs::render as render_outputs;
pub use report::saved::{markdown as saved_markdown, summary_csv as saved_summary_csv};
pub use report::{
    set_prices, EvaluationResult, Outputs, Price, Prices, RunMeta, RunMetrics, EVENT_FILES, FILES,
};
pub use retrieval::{parse_cases as parse_retrieval_cases, parse_ranked, Ranked, RetrievalCase};
pub use retrieval::{
    resumable as resumable_retrieval, RetrievalEndpoint, RetrievalEngine, RetrievalKind,
    RetrievalRunConfig, DEFAULT_BODY as RETRIEVAL_BODY, DEFAULT_PATH as RETRIEVAL_PATH,
};
pub use run::{
    AnswerPolicy, Command, Input, Kind, Pipeline, RunInfo, RunSettings, RunStatus, Step,
};
pub use task::builtin::TEMPLATE_NAMES;
pub use task_run::artifacts::Inputs as TaskInputs;
pub use task_run::data::{load as load_task_dataset, DatasetFormat, TaskDataset};
pub use task_run::engine::{render_prompts, TaskEngine, TaskKind, TaskRunConfig};
pub use task_run::events::{parse_problems, TaskRecord};
pub use task_run::file_answers::{take_judged, FileAnswers};
pub use task_run::judging::{judged_metrics, setups as judge_setups};
pub use task_run::judging::{located as locate_task_errors, missing_judge, TaskJudge};
pub use task_run::registry::{entry_line, merged_params, ModelEntry, Registry, RegistryError};
pub use task_run::report::TaskMetrics;
pub use task_run::report::{AnswerSource, RunDescription};
pub use task_run::resume::resumable as resumable_task;
pub use task_run::score::{aggregate as aggregate_task_metrics, AnswerStatus};
