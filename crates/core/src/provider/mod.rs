//! Model providers as pure functions: build the request a transport should send,
//! and turn what came back into a `CallOutcome`. No transport lives here.

pub mod batch;
pub(crate) mod cache;
mod completion;
pub(crate) mod openai;

use serde::{Deserialize, Serialize};
use std::fmt;

pub use crate::toolcall::message::ChatMessage;

/// An API key. It has no `Serialize`, and its `Debug` and `Display` print `***`,
/// so it cannot leak into a report, a log or an error by accident.
#[derive(Clone, PartialEq, Eq, Default)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wraps a key; blank input gives `None`.
    pub fn new(key: &str) -> Option<ApiKey> {
        let key = key.trim();
        (!key.is_empty()).then(|| ApiKey(key.to_string()))
    }

    /// The secret itself, for the one place that builds the `Authorization` header.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(***)")
    }
}

/// What kind of failure a call ended in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// The server answered with a non-2xx status.
    Http,
    /// The request never got an answer (DNS, refused, CORS, reset).
    Network,
    /// No answer within the timeout.
    Timeout,
    /// A 2xx answer that is not a usable chat completion.
    InvalidResponse,
    /// The user cancelled the run before the call finished.
    Cancelled,
    /// The prompt for this sample could not be rendered, so nothing was sent.
    Prompt,
    /// Not sent: the run stopped at a fatal answer (401, 403, 404) before this
    /// case's call went out. Sent again on resume, like a cancelled case.
    NotRun,
    /// The answer was cut off at `max_tokens` (`finish_reason: "length"`) and
    /// the run counts truncated answers as failed calls.
    Truncated,
    /// The engine that answers in the page (a model file on this device)
    /// stopped: its worker died or aborted, so every later call would fail
    /// the same way. The run stops as at a fatal answer, and the case is
    /// asked again when the run is resumed with the file loaded again.
    EngineStopped,
}

/// A failed call, with what the event log's `error_detail` needs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CallError {
    /// Failure class.
    pub kind: ErrorKind,
    /// Short human message that says what to fix when something can be fixed.
    pub message: String,
    /// HTTP status, when there was one.
    pub status_code: Option<u16>,
    /// Endpoint URL without query string.
    pub url: Option<String>,
    /// True for timeouts.
    pub timeout: bool,
    /// Start of the response body, truncated.
    pub response_snippet: Option<String>,
    /// Server-requested wait (`Retry-After`), in milliseconds.
    pub retry_after_ms: Option<u64>,
    /// Tokens the failed call still used (a truncated answer counted as a
    /// failure), so the run's token totals and cost include them. Boxed to
    /// keep the error small.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Box<Usage>>,
}

impl CallError {
    /// A failure of the given kind with a message and nothing else.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        CallError {
            kind,
            message: message.into(),
            status_code: None,
            url: None,
            timeout: kind == ErrorKind::Timeout,
            response_snippet: None,
            retry_after_ms: None,
            usage: None,
        }
    }

    /// Sets the URL, dropping any query string or fragment.
    pub fn with_url(mut self, url: &str) -> Self {
        self.url = Some(strip_query(url));
        self
    }

    /// Network errors, timeouts, 429 and 5xx can succeed on a later attempt.
    pub fn retryable(&self) -> bool {
        match self.kind {
            ErrorKind::Network | ErrorKind::Timeout => true,
            ErrorKind::Http => matches!(self.status_code, Some(429) | Some(500..=599)),
            ErrorKind::InvalidResponse
            | ErrorKind::Cancelled
            | ErrorKind::Prompt
            | ErrorKind::NotRun
            | ErrorKind::Truncated
            | ErrorKind::EngineStopped => false,
        }
    }

    /// An answer that will be the same for every case: 401 (the key), 403 (no
    /// access), 404 (unknown model or path). The run stops sending at one.
    pub fn fatal(&self) -> bool {
        self.kind == ErrorKind::EngineStopped
            || self.kind == ErrorKind::Http && matches!(self.status_code, Some(401 | 403 | 404))
    }

    /// True for failures that say nothing about the case and are sent again on
    /// resume: cancelled, not run, and a call the in-page engine died under.
    pub fn unsettled(&self) -> bool {
        matches!(
            self.kind,
            ErrorKind::Cancelled | ErrorKind::NotRun | ErrorKind::EngineStopped
        )
    }

    /// The status word for reports: `timeout`, `cancelled`, `not_run` or `error`.
    pub fn status(&self) -> &'static str {
        match self.kind {
            ErrorKind::Timeout => "timeout",
            ErrorKind::Cancelled => "cancelled",
            ErrorKind::NotRun => "not_run",
            _ => "error",
        }
    }
}

/// Token counts of one answer, as the endpoint's `usage` gives them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Tokens of the prompt.
    pub prompt_tokens: u64,
    /// Tokens of the completion (reasoning included, as OpenAI counts them).
    pub completion_tokens: u64,
    /// Reasoning tokens (`completion_tokens_details.reasoning_tokens`), when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_tokens: Option<u64>,
    /// How long the engine took over the prompt and the answer, when it says
    /// (llama.cpp's `timings`: its own server, and the model file in the page).
    /// Boxed to keep an answer small.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timings: Option<Box<Timings>>,
}

/// The engine's own timing of one answer (llama.cpp's top-level `timings`):
/// tokens it evaluated and the time it took, for the prompt (those not
/// taken from its cache) and for the generated tokens.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Timings {
    /// Prompt tokens evaluated.
    pub prompt_n: u64,
    /// Time over them, µs.
    pub prompt_us: u64,
    /// Tokens generated.
    pub predicted_n: u64,
    /// Time over them, µs.
    pub predicted_us: u64,
}

/// A model's answer: the final text that every metric scores, kept apart from
/// the reasoning that came with it, and what the endpoint said about it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Answer {
    /// The final answer (the reasoning and any leading `<think>` block removed).
    pub text: String,
    /// The function calls the model made (`tool_calls`), when it made any:
    /// such an answer is an answer, scored by the `tool_call` metrics.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calls: Option<Vec<crate::toolcall::Call>>,
    /// The reasoning (`reasoning_content`, `reasoning`, or a `<think>` block).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    /// `choices[0].finish_reason` (`stop`, `length`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<String>,
    /// Token counts, when the endpoint gave them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// The top-level `evalpage_trace` object of the response, when the
    /// endpoint sent one: spec 001's trace fields (`recall`, `tools`,
    /// `compliance`, `profile_snapshot`) for a dialog run. No other kind reads it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<serde_json::Value>,
    /// Set when the answer came from the response cache (its original
    /// latency and usage; `usage` above is then empty).
    /// Boxed to keep an answer small.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached: Option<Box<CacheHit>>,
}

/// Where an answer from the response cache came from (see `cache`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CacheHit {
    /// The answer's latency when it was first asked, ms.
    pub latency_ms: u64,
    /// Its usage then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// When it was stored, ms since the epoch.
    pub stored_at_ms: u64,
}

impl Answer {
    /// True when the answer was cut off at `max_tokens` (`finish_reason: "length"`).
    pub fn truncated(&self) -> bool {
        self.finish_reason.as_deref() == Some("length")
    }
}

impl From<String> for Answer {
    fn from(text: String) -> Answer {
        Answer {
            text,
            ..Answer::default()
        }
    }
}

impl From<&str> for Answer {
    fn from(text: &str) -> Answer {
        Answer::from(text.to_string())
    }
}

/// The result of one model call as the run engine sees it.
#[derive(Clone, Debug, PartialEq)]
pub enum CallOutcome {
    /// The model answered.
    Answer(Answer),
    /// The call failed.
    Failed(CallError),
}

impl CallOutcome {
    /// An answer of this text alone (offline models, scripted tests).
    pub fn text(text: impl Into<String>) -> CallOutcome {
        CallOutcome::Answer(Answer::from(text.into()))
    }
}

/// Removes `?query` and `#fragment` from a URL.
pub fn strip_query(url: &str) -> String {
    url.split(['?', '#']).next().unwrap_or(url).to_string()
}

/// Parses a `Retry-After` header given in seconds (HTTP dates are not honoured).
pub fn parse_retry_after(value: &str) -> Option<u64> {
    let secs: f64 = value.trim().parse().ok()?;
    let per_unit = if crate::planted::on(crate::planted::Bug::RetryAfterAsMs) {
        1.0
    } else {
        1000.0
    };
    (secs.is_finite() && secs >= 0.0).then(|| (secs * per_unit).min(600_000.0) as u64)
}

/// One model as called: what `model_snapshot.json` records. Never a key.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModelSettings {
    /// Registry name (what reports show).
    pub name: String,
    /// Model id sent in requests.
    pub model: String,
    /// Endpoint base URL without query (none for the mock model).
    pub base_url: Option<String>,
    /// Environment variable the key was read from (CLI), if any.
    pub api_key_env: Option<String>,
    /// Request parameters (task `default_params` merged with the registry's).
    pub params: serde_json::Map<String, serde_json::Value>,
    /// What answers in place of an endpoint, for a model file run in the
    /// page: the engine and its version, the file (name, size, SHA-256),
    /// architecture, quantisation, context, threads, CPU or WebGPU. `None`
    /// for an endpoint or a mock model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine: Option<serde_json::Value>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_never_prints() {
        let k = ApiKey::new(" sk-secret ").expect("non-empty");
        assert_eq!(format!("{k:?}"), "ApiKey(***)");
        assert_eq!(k.expose(), "sk-secret");
        assert!(ApiKey::new("  ").is_none());
    }

    #[test]
    fn retryable_classes() {
        let mut e = CallError::new(ErrorKind::Http, "x");
        e.status_code = Some(429);
        assert!(e.retryable());
        e.status_code = Some(401);
        assert!(!e.retryable());
        assert!(CallError::new(ErrorKind::Timeout, "t").retryable());
        assert_eq!(strip_query("http://h/v1?key=1"), "http://h/v1");
        assert_eq!(parse_retry_after("2"), Some(2000));
        assert_eq!(parse_retry_after("soon"), None);
    }
}
