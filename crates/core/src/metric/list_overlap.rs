//! `list_overlap` (spec 004 列表重叠 precision/recall/f1): how well does the
//! predicted list match the labelled one, as sets?
//!
//! Items are normalized (NFKC, lowercase, whitespace collapsed, trimmed; numbers
//! and booleans as text, objects as JSON text), empty items dropped, duplicates
//! merged. With `P` the predicted set and `G` the labelled set:
//! `precision = |P∩G| / |P|`, `recall = |P∩G| / |G|`,
//! `f1 = 2·precision·recall / (precision + recall)` (0 when both are 0).
//! Empty sets: `P = G = ∅` scores 1/1/1 (nothing to find, nothing claimed);
//! exactly one empty set scores 0/0/0 (scikit-learn's `zero_division=0`).
//! The per-sample value is `f1`. The aggregate mean is the macro F1; the
//! components give macro `precision`/`recall`/`f1` and micro
//! `micro_precision`/`micro_recall`/`micro_f1` from the summed counts.
//! A label string is split like a `list` field (`"a, b"` -> `a`, `b`).

use super::{
    f1, prf, schema_field, Aggregate, Metric, MetricKey, MetricType, RawMetric, RunKind,
    SampleScore, ScoreInput,
};
use crate::position::KeyError;
use crate::schema::coerce::{norm_text, scalar_text, split_items};
use crate::schema::Schema;
use serde_json::Value;
use std::collections::BTreeSet;
use std::sync::Arc;

/// Registry entry.
pub const TYPE: MetricType = MetricType {
    name: "list_overlap",
    kind: RunKind::Task,
    needs: "A list field of the answer and a labelled list in the sample.",
    description: "Set precision, recall and F1 of predicted list items against labelled items.",
    description_zh: "预测列表项与标注列表项的集合精确率、召回率和 F1。",
    keys: &[
        MetricKey {
            name: "pred_field",
            description: "The predicted items (a list, list_raw or str parse_schema field).",
        },
        MetricKey {
            name: "label_field",
            description:
                "The sample field holding the true items (a list or a comma-separated string).",
        },
    ],
    example: "type: list_overlap\npred_field: keywords\nlabel_field: gt_keywords\n",
};

/// A built `list_overlap`.
#[derive(Clone, Debug, PartialEq)]
pub struct ListOverlap {
    /// Prediction field (list, list_raw or str).
    pub pred_field: String,
    /// Label path in the sample.
    pub label_field: String,
}

pub(super) fn build(raw: &RawMetric, schema: &Schema) -> Result<Arc<dyn Metric>, KeyError> {
    let pred = raw.required_string("pred_field")?;
    Ok(Arc::new(ListOverlap {
        pred_field: schema_field(schema, "pred_field", pred, &["list", "list_raw", "str"])?,
        label_field: raw.required_string("label_field")?.to_string(),
    }))
}

impl Metric for ListOverlap {
    fn score(&self, input: &ScoreInput<'_>) -> SampleScore {
        let Some(label) = input.label(&self.label_field) else {
            return SampleScore::skipped(format!("label `{}` is missing", self.label_field));
        };
        let pred = input.pred(&self.pred_field).map(items).unwrap_or_default();
        overlap(&pred, &items(label))
    }

    fn aggregate(&self, scores: &[SampleScore]) -> Aggregate {
        aggregate_prf(scores)
    }
}

/// The normalized item set of a list value (see the module doc).
pub fn items(v: &Value) -> BTreeSet<String> {
    let raw: Vec<String> = match v {
        Value::Array(list) => list.iter().map(item_text).collect(),
        Value::String(s) => split_items(s),
        Value::Null => Vec::new(),
        other => vec![item_text(other)],
    };
    raw.iter()
        .map(|s| norm_text(s))
        .filter(|s| !s.is_empty())
        .collect()
}

fn item_text(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        other => scalar_text(other).unwrap_or_else(|| other.to_string()),
    }
}

/// The precision/recall/F1 score of two item sets, with the counts as
/// components and the matched and unmatched items as details.
pub fn overlap(pred: &BTreeSet<String>, gold: &BTreeSet<String>) -> SampleScore {
    let tp = pred.intersection(gold).count();
    let (p, r, f) = prf(tp, pred.len(), gold.len());
    let list = |it: Vec<&String>| Value::from(it.into_iter().cloned().collect::<Vec<_>>());
    SampleScore::new(f)
        .with("precision", p)
        .with("recall", r)
        .with("f1", f)
        .with("tp", tp as f64)
        .with("n_pred", pred.len() as f64)
        .with("n_gold", gold.len() as f64)
        .detail("matched", list(pred.intersection(gold).collect()))
        .detail("extra", list(pred.difference(gold).collect()))
        .detail("missed", list(gold.difference(pred).collect()))
}

/// Macro precision/recall/F1 (means) and micro ones (from summed counts).
pub fn aggregate_prf(scores: &[SampleScore]) -> Aggregate {
    let mut agg = Aggregate::of(scores);
    let sum = |k: &str| -> usize {
        scores
            .iter()
            .filter(|s| s.value.is_some())
            .map(|s| s.components.get(k).copied().unwrap_or(0.0) as usize)
            .sum()
    };
    let (tp, n_pred, n_gold) = (sum("tp"), sum("n_pred"), sum("n_gold"));
    for k in ["tp", "n_pred", "n_gold"] {
        agg.components.remove(k);
    }
    if agg.sample_count > 0 {
        let (p, r, _) = prf(tp, n_pred, n_gold);
        agg.components.insert("micro_precision".into(), p);
        agg.components.insert("micro_recall".into(), r);
        agg.components.insert("micro_f1".into(), f1(p, r));
    }
    agg
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;
    use serde_json::json;

    const M: &str = "{type: list_overlap, pred_field: keywords, label_field: gt_keywords}";

    fn s() -> Schema {
        schema("[{field: keywords, type: list, default: []}]")
    }

    #[test]
    fn hand_computed_prf() {
        // P = {ai, chips, cloud}, G = {ai, earnings}: tp 1, p 1/3, r 1/2, f1 0.4
        let sc = score(
            M,
            &s(),
            json!({"gt_keywords": ["AI", "earnings"]}),
            r#"{"keywords":["ai","Chips"," cloud ","ai"]}"#,
        );
        close(sc.components["precision"], 1.0 / 3.0);
        close(sc.components["recall"], 0.5);
        close(sc.value.unwrap_or(-1.0), 0.4);
        assert_eq!(sc.detail["missed"], json!(["earnings"]));
    }

    #[test]
    fn empty_sets_follow_the_documented_rule() {
        assert_eq!(
            score(M, &s(), json!({"gt_keywords": []}), r#"{"keywords":[]}"#).value,
            Some(1.0)
        );
        assert_eq!(
            score(M, &s(), json!({"gt_keywords": ["a"]}), r#"{"keywords":[]}"#).value,
            Some(0.0)
        );
        assert_eq!(
            score(M, &s(), json!({"gt_keywords": []}), r#"{"keywords":["a"]}"#).value,
            Some(0.0)
        );
        assert_eq!(
            score(M, &s(), json!({}), r#"{"keywords":["a"]}"#).value,
            None
        );
    }

    #[test]
    fn macro_and_micro_aggregates() {
        // sample 1: tp 1 of P 1, G 2 -> p 1, r .5, f 2/3; sample 2: tp 0 of P 1, G 1 -> 0s
        let a = overlap(&items(&json!(["a"])), &items(&json!(["a", "b"])));
        let b = overlap(&items(&json!(["x"])), &items(&json!("y")));
        let agg = aggregate_prf(&[a, b]);
        close(agg.mean, 1.0 / 3.0);
        close(agg.components["precision"], 0.5);
        close(agg.components["micro_precision"], 0.5); // 1 / 2
        close(agg.components["micro_recall"], 1.0 / 3.0); // 1 / 3
        close(agg.components["micro_f1"], 0.4);
        assert!(!agg.components.contains_key("tp"));
    }
}
