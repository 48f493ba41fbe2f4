//! The RAG dataset of spec 002: one JSON object per line with `q` (the question),
//! `gold` (keypoints, at least one) and `doc_hint` (documents that support the
//! answer), plus optional `id`, `tags` and `metadata`.
//!
//! Case ids default to `Q1`, `Q2`, ... counting non-blank lines (bad lines
//! included), so fixing a bad line never renumbers the others. Blank lines are
//! ignored, as the spec's own example separates records with them.
//!
//! Every other line gives exactly one case or one `LineError`. A file saved as
//! UTF-16 gives a single error on line 1 that says so, rather than one
//! "not valid JSON" per line.

use super::jsonl::{read_objects, Place};
use super::{kind, LineError};
use crate::position::KeyError;
use crate::rag_rules::citation::base_name;
use serde::Serialize;
use serde_json::{Map, Value};

/// One evaluation case.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RagCase {
    /// Case id (`id` field, or `Q<n>`).
    pub id: String,
    /// 1-based line in the source file.
    pub line: usize,
    /// The question.
    pub q: String,
    /// Gold keypoints (non-empty).
    pub gold: Vec<String>,
    /// Documents the answer should cite (may be empty: then citation cannot pass).
    pub doc_hint: Vec<String>,
    /// Free tags, used for breakdowns.
    pub tags: Vec<String>,
    /// Free metadata; `metadata.language` feeds the language breakdown.
    pub metadata: Map<String, Value>,
}

/// A parsed dataset: the valid cases and the lines that were skipped.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct RagDataset {
    /// File name as given by the user.
    pub name: String,
    /// Valid cases in file order.
    pub cases: Vec<RagCase>,
    /// One entry per skipped line.
    pub errors: Vec<LineError>,
}

/// Parses a JSONL dataset from raw bytes (see the module doc for the rules).
pub fn parse(name: &str, bytes: &[u8]) -> RagDataset {
    let build = |obj, place: Place| case_from(obj, place.ordinal, place.line);
    let (cases, errors) = read_objects(name, bytes, "id", |c: &RagCase| c.id.as_str(), build);
    RagDataset {
        name: name.to_string(),
        cases,
        errors,
    }
}

fn case_from(
    mut obj: Map<String, Value>,
    ordinal: usize,
    line: usize,
) -> Result<RagCase, KeyError> {
    let q = match obj.remove("q") {
        Some(Value::String(s)) if !s.trim().is_empty() => s,
        Some(Value::String(_)) => return Err(KeyError::new("q", "expected a non-empty question")),
        Some(v) => {
            return Err(KeyError::new(
                "q",
                format!("expected a string, found {}", kind(&v)),
            ))
        }
        None => {
            return Err(KeyError::new(
                "q",
                "missing: every line needs a question `q`",
            ))
        }
    };
    let gold = string_list(obj.remove("gold"), "gold")?.ok_or_else(|| {
        KeyError::new(
            "gold",
            "missing: expected an array of at least one keypoint",
        )
    })?;
    if gold.iter().all(|g| g.trim().is_empty()) {
        return Err(KeyError::new(
            "gold",
            "expected at least one non-empty keypoint",
        ));
    }
    let doc_hint = string_list(obj.remove("doc_hint"), "doc_hint")?.unwrap_or_default();
    if let Some((i, h)) = doc_hint
        .iter()
        .enumerate()
        .find(|(_, h)| !h.trim().is_empty() && base_name(h).is_empty())
    {
        // a hint without a file name would match every answer in the citation scorer
        return Err(KeyError::new(
            "doc_hint",
            format!("item {i}: `{h}` names no file; expected a document file name"),
        ));
    }
    let tags = string_list(obj.remove("tags"), "tags")?.unwrap_or_default();
    let id = match obj.remove("id") {
        None | Some(Value::Null) => format!("Q{ordinal}"),
        Some(Value::String(s)) if !s.trim().is_empty() => s,
        Some(Value::Number(n)) => n.to_string(),
        Some(Value::String(_)) => {
            return Err(KeyError::new(
                "id",
                "expected a non-empty id (or no `id` for the default)",
            ))
        }
        Some(v) => {
            return Err(KeyError::new(
                "id",
                format!("expected a string id, found {}", kind(&v)),
            ))
        }
    };
    let metadata = match obj.remove("metadata") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(m)) => m,
        Some(v) => {
            return Err(KeyError::new(
                "metadata",
                format!("expected an object, found {}", kind(&v)),
            ))
        }
    };
    Ok(RagCase {
        id,
        line,
        q,
        gold: clean(gold),
        doc_hint: clean(doc_hint),
        tags,
        metadata,
    })
}

fn string_list(v: Option<Value>, field: &'static str) -> Result<Option<Vec<String>>, KeyError> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(items)) => items
            .into_iter()
            .enumerate()
            .map(|(i, item)| match item {
                Value::String(s) => Ok(s),
                other => Err(KeyError::new(
                    field,
                    format!("item {i}: expected a string, found {}", kind(&other)),
                )),
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some),
        Some(other) => Err(KeyError::new(
            field,
            format!("expected an array of strings, found {}", kind(&other)),
        )),
    }
}

fn clean(items: Vec<String>) -> Vec<String> {
    items
        .into_iter()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_spec_lines_with_blank_lines_and_defaults_ids() {
        let input = "{\"q\":\"a?\",\"gold\":[\"x\"],\"doc_hint\":[\"d.md\"]}\n\n{\"q\":\"b?\",\"gold\":[\"y\"],\"doc_hint\":[]}\r\n";
        let d = parse("t.jsonl", input.as_bytes());
        assert!(d.errors.is_empty(), "{:?}", d.errors);
        assert_eq!(d.cases.len(), 2);
        assert_eq!(d.cases[0].id, "Q1");
        assert_eq!(d.cases[1].id, "Q2");
        assert_eq!(d.cases[1].line, 3);
    }

    #[test]
    fn bad_lines_are_reported_with_line_and_field_and_the_rest_loads() {
        let input = [
            r#"{"q":"ok","gold":["x"],"doc_hint":["a.md"]}"#,
            r#"not json"#,
            r#"{"gold":["x"]}"#,
            r#"{"q":"e","gold":[]}"#,
            r#"{"q":"t","gold":"x"}"#,
            r#"{"q":"n","gold":[1]}"#,
            r#"[1,2]"#,
            r#"{"q":"ok2","gold":["y"],"id":"Q1"}"#,
            r#"{"q":"ok3","gold":["z"],"tags":["t"],"metadata":{"language":"zh"}}"#,
        ]
        .join("\n");
        let d = parse("bad.jsonl", input.as_bytes());
        assert_eq!(d.cases.len(), 2);
        assert_eq!(d.cases[1].id, "Q9");
        let shown: Vec<String> = d.errors.iter().map(|e| e.to_string()).collect();
        assert_eq!(shown.len(), 7, "{shown:?}");
        assert!(shown[0].starts_with("bad.jsonl:2: not valid JSON"));
        assert!(shown[1].contains(":3: field `q`: missing"));
        assert!(shown[2].contains(":4: field `gold`"));
        assert!(shown[3].contains(":5: field `gold`: expected an array of strings, found a string"));
        assert!(shown[4].contains(":6: field `gold`: item 0: expected a string, found a number"));
        assert!(shown[5].contains(":7: expected a JSON object, found an array"));
        assert!(shown[6].contains(":8: field `id`: duplicate id `Q1` (first used on line 1)"));
    }

    #[test]
    fn regression_blank_id_says_non_empty_not_found_a_string() {
        let d = parse("i.jsonl", br#"{"q":"a","gold":["x"],"id":"  "}"#);
        assert_eq!(d.errors.len(), 1);
        assert_eq!(d.errors[0].field.as_deref(), Some("id"));
        assert!(
            d.errors[0].message.contains("non-empty id"),
            "{}",
            d.errors[0]
        );
        assert!(!d.errors[0].message.contains("found a string"));
    }

    #[test]
    fn regression_doc_hint_without_file_name_is_rejected() {
        // "/" has no file name: the citation scorer would count it as cited by every answer
        let d = parse(
            "h.jsonl",
            br#"{"q":"a","gold":["x"],"doc_hint":["a.md","/"]}"#,
        );
        assert!(d.cases.is_empty());
        assert_eq!(d.errors[0].field.as_deref(), Some("doc_hint"));
        assert!(d.errors[0].message.contains("item 1"), "{}", d.errors[0]);
        let ok = parse(
            "h.jsonl",
            br#"{"q":"a","gold":["x"],"doc_hint":["docs/", " "]}"#,
        );
        assert_eq!(ok.cases[0].doc_hint, vec!["docs/".to_string()]);
    }

    #[test]
    fn regression_json_error_column_is_in_characters_of_the_line() {
        // before: "column 24: ... at line 1 column 24" (bytes, after trimming)
        let d = parse(
            "c.jsonl",
            "  {\"q\":\"准确率\" \"gold\":[\"x\"]}".as_bytes(),
        );
        let m = &d.errors[0].message;
        assert!(
            m.starts_with("not valid JSON at column 14: expected `,` or `}`"),
            "{m}"
        );
        assert!(!m.contains("line 1"), "{m}");
    }

    #[test]
    fn regression_utf16_file_gives_one_clear_error() {
        let text = "{\"q\":\"a\",\"gold\":[\"x\"]}\n{\"q\":\"b\",\"gold\":[\"y\"]}\n";
        let mut bytes = vec![0xFF, 0xFE];
        bytes.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
        let d = parse("w.jsonl", &bytes);
        assert!(d.cases.is_empty());
        assert_eq!(d.errors.len(), 1);
        assert!(d.errors[0]
            .to_string()
            .starts_with("w.jsonl:1: the file is UTF-16"));
    }

    #[test]
    fn regression_mixed_line_endings_are_named() {
        let d = parse(
            "m.jsonl",
            b"{\"q\":\"a\",\"gold\":[\"x\"]}\r{\"q\":\"b\",\"gold\":[\"y\"]}\n",
        );
        assert!(
            d.errors[0].message.contains("carriage return"),
            "{}",
            d.errors[0]
        );
        let cr_only = parse(
            "m.jsonl",
            b"{\"q\":\"a\",\"gold\":[\"x\"]}\r{\"q\":\"b\",\"gold\":[\"y\"]}\r",
        );
        assert_eq!(cr_only.cases.len(), 2, "{:?}", cr_only.errors);
    }

    #[test]
    fn invalid_utf8_line_is_skipped_not_fatal() {
        let mut input = b"{\"q\":\"a\",\"gold\":[\"x\"]}\n".to_vec();
        input.extend_from_slice(b"{\"q\":\"\xFF\"}\n{\"q\":\"c\",\"gold\":[\"z\"]}");
        let d = parse("u.jsonl", &input);
        assert_eq!(d.cases.len(), 2);
        assert_eq!(d.errors[0].line, 2);
        assert!(d.errors[0].message.contains("UTF-8"));
    }
}
