//! Generic JSONL samples of spec 004: one JSON object per line holding a
//! `sample_id`, the model-input fields a prompt template reads (`ticker`,
//! `news_items`, `question`, ...), and ground-truth label fields, by convention
//! prefixed `gt_`.
//!
//! Every field is kept as written (`sample_id` included), so a template and a
//! metric can read any of them. The id is `sample_id`, else `id`, else `S<n>`
//! counting non-blank lines. Each non-blank line gives one sample or one
//! line-numbered `LineError`; a repeated id is an error on the later line.

use super::jsonl::{id_value, read_objects, Place};
use super::LineError;
use crate::position::KeyError;
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// The prefix spec 004 recommends for ground-truth label fields.
pub const LABEL_PREFIX: &str = "gt_";

/// One sample: an id and every field of its line.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Sample {
    /// `sample_id`, `id`, or `S<n>`.
    pub id: String,
    /// 1-based line in the source file (0 for samples built in code).
    pub line: usize,
    /// All fields of the line, as written.
    pub fields: Map<String, Value>,
}

impl Sample {
    /// A sample built in code (line 0).
    pub fn new(id: impl Into<String>, fields: Map<String, Value>) -> Sample {
        Sample {
            id: id.into(),
            line: 0,
            fields,
        }
    }

    /// The value at `path` (see [`lookup`]).
    pub fn get(&self, path: &str) -> Option<&Value> {
        lookup(&self.fields, path)
    }

    /// The `gt_`-prefixed label fields, in key order.
    pub fn labels(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.fields
            .iter()
            .filter(|(k, _)| k.starts_with(LABEL_PREFIX))
            .map(|(k, v)| (k.as_str(), v))
    }
}

/// Finds `path` in `fields`: the key itself when it exists (keys may hold dots),
/// else a dotted path through objects, where a numeric segment indexes an array
/// (`metadata.language`, `news_items.0.title`). JSON `null` counts as absent.
pub fn lookup<'a>(fields: &'a Map<String, Value>, path: &str) -> Option<&'a Value> {
    if let Some(v) = fields.get(path) {
        return (!v.is_null()).then_some(v);
    }
    let (head, rest) = path.split_once('.')?;
    let mut at = fields.get(head)?;
    for seg in rest.split('.') {
        at = match at {
            Value::Object(m) => m.get(seg)?,
            Value::Array(items) => items.get(seg.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    (!at.is_null()).then_some(at)
}

/// A parsed sample file: valid samples and the lines that were skipped.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SampleSet {
    /// File name as given by the user.
    pub name: String,
    /// Valid samples in file order.
    pub samples: Vec<Sample>,
    /// One entry per skipped line.
    pub errors: Vec<LineError>,
}

impl SampleSet {
    /// How many samples hold each top-level field (for `dataset_fingerprint.json`).
    pub fn field_inventory(&self) -> BTreeMap<String, usize> {
        let mut out = BTreeMap::new();
        for s in &self.samples {
            for k in s.fields.keys() {
                *out.entry(k.clone()).or_default() += 1;
            }
        }
        out
    }
}

/// Parses a JSONL sample file from raw bytes (see the module doc for the rules).
pub fn parse(name: &str, bytes: &[u8]) -> SampleSet {
    let (samples, errors) = read_objects(name, bytes, "sample_id", |s: &Sample| &s.id, build);
    SampleSet {
        name: name.to_string(),
        samples,
        errors,
    }
}

fn build(fields: Map<String, Value>, at: Place) -> Result<Sample, KeyError> {
    let id = match id_value(fields.get("sample_id"), "sample_id")? {
        Some(id) => id,
        None => id_value(fields.get("id"), "id")?.unwrap_or(format!("S{}", at.ordinal)),
    };
    Ok(Sample {
        id,
        line: at.line,
        fields,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const SPEC_LINE: &str = r#"{"sample_id":"S001","ticker":"AAPL","news_items":[{"title":"a"},{"title":"b"}],"gt_sentiment":"positive","gt_impact_score":2,"gt_keywords":["ai","earnings"]}"#;

    #[test]
    fn reads_the_spec_example_and_its_labels() {
        let set = parse("d.jsonl", SPEC_LINE.as_bytes());
        assert!(set.errors.is_empty(), "{:?}", set.errors);
        let s = &set.samples[0];
        assert_eq!(s.id, "S001");
        assert_eq!(s.get("ticker"), Some(&json!("AAPL")));
        assert_eq!(s.get("news_items.1.title"), Some(&json!("b")));
        let labels: Vec<&str> = s.labels().map(|(k, _)| k).collect();
        assert_eq!(
            labels,
            vec!["gt_impact_score", "gt_keywords", "gt_sentiment"]
        );
        assert_eq!(set.field_inventory().get("ticker"), Some(&1));
    }

    #[test]
    fn ids_fall_back_to_id_then_ordinal_and_repeat_is_an_error() {
        let input = "{\"id\":\"x\"}\n{\"a\":1}\n\n{\"sample_id\":2}\n{\"sample_id\":\"x\"}\n{\"sample_id\":[]}";
        let set = parse("d.jsonl", input.as_bytes());
        let ids: Vec<&str> = set.samples.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids, vec!["x", "S2", "2"]);
        assert_eq!(set.errors.len(), 2);
        assert_eq!(
            set.errors[0].to_string(),
            "d.jsonl:5: field `sample_id`: duplicate id `x` (first used on line 1)"
        );
        assert_eq!(set.errors[1].line, 6);
        assert!(set.errors[1].message.contains("found an array"));
    }

    #[test]
    fn lookup_prefers_literal_keys_and_treats_null_as_absent() {
        let fields = json!({"a.b": 1, "a": {"b": 2, "n": null}, "l": [1]});
        let Value::Object(m) = fields else { return };
        assert_eq!(lookup(&m, "a.b"), Some(&json!(1)));
        assert_eq!(lookup(&m, "a.n"), None);
        assert_eq!(lookup(&m, "l.0"), Some(&json!(1)));
        assert_eq!(lookup(&m, "l.x"), None);
        assert_eq!(lookup(&m, "zz"), None);
    }
}
