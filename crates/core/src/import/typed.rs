//! The foreign formats' elements read into typed structs (issue 45): each
//! reader derives `Deserialize` for the parts it uses, every field optional
//! ([`Field`]) so a field the tool left out is not an error, and keeps the
//! element's other top-level fields in a [`Rest`], which [`Collect::unread`]
//! lists once per import (`evaluator_config.not_carried`, shown by the CLI's
//! report summary and the viewer's notes).
//!
//! [`Collect::unread`]: super::collect::Collect::unread

use super::collect::Collect;
use serde::de::{DeserializeOwned, IgnoredAny};
use serde::{Deserialize, Deserializer};
use serde_json::Value;
use std::collections::BTreeMap;

/// The top-level fields of an element its reader does not read.
pub(super) type Rest = BTreeMap<String, IgnoredAny>;

/// One field as the file has it: absent (or `null`), read, or of a shape
/// the reader does not take (what serde said of it), so one bad field costs
/// that field, not its element.
#[derive(Debug, Default)]
pub(super) enum Field<T> {
    #[default]
    Absent,
    Got(T),
    Wrong(String),
}

impl<'de, T: DeserializeOwned> Deserialize<'de> for Field<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        if v.is_null() {
            return Ok(Field::Absent);
        }
        Ok(match T::deserialize(&v) {
            Ok(t) => Field::Got(t),
            Err(e) => Field::Wrong(e.to_string()),
        })
    }
}

impl<T> Field<T> {
    /// The value when it was read (a wrong shape is passed over, as an
    /// optional field's always was).
    pub fn ok(&self) -> Option<&T> {
        match self {
            Field::Got(t) => Some(t),
            _ => None,
        }
    }

    /// Whether the file has the field at all (read or not).
    pub fn is_present(&self) -> bool {
        !matches!(self, Field::Absent)
    }

    /// The value of a field the reader needs; a wrong shape is a problem
    /// naming `path` and what was expected (an absent one is left to the
    /// reader, which knows what its absence means).
    pub fn need(
        &self,
        c: &mut Collect,
        file: &str,
        line: usize,
        path: &str,
        expected: &str,
    ) -> Option<&T> {
        match self {
            Field::Got(t) => Some(t),
            Field::Absent => None,
            Field::Wrong(e) => {
                c.problem(file, line, Some(path), format!("{e}; expected {expected}"));
                None
            }
        }
    }
}

/// One element as `T`, or what was wrong with it (`expected`: what an
/// element is, for the message).
pub(super) fn element<T: DeserializeOwned>(v: &Value, expected: &str) -> Result<T, String> {
    T::deserialize(v).map_err(|e| {
        let found = match v {
            Value::Object(_) => return format!("{e}; expected {expected}"),
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Number(_) => "a number",
            Value::String(_) => "a string",
            Value::Array(_) => "an array",
        };
        format!("{found}: expected {expected}")
    })
}

/// What the readers' tests look at in an import's report: the fields it
/// listed as unread (the `not_carried` notes that hold `part`), and its
/// problems as text.
#[cfg(test)]
pub(super) mod seen {
    use crate::report::EvaluationResult;

    pub fn listed(r: &EvaluationResult, part: &str) -> Vec<String> {
        r.report.experiment.evaluator_config["not_carried"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_str())
            .filter(|s| s.contains(part))
            .map(str::to_string)
            .collect()
    }

    pub fn problems(r: &EvaluationResult) -> Vec<String> {
        r.report
            .line_errors
            .iter()
            .flatten()
            .map(ToString::to_string)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize, Default)]
    #[serde(default)]
    struct El {
        a: Field<u64>,
        b: Field<String>,
        #[serde(flatten)]
        rest: Rest,
    }

    #[test]
    fn a_field_may_be_absent_null_or_wrong_and_the_rest_is_kept() {
        let v = serde_json::json!({"a": "x", "b": null, "c": [1], "d": {}});
        let el: El = element(&v, "an object").unwrap_or_default();
        assert!(matches!(el.a, Field::Wrong(ref e) if e.contains("invalid type")));
        assert!(!el.b.is_present());
        assert_eq!(el.rest.keys().collect::<Vec<_>>(), ["c", "d"]);
        let err = element::<El>(&serde_json::json!(3), "one sample").err();
        assert_eq!(err.as_deref(), Some("a number: expected one sample"));
    }
}
