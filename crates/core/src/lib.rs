//! evalpage-core: the pure heart of evalpage.
//!
//! Everything that decides a number lives here: dataset parsing, text normalization,
//! scoring, the sans-IO run engine, the event log and the final report. The crate
//! never touches a clock, a socket, a file or a random source: time, seeds and
//! model answers are passed in by the caller (the Yew page or the CLI), so both
//! shells produce the same report from the same answers.

mod agent;
mod compare;

mod dataset;
pub mod demo;
pub mod dialog;
pub mod events;
pub mod import;
mod json_path;
mod judge;
mod kinds;
mod lang;
mod metric;
mod planted;
mod position;
mod prompt;
mod provider;
pub mod rag;
mod rag_rules;
pub mod report;
pub mod retrieval;
pub mod review;
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
mod toolcall;
pub mod view;

pub use agent::mcp::{
    initialize as mcp_initialize, initialized as mcp_initialized, negotiated as mcp_negotiated,
    outcome as mcp_outcome, request_id as mcp_request_id, McpServer,
    PROTOCOL_VERSION as MCP_PROTOCOL_VERSION,
};
pub use agent::{shown_steps, ShownCall, ShownStep};
pub use agent::{
    AgentEnd, AgentRecord, AgentSpec, AgentStep, Environment as ToolEnvironment, FaultKind, Faults,
    ScriptedResult, Scripts, ToolStep,
};
pub use lang::{Lang, Words};
#[cfg(feature = "planted")]
pub use planted::plant;
pub use planted::Bug as PlantedBug;
pub use run_kind::RunKind;

// The facade: one door per item. The shells (the page and the CLI), the tests,
// benches and fuzz targets reach the core through twelve public modules, each a
// front door whose own submodules are private (a deep import does not
// compile): the four kinds of evaluation (`rag`, `task`, `retrieval`,
// `dialog`), the run engine (`run`), the event log (`events`), the report
// (`report`), other evaluators' results read into it (`import`), the viewer's
// looks (`view`), people's labels measured against the verdicts (`review`),
// the built-in demo (`demo`) and a
// door for tests and benches (`testing`). An item of one of those modules is
// named only through it (`evalpage_core::task::TaskEngine`): this root
// re-exports nothing from a public module, and no public module re-exports
// another's item. What the root re-exports are items of private modules that
// every kind shares (the model wire, sample datasets, scoring settings,
// metrics, positions, comparisons), each reachable only here.
// crates/core/tests/facade.rs checks the rule.
pub use compare::{
    check_gate, compare, fmt_p, level as ci_level, CaseDiff, CaseKey, CompareError, Comparison,
    GateError, GateOutcome, GateVerdict, MetricRow, Metrics as CompareMetrics,
    Models as CompareModels, Options as CompareOptions, Pairing, Rule as GateRule,
    SEED as COMPARE_SEED,
};
pub use dataset::fingerprint::{sha256_hex, Sha256Parts};
pub use dataset::is_parquet;
#[cfg(feature = "parquet")]
pub use dataset::parquet::to_jsonl as parquet_to_jsonl;
pub use dataset::sample::{parse as parse_samples, Sample};
pub use dataset::{numbered_lines, LineError};
pub use judge::mock::{reply as mock_judge_reply, MockJudge};
pub use judge::prompt::{dialog_builtin as dialog_judge_prompt, JudgePrompt};
pub use metric::{
    of_kind as metrics_of_kind, Aggregate, MetricType, RAG_ACCURACY_DESCRIPTION,
    RAG_CITATION_DESCRIPTION, REGISTRY,
};
pub use position::{InputError, PathLabel, Position};
pub use prompt::DEFAULT_SYSTEM_PROMPT;
pub use provider::cache::{cache_key, cacheable, CacheEntry, CACHE_KEY_VERSION};
pub use provider::openai::{
    build_chat_request, build_request, parse_response, HttpRequest, OpenAiConfig,
};
pub use provider::openai::{build_json_request, parse_json_response};
pub use provider::{
    strip_query, Answer, ApiKey, CacheHit, CallError, CallOutcome, ChatMessage, ErrorKind,
    ModelSettings, Usage,
};
pub use rag_rules::{MatchMode, ScoringConfig};
pub use rng::SplitMix64;
pub use schema::ParseStatus;
pub use text::truncate_chars;
pub use text::use_nfkc;
pub use timefmt::utc_stamp;
pub use toolcall::bfcl::{
    check as bfcl_check, decode as bfcl_decode, standardize as bfcl_standardize,
    Category as BfclCategory, Checker as BfclChecker, Verdict as BfclVerdict,
};
pub use toolcall::data::{
    category_of_file as bfcl_category_of_file, read as read_bfcl, Entry as BfclEntry,
    Read as BfclRead,
};
pub use toolcall::f1::{score as tool_call_f1, ArgsMode, F1 as ToolCallF1};
pub use toolcall::py::Py;
pub use toolcall::trajectory::{
    match_trajectory, steps as trajectory_steps, ArgsRule, ArgsRules, Step as TrajectoryStep,
    TrajectoryMode, TrajectoryVerdict,
};
pub use toolcall::{read_answer as read_tool_answer, AnswerParts, Call};
