//! evalpage-core: the pure heart of evalpage.
//!
//! Everything that decides a number lives here: dataset parsing, text normalization,
//! scoring, the sans-IO run engine, the event log and the final report. The crate
//! never touches a clock, a socket, a file or a random source: time, seeds and
//! model answers are passed in by the caller (the Yew page or the CLI), so both
//! shells produce the same report from the same answers.

mod compare;

mod dataset;
pub mod demo;
pub mod dialog;
pub mod events;
mod json_path;
mod judge;
mod lang;
mod metric;
mod position;
mod prompt;
mod provider;
pub mod rag;
mod rag_rules;
pub mod report;
pub mod retrieval;
mod rng;
pub mod run;
mod run_kind;
mod schema;
mod stats;
pub mod task;
mod template;
pub mod testing;
mod text;
mod timefmt;
pub mod view;

pub use lang::Lang;
pub use run_kind::RunKind;

// The facade. The shells (the page and the CLI), the tests, benches and fuzz
// targets reach the core through ten public modules, each a front door whose
// own submodules are private (a deep import does not compile): the four kinds
// of evaluation (`rag`, `task`, `retrieval`, `dialog`), the run engine
// (`run`), the event log (`events`), the report (`report`), the viewer's
// looks (`view`), the built-in demo (`demo`) and a door for tests and
// benches (`testing`); and through the items re-exported here: the model
// wire, datasets, scoring settings, metrics, positions and comparisons.
pub use compare::{
    check_gate, compare, fmt_p, level as ci_level, CaseDiff, CaseKey, CompareError, Comparison,
    GateError, GateOutcome, GateVerdict, MetricRow, Models as CompareModels,
    Options as CompareOptions, Pairing, Rule as GateRule, SEED as COMPARE_SEED,
};
pub use dataset::fingerprint::sha256_hex;
pub use dataset::rag::{parse as parse_rag_dataset, RagCase, RagDataset};
pub use dataset::sample::{parse as parse_samples, Sample};
pub use dataset::{numbered_lines, LineError};
pub use dialog::{
    parse_dialogs, score_trace, DialogEngine, DialogKind, DialogRunConfig, DialogSet, Offline,
    OfflineRun,
};
pub use events::{read as read_events, reconcile, Record, SummaryRecord};
pub use judge::mock::{reply as mock_judge_reply, MockJudge};
pub use judge::prompt::{dialog_builtin as dialog_judge_prompt, JudgePrompt};
pub use metric::{
    of_kind as metrics_of_kind, Aggregate, MetricKind, MetricType, RAG_ACCURACY_DESCRIPTION,
    RAG_CITATION_DESCRIPTION, REGISTRY,
};
pub use position::{InputError, PathLabel, Position};
pub use prompt::DEFAULT_SYSTEM_PROMPT;
pub use provider::cache::{cache_key, cacheable, CacheEntry, CACHE_KEY_VERSION};
pub use provider::openai::{build_json_request, parse_json_response};
pub use provider::openai::{build_request, parse_response, HttpRequest, OpenAiConfig};
pub use provider::{
    strip_query, Answer, ApiKey, CacheHit, CallError, CallOutcome, ChatMessage, ErrorKind,
    ModelSettings, Usage,
};
pub use rag::resumable;
pub use rag::{Engine, RunConfig};
pub use rag_rules::{MatchMode, ScoringConfig};
pub use report::{render_outputs, saved_summary_csv};
pub use report::{
    set_prices, DatasetMetadataFile, EvaluationResult, Outputs, Price, Prices, ReportNames,
    RunMeta, RunMetrics, FILES,
};
pub use retrieval::{parse_cases as parse_retrieval_cases, parse_ranked, Ranked, RetrievalCase};
pub use retrieval::{
    resumable as resumable_retrieval, RetrievalEndpoint, RetrievalEngine, RetrievalKind,
    RetrievalRunConfig, DEFAULT_BODY as RETRIEVAL_BODY, DEFAULT_PATH as RETRIEVAL_PATH,
};
pub use rng::SplitMix64;
pub use run::{
    AnswerPolicy, Command, Input, Kind, Pipeline, RunInfo, RunSettings, RunStatus, Step,
};
pub use schema::ParseStatus;
pub use task::{aggregate as aggregate_task_metrics, AnswerStatus};
pub use task::{entry_line, merged_params, ModelEntry, Registry, RegistryError};
pub use task::{judge_setups, judged_metrics};
pub use task::{load_dataset as load_task_dataset, DatasetFormat, TaskDataset};
pub use task::{locate_errors as locate_task_errors, missing_judge, TaskJudge};
pub use task::{parse_problems, TaskRecord};
pub use task::{render_prompts, TaskEngine, TaskKind, TaskRunConfig};
pub use task::{resumable as resumable_task, Inputs as TaskInputs, TEMPLATE_NAMES};
pub use task::{take_judged, FileAnswers};
pub use task::{AnswerSource, RunDescription, TaskMetrics};
pub use text::truncate_chars;
pub use text::use_nfkc;
pub use timefmt::utc_stamp;
