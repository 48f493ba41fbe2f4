//! `claim_evidence_overlap` (spec 004 claim 引用证据与标注证据重叠): do the
//! evidence ids the model's claims cite match the labelled evidence?
//!
//! The prediction is a `list_raw` field of claims such as
//! `[{"text": "...", "evidence": ["d1", "d3"]}]`. The cited set `C` is the union
//! of every claim's `evidence_key` (default `evidence`) value: an array of ids or
//! a single id, where an id is a string, a number, or an object's `id`. A claim
//! that is itself a string or number counts as an id. The label is an array of
//! ids, or of claim objects (their evidence is united the same way), or a
//! comma-separated string. Ids are normalized as `list_overlap` items (NFKC,
//! lowercase, trimmed). With `G` the labelled set:
//! `precision = |C∩G| / |C|`, `recall = |C∩G| / |G|`, `f1` their harmonic mean,
//! and the same empty-set rule and macro/micro aggregates as `list_overlap`.
//! The per-sample value is `f1`.

use super::list_overlap::{aggregate_prf, items, overlap};
use super::{
    schema_field, Aggregate, Metric, MetricKey, MetricType, RawMetric, RunKind, SampleScore,
    ScoreInput,
};
use crate::position::KeyError;
use crate::schema::Schema;
use serde_json::Value;
use std::collections::BTreeSet;
use std::sync::Arc;

/// Registry entry.
pub const TYPE: MetricType = MetricType {
    name: "claim_evidence_overlap",
    kind: RunKind::Task,
    needs: "Claims citing evidence ids in the answer and labelled evidence ids in the sample.",
    description:
        "Precision, recall and F1 of evidence ids cited by claims against labelled evidence.",
    description_zh: "论断引用的证据与标注证据的精确率、召回率和 F1。",
    keys: &[
        MetricKey {
            name: "pred_field",
            description: "The claims (a list_raw or list parse_schema field).",
        },
        MetricKey {
            name: "label_field",
            description: "The sample field holding the true evidence ids.",
        },
        MetricKey {
            name: "evidence_key",
            description: "The key of a claim's evidence list (default `evidence`).",
        },
    ],
    example: "type: claim_evidence_overlap\npred_field: claims\nlabel_field: gt_evidence\n",
};

/// A built `claim_evidence_overlap`.
#[derive(Clone, Debug, PartialEq)]
pub struct ClaimEvidenceOverlap {
    /// Claims field (list_raw or list).
    pub pred_field: String,
    /// Label path in the sample.
    pub label_field: String,
    /// Key of a claim's evidence.
    pub evidence_key: String,
}

pub(super) fn build(raw: &RawMetric, schema: &Schema) -> Result<Arc<dyn Metric>, KeyError> {
    let pred = raw.required_string("pred_field")?;
    let evidence_key = raw.string("evidence_key")?.unwrap_or("evidence");
    if evidence_key.is_empty() {
        return Err(KeyError::new("evidence_key", "expected a non-empty key"));
    }
    Ok(Arc::new(ClaimEvidenceOverlap {
        pred_field: schema_field(schema, "pred_field", pred, &["list_raw", "list"])?,
        label_field: raw.required_string("label_field")?.to_string(),
        evidence_key: evidence_key.to_string(),
    }))
}

impl ClaimEvidenceOverlap {
    /// The evidence ids of a claims value (see the module doc), not yet normalized.
    pub fn evidence_ids(&self, claims: &Value) -> Vec<Value> {
        let mut out = Vec::new();
        let Value::Array(list) = claims else {
            return out;
        };
        for claim in list {
            match claim {
                Value::Object(c) => push_ids(&mut out, c.get(&self.evidence_key)),
                Value::String(_) | Value::Number(_) => out.push(claim.clone()),
                _ => {}
            }
        }
        out
    }
}

impl ClaimEvidenceOverlap {
    /// The normalized id set of a claims value or label; a string is split on commas.
    fn id_set(&self, v: &Value) -> BTreeSet<String> {
        match v {
            Value::String(_) => items(v),
            other => items(&Value::Array(self.evidence_ids(other))),
        }
    }
}

fn push_ids(out: &mut Vec<Value>, evidence: Option<&Value>) {
    let one = |v: &Value| match v {
        Value::Object(o) => o.get("id").cloned(),
        Value::String(_) | Value::Number(_) => Some(v.clone()),
        _ => None,
    };
    match evidence {
        Some(Value::Array(ids)) => out.extend(ids.iter().filter_map(one)),
        Some(v) => out.extend(one(v)),
        None => {}
    }
}

impl Metric for ClaimEvidenceOverlap {
    fn score(&self, input: &ScoreInput<'_>) -> SampleScore {
        let Some(label) = input.label(&self.label_field) else {
            return SampleScore::skipped(format!("label `{}` is missing", self.label_field));
        };
        let cited = input
            .pred(&self.pred_field)
            .map(|c| self.id_set(c))
            .unwrap_or_default();
        overlap(&cited, &self.id_set(label))
    }

    fn aggregate(&self, scores: &[SampleScore]) -> Aggregate {
        aggregate_prf(scores)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use serde_json::json;

    const M: &str = "{type: claim_evidence_overlap, pred_field: claims, label_field: gt_evidence}";

    fn s() -> crate::schema::Schema {
        schema("[{field: claims, type: list_raw}]")
    }

    #[test]
    fn hand_computed_prf_over_united_evidence() {
        // C = {d1, d2, d3} (d1 cited twice, one object id), G = {d1, d4}: tp 1, p 1/3, r 1/2, f1 0.4
        let answer = r#"{"claims":[{"text":"a","evidence":["D1","d2"]},{"text":"b","evidence":[{"id":"d1"},"d3"]},{"text":"c"}]}"#;
        let sc = score(M, &s(), json!({"gt_evidence": ["d1", "d4"]}), answer);
        close(sc.components["precision"], 1.0 / 3.0);
        close(sc.components["recall"], 0.5);
        close(sc.value.unwrap_or(-1.0), 0.4);
    }

    #[test]
    fn labels_as_claims_strings_or_missing() {
        let answer = r#"{"claims":[{"evidence":"e1"}]}"#;
        let gold_claims = json!({"gt_evidence": [{"text": "x", "evidence": ["e1"]}]});
        assert_eq!(score(M, &s(), gold_claims, answer).value, Some(1.0));
        assert_eq!(
            score(M, &s(), json!({"gt_evidence": "e1, e2"}), answer).components["recall"],
            0.5
        );
        assert_eq!(score(M, &s(), json!({}), answer).value, None);
        assert_eq!(
            score(M, &s(), json!({"gt_evidence": ["e1"]}), "not json").value,
            Some(0.0)
        );
        let custom = "{type: claim_evidence_overlap, pred_field: claims, label_field: g, evidence_key: sources}";
        assert_eq!(
            score(
                custom,
                &s(),
                json!({"g": [7]}),
                r#"{"claims":[{"sources":[7]}]}"#
            )
            .value,
            Some(1.0)
        );
    }
}
