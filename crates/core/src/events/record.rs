//! Event record types (spec 000 section 4).

use crate::provider::ModelSettings;
use crate::provider::{Answer, Usage};
use crate::rag_rules::ScoringConfig;
use crate::report::ErrorDetail;
use crate::report::{Counts, ReportMetrics, RunMetrics};
use crate::run::RunIdentity;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// Version of the event-log schema written into `meta.schema_version`.
pub const SCHEMA_VERSION: u32 = 1;

/// Longest `answer_snippet`, in characters.
pub(crate) const SNIPPET_CHARS: usize = 200;

/// One record of the log.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "record_type", rename_all = "snake_case")]
// A record is built once per case and written at once; boxing the large
// `case` variant would only add an allocation per record.
#[allow(clippy::large_enum_variant)]
pub enum Record {
    /// Start of a run.
    Meta(MetaRecord),
    /// One finished case.
    Case(CaseRecord),
    /// A run-level failure (not a failed case).
    Error(ErrorRecord),
    /// One settled turn of a dialog (a dialog run's answer and judge calls
    /// of one turn pair), written as it settles so a run can resume mid-dialog.
    Turn(TurnRecord),
    /// One model call of an agent's case and the tool calls it made,
    /// written as it answers, so the log is the trajectory.
    Step(StepRecord),
    /// End of a run.
    Summary(SummaryRecord),
}

/// `meta`: the run's identity and parameters, for every kind of run (the
/// fields of one kind are left out of the others' records). Never a key.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MetaRecord {
    /// Run id.
    pub run_id: String,
    /// Time in ms.
    pub ts_ms: u64,
    /// Writing tool.
    pub tool: String,
    /// Event schema version.
    pub schema_version: u32,
    /// The kind of run (`rag`, `task`, `retrieval`, `dialog`): what a
    /// reader looks at first ([`crate::RunKind::read`]); absent in logs
    /// written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Task name (task runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<String>,
    /// Task version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_version: Option<String>,
    /// Prompt template name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// Prompt template version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_version: Option<String>,
    /// Dataset file name.
    pub dataset: String,
    /// Cases (× models) to run.
    pub cases_total: usize,
    /// `demo`, `mock` or `openai`.
    pub backend: String,
    /// Model name (a one-model run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Endpoint base URL, if any (a one-model run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
    /// The models as called (task runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub models: Option<Vec<ModelSettings>>,
    /// Configured concurrency (per model).
    pub concurrency: usize,
    /// Attempts per case.
    pub max_attempts: u32,
    /// Per-request timeout in ms.
    pub timeout_ms: u64,
    /// Keypoint matching settings (the RAG check).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scoring: Option<ScoringConfig>,
    /// Language of console lines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lang: Option<String>,
    /// Cut-off of the retrieval metrics (retrieval).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub k: Option<usize>,
    /// Command line or URL parameters, without secrets.
    pub argv: Vec<String>,
}

/// `case`: one finished case (× model), with spec 000 section 4.2's fields
/// and each kind's own (the RAG check's verdicts and `context_chars`, a
/// task's parse problems and metric values).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CaseRecord {
    /// Run id.
    pub run_id: String,
    /// Time in ms.
    pub ts_ms: u64,
    /// Case id.
    pub case_id: String,
    /// Position among the dataset's valid cases.
    pub case_index: usize,
    /// Model name (task runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Which asking of the case this answer is (0-based), when the run asks
    /// each case several times.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeat: Option<u32>,
    /// Source line of the case.
    pub line: usize,
    /// The case passed (RAG: accuracy and citation; tasks: read without a parse problem).
    pub passed: bool,
    /// The model call succeeded.
    pub llm_call_ok: bool,
    /// Accuracy verdict (RAG).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accuracy: Option<bool>,
    /// Citation verdict (RAG).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub citation: Option<bool>,
    /// Gold keypoints not covered (RAG).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub missing: Option<Vec<String>>,
    /// Gold keypoints covered (RAG).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matched: Option<Vec<String>>,
    /// Documents the answer cites (RAG).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cited_docs: Option<Vec<String>>,
    /// Cited documents outside `doc_hint` (RAG).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wrong_docs: Option<Vec<String>>,
    /// Characters of context the prompt gave the model (spec 000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_chars: Option<usize>,
    /// `field: status (reason)` for every field not taken as written, and the
    /// JSON extraction error, if any (tasks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parse_problems: Option<Vec<String>>,
    /// Each metric's value, `null` when it skipped the case (tasks, retrieval).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metrics: Option<BTreeMap<String, Option<f64>>>,
    /// The case's bucket (retrieval).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bucket: Option<String>,
    /// The query (retrieval).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    /// The expected sources (retrieval).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_sources: Option<Vec<String>>,
    /// An expected source within the first k (retrieval).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hit_at_k: Option<bool>,
    /// The first k sources as returned (retrieval).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topk: Option<Vec<String>>,
    /// From first send to outcome, ms.
    pub elapsed_ms: u64,
    /// Attempts made.
    pub attempts: u32,
    /// Start of the answer.
    pub answer_snippet: Option<String>,
    /// The whole answer, so a run can resume from its log.
    pub answer: Option<String>,
    /// The function calls the answer made (`{id, name, arguments}`, the
    /// arguments as sent), when it made any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_calls: Option<Vec<crate::toolcall::Call>>,
    /// Short error text.
    pub error: Option<String>,
    /// Structured error (only when `llm_call_ok` is false).
    pub error_detail: Option<ErrorDetail>,
    /// The reasoning that came with the answer (never scored).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    /// The endpoint's `finish_reason`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<String>,
    /// Token counts of the answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// The answer came from the response cache: its original latency and
    /// usage (the answer cost nothing in this run, so `usage` is absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached: Option<crate::provider::CacheHit>,
    /// The answer was cut off at `max_tokens` (present and true only then).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    /// Every judged metric's judgement (tasks with `llm_judge` metrics): its
    /// value (`null` when unscored), outcome and detail, with each judge
    /// call's raw answer and how its verdict was read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judgements: Option<BTreeMap<String, Value>>,
    /// Turn pairs the model answered (dialogs): with `turn` records, says
    /// whether a failed dialog's failure came at a turn's own call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turns_ok: Option<usize>,
    /// An agent case's messages after its prompt (each answer with its
    /// calls, the tools' answers, the final answer), so a resumed run scores
    /// it again without asking.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trajectory: Option<Vec<crate::toolcall::message::ChatMessage>>,
    /// An agent case's loop: how it ended, each step's figures, calls,
    /// results and faults.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<crate::agent::AgentRecord>,
}

/// `step`: one model call of an agent's case, as it answered, with the tool
/// calls it made and what they answered (none at the case's last step).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StepRecord {
    /// Run id.
    pub run_id: String,
    /// Time in ms.
    pub ts_ms: u64,
    /// The case's id (its `case` record's `case_id`).
    pub case_id: String,
    /// The case's position in the dataset.
    pub case_index: usize,
    /// The model asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Which asking of the case (runs that repeat each case).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeat: Option<u32>,
    /// The step, from 1.
    pub step: usize,
    /// The model's answer: its text, its calls, its usage.
    pub answer: Answer,
    /// Attempts made.
    pub attempts: u32,
    /// From first send to answer, ms.
    pub elapsed_ms: u64,
    /// The calls executed and their results (faults marked).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<crate::agent::ToolStep>,
    /// How the case ended, at its last step (`answered`, `step_limit`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end: Option<crate::agent::AgentEnd>,
    /// On a resumed run's first step of a case whose earlier trajectory the
    /// log cut: the case was run again from its first step, in a new session.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub restarted: bool,
}

/// `turn`: one settled turn pair of a dialog run (its answer, then its judge
/// calls, once the turn's judging is done), with every call's answer as the
/// provider layer read it, so a resumed run rebuilds the conversation and
/// the judge's verdicts without sending them again.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TurnRecord {
    /// Run id.
    pub run_id: String,
    /// Time in ms.
    pub ts_ms: u64,
    /// The dialog's id (its `case` record's `case_id`).
    pub case_id: String,
    /// The dialog's position in the dataset.
    pub case_index: usize,
    /// The turn pair, from 1.
    pub turn_pair_id: usize,
    /// The user's message of the turn (the dataset's), that the answer answers.
    #[serde(default)]
    pub user_text: String,
    /// The turn's calls in order: the model's answer, then the judge's.
    pub calls: Vec<TurnCall>,
}

/// One call of a settled turn.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TurnCall {
    /// `model` (the turn's answer) or `judge`.
    pub role: String,
    /// The name of the model that answered (the run's model or its judge).
    pub model: String,
    /// The answer (final text, reasoning, `finish_reason`, usage, the
    /// endpoint's `evalpage_trace`); a judge call that failed for good is
    /// the engine's stand-in answer.
    pub answer: Answer,
    /// Attempts made.
    pub attempts: u32,
    /// From first send to outcome, ms.
    pub elapsed_ms: u64,
}

/// The answer of a `case` record as the endpoint gave it (final text,
/// reasoning, `finish_reason`, usage, the cache's mark), for a resumed run
/// to score again.
/// Fields of the wrong shape are left out.
pub fn answer_of(record: &Value) -> Option<Answer> {
    let text = |k: &str| record.get(k).and_then(Value::as_str).map(str::to_string);
    Some(Answer {
        text: text("answer")?,
        calls: record
            .get("tool_calls")
            .and_then(|c| serde_json::from_value(c.clone()).ok()),
        reasoning: text("reasoning"),
        finish_reason: text("finish_reason"),
        usage: usage_of(record),
        cached: record
            .get("cached")
            .and_then(|c| serde_json::from_value(c.clone()).ok()),
        ..Answer::default()
    })
}

/// The `usage` of a `case` record, when it has one of the right shape.
pub fn usage_of(record: &Value) -> Option<Usage> {
    record
        .get("usage")
        .and_then(|u| serde_json::from_value(u.clone()).ok())
}

/// `error`: a failure of the run itself.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ErrorRecord {
    /// Run id.
    pub run_id: String,
    /// Time in ms.
    pub ts_ms: u64,
    /// What happened.
    pub message: String,
    /// Where, if known.
    pub traceback: Option<String>,
}

/// `summary`: the end of the run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SummaryRecord {
    /// Run id.
    pub run_id: String,
    /// Time in ms.
    pub ts_ms: u64,
    /// `done` or `cancelled`.
    pub status: String,
    /// Counts and rates; `cases_total` reconciles with the report's `metrics.cases`.
    pub metrics: SummaryMetrics,
    /// Wall time of the run in ms.
    pub elapsed_ms_total: u64,
    /// Where the final report is written, when known.
    pub final_report_path: Option<String>,
}

/// The summary's counts for every kind of run: the report's top-level
/// `metrics` (the same [`Counts`]) with spec 000's `cases_total` for `cases`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SummaryMetrics {
    /// Settled cases (× models).
    pub cases_total: usize,
    /// Every other count, as in the report.
    #[serde(flatten)]
    pub counts: Counts,
}

impl std::ops::Deref for SummaryMetrics {
    type Target = Counts;
    fn deref(&self) -> &Counts {
        &self.counts
    }
}

impl From<ReportMetrics> for SummaryMetrics {
    fn from(m: ReportMetrics) -> SummaryMetrics {
        SummaryMetrics {
            cases_total: m.cases,
            counts: m.counts,
        }
    }
}

impl From<&RunMetrics> for SummaryMetrics {
    fn from(m: &RunMetrics) -> SummaryMetrics {
        ReportMetrics::from(m).into()
    }
}

impl MetaRecord {
    /// The `meta` record's fields every kind shares, from the run's identity
    /// (id, tool, argv, scheduling): the one builder of every kind's `meta`,
    /// which fills in its own fields with struct update syntax.
    pub fn of(
        kind: Option<crate::RunKind>,
        run: &RunIdentity,
        dataset: &str,
        backend: &str,
        cases_total: usize,
        ts_ms: u64,
    ) -> MetaRecord {
        MetaRecord {
            run_id: run.run_id.clone(),
            ts_ms,
            tool: run.tool.clone(),
            schema_version: SCHEMA_VERSION,
            kind: kind.map(|k| k.tag().to_string()),
            dataset: dataset.to_string(),
            cases_total,
            backend: backend.to_string(),
            concurrency: run.settings.concurrency,
            max_attempts: run.settings.max_attempts,
            timeout_ms: run.settings.timeout_ms,
            argv: run.argv.clone(),
            ..MetaRecord::default()
        }
    }
}

impl SummaryRecord {
    /// The `summary` record of every kind: its counts, `done` or
    /// `cancelled`, and the wall time since the identity's start.
    pub fn of(
        run: &RunIdentity,
        metrics: SummaryMetrics,
        cancelled: bool,
        ts_ms: u64,
    ) -> SummaryRecord {
        SummaryRecord {
            run_id: run.run_id.clone(),
            ts_ms,
            status: if cancelled { "cancelled" } else { "done" }.into(),
            metrics,
            elapsed_ms_total: ts_ms.saturating_sub(run.started_at_ms),
            final_report_path: None,
        }
    }
}

impl Record {
    /// A run-level `error` record.
    pub fn error(run_id: &str, message: impl Into<String>, ts_ms: u64) -> Record {
        Record::Error(ErrorRecord {
            run_id: run_id.to_string(),
            ts_ms,
            message: message.into(),
            traceback: None,
        })
    }

    /// The record's `run_id`.
    pub fn run_id(&self) -> &str {
        match self {
            Record::Meta(r) => &r.run_id,
            Record::Case(r) => &r.run_id,
            Record::Error(r) => &r.run_id,
            Record::Turn(r) => &r.run_id,
            Record::Step(r) => &r.run_id,
            Record::Summary(r) => &r.run_id,
        }
    }

    /// The record as a JSON value.
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}
