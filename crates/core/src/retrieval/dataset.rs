//! Spec 000's retrieval cases and ranked lists, one JSON object per line.
//!
//! Cases: `{"case_id": "...", "query": "...", "expected_sources": ["a.md", ...],
//! "bucket": "optional"}`. Ranked lists: `{"case_id": "...", "sources": [...]}`,
//! best first. Bad lines are located (`file:line: field ...`) and skipped; a
//! repeated `case_id` is refused at its second line.

use crate::dataset::jsonl::{id_value, read_objects, Place};
use crate::dataset::{kind, LineError};
use crate::position::KeyError;
use serde::Serialize;
use serde_json::{Map, Value};

/// One retrieval case.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RetrievalCase {
    /// Case id.
    pub case_id: String,
    /// 1-based line.
    pub line: usize,
    /// The query.
    pub query: String,
    /// The sources a good retrieval returns (at least one), as written.
    pub expected_sources: Vec<String>,
    /// The case's bucket (`"-"` when none is given).
    pub bucket: String,
}

/// One ranked list of sources, best first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Ranked {
    /// Case id.
    pub case_id: String,
    /// 1-based line.
    pub line: usize,
    /// Sources as returned, best first (duplicates kept where they stand).
    pub sources: Vec<String>,
}

/// The bucket of a case without one.
pub const NO_BUCKET: &str = "-";

/// Reads retrieval cases; every bad line is a `LineError`.
pub fn parse_cases(file: &str, bytes: &[u8]) -> (Vec<RetrievalCase>, Vec<LineError>) {
    read_objects(file, bytes, "case_id", |c: &RetrievalCase| &c.case_id, case)
}

/// Reads ranked lists; every bad line is a `LineError`.
pub fn parse_ranked(file: &str, bytes: &[u8]) -> (Vec<Ranked>, Vec<LineError>) {
    read_objects(file, bytes, "case_id", |r: &Ranked| &r.case_id, ranked)
}

fn required_id(obj: &Map<String, Value>) -> Result<String, KeyError> {
    id_value(obj.get("case_id"), "case_id")?
        .ok_or_else(|| KeyError::new("case_id", "missing: every line needs a `case_id`"))
}

/// A list of strings (each trimmed, non-empty).
fn strings(obj: &Map<String, Value>, key: &str) -> Result<Vec<String>, KeyError> {
    let Some(v) = obj.get(key) else {
        return Err(KeyError::new(key, "missing: expected an array of strings"));
    };
    let Value::Array(items) = v else {
        let message = format!("expected an array of strings, found {}", kind(v));
        return Err(KeyError::new(key, message));
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| match item {
            Value::String(s) if !s.trim().is_empty() => Ok(s.trim().to_string()),
            other => Err(KeyError::new(
                format!("{key}[{i}]"),
                format!("expected a non-empty string, found {}", kind(other)),
            )),
        })
        .collect()
}

fn case(obj: Map<String, Value>, at: Place) -> Result<RetrievalCase, KeyError> {
    let case_id = required_id(&obj)?;
    let query = match obj.get("query") {
        Some(Value::String(s)) => s.clone(),
        Some(v) => {
            let message = format!("expected a string, found {}", kind(v));
            return Err(KeyError::new("query", message));
        }
        None => return Err(KeyError::new("query", "missing: expected the query text")),
    };
    let expected_sources = strings(&obj, "expected_sources")?;
    if expected_sources.is_empty() {
        let message = "empty: a case needs at least one expected source";
        return Err(KeyError::new("expected_sources", message));
    }
    let bucket = match obj.get("bucket") {
        None | Some(Value::Null) => NO_BUCKET.to_string(),
        Some(Value::String(s)) if !s.trim().is_empty() => s.trim().to_string(),
        Some(v) => {
            let message = format!("expected a non-empty string, found {}", kind(v));
            return Err(KeyError::new("bucket", message));
        }
    };
    Ok(RetrievalCase {
        case_id,
        line: at.line,
        query,
        expected_sources,
        bucket,
    })
}

fn ranked(obj: Map<String, Value>, at: Place) -> Result<Ranked, KeyError> {
    Ok(Ranked {
        case_id: required_id(&obj)?,
        line: at.line,
        sources: strings(&obj, "sources")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cases_and_lists_are_read_and_bad_lines_located() {
        let cases = concat!(
            "{\"case_id\":\"c1\",\"query\":\"q\",\"expected_sources\":[\"docs/a.md\"],\"bucket\":\"faq\"}\n",
            "{\"case_id\":\"c2\",\"query\":\"q\",\"expected_sources\":[]}\n",
            "{\"case_id\":\"c3\",\"query\":\"q\",\"expected_sources\":[\"b.md\", 3]}\n",
            "{\"case_id\":\"c1\",\"query\":\"q\",\"expected_sources\":[\"a.md\"]}\n",
            "{\"case_id\":\"c4\",\"query\":\"q\",\"expected_sources\":[\"a.md\"]}\n",
        );
        let (ok, errors) = parse_cases("cases.jsonl", cases.as_bytes());
        let ids: Vec<&str> = ok.iter().map(|c| c.case_id.as_str()).collect();
        assert_eq!(ids, ["c1", "c4"]);
        assert_eq!(ok[1].bucket, NO_BUCKET);
        let shown: Vec<String> = errors.iter().map(ToString::to_string).collect();
        assert_eq!(shown.len(), 3, "{shown:?}");
        assert!(shown[0].starts_with("cases.jsonl:2: field `expected_sources`: empty"));
        assert!(shown[1].starts_with("cases.jsonl:3: field `expected_sources[1]`"));
        assert!(
            shown[2].starts_with("cases.jsonl:4: field `case_id`"),
            "{}",
            shown[2]
        );
        let (lists, errors) = parse_ranked(
            "r.jsonl",
            b"{\"case_id\":\"c1\",\"sources\":[]}\n{\"sources\":[\"a\"]}\n",
        );
        assert_eq!(lists.len(), 1);
        assert!(lists[0].sources.is_empty(), "an empty list is a list");
        assert_eq!(errors.len(), 1);
    }
}
