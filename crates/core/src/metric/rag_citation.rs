//! `rag_citation`: spec 002's citation (引用率) as a task metric, so the
//! `rag_qa` preset describes the RAG scoring with the task contract.
//!
//! Formula (see `rag_rules::citation`, which this wraps unchanged): value 1 when the
//! answer cites at least one `doc_hint` document and none outside `doc_hint`
//! (`cited ∩ hint ≠ ∅` and `cited \ hint = ∅`, documents compared by lowercase
//! file name), else 0. Keys: `pred_field` (default `raw_answer`), `label_field`
//! (default `doc_hint`). An empty or missing hint list scores 0, as in spec 002
//! (citation cannot pass without a hint).

use super::keyword_coverage::text_of;
use super::rag_accuracy::strings;
use super::{
    schema_field, Metric, MetricKey, MetricType, RawMetric, RunKind, SampleScore, ScoreInput,
};
use crate::position::KeyError;
use crate::rag_rules::citation;
use crate::schema::{Schema, RAW_ANSWER};
use serde_json::Value;
use std::sync::Arc;

/// Registry entry.
pub const TYPE: MetricType = MetricType {
    name: "rag_citation",
    kind: RunKind::Task,
    needs: "An answer text and the doc_hint documents of a spec 002 case.",
    description: "Spec 002 citation: the answer cites a doc_hint document and none outside it.",
    description_zh: "回答引用了至少一个 doc_hint 文档，且未引用其外的文档。",
    keys: &[
        MetricKey {
            name: "pred_field",
            description: "The answer field scored (default raw_answer).",
        },
        MetricKey {
            name: "label_field",
            description: "The sample field holding the expected documents (default `doc_hint`).",
        },
    ],
    example: "type: rag_citation\nlabel_field: doc_hint\n",
};

/// A built `rag_citation`.
#[derive(Clone, Debug, PartialEq)]
pub struct RagCitation {
    /// Prediction field.
    pub pred_field: String,
    /// Label path holding the document hints.
    pub label_field: String,
}

pub(super) fn build(raw: &RawMetric, schema: &Schema) -> Result<Arc<dyn Metric>, KeyError> {
    let pred = raw.string("pred_field")?.unwrap_or(RAW_ANSWER);
    Ok(Arc::new(RagCitation {
        pred_field: schema_field(schema, "pred_field", pred, &[])?,
        label_field: raw.string("label_field")?.unwrap_or("doc_hint").to_string(),
    }))
}

impl Metric for RagCitation {
    fn pass_fail(&self) -> bool {
        true
    }

    fn score(&self, input: &ScoreInput<'_>) -> SampleScore {
        let hints: Vec<String> = strings(input.label(&self.label_field))
            .into_iter()
            .filter(|h| !h.trim().is_empty())
            .collect();
        let answer = input
            .pred(&self.pred_field)
            .map(text_of)
            .unwrap_or_default();
        let verdict = citation::score(&answer, &hints);
        SampleScore::new(if verdict.passed { 1.0 } else { 0.0 }).detail(
            "citation",
            serde_json::to_value(&verdict).unwrap_or(Value::Null),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use crate::schema::Schema;
    use serde_json::json;

    #[test]
    fn agrees_with_the_spec_002_scorer() {
        let m = "{type: rag_citation}";
        let free = Schema::default();
        let hint = json!({"doc_hint": ["docs/lightrag_faq.md"]});
        assert_eq!(
            score(
                m,
                &free,
                hint.clone(),
                "NaN结果可重启服务解决。来自 lightrag_faq.md"
            )
            .value,
            Some(1.0)
        );
        assert_eq!(
            score(
                m,
                &free,
                hint.clone(),
                "参考 ragas_install.md 和 lightrag_faq.md"
            )
            .value,
            Some(0.0)
        );
        assert_eq!(
            score(m, &free, json!({"doc_hint": []}), "lightrag_faq.md").value,
            Some(0.0)
        );
    }
}
