//! One `metrics` entry as written in a task YAML ([`RawMetric`]): its `type`,
//! its optional `name`, and every other key as written. The metric types own
//! their keys: each declares them in its registry line ([`super::MetricType`])
//! and reads them itself through the typed accessors here ([`RawMetric::string`],
//! [`RawMetric::number`], ...), whose errors name the key so that the task can
//! place them on a line.
//!
//! Reading an entry refuses, with the YAML line and column of the key, a key
//! that no registered type declares (`unknown field `pred_feild`, expected one
//! of ...`, listing the entry's type's keys when its `type` came first, else
//! every declared key) and a repeated key. A key that another type declares is
//! read, and refused when the metric is built (`tolerance` does not apply to
//! exact_match ...), as is any key when the entry was built in code.
//! A key set to `null` counts as not set.

use super::{metric_type, of_kind, RunKind, REGISTRY};
use crate::position::KeyError;
use serde::de::{self, DeserializeSeed, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};
use std::fmt;

/// One `metrics` entry as written in the task YAML.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct RawMetric {
    /// Metric type, one of the registry names.
    #[serde(rename = "type")]
    pub kind: String,
    /// Name in reports (`tm_<name>`); defaults to the type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Every other key, as written; which ones apply depends on the type.
    #[serde(flatten)]
    pub keys: Map<String, Value>,
}

impl RawMetric {
    /// An entry of type `kind` with the given keys (for entries built in code).
    pub fn new<'a>(kind: &str, keys: impl IntoIterator<Item = (&'a str, Value)>) -> RawMetric {
        RawMetric {
            kind: kind.to_string(),
            name: None,
            keys: keys.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
        }
    }

    /// The report name: `name`, else the type.
    pub fn report_name(&self) -> &str {
        self.name.as_deref().unwrap_or(&self.kind).trim()
    }

    /// The value of `key`; `null` counts as absent.
    pub fn value(&self, key: &str) -> Option<&Value> {
        self.keys.get(key).filter(|v| !v.is_null())
    }

    /// The keys that are set (not `null`), in map order.
    pub fn set_keys(&self) -> impl Iterator<Item = &str> {
        self.keys
            .iter()
            .filter(|(_, v)| !v.is_null())
            .map(|(k, _)| k.as_str())
    }

    /// A string key, trimmed; an error when it is set to something else.
    pub fn string(&self, key: &str) -> Result<Option<&str>, KeyError> {
        match self.value(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.trim())),
            Some(other) => Err(wrong_type(key, "a string", other)),
        }
    }

    /// A string key that must be set and not blank.
    pub fn required_string(&self, key: &str) -> Result<&str, KeyError> {
        match self.string(key)? {
            Some(s) if !s.is_empty() => Ok(s),
            _ => Err(KeyError::new(
                key,
                format!("missing: this metric needs `{key}`"),
            )),
        }
    }

    /// A number key; an error when it is set to something else.
    pub fn number(&self, key: &str) -> Result<Option<f64>, KeyError> {
        match self.value(key) {
            None => Ok(None),
            Some(Value::Number(n)) => Ok(n.as_f64()),
            Some(other) => Err(wrong_type(key, "a number", other)),
        }
    }

    /// A list-of-strings key, items trimmed; an error when it is anything else.
    pub fn strings(&self, key: &str) -> Result<Option<Vec<String>>, KeyError> {
        let Some(v) = self.value(key) else {
            return Ok(None);
        };
        let items = v.as_array().ok_or_else(|| wrong_type(key, "a list", v))?;
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            match item {
                Value::String(s) => out.push(s.trim().to_string()),
                other => return Err(wrong_type(&format!("{key}[{i}]"), "a string", other)),
            }
        }
        Ok(Some(out))
    }

    /// The conventional prediction key `pred_field`, when it is a string (for
    /// shells and mocks that look at what a metric compares; metric types read
    /// their keys through the checked accessors).
    pub fn pred_field(&self) -> Option<&str> {
        self.value("pred_field")
            .and_then(Value::as_str)
            .map(str::trim)
    }

    /// The conventional label key `label_field`, when it is a string.
    pub fn label_field(&self) -> Option<&str> {
        self.value("label_field")
            .and_then(Value::as_str)
            .map(str::trim)
    }
}

fn wrong_type(key: &str, expected: &str, found: &Value) -> KeyError {
    let found = match found {
        Value::Array(_) => "a list".to_string(),
        Value::Object(_) => "a mapping".to_string(),
        Value::String(s) => format!("the string {s:?}"),
        scalar => format!("`{scalar}`"),
    };
    KeyError::new(key, format!("expected {expected}, found {found}"))
}

/// True when `key` is `type`, `name` or a key some registered type declares.
pub fn is_declared(key: &str) -> bool {
    matches!(key, "type" | "name") || REGISTRY.iter().any(|t| t.accepts(key))
}

/// The keys an entry of type `kind` may hold (every declared key when the
/// type is not known), `type` and `name` first.
pub fn expected_keys(kind: Option<&str>) -> Vec<&'static str> {
    let mut out = vec!["type", "name"];
    let types: Vec<_> = match kind.and_then(|k| metric_type(k.trim())) {
        Some(t) => vec![t],
        None => of_kind(RunKind::Task).collect(),
    };
    for key in types.iter().flat_map(|t| t.keys).map(|k| k.name) {
        if !out.contains(&key) {
            out.push(key);
        }
    }
    out
}

impl<'de> Deserialize<'de> for RawMetric {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<RawMetric, D::Error> {
        deserializer.deserialize_map(EntryVisitor)
    }
}

/// Reads the mapping of one entry.
struct EntryVisitor;

impl<'de> Visitor<'de> for EntryVisitor {
    type Value = RawMetric;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a metric entry (a mapping with a `type`)")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawMetric, A::Error> {
        let mut raw = RawMetric::default();
        let mut kind = None;
        let mut seen: Vec<String> = Vec::new();
        loop {
            let seed = KeySeed {
                kind: kind.as_deref(),
                seen: &seen,
            };
            let Some(key) = map.next_key_seed(seed)? else {
                break;
            };
            match key.as_str() {
                "type" => kind = Some(map.next_value::<String>()?),
                "name" => raw.name = map.next_value()?,
                _ => {
                    raw.keys.insert(key.clone(), map.next_value()?);
                }
            }
            seen.push(key);
        }
        raw.kind = kind.ok_or_else(|| de::Error::missing_field("type"))?;
        Ok(raw)
    }
}

/// Reads one key of an entry, refusing undeclared and repeated keys while the
/// YAML reader still knows the key's position (so the error has its line).
struct KeySeed<'a> {
    kind: Option<&'a str>,
    seen: &'a [String],
}

impl<'de> DeserializeSeed<'de> for KeySeed<'_> {
    type Value = String;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<String, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl Visitor<'_> for KeySeed<'_> {
    type Value = String;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key name")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<String, E> {
        if self.seen.iter().any(|k| k == key) {
            return Err(E::custom(format_args!("duplicate field `{key}`")));
        }
        if !is_declared(key) {
            let expected: Vec<String> = expected_keys(self.kind)
                .iter()
                .map(|k| format!("`{k}`"))
                .collect();
            return Err(E::custom(format_args!(
                "unknown field `{key}`, expected one of {}",
                expected.join(", ")
            )));
        }
        Ok(key.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(yaml: &str) -> Result<RawMetric, String> {
        serde_yaml_ng::from_str(yaml).map_err(|e| e.to_string())
    }

    #[test]
    fn reads_type_name_and_every_declared_key() {
        let raw =
            read("{type: numeric_error, name: n, pred_field: ' a ', tolerance: 1, fields: ~}")
                .expect("valid entry");
        assert_eq!(
            (raw.kind.as_str(), raw.report_name()),
            ("numeric_error", "n")
        );
        assert_eq!(raw.string("pred_field"), Ok(Some("a")));
        assert_eq!(raw.number("tolerance"), Ok(Some(1.0)));
        assert_eq!(raw.strings("fields"), Ok(None));
        assert_eq!(
            raw.set_keys().collect::<Vec<_>>(),
            ["pred_field", "tolerance"]
        );
        assert_eq!(raw.pred_field(), Some("a"));
        assert_eq!(raw.label_field(), None);
    }

    #[test]
    fn undeclared_and_repeated_keys_are_refused_at_the_key() {
        let e = read("type: exact_match\npred_feild: a\n").expect_err("unknown key");
        assert_eq!(
            e,
            "unknown field `pred_feild`, expected one of `type`, `name`, `pred_field`, `label_field` at line 2 column 1"
        );
        let e = read("pred_feild: a\ntype: exact_match\n").expect_err("unknown key");
        assert!(
            e.contains("expected one of `type`, `name`, `fields`, `pred_field`"),
            "{e}"
        );
        let e = read("type: exact_match\nname: a\nname: b\n").expect_err("repeated key");
        assert_eq!(e, "duplicate field `name` at line 3 column 1");
        assert!(read("pred_field: a\n")
            .expect_err("no type")
            .contains("missing field `type`"));
    }

    #[test]
    fn accessors_name_the_key_and_what_was_found() {
        let raw = RawMetric::new(
            "x",
            [
                ("p", json!(3)),
                ("t", json!("1")),
                ("f", json!(["a", 2])),
                ("e", json!(" ")),
            ],
        );
        let e = raw.string("p").expect_err("number");
        assert_eq!(
            (e.key.as_str(), e.message.as_str()),
            ("p", "expected a string, found `3`")
        );
        let e = raw.number("t").expect_err("string");
        assert_eq!(e.message, "expected a number, found the string \"1\"");
        let e = raw.strings("f").expect_err("item");
        assert_eq!(
            (e.key.as_str(), e.message.as_str()),
            ("f[1]", "expected a string, found `2`")
        );
        let e = raw.required_string("e").expect_err("blank");
        assert_eq!(e.message, "missing: this metric needs `e`");
        assert_eq!(raw.required_string("zz").expect_err("absent").key, "zz");
    }
}
