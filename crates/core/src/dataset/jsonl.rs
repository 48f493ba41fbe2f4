//! Plumbing shared by the readers whose lines are one JSON object each
//! (`rag`, `sample`, `test_sample`): UTF-16 detection, blank-line skipping, JSON
//! errors placed in characters of the line, and duplicate-id detection.
//!
//! Every non-blank line gives exactly one record or one `LineError`, and ordinals
//! count non-blank lines (bad ones included) so that fixing a bad line never
//! renumbers the default ids of the others.

use super::{json_error_at, kind, numbered_lines, LineError};
use crate::position::KeyError;
use serde_json::{Map, Value};
use std::collections::HashMap;

/// Where a record came from: its 1-based line and its ordinal among non-blank lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Place {
    /// 1-based line number.
    pub line: usize,
    /// 1-based count of non-blank lines up to and including this one.
    pub ordinal: usize,
}

/// Reads every non-blank line as a JSON object and hands it to `build`, whose
/// error names the field at fault (`KeyError::whole` for the line as a whole).
/// Records whose `id_of` repeats an earlier one become a `duplicate id` error
/// on field `id_field`.
pub(crate) fn read_objects<T>(
    file: &str,
    bytes: &[u8],
    id_field: &str,
    id_of: impl Fn(&T) -> &str,
    build: impl Fn(Map<String, Value>, Place) -> Result<T, KeyError>,
) -> (Vec<T>, Vec<LineError>) {
    let err = |line, e: KeyError| LineError::new(file, line, e);
    if let Some(message) = utf16_message(bytes) {
        return (Vec::new(), vec![err(1, KeyError::whole(message))]);
    }
    let parsed = numbered_lines(bytes)
        .filter(|(_, text)| !matches!(text, Ok(t) if t.trim().is_empty()))
        .enumerate()
        .map(|(i, (line, text))| {
            let place = Place {
                line,
                ordinal: i + 1,
            };
            let record = text.map_err(KeyError::whole).and_then(object_of);
            (line, record.and_then(|obj| build(obj, place)))
        });
    let (mut records, mut errors) = (Vec::new(), Vec::new());
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (line, record) in parsed {
        let r = match record {
            Ok(r) => r,
            Err(e) => {
                errors.push(err(line, e));
                continue;
            }
        };
        if let Some(first) = seen.get(id_of(&r)) {
            let message = format!("duplicate id `{}` (first used on line {first})", id_of(&r));
            errors.push(err(line, KeyError::new(id_field, message)));
            continue;
        }
        seen.insert(id_of(&r).to_string(), line);
        records.push(r);
    }
    (records, errors)
}

/// The message for a file that starts with a UTF-16 byte order mark.
fn utf16_message(bytes: &[u8]) -> Option<String> {
    (bytes.starts_with(b"\xFF\xFE") || bytes.starts_with(b"\xFE\xFF")).then(|| {
        "the file is UTF-16 (it starts with a UTF-16 byte order mark); save it as UTF-8".into()
    })
}

/// Parses one line as a JSON object.
fn object_of(text: &str) -> Result<Map<String, Value>, KeyError> {
    let value: Value =
        serde_json::from_str(text.trim()).map_err(|e| KeyError::whole(json_message(text, &e)))?;
    match value {
        Value::Object(obj) => Ok(obj),
        other => Err(KeyError::whole(format!(
            "expected a JSON object, found {}",
            kind(&other)
        ))),
    }
}

/// "not valid JSON at column C: why", placed in the untrimmed line.
fn json_message(text: &str, e: &serde_json::Error) -> String {
    let at = json_error_at(text, text.len() - text.trim_start().len(), e);
    let mut message = format!("not valid JSON at column {}: {}", at.column, at.message);
    if text.contains('\r') {
        message.push_str(
            " (the line holds a carriage return not followed by a line feed; \
             mixed line endings? lines must end in LF or CRLF)",
        );
    }
    message
}

/// Reads an id value: a non-empty string or a number. `Ok(None)` when absent or null.
pub(crate) fn id_value(v: Option<&Value>, field: &str) -> Result<Option<String>, KeyError> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(Some(s.trim().to_string())),
        Some(Value::Number(n)) => Ok(Some(n.to_string())),
        Some(Value::String(_)) => Err(KeyError::new(field, "expected a non-empty id")),
        Some(v) => Err(KeyError::new(
            field,
            format!("expected a string id, found {}", kind(v)),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(bytes: &[u8]) -> (Vec<String>, Vec<LineError>) {
        read_objects(
            "f.jsonl",
            bytes,
            "id",
            |s: &String| s.as_str(),
            |obj, place| Ok(id_value(obj.get("id"), "id")?.unwrap_or(format!("R{}", place.ordinal))),
        )
    }

    #[test]
    fn blank_lines_are_skipped_and_bad_lines_keep_their_ordinal() {
        let (records, errors) = ids(b"{}\n\nnot json\n{\"id\":7}\n{}\n{\"id\":\"R1\"}");
        assert_eq!(records, vec!["R1", "7", "R4"]);
        assert_eq!(errors.len(), 2);
        assert_eq!(errors[0].line, 3);
        assert!(
            errors[0].message.starts_with("not valid JSON at column 2"),
            "{}",
            errors[0]
        );
        assert_eq!(errors[1].line, 6);
        assert!(errors[1]
            .message
            .contains("duplicate id `R1` (first used on line 1)"));
    }

    #[test]
    fn non_objects_bad_utf8_and_utf16_are_errors() {
        let (_, errors) = ids(b"[1]\n\xFF\n");
        assert!(errors[0].message.contains("found an array"));
        assert!(errors[1].message.contains("UTF-8"));
        let (records, errors) = ids(b"\xFF\xFE{\x00}\x00");
        assert!(records.is_empty());
        assert_eq!(errors.len(), 1);
        assert!(errors[0].message.contains("UTF-16"));
        assert!(id_value(Some(&Value::Bool(true)), "id").is_err());
        assert!(id_value(Some(&Value::String(" ".into())), "id").is_err());
    }
}
