//! `results.jsonl` lines of every run start with spec 003's `RunRecord`:
//! the per-sample execution result, normalised for evaluators. Each kind adds
//! its own fields after these (a task's parsed fields and metric values, the
//! RAG check's verdicts), so one line is both a `RunRecord` and the kind's
//! full result.

use crate::provider::{CallError, ErrorKind};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// Spec 003 `RunRecord`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    /// Sample (case) id.
    pub sample_id: String,
    /// The dataset's id.
    pub dataset_id: Option<String>,
    /// `openai`, `demo`, `mock`, or `responses` for answers read from a file.
    pub backend: String,
    /// The settings the answer was produced with (model, parameters); no key.
    pub run_config: Value,
    /// The model's answer, when there is one.
    pub response_text: Option<String>,
    /// Spec 003's status: `ok`, `timeout` or `error` (the finer kind is
    /// `error_detail.kind`).
    pub status: String,
    /// Time from first send to outcome, ms.
    pub latency_ms: Option<f64>,
    /// `run_id/sample_id` (or `model/sample_id`).
    pub trace_id: String,
    /// Attempts made (0 when nothing was sent).
    pub attempts: u32,
    /// The error: spec 003's `message`, `error_type` (evalpage's kind) and
    /// `status_code`.
    pub error: Option<Value>,
    /// evalpage's own detail of a record that is not `ok`, as the event
    /// log's `error_detail`: `kind` (`http`, `network`, `timeout`,
    /// `invalid_response`, `cancelled`, `prompt`, `not_run`, `truncated`, or
    /// `no_response` for a sample an answers file left out), `status_code`,
    /// `cause`, `url`, `timeout`, `response_snippet`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_detail: Option<Value>,
    /// What the transport returned, as far as evalpage keeps it.
    pub raw: Value,
}

/// What became of one sample's call, for its `RunRecord`.
#[derive(Clone, Copy, Debug)]
pub enum Outcome<'a> {
    /// An answer came back.
    Answered,
    /// The call failed.
    Failed(&'a ErrorDetail),
    /// No answer and no failed call (an answers or lists file without this
    /// sample): the cause.
    NoResponse(&'a str),
}

impl Outcome<'_> {
    /// Spec 003's status, then `error` and `error_detail`.
    pub fn fields(self) -> (&'static str, Option<Value>, Option<Value>) {
        match self {
            Outcome::Answered => ("ok", None, None),
            Outcome::Failed(e) => {
                let status = match e.kind {
                    ErrorKind::Timeout => "timeout",
                    _ => "error",
                };
                let detail = serde_json::to_value(e).unwrap_or_else(|_| json!({}));
                (status, Some(error_value(e)), Some(detail))
            }
            Outcome::NoResponse(cause) => (
                "error",
                Some(json!({"message": cause, "error_type": "no_response", "status_code": null})),
                Some(
                    json!({"kind": "no_response", "status_code": null, "cause": cause,
                    "url": null, "timeout": false, "response_snippet": null}),
                ),
            ),
        }
    }
}

/// Spec 003's `error` object of a `RunRecord` for a failed call: `message`,
/// `error_type` and `status_code` (the rest is in its `error_detail`).
pub fn error_value(e: &ErrorDetail) -> Value {
    json!({"message": e.cause, "error_type": e.kind, "status_code": e.status_code})
}

/// What came with an answer besides its text, for score details and
/// `results.jsonl`'s `raw`: `reasoning`, `finish_reason`, `usage`,
/// `truncated: true`, and `cached` (the cache's mark: original latency and
/// usage) for an answer from the response cache; each key only when there is
/// something to say.
pub fn answer_extras(
    reasoning: Option<&str>,
    finish_reason: Option<&str>,
    usage: Option<crate::provider::Usage>,
    truncated: bool,
    cached: Option<&crate::provider::CacheHit>,
) -> serde_json::Map<String, Value> {
    let mut m = serde_json::Map::new();
    if let Some(r) = reasoning {
        m.insert("reasoning".into(), Value::from(r));
    }
    if let Some(f) = finish_reason {
        m.insert("finish_reason".into(), Value::from(f));
    }
    if let Some(u) = usage {
        m.insert("usage".into(), serde_json::to_value(u).unwrap_or_default());
    }
    if truncated {
        m.insert("truncated".into(), Value::Bool(true));
    }
    if let Some(c) = cached {
        m.insert("cached".into(), serde_json::to_value(c).unwrap_or_default());
    }
    m
}

/// Structured error detail of a failed call.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ErrorDetail {
    /// Failure class.
    pub kind: ErrorKind,
    /// HTTP status, if any.
    pub status_code: Option<u16>,
    /// What went wrong.
    pub cause: String,
    /// Endpoint URL without query.
    pub url: Option<String>,
    /// True for a timeout.
    pub timeout: bool,
    /// Start of the response body.
    pub response_snippet: Option<String>,
}

impl From<&CallError> for ErrorDetail {
    fn from(e: &CallError) -> ErrorDetail {
        ErrorDetail {
            kind: e.kind,
            status_code: e.status_code,
            cause: e.message.clone(),
            url: e.url.clone(),
            timeout: e.timeout,
            response_snippet: e.response_snippet.clone(),
        }
    }
}
