//! A RAG check's saved run read back into the live RAG mode's values: each
//! case as a `RagCase` and `CaseResult` (spec 002's √/× and reasons through
//! `console`, the Notes), from the report's `accuracy` and `citation`
//! details.

use super::look::{call_error, strings};
use super::{text_of, ViewData, ViewRow};
use crate::dataset::rag::RagCase;
use crate::provider::Usage;
use crate::rag::CaseResult;
use crate::rag_rules::accuracy::{AccuracyVerdict, KeypointMatch};
use crate::rag_rules::citation::{base_name, CitationVerdict};
use serde_json::Value;

/// A RAG check's case as the live page held it: the case (question, gold
/// keypoints, `doc_hint`) and its result (answer, reasoning, verdicts, the
/// call error), read back from the report's `accuracy` and `citation`
/// details. `None` when the row has no such details (an event log, whose
/// records do not hold the question and the expected documents). Attempts
/// and time are the row's (the report's error case, or the run's
/// `results.jsonl`), else 0.
pub fn rag_case(data: &ViewData, row: &ViewRow) -> Option<(RagCase, CaseResult)> {
    let acc = data.detail_of(row, "accuracy")?;
    let cit = data.detail_of(row, "citation")?;
    let doc_hint = strings(&cit, "expected")?;
    let keypoints: Option<Vec<KeypointMatch>> = acc
        .get("keypoints")
        .and_then(Value::as_array)
        .map(|ks| ks.iter().filter_map(KeypointMatch::from_json).collect());
    let gold = match &keypoints {
        Some(ks) if !ks.is_empty() => ks.iter().map(|k| k.keypoint.clone()).collect(),
        _ => strings(&acc, "missing").unwrap_or_default(),
    };
    let error = call_error(row, &acc);
    let value = |metric: &str| {
        data.metric_index(metric)
            .and_then(|c| row.values.get(c).copied().flatten())
    };
    let answered = error.is_none();
    let accuracy = keypoints
        .filter(|_| answered)
        .map(|keypoints| AccuracyVerdict {
            passed: value("accuracy") == Some(1.0),
            keypoints,
        });
    let citation = answered.then(|| CitationVerdict {
        passed: value("citation") == Some(1.0),
        cited: strings(&cit, "cited").unwrap_or_default(),
        correct: strings(&cit, "correct").unwrap_or_default(),
        wrong: strings(&cit, "wrong").unwrap_or_default(),
        expected: doc_hint
            .iter()
            .map(|h| base_name(h))
            .filter(|h| !h.is_empty())
            .collect(),
    });
    let case = RagCase {
        id: row.id.clone(),
        line: 0,
        q: text_of(&acc, &["question"]).unwrap_or_default(),
        gold,
        doc_hint,
        tags: row.tags.clone(),
        metadata: Default::default(),
    };
    let usage: Option<Usage> = acc
        .get("usage")
        .and_then(|u| serde_json::from_value(u.clone()).ok());
    let result = CaseResult {
        index: 0,
        case_id: row.id.clone(),
        answer: text_of(&acc, &["answer"]).filter(|_| answered),
        reasoning: text_of(&acc, &["reasoning"]),
        finish_reason: text_of(&acc, &["finish_reason"]),
        usage,
        cached: acc
            .get("cached")
            .and_then(|c| serde_json::from_value(c.clone()).ok()),
        error,
        attempts: row.attempts.unwrap_or(0),
        elapsed_ms: row.latency_ms.map_or(0, |ms| ms.max(0.0) as u64),
        accuracy,
        citation,
    };
    Some((case, result))
}

/// Every case of a RAG check read back with [`rag_case`], in row order,
/// with its row index.
pub fn rag_cases(data: &ViewData) -> Vec<(usize, RagCase, CaseResult)> {
    data.rows
        .iter()
        .enumerate()
        .filter_map(|(i, row)| rag_case(data, row).map(|(c, r)| (i, c, r)))
        .collect()
}
