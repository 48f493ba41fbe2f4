//! `keyword_coverage` (spec 003): what share of the expected keywords does the
//! answer mention?
//!
//! Formula: with `K` the keywords (the label: an array of strings, or one
//! string as a single keyword) and `a` the prediction text (default
//! `raw_answer`; a list is joined by newlines),
//! `keyword_coverage = |{k ∈ K : fold(k) ⊆ fold(a)}| / |K|`, where `⊆` is
//! substring and `fold` is `text::fold` (NFKC, lowercase, whitespace and
//! punctuation removed, as the RAG accuracy metric matches keypoints), so it
//! works the same for Korean, Chinese and English. Keywords that fold to nothing
//! are dropped; a sample without keywords is skipped. Details follow spec 003's
//! example: `matched` and `total_keywords`, plus the keyword lists.

use super::{
    schema_field, Metric, MetricKey, MetricType, RawMetric, RunKind, SampleScore, ScoreInput,
};
use crate::position::KeyError;
use crate::schema::coerce::scalar_text;
use crate::schema::{Schema, RAW_ANSWER};
use crate::text::fold;
use serde_json::Value;
use std::sync::Arc;

/// Registry entry.
pub const TYPE: MetricType = MetricType {
    name: "keyword_coverage",
    kind: RunKind::Task,
    needs: "An answer text and a list of expected keywords in the sample.",
    description:
        "Share of the expected keywords that appear in the answer (folded substring match).",
    description_zh: "回答中出现的期望关键词所占比例（折叠后子串匹配）。",
    keys: &[
        MetricKey {
            name: "pred_field",
            description: "The answer field searched (default raw_answer).",
        },
        MetricKey {
            name: "label_field",
            description: "The sample field holding the expected keywords.",
        },
    ],
    example: "type: keyword_coverage\nlabel_field: metadata.keywords\n",
};

/// A built `keyword_coverage`.
#[derive(Clone, Debug, PartialEq)]
pub struct KeywordCoverage {
    /// Prediction field (default `raw_answer`).
    pub pred_field: String,
    /// Label path holding the keywords.
    pub label_field: String,
}

pub(super) fn build(raw: &RawMetric, schema: &Schema) -> Result<Arc<dyn Metric>, KeyError> {
    let pred = raw.string("pred_field")?.unwrap_or(RAW_ANSWER);
    Ok(Arc::new(KeywordCoverage {
        pred_field: schema_field(schema, "pred_field", pred, &[])?,
        label_field: raw.required_string("label_field")?.to_string(),
    }))
}

/// The text of a prediction: a scalar's text, or list items joined by newlines.
pub fn text_of(v: &Value) -> String {
    match v {
        Value::Array(items) => items
            .iter()
            .filter_map(scalar_text)
            .collect::<Vec<_>>()
            .join("\n"),
        other => scalar_text(other).unwrap_or_default(),
    }
}

impl Metric for KeywordCoverage {
    fn score(&self, input: &ScoreInput<'_>) -> SampleScore {
        let keywords: Vec<String> = match input.label(&self.label_field) {
            Some(Value::Array(items)) => items.iter().filter_map(scalar_text).collect(),
            Some(v) => scalar_text(v).into_iter().collect(),
            None => Vec::new(),
        };
        let keywords: Vec<String> = keywords
            .into_iter()
            .filter(|k| !fold(k).is_empty())
            .collect();
        if keywords.is_empty() {
            return SampleScore::skipped(format!("no keywords in `{}`", self.label_field));
        }
        let answer = fold(
            &input
                .pred(&self.pred_field)
                .map(text_of)
                .unwrap_or_default(),
        );
        let (hit, miss): (Vec<String>, Vec<String>) = keywords
            .iter()
            .cloned()
            .partition(|k| answer.contains(&fold(k)));
        SampleScore::new(hit.len() as f64 / keywords.len() as f64)
            .detail("matched", hit.len())
            .detail("total_keywords", keywords.len())
            .detail("matched_keywords", hit)
            .detail("missing_keywords", miss)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use crate::schema::Schema;
    use serde_json::json;

    const M: &str = "{type: keyword_coverage, label_field: metadata.keywords}";

    #[test]
    fn hand_computed_coverage() {
        let free = Schema::default();
        // 2 of 3 keywords, matched across case, width and punctuation
        let sc = score(
            M,
            &free,
            json!({"metadata": {"keywords": ["이메일", "Reset-Link", "SMS"]}}),
            "등록된 이메일로 reset link를 보냈습니다",
        );
        close(sc.value.unwrap_or(-1.0), 2.0 / 3.0);
        assert_eq!(
            (
                sc.detail["matched"].clone(),
                sc.detail["total_keywords"].clone()
            ),
            (json!(2), json!(3))
        );
        assert_eq!(sc.detail["missing_keywords"], json!(["SMS"]));
        // spec 003's example: the expected sentence itself as the one keyword
        let one = "{type: keyword_coverage, label_field: expected}";
        let sentence = "비밀번호 재설정을 위해 등록된 이메일을 확인하세요.";
        let sc = score(one, &free, json!({"expected": sentence}), sentence);
        assert_eq!(
            (sc.value, sc.detail["total_keywords"].clone()),
            (Some(1.0), json!(1))
        );
        assert_eq!(
            score(M, &free, json!({"metadata": {"keywords": ["", "."]}}), "x").value,
            None
        );
    }

    #[test]
    fn reads_list_predictions() {
        let s = schema("[{field: keywords, type: list}]");
        let m = "{type: keyword_coverage, pred_field: keywords, label_field: gt}";
        assert_eq!(
            score(
                m,
                &s,
                json!({"gt": ["ai", "cloud"]}),
                r#"{"keywords":["AI chips"]}"#
            )
            .value,
            Some(0.5)
        );
    }
}
