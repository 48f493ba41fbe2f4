//! `numeric_error` (spec 004 数值误差 MAE，支持容差命中率): how far is the
//! predicted number from the label?
//!
//! Per sample: `e = |pred - label|`; the value is the hit,
//! `1 if e <= tolerance else 0` (with a 1e-9 slack so that `0.3 - 0.1` counts as
//! within `0.2`), and `abs_error = e` is kept as a component.
//! Aggregate: `hit_rate = mean(hit)` (the metric's mean) and
//! `mae = Σe / n` over the n samples that had a numeric prediction.
//! `tolerance` defaults to 0 (exact hits only). A label that is neither a number
//! nor a numeric string skips the sample; a missing prediction is a miss with no
//! `abs_error`.

use super::{
    schema_field, Aggregate, Metric, MetricKey, MetricType, RawMetric, RunKind, SampleScore,
    ScoreInput,
};
use crate::position::KeyError;
use crate::schema::Schema;
use serde_json::Value;
use std::sync::Arc;

/// Registry entry.
pub const TYPE: MetricType = MetricType {
    name: "numeric_error",
    kind: RunKind::Task,
    needs: "A numeric answer field and a numeric label in the sample.",
    description: "Absolute error of a number; hit when within tolerance (MAE and hit rate).",
    description_zh: "数值的绝对误差；在容差内记为命中（MAE 与命中率）。",
    keys: &[
        MetricKey {
            name: "pred_field",
            description: "The predicted number (an int or float parse_schema field).",
        },
        MetricKey {
            name: "label_field",
            description: "The sample field holding the true number (a number or numeric string).",
        },
        MetricKey {
            name: "tolerance",
            description: "Largest absolute error that still counts as a hit (default 0).",
        },
    ],
    example: "type: numeric_error\npred_field: impact_score\nlabel_field: gt_impact_score\ntolerance: 1\n",
};

/// A built `numeric_error`.
#[derive(Clone, Debug, PartialEq)]
pub struct NumericError {
    /// Prediction field (int or float).
    pub pred_field: String,
    /// Label path in the sample.
    pub label_field: String,
    /// Largest error that is still a hit.
    pub tolerance: f64,
}

pub(super) fn build(raw: &RawMetric, schema: &Schema) -> Result<Arc<dyn Metric>, KeyError> {
    let pred = raw.required_string("pred_field")?;
    let tolerance = raw.number("tolerance")?.unwrap_or(0.0);
    if !(tolerance.is_finite() && tolerance >= 0.0) {
        return Err(KeyError::new(
            "tolerance",
            format!("expected a number >= 0, found {tolerance}"),
        ));
    }
    Ok(Arc::new(NumericError {
        pred_field: schema_field(schema, "pred_field", pred, &["int", "float"])?,
        label_field: raw.required_string("label_field")?.to_string(),
        tolerance,
    }))
}

/// A number from a JSON number or a numeric string.
pub fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse::<f64>().ok().filter(|x| x.is_finite()),
        _ => None,
    }
}

impl Metric for NumericError {
    fn pass_fail(&self) -> bool {
        true
    }

    fn score(&self, input: &ScoreInput<'_>) -> SampleScore {
        let Some(label) = input.label(&self.label_field).and_then(number) else {
            return SampleScore::skipped(format!(
                "label `{}` is missing or not a number",
                self.label_field
            ));
        };
        let Some(pred) = input.pred(&self.pred_field).and_then(number) else {
            return SampleScore::new(0.0)
                .detail("label", label)
                .detail("reason", "no numeric prediction");
        };
        let e = (pred - label).abs();
        let hit = e <= self.tolerance + 1e-9;
        SampleScore::new(if hit { 1.0 } else { 0.0 })
            .with("abs_error", e)
            .detail("pred", pred)
            .detail("label", label)
            .detail("tolerance", self.tolerance)
    }

    fn aggregate(&self, scores: &[SampleScore]) -> Aggregate {
        let mut agg = Aggregate::of(scores);
        if let Some(mae) = agg.components.remove("abs_error") {
            agg.components.insert("mae".into(), mae);
        }
        agg.components.insert("hit_rate".into(), agg.mean);
        agg
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::super::ScoreInput;
    use crate::dataset::sample::Sample;
    use serde_json::json;

    const M: &str = "{type: numeric_error, pred_field: impact_score, label_field: gt_impact_score, tolerance: 1}";

    fn s() -> crate::schema::Schema {
        schema("[{field: impact_score, type: int, default: 0, lo: -5, hi: 5}]")
    }

    #[test]
    fn hand_computed_mae_and_hit_rate() {
        // (pred, label): (3, 2) e=1 hit; (5 clamped from 9, 1) e=4 miss; ("-2", -2) e=0 hit
        let cases = [
            (r#"{"impact_score":3}"#, 2),
            (r#"{"impact_score":9}"#, 1),
            (r#"{"impact_score":"-2"}"#, -2),
        ];
        let m = built(M, &s());
        let scores: Vec<_> = cases
            .iter()
            .map(|(answer, label)| {
                let Some(fields) = json!({"gt_impact_score": label}).as_object().cloned() else {
                    unreachable!()
                };
                let sample = Sample::new("s", fields);
                m.score(&ScoreInput {
                    sample: &sample,
                    answer: &s().parse_answer(answer),
                })
            })
            .collect();
        let values: Vec<_> = scores.iter().map(|s| s.value).collect();
        assert_eq!(values, vec![Some(1.0), Some(0.0), Some(1.0)]);
        let agg = m.aggregate(&scores);
        close(agg.components["mae"], 5.0 / 3.0);
        close(agg.components["hit_rate"], 2.0 / 3.0);
    }

    #[test]
    fn tolerance_slack_missing_labels_and_validation() {
        let f = schema("[{field: x, type: float}]");
        let m = "{type: numeric_error, pred_field: x, label_field: y, tolerance: 0.2}";
        assert_eq!(
            score(m, &f, json!({"y": 0.1}), r#"{"x": 0.3}"#).value,
            Some(1.0)
        );
        assert_eq!(
            score(m, &f, json!({"y": "n/a"}), r#"{"x": 0.3}"#).value,
            None
        );
        let none = score(m, &f, json!({"y": 1}), "no json");
        assert_eq!(
            (none.value, none.components.get("abs_error")),
            (Some(0.0), None)
        );
        let e = build_error(
            "{type: numeric_error, pred_field: x, label_field: y, tolerance: -1}",
            &f,
        );
        assert_eq!(e.key, "tolerance");
        let e = build_error(
            "{type: numeric_error, pred_field: t, label_field: y}",
            &schema("[{field: t, type: str}]"),
        );
        assert_eq!(
            e.message,
            "`t` is of type str; this metric needs int or float"
        );
    }
}
