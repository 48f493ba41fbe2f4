//! A retrieval run's saved run read back into the live retrieval mode's
//! values: each case as a `retrieval::Row`, and the per-bucket means.

use super::look::strings;
use super::{text_of, ViewData, ViewRow};
use crate::provider::{CallError, ErrorKind};
use crate::retrieval::RetrievalCase;
use crate::retrieval::{bucket_means, Obtained, RetrievalScore, Row, METRICS};
use serde_json::Value;

/// The values of a row in [`METRICS`] order (a missing one is 0, as a case
/// without a list scores).
fn retrieval_values(data: &ViewData, row: &ViewRow) -> [f64; 4] {
    METRICS.map(|m| {
        data.metric_index(m)
            .and_then(|c| row.values.get(c).copied().flatten())
            .unwrap_or(0.0)
    })
}

/// A retrieval case as the live retrieval mode held it: the case, its scores
/// and whether a list came back, read back from the row's values and the
/// detail of its first metric (without one: no query, list or expected
/// sources).
pub fn retrieval_row(data: &ViewData, row: &ViewRow) -> Row {
    let detail = METRICS
        .iter()
        .find_map(|m| data.detail_of(row, m))
        .unwrap_or(Value::Null);
    let [hit, recall_at_k, reciprocal_rank, ndcg_at_k] = retrieval_values(data, row);
    let listed = detail
        .get("listed")
        .and_then(Value::as_bool)
        .unwrap_or(row.status == "ok");
    let error = (!listed && row.status == "failed")
        .then(|| CallError::new(ErrorKind::Http, row.error.clone().unwrap_or_default()));
    Row {
        case: RetrievalCase {
            case_id: row.id.clone(),
            line: 0,
            query: text_of(&detail, &["query"])
                .or_else(|| row.input.clone())
                .unwrap_or_default(),
            expected_sources: strings(&detail, "expected_sources").unwrap_or_default(),
            bucket: row.tags.first().cloned().unwrap_or_else(|| "-".into()),
        },
        score: RetrievalScore {
            hit_at_k: hit >= 1.0,
            recall_at_k,
            reciprocal_rank,
            ndcg_at_k,
            first_hit_rank: detail
                .get("first_hit_rank")
                .and_then(Value::as_u64)
                .map(|r| r as usize),
            topk: strings(&detail, "topk").unwrap_or_default(),
            found: strings(&detail, "found").unwrap_or_default(),
        },
        obtained: match (listed, error) {
            (true, _) => Obtained::Listed,
            (false, Some(e)) => Obtained::Called {
                attempts: row.attempts.unwrap_or(0),
                elapsed_ms: row.latency_ms.map_or(0, |ms| ms.max(0.0) as u64),
                error: Some(e),
            },
            (false, None) => Obtained::Missing,
        },
    }
}

/// The retrieval mode's table of means, overall (bucket `""`) and per
/// bucket, over the run's rows.
pub fn retrieval_means(data: &ViewData) -> Vec<(String, usize, [f64; 4])> {
    bucket_means(data.rows.iter().map(|r| {
        let bucket = r.tags.first().map_or("-", String::as_str);
        (bucket, retrieval_values(data, r))
    }))
}

/// What the retrieval mode's row shows of an event log's `case` record, as
/// a report's detail of its first metric.
pub(super) fn log_detail(record: &Value, listed: bool) -> Value {
    serde_json::json!({
        "query": record.get("query"),
        "expected_sources": record.get("expected_sources"),
        "topk": record.get("topk"),
        "listed": listed,
    })
}
