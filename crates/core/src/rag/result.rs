//! The RAG check's run configuration and per-case results.

use crate::dataset::rag::RagCase;
use crate::provider::{Answer, CallError, ErrorKind, Usage};
use crate::rag_rules::accuracy::{AccuracyVerdict, KeypointMatch};
use crate::rag_rules::citation::CitationVerdict;
use crate::rag_rules::ScoringConfig;
use crate::run::{RunIdentity, RunInfo};
use crate::task::score::SampleResult;
use serde::Serialize;
use serde_json::Value;

/// Everything a run needs besides its cases.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunConfig {
    /// Who runs what, and its scheduling.
    pub run: RunIdentity,
    /// The model and the dataset.
    pub info: RunInfo,
    /// Scoring.
    pub scoring: ScoringConfig,
    /// System prompt sent with every question.
    pub system_prompt: String,
    /// The dataset's spec 003 `metadata.json`, when given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dataset_meta: Option<crate::report::DatasetMetadataFile>,
}

/// The outcome of one case: the answer and its verdicts, or the call error.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CaseResult {
    /// Index in the dataset's valid cases.
    pub index: usize,
    /// Case id.
    pub case_id: String,
    /// The model's final answer (reasoning removed), when the call succeeded.
    pub answer: Option<String>,
    /// The reasoning that came with the answer, kept apart and never scored.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    /// The endpoint's `finish_reason`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<String>,
    /// Token counts of the answer (or of a failed call that still used some).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// The answer came from the response cache.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cached: Option<crate::provider::CacheHit>,
    /// The final call error, when it failed.
    pub error: Option<CallError>,
    /// Attempts made (1 when the first call settled it).
    pub attempts: u32,
    /// From first send to final outcome, in ms.
    pub elapsed_ms: u64,
    /// Accuracy verdict (none when the call failed).
    pub accuracy: Option<AccuracyVerdict>,
    /// Citation verdict (none when the call failed).
    pub citation: Option<CitationVerdict>,
}

impl CaseResult {
    /// The RAG check's view of one settled call of the `rag_qa` task: the
    /// answer and the verdicts its `rag_accuracy` and `rag_citation` metrics
    /// gave (read back from their details), or the call error. No verdicts
    /// when the call failed, as spec 002's page shows a failed case.
    pub fn of_sample(index: usize, case: &RagCase, r: &SampleResult) -> CaseResult {
        let error = r.error.as_ref().map(|e| CallError {
            kind: e.kind,
            message: e.cause.clone(),
            status_code: e.status_code,
            url: e.url.clone(),
            timeout: e.timeout,
            response_snippet: e.response_snippet.clone(),
            retry_after_ms: None,
            usage: r.usage.clone().map(Box::new),
        });
        let answered = error.is_none() && r.raw_answer.is_some();
        let score = |kind: &str| {
            r.scores
                .iter()
                .find(|(name, _)| name == kind)
                .map(|(_, s)| s)
                .filter(|_| answered)
        };
        let accuracy = score("accuracy").map(|s| AccuracyVerdict {
            passed: s.value == Some(1.0),
            keypoints: s
                .detail
                .get("keypoints")
                .and_then(Value::as_array)
                .and_then(|ks| ks.iter().map(KeypointMatch::from_json).collect())
                .unwrap_or_default(),
        });
        let citation = score("citation").and_then(|s| {
            s.detail
                .get("citation")
                .and_then(|v| serde_json::from_value::<CitationVerdict>(v.clone()).ok())
        });
        CaseResult {
            index,
            case_id: case.id.clone(),
            answer: r.raw_answer.clone().filter(|_| answered),
            reasoning: r.reasoning.clone(),
            finish_reason: r.finish_reason.clone(),
            usage: r.usage.clone(),
            cached: r.cached.clone(),
            error,
            attempts: r.attempts.unwrap_or(1),
            elapsed_ms: r.elapsed_ms.unwrap_or(0),
            accuracy,
            citation,
        }
    }

    /// True when the answer was cut off at `max_tokens` (scored as it is, or
    /// counted as a failed call).
    pub fn truncated(&self) -> bool {
        self.finish_reason.as_deref() == Some("length")
            || self
                .error
                .as_ref()
                .is_some_and(|e| e.kind == ErrorKind::Truncated)
    }

    /// The answer as the endpoint gave it (for restoring from a log).
    pub fn as_answer(&self) -> Option<Answer> {
        Some(Answer {
            text: self.answer.clone()?,
            reasoning: self.reasoning.clone(),
            finish_reason: self.finish_reason.clone(),
            usage: self.usage.clone(),
            ..Answer::default()
        })
    }

    /// True when the model call succeeded.
    pub fn call_ok(&self) -> bool {
        self.error.is_none()
    }

    /// Accuracy as 0/1 (a failed call is 0).
    pub fn accurate(&self) -> bool {
        self.accuracy.as_ref().is_some_and(|v| v.passed)
    }

    /// Citation as 0/1 (a failed call is 0).
    pub fn cited(&self) -> bool {
        self.citation.as_ref().is_some_and(|v| v.passed)
    }

    /// Both metrics passed.
    pub fn passed(&self) -> bool {
        self.accurate() && self.cited()
    }
}
