//! `field_completeness` (spec 004 输出字段完整度): how many of the expected
//! output fields did the answer actually fill?
//!
//! Formula: with `F` the checked fields (`fields`, default every parse_schema
//! field), `field_completeness = |{f ∈ F : complete(f)}| / |F|`, where a field is
//! complete when the answer supplied it (its status is `parsed`, `coerced` or
//! `clamped`, not `defaulted`) and its value is not empty (not null, not a blank
//! string, not an empty array or object). An answer that is not JSON scores 0.
//! Needs no label; the aggregate mean is the average share of filled fields.

use super::{
    schema_field, Metric, MetricKey, MetricType, RawMetric, RunKind, SampleScore, ScoreInput,
};
use crate::position::KeyError;
use crate::schema::{ParseStatus, Schema};
use serde_json::Value;
use std::sync::Arc;

/// Registry entry.
pub const TYPE: MetricType = MetricType {
    name: "field_completeness",
    kind: RunKind::Task,
    needs: "The answer's parse_schema fields listed in `fields`.",
    description: "Share of output fields the answer supplied with a non-empty value.",
    description_zh: "回答给出非空值的输出字段所占比例。",
    keys: &[MetricKey {
        name: "fields",
        description: "The parse_schema fields to check (default: every field).",
    }],
    example: "type: field_completeness\nfields: [sentiment, impact_score, keywords]\n",
};

/// A built `field_completeness`.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldCompleteness {
    /// The checked schema fields.
    pub fields: Vec<String>,
}

pub(super) fn build(raw: &RawMetric, schema: &Schema) -> Result<Arc<dyn Metric>, KeyError> {
    let fields: Vec<String> = match raw.strings("fields")? {
        Some(list) => list
            .iter()
            .enumerate()
            .map(|(i, f)| schema_field(schema, &format!("fields[{i}]"), f, &[]))
            .collect::<Result<_, _>>()?,
        None => schema.fields.iter().map(|f| f.field.clone()).collect(),
    };
    if fields.is_empty() {
        return Err(KeyError::new(
            "fields",
            "no fields to check: parse_schema is empty and `fields` lists none",
        ));
    }
    Ok(Arc::new(FieldCompleteness { fields }))
}

/// True for null, a blank string, and an empty array or object.
pub fn is_empty(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::String(s) => s.trim().is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        _ => false,
    }
}

impl Metric for FieldCompleteness {
    fn score(&self, input: &ScoreInput<'_>) -> SampleScore {
        let mut missing = Vec::new();
        for name in &self.fields {
            match input.answer.field(name) {
                Some(f) if f.status == ParseStatus::Defaulted => missing.push(format!(
                    "{name}: {}",
                    f.reason.as_deref().unwrap_or("defaulted")
                )),
                Some(f) if is_empty(&f.value) => missing.push(format!("{name}: empty")),
                Some(_) => {}
                None => missing.push(format!("{name}: not in the answer")),
            }
        }
        let filled = self.fields.len() - missing.len();
        SampleScore::new(filled as f64 / self.fields.len() as f64)
            .with("filled", filled as f64)
            .detail("checked", self.fields.len())
            .detail("missing", missing)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use serde_json::json;

    fn s() -> crate::schema::Schema {
        schema("[{field: sentiment, type: enum, values: [positive, negative], default: negative}, {field: impact, type: int, lo: 0, hi: 5}, {field: keywords, type: list}, {field: summary, type: str}]")
    }

    #[test]
    fn hand_computed_share_of_filled_fields() {
        // sentiment coerced (filled), impact clamped (filled), keywords empty, summary missing -> 2/4
        let sc = score(
            "{type: field_completeness}",
            &s(),
            json!({}),
            r#"{"sentiment":"Positive","impact":9,"keywords":[]}"#,
        );
        assert_eq!(sc.value, Some(0.5));
        assert_eq!(
            sc.detail["missing"],
            json!(["keywords: empty", "summary: missing"])
        );
        let listed = "{type: field_completeness, fields: [sentiment, summary]}";
        assert_eq!(
            score(
                listed,
                &s(),
                json!({}),
                r#"{"sentiment":"x","summary":"ok"}"#
            )
            .value,
            Some(0.5)
        );
        assert_eq!(score(listed, &s(), json!({}), "not json").value, Some(0.0));
    }

    #[test]
    fn fields_must_exist() {
        let e = build_error(
            "{type: field_completeness, fields: [sentiment, nope]}",
            &s(),
        );
        assert_eq!(e.key, "fields[1]");
        let e = build_error(
            "{type: field_completeness}",
            &crate::schema::Schema::default(),
        );
        assert_eq!(e.key, "fields");
    }
}
