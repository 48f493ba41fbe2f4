//! Finding the JSON object in a model answer.
//!
//! Models asked for JSON often wrap it in a Markdown code fence or put a sentence
//! before or after it. The search, in order:
//! 1. the whole answer (trimmed) when it is a JSON object;
//! 2. the content of each ``` fence (any info string, e.g. ```json), in order;
//! 3. every balanced `{ ... }` region, in order of its opening brace, found by a
//!    scan that tracks JSON strings and their escapes (so a `}` inside a string
//!    does not close the object).
//!
//! The first candidate that parses as a JSON object wins. Step 3 tries at most
//! `MAX_STARTS` opening braces, which keeps a pathological answer (thousands of
//! unclosed `{`) linear rather than quadratic. When no candidate parses, the
//! error says why: no `{` at all, an object never closed (a cut-off answer), or
//! serde_json's message for the first balanced candidate.

use serde_json::{Map, Value};
use thiserror::Error;

/// Why no JSON object could be taken from an answer.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("answer is not JSON: {0}")]
pub struct ExtractError(pub String);

/// The first JSON object in `answer` (see the module doc for the search order).
pub fn extract_json(answer: &str) -> Result<Map<String, Value>, ExtractError> {
    let trimmed = answer.trim();
    if let Some(obj) = as_object(trimmed) {
        return Ok(obj);
    }
    for fenced in fences(answer) {
        if let Some(obj) = as_object(fenced.trim()).or_else(|| first_object(fenced).ok()) {
            return Ok(obj);
        }
    }
    first_object(answer)
}

fn as_object(text: &str) -> Option<Map<String, Value>> {
    if !text.starts_with('{') {
        return None;
    }
    match serde_json::from_str(text) {
        Ok(Value::Object(obj)) => Some(obj),
        _ => None,
    }
}

/// The contents of the ``` fences of `text`, without their info strings. An
/// unclosed last fence runs to the end of the text.
fn fences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find("```") {
        let after = &rest[open + 3..];
        let body_start = after.find('\n').map_or(after.len(), |i| i + 1);
        let body = &after[body_start..];
        match body.find("```") {
            Some(close) => {
                out.push(&body[..close]);
                rest = &body[close + 3..];
            }
            None => {
                out.push(body);
                break;
            }
        }
    }
    out
}

/// How many opening braces step 3 tries before giving up.
const MAX_STARTS: usize = 64;

/// The first balanced `{...}` region that parses as an object.
fn first_object(text: &str) -> Result<Map<String, Value>, ExtractError> {
    let mut first_error: Option<String> = None;
    let mut unclosed: Option<usize> = None;
    for (start, _) in text.match_indices('{').take(MAX_STARTS) {
        let Some(len) = balanced_len(&text[start..]) else {
            unclosed.get_or_insert(start);
            continue;
        };
        match serde_json::from_str::<Value>(&text[start..start + len]) {
            Ok(Value::Object(obj)) => return Ok(obj),
            Ok(_) => {}
            Err(e) => {
                let at = text[..start].chars().count() + 1;
                first_error
                    .get_or_insert(format!("{e} (in the object starting at character {at})"));
            }
        }
    }
    Err(ExtractError(match (first_error, unclosed) {
        (Some(e), _) => e,
        (None, Some(start)) => format!(
            "the object starting at character {} is never closed (was the answer cut off?)",
            text[..start].chars().count() + 1
        ),
        (None, None) => "no JSON object (no `{` found)".to_string(),
    }))
}

/// Length in bytes of the balanced object that `text` starts with, if it closes.
fn balanced_len(text: &str) -> Option<usize> {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for (i, b) in text.bytes().enumerate() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' => depth += 1,
            b'}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn get(answer: &str) -> Value {
        Value::Object(extract_json(answer).expect("an object"))
    }

    #[test]
    fn plain_fenced_and_prose_wrapped_objects() {
        assert_eq!(get(" {\"a\": 1} "), json!({"a": 1}));
        assert_eq!(
            get("Here you go:\n```json\n{\"a\": 2}\n```\nDone."),
            json!({"a": 2})
        );
        assert_eq!(get("```\n{\"a\": 3}\n```"), json!({"a": 3}));
        assert_eq!(
            get("结果如下：{\"sentiment\":\"positive\"} 以上。"),
            json!({"sentiment": "positive"})
        );
        assert_eq!(get("```json\n{\"a\": 4}"), json!({"a": 4}));
    }

    #[test]
    fn braces_and_quotes_inside_strings_do_not_close_the_object() {
        let answer = r#"Sure {not json} then {"t": "a } b \" {", "n": {"x": [1, {"y": 2}]}} end"#;
        assert_eq!(
            get(answer),
            json!({"t": "a } b \" {", "n": {"x": [1, {"y": 2}]}})
        );
    }

    #[test]
    fn a_fence_with_prose_inside_still_yields_its_object() {
        assert_eq!(get("```json\nResult: {\"a\": 5}\n```"), json!({"a": 5}));
        // the first fence holds no object; the second does
        assert_eq!(
            get("```sh\nls\n```\n```json\n{\"b\": 1}\n```"),
            json!({"b": 1})
        );
    }

    #[test]
    fn errors_say_why() {
        let none = extract_json("I cannot answer.").expect_err("no object");
        assert_eq!(
            none.to_string(),
            "answer is not JSON: no JSON object (no `{` found)"
        );
        let cut = extract_json("ok: {\"a\": [1, 2").expect_err("cut");
        assert!(
            cut.0.contains("starting at character 5 is never closed"),
            "{cut}"
        );
        let bad = extract_json("x {'a': 1}").expect_err("single quotes");
        assert!(bad.0.starts_with("key must be a string"), "{bad}");
        assert!(bad.0.contains("character 3"), "{bad}");
        assert!(extract_json("[1, 2]").is_err());
    }
}
