//! Run configuration and per-case results.

use crate::Lang;
use serde::Serialize;
use serde_json::Value;

/// Who runs what, the same for every kind of evaluation: each kind's
/// configuration carries one, and the event log's `meta` and `summary`
/// records and the report's run metadata are built from it. No secrets.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct RunIdentity {
    /// Unique id of this run (chosen by the shell).
    pub run_id: String,
    /// `evalpage-web` or `evalpage-cli`.
    pub tool: String,
    /// Start time, ms since the Unix epoch (passed in).
    pub started_at_ms: u64,
    /// Command line (CLI) or page URL parameters (web), without secrets.
    pub argv: Vec<String>,
    /// The dataset as given: a path on the command line, a file name in the page.
    pub dataset: String,
    /// How the engine schedules the run's calls (per pool).
    pub settings: RunSettings,
}

/// The RAG check's model and dataset: recorded in the event log's `meta`
/// and in the report. No secrets.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunInfo {
    /// Language for console lines and notes.
    pub lang: Lang,
    /// `demo` or `openai`.
    pub backend: String,
    /// Model name.
    pub model: String,
    /// Endpoint base URL without query string (none for the demo model).
    pub endpoint: Option<String>,
    /// Model parameters (temperature, max_tokens, system_prompt).
    pub parameters: Value,
    /// Dataset file name.
    pub dataset_name: String,
    /// Lines of the dataset that were skipped as invalid.
    pub dataset_line_errors: usize,
}

/// How the engine schedules calls.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct RunSettings {
    /// Most calls in flight at once (at least 1).
    pub concurrency: usize,
    /// Attempts per case including the first (at least 1).
    pub max_attempts: u32,
    /// Per-request timeout the shell enforces, in ms.
    pub timeout_ms: u64,
    /// First retry delay in ms; doubles per attempt, with jitter in [50%, 100%].
    pub backoff_base_ms: u64,
    /// Largest retry delay in ms (a `Retry-After` can ask for more).
    pub backoff_max_ms: u64,
    /// Seed for the retry jitter.
    pub seed: u64,
}

impl Default for RunSettings {
    fn default() -> Self {
        RunSettings {
            concurrency: 4,
            max_attempts: 3,
            timeout_ms: 60_000,
            backoff_base_ms: 500,
            backoff_max_ms: 20_000,
            seed: 7,
        }
    }
}

/// What a run does with answers that are not plain successes; the same for
/// every kind of evaluation (the engine applies it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct AnswerPolicy {
    /// Count an answer cut off at `max_tokens` (`finish_reason: "length"`) as a
    /// failed call (`ErrorKind::Truncated`) instead of scoring it as it is.
    pub truncated_as_failure: bool,
    /// Keep sending after a fatal answer (401, 403, 404) instead of stopping the
    /// run, for endpoints that fail per case.
    pub keep_going_on_fatal: bool,
}
