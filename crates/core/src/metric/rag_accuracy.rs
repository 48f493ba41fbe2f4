//! `rag_accuracy`: spec 002's RAG accuracy (准确率) as a task metric, so the
//! `rag_qa` preset describes the RAG scoring with the task contract.
//!
//! Formula (see `rag_rules::accuracy`, which this wraps unchanged): value 1 when at
//! least one gold keypoint `k` matches the answer `a`: `fold(k)` is a substring of
//! `fold(a)`, or, in `fuzzy` mode, the character-bigram recall
//! `|B(k) ∩ B(a)| / |B(k)|` reaches `fuzzy_threshold`; else 0.
//! Keys: `pred_field` (default `raw_answer`), `label_field` (default `gold`: an
//! array of keypoints or one string), `match_mode` (`strict` | `fuzzy`, default
//! `fuzzy`), `fuzzy_threshold` (in (0, 1], default 0.6). No keypoints skips the sample.

use super::keyword_coverage::text_of;
use super::{
    schema_field, Metric, MetricKey, MetricType, RawMetric, RunKind, SampleScore, ScoreInput,
};
use crate::position::KeyError;
use crate::rag_rules::{accuracy, MatchMode, ScoringConfig};
use crate::schema::coerce::scalar_text;
use crate::schema::{Schema, RAW_ANSWER};
use serde_json::Value;
use std::sync::Arc;

/// Registry entry.
pub const TYPE: MetricType = MetricType {
    name: "rag_accuracy",
    kind: RunKind::Task,
    needs: "An answer text and the gold keypoints of a spec 002 case.",
    description:
        "Spec 002 accuracy: the answer covers at least one gold keypoint (exact or fuzzy).",
    description_zh: "回答至少覆盖一个 gold 关键点（精确或模糊匹配）。",
    keys: &[
        MetricKey {
            name: "pred_field",
            description: "The answer field scored (default raw_answer).",
        },
        MetricKey {
            name: "label_field",
            description: "The sample field holding the gold keypoints (default `gold`).",
        },
        MetricKey {
            name: "match_mode",
            description: "`strict` (verbatim) or `fuzzy` (verbatim or bigram recall; default).",
        },
        MetricKey {
            name: "fuzzy_threshold",
            description: "Bigram recall a fuzzy match needs, in (0, 1] (default 0.6).",
        },
    ],
    example: "type: rag_accuracy\nlabel_field: gold\nmatch_mode: fuzzy\nfuzzy_threshold: 0.6\n",
};

/// A built `rag_accuracy`.
#[derive(Clone, Debug, PartialEq)]
pub struct RagAccuracy {
    /// Prediction field.
    pub pred_field: String,
    /// Label path holding the keypoints.
    pub label_field: String,
    /// Matching settings.
    pub config: ScoringConfig,
}

pub(super) fn build(raw: &RawMetric, schema: &Schema) -> Result<Arc<dyn Metric>, KeyError> {
    let pred = raw.string("pred_field")?.unwrap_or(RAW_ANSWER);
    let mut config = ScoringConfig::default();
    if let Some(mode) = raw.string("match_mode")? {
        config.match_mode = MatchMode::parse(mode).ok_or_else(|| {
            KeyError::new(
                "match_mode",
                format!("unknown match mode `{mode}`; expected strict or fuzzy"),
            )
        })?;
    }
    if let Some(t) = raw.number("fuzzy_threshold")? {
        if !(t > 0.0 && t <= 1.0) {
            return Err(KeyError::new(
                "fuzzy_threshold",
                format!("expected a number in (0, 1], found {t}"),
            ));
        }
        config.fuzzy_threshold = t;
    }
    Ok(Arc::new(RagAccuracy {
        pred_field: schema_field(schema, "pred_field", pred, &[])?,
        label_field: raw.string("label_field")?.unwrap_or("gold").to_string(),
        config,
    }))
}

/// Strings of a label: an array's scalar items, or one scalar.
pub fn strings(v: Option<&Value>) -> Vec<String> {
    match v {
        Some(Value::Array(items)) => items.iter().filter_map(scalar_text).collect(),
        Some(other) => scalar_text(other).into_iter().collect(),
        None => Vec::new(),
    }
}

impl Metric for RagAccuracy {
    fn pass_fail(&self) -> bool {
        true
    }

    fn score(&self, input: &ScoreInput<'_>) -> SampleScore {
        let gold: Vec<String> = strings(input.label(&self.label_field))
            .into_iter()
            .filter(|g| !g.trim().is_empty())
            .collect();
        if gold.is_empty() {
            return SampleScore::skipped(format!("no keypoints in `{}`", self.label_field));
        }
        let answer = input
            .pred(&self.pred_field)
            .map(text_of)
            .unwrap_or_default();
        let verdict = accuracy::score(&answer, &gold, &self.config);
        SampleScore::new(if verdict.passed { 1.0 } else { 0.0 }).detail(
            "keypoints",
            serde_json::to_value(&verdict.keypoints).unwrap_or(Value::Null),
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
        let m = "{type: rag_accuracy}";
        let free = Schema::default();
        // keypoint 检测幻觉现象 vs answer 可以检测幻觉: bigram recall 3/5 = 0.6 (rag_rules::accuracy's own example)
        assert_eq!(
            score(m, &free, json!({"gold": ["检测幻觉现象"]}), "可以检测幻觉").value,
            Some(1.0)
        );
        let strict = "{type: rag_accuracy, match_mode: strict}";
        assert_eq!(
            score(
                strict,
                &free,
                json!({"gold": ["检测幻觉现象"]}),
                "可以检测幻觉"
            )
            .value,
            Some(0.0)
        );
        let high = "{type: rag_accuracy, fuzzy_threshold: 0.61}";
        assert_eq!(
            score(
                high,
                &free,
                json!({"gold": ["检测幻觉现象"]}),
                "可以检测幻觉"
            )
            .value,
            Some(0.0)
        );
        assert_eq!(score(m, &free, json!({"gold": []}), "x").value, None);
        assert_eq!(
            build_error("{type: rag_accuracy, match_mode: loose}", &free).key,
            "match_mode"
        );
        assert_eq!(
            build_error("{type: rag_accuracy, fuzzy_threshold: 0}", &free).key,
            "fuzzy_threshold"
        );
    }
}
