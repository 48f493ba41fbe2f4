//! `custom_ratio` (spec 004 通用比值指标): a ratio of two per-sample quantities.
//!
//! The spec leaves the definition open; this is the general form a rate
//! takes: per sample, `ratio = numerator / denominator`, where each side is read
//! from `numerator_field` / `denominator_field`. A name declared in parse_schema
//! is read from the parsed answer; any other name is a sample path (so a ratio
//! may mix predictions and labels, e.g. `keywords` / `gt_keywords`). A side's
//! quantity is a number, a numeric string, a boolean (1 or 0), or the length of
//! an array or object (so "how many of the items" needs no extra field).
//!
//! The per-sample value is `clamp(ratio, 0, 1)`; the unclamped `ratio` is a
//! component. A missing or zero denominator skips the sample; a missing
//! numerator counts as 0. Aggregates: the mean of the values (macro) and
//! `micro_ratio = Σ numerator / Σ denominator` over the scored samples (the
//! pooled rate, which weights samples by their denominator).

use super::{
    Aggregate, Metric, MetricKey, MetricType, RawMetric, RunKind, SampleScore, ScoreInput,
};
use crate::position::KeyError;
use crate::schema::Schema;
use serde_json::Value;
use std::sync::Arc;

/// Registry entry.
pub const TYPE: MetricType = MetricType {
    name: "custom_ratio",
    kind: RunKind::Task,
    needs: "Two fields (of the answer or the sample) holding numbers, booleans or lists.",
    description:
        "Numerator field / denominator field per sample (numbers, booleans or list lengths).",
    description_zh: "每个样本的分子字段 / 分母字段（数值、布尔或列表长度）。",
    keys: &[
        MetricKey {
            name: "numerator_field",
            description: "The numerator: a parse_schema field, else a sample path.",
        },
        MetricKey {
            name: "denominator_field",
            description: "The denominator: a parse_schema field, else a sample path.",
        },
    ],
    example: "type: custom_ratio\nnumerator_field: keywords\ndenominator_field: gt_keywords\n",
};

/// Where one side of the ratio is read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// A parse_schema field of the answer.
    Answer(String),
    /// A path in the sample.
    Sample(String),
}

/// A built `custom_ratio`.
#[derive(Clone, Debug, PartialEq)]
pub struct CustomRatio {
    /// The numerator.
    pub numerator: Source,
    /// The denominator.
    pub denominator: Source,
}

pub(super) fn build(raw: &RawMetric, schema: &Schema) -> Result<Arc<dyn Metric>, KeyError> {
    let source = |key: &str| -> Result<Source, KeyError> {
        let name = raw.required_string(key)?;
        Ok(match schema.get(name) {
            Some(_) => Source::Answer(name.to_string()),
            None => Source::Sample(name.to_string()),
        })
    };
    Ok(Arc::new(CustomRatio {
        numerator: source("numerator_field")?,
        denominator: source("denominator_field")?,
    }))
}

/// The quantity of a value: a number, a numeric string, a boolean as 1/0, or a length.
pub fn quantity(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse::<f64>().ok().filter(|x| x.is_finite()),
        Value::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
        Value::Array(a) => Some(a.len() as f64),
        Value::Object(o) => Some(o.len() as f64),
        Value::Null => None,
    }
}

fn read(input: &ScoreInput<'_>, side: &Source) -> Option<f64> {
    match side {
        Source::Answer(f) => input.pred(f),
        Source::Sample(p) => input.label(p),
    }
    .and_then(quantity)
}

impl Metric for CustomRatio {
    fn score(&self, input: &ScoreInput<'_>) -> SampleScore {
        let den = match read(input, &self.denominator) {
            Some(d) if d != 0.0 => d,
            _ => return SampleScore::skipped("the denominator is missing or zero"),
        };
        let num = read(input, &self.numerator).unwrap_or(0.0);
        let ratio = num / den;
        SampleScore::new(ratio)
            .with("ratio", ratio)
            .with("numerator", num)
            .with("denominator", den)
    }

    fn aggregate(&self, scores: &[SampleScore]) -> Aggregate {
        let mut agg = Aggregate::of(scores);
        let sum = |k: &str| -> f64 {
            scores
                .iter()
                .filter(|s| s.value.is_some())
                .filter_map(|s| s.components.get(k))
                .sum()
        };
        let den = sum("denominator");
        if den != 0.0 {
            agg.components
                .insert("micro_ratio".into(), sum("numerator") / den);
        }
        agg
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::super::SampleScore;
    use serde_json::json;

    fn s() -> crate::schema::Schema {
        schema("[{field: keywords, type: list}, {field: found, type: int}]")
    }

    #[test]
    fn hand_computed_ratios_from_answer_and_sample() {
        let m = "{type: custom_ratio, numerator_field: keywords, denominator_field: gt_keywords}";
        // 3 predicted keywords / 4 labelled -> 0.75
        let sc = score(
            m,
            &s(),
            json!({"gt_keywords": ["a", "b", "c", "d"]}),
            r#"{"keywords":["x","y","z"]}"#,
        );
        assert_eq!(sc.value, Some(0.75));
        // 3 / 2 -> ratio 1.5, value clamped to 1
        let over = score(
            m,
            &s(),
            json!({"gt_keywords": ["a", "b"]}),
            r#"{"keywords":["x","y","z"]}"#,
        );
        assert_eq!((over.value, over.components["ratio"]), (Some(1.0), 1.5));
        assert_eq!(
            score(m, &s(), json!({"gt_keywords": []}), r#"{"keywords":["x"]}"#).value,
            None
        );
        let n = "{type: custom_ratio, numerator_field: found, denominator_field: total}";
        assert_eq!(
            score(n, &s(), json!({"total": "4"}), "no json").value,
            Some(0.0)
        );
    }

    #[test]
    fn micro_ratio_pools_the_counts() {
        // 1/2 and 3/3: macro 0.75, micro 4/5
        let a = SampleScore::new(0.5)
            .with("numerator", 1.0)
            .with("denominator", 2.0);
        let b = SampleScore::new(1.0)
            .with("numerator", 3.0)
            .with("denominator", 3.0);
        let m = built(
            "{type: custom_ratio, numerator_field: a, denominator_field: b}",
            &s(),
        );
        let agg = m.aggregate(&[a, b]);
        close(agg.mean, 0.75);
        close(agg.components["micro_ratio"], 0.8);
        assert_eq!(
            build_error("{type: custom_ratio, numerator_field: a}", &s()).key,
            "denominator_field"
        );
    }
}
