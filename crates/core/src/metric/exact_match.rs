//! `exact_match` (spec 004 分类/标签准确率; spec 003 `exact_match`): is the
//! prediction the label?
//!
//! Formula: `exact_match = 1` if `norm(pred) = norm(label)`, else 0, where
//! `norm(s)` = NFKC, lowercase, whitespace runs collapsed to one space, trimmed
//! (so case, full-width forms and spacing do not matter; punctuation does).
//! Two numbers are compared as numbers (`2` = `2.0`); booleans and numbers
//! otherwise as their JSON text; arrays and objects as their JSON text with
//! sorted keys. A label that is an array while the prediction is not is a list
//! of acceptable answers: a match with any counts. A missing label skips the
//! sample; a missing prediction scores 0. The aggregate mean is the accuracy.

use super::{
    schema_field, Metric, MetricKey, MetricType, RawMetric, RunKind, SampleScore, ScoreInput,
};
use crate::position::KeyError;
use crate::schema::coerce::norm_text;
use crate::schema::Schema;
use serde_json::Value;
use std::sync::Arc;

/// Registry entry.
pub const TYPE: MetricType = MetricType {
    name: "exact_match",
    kind: RunKind::Task,
    needs: "An answer field and a label (or a list of acceptable labels) in the sample.",
    description: "Prediction equals the label after folding case, width and whitespace (0/1).",
    description_zh: "折叠大小写、全半角和空白后预测与标签相同（0/1）。",
    keys: &[
        MetricKey {
            name: "pred_field",
            description: "The answer field compared (a parse_schema field or raw_answer).",
        },
        MetricKey {
            name: "label_field",
            description: "The sample field holding the label, or a list of acceptable labels.",
        },
    ],
    example: "type: exact_match\npred_field: sentiment\nlabel_field: gt_sentiment\n",
};

/// A built `exact_match`.
#[derive(Clone, Debug, PartialEq)]
pub struct ExactMatch {
    /// Prediction field.
    pub pred_field: String,
    /// Label path in the sample.
    pub label_field: String,
}

pub(super) fn build(raw: &RawMetric, schema: &Schema) -> Result<Arc<dyn Metric>, KeyError> {
    let pred = raw.required_string("pred_field")?;
    Ok(Arc::new(ExactMatch {
        pred_field: schema_field(schema, "pred_field", pred, &[])?,
        label_field: raw.required_string("label_field")?.to_string(),
    }))
}

impl Metric for ExactMatch {
    fn pass_fail(&self) -> bool {
        true
    }

    fn score(&self, input: &ScoreInput<'_>) -> SampleScore {
        let Some(label) = input.label(&self.label_field) else {
            return SampleScore::skipped(format!("label `{}` is missing", self.label_field));
        };
        let pred = input.pred(&self.pred_field);
        let hit = pred.is_some_and(|p| matches(p, label));
        SampleScore::new(if hit { 1.0 } else { 0.0 })
            .detail("expected", label.clone())
            .detail("answer", pred.cloned().unwrap_or(Value::Null))
            .detail("match", hit)
    }
}

/// True when `pred` equals `label` under the module's rule.
pub fn matches(pred: &Value, label: &Value) -> bool {
    match (pred, label) {
        (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
        (p, Value::Array(options)) if !p.is_array() => options.iter().any(|o| matches(p, o)),
        (p, l) => key(p) == key(l),
    }
}

fn key(v: &Value) -> String {
    match v {
        Value::String(s) => norm_text(s),
        other => norm_text(&other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use serde_json::json;

    const M: &str = "{type: exact_match, pred_field: sentiment, label_field: gt_sentiment}";

    fn s() -> crate::schema::Schema {
        schema("[{field: sentiment, type: enum, values: [positive, neutral, negative], default: neutral}]")
    }

    #[test]
    fn hand_computed_values() {
        let hit = score(
            M,
            &s(),
            json!({"gt_sentiment": "Positive "}),
            r#"{"sentiment":"positive"}"#,
        );
        assert_eq!(hit.value, Some(1.0));
        assert_eq!(hit.detail.get("match"), Some(&json!(true)));
        let miss = score(
            M,
            &s(),
            json!({"gt_sentiment": "negative"}),
            r#"{"sentiment":"positive"}"#,
        );
        assert_eq!(miss.value, Some(0.0));
        let skipped = score(M, &s(), json!({}), r#"{"sentiment":"positive"}"#);
        assert_eq!(skipped.value, None);
    }

    #[test]
    fn free_text_answers_numbers_and_acceptable_lists() {
        let m = "{type: exact_match, pred_field: raw_answer, label_field: expected}";
        let free = crate::schema::Schema::default();
        assert_eq!(
            score(
                m,
                &free,
                json!({"expected": "Reset  your ＰＡＳＳＷＯＲＤ"}),
                " reset your password "
            )
            .value,
            Some(1.0)
        );
        assert_eq!(
            score(m, &free, json!({"expected": "a."}), "a").value,
            Some(0.0)
        );
        assert_eq!(
            score(m, &free, json!({"expected": ["yes", "y"]}), "Y").value,
            Some(1.0)
        );
        assert!(super::matches(&json!(2), &json!(2.0)));
        assert!(super::matches(&json!("2"), &json!(2)));
        assert!(!super::matches(&json!(true), &json!("yes")));
    }
}
