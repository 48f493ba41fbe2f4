//! The OpenAI Evals registry's samples JSONL (`{"input": [messages], "ideal":
//! ...}` per line, as `oaieval`'s Match, Includes and FuzzyMatch evals read
//! it) as spec 004 samples, so a team moves its Evals datasets over as they
//! are (issue 32). A sample's id is `<file stem>.<line index>` (oaieval
//! names a sample `<eval>.<split>.<index>`, the index 0-based); its fields:
//! - `input`: the messages as written, and `system` / `prompt`: the system
//!   message's and the last user message's text, for prompt templates;
//! - `ideal` as written, `gt_answer` (the ideal, or the first of a list) and
//!   `gt_answers` (every ideal answer), the labels metrics read.

use super::sample::{Sample, SampleSet};
use super::LineError;
use serde_json::{json, Map, Value};

/// Whether `bytes` look like Evals samples: the first line has `input` and
/// `ideal` and no `sample_id`.
pub fn looks_like(bytes: &[u8]) -> bool {
    let first = bytes
        .split(|b| *b == b'\n')
        .find(|l| !l.iter().all(u8::is_ascii_whitespace));
    first
        .and_then(|l| serde_json::from_slice::<Value>(l).ok())
        .is_some_and(|v| {
            v.get("input").is_some() && v.get("ideal").is_some() && v.get("sample_id").is_none()
        })
}

/// Reads Evals samples; a line that is not an object with `input` (a string
/// or a list of messages) and `ideal` (a string or a list of strings) is a
/// located error and is skipped.
pub fn parse(name: &str, bytes: &[u8]) -> SampleSet {
    let stem = crate::dataset::file_name(name)
        .trim_end_matches(".jsonl")
        .to_string();
    let mut samples = Vec::new();
    let mut errors = Vec::new();
    let mut index = 0usize;
    for (n, line) in bytes.split(|b| *b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let err = |field: Option<&str>, message: String| LineError {
            file: name.to_string(),
            line: n + 1,
            field: field.map(str::to_string),
            message,
        };
        let v: Value = match serde_json::from_slice(line) {
            Ok(v) => v,
            Err(e) => {
                errors.push(err(None, format!("{e}: expected one JSON object per line")));
                continue;
            }
        };
        let id = format!("{stem}.{index}");
        index += 1;
        let (system, prompt) = match v.get("input") {
            Some(Value::String(s)) => (None, s.clone()),
            Some(Value::Array(msgs)) => {
                let text_of = |role: &str, last: bool| {
                    let mut it = msgs
                        .iter()
                        .filter(|m| m.get("role").and_then(Value::as_str) == Some(role));
                    let m = if last { it.next_back() } else { it.next() };
                    m.and_then(|m| m.get("content"))
                        .and_then(Value::as_str)
                        .map(str::to_string)
                };
                match text_of("user", true) {
                    Some(p) => (text_of("system", false), p),
                    None => {
                        errors.push(err(Some("input"), "no user message: expected a list of {role, content} messages with a user message".into()));
                        continue;
                    }
                }
            }
            _ => {
                errors.push(err(
                    Some("input"),
                    "missing: expected a string or a list of {role, content} messages".into(),
                ));
                continue;
            }
        };
        let answers: Vec<String> = match v.get("ideal") {
            Some(Value::String(s)) => vec![s.clone()],
            Some(Value::Array(a)) if !a.is_empty() && a.iter().all(Value::is_string) => a
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect(),
            _ => {
                errors.push(err(
                    Some("ideal"),
                    "missing: expected the ideal answer, a string or a list of strings".into(),
                ));
                continue;
            }
        };
        let mut fields = match v {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        if let Some(s) = system {
            fields.insert("system".into(), json!(s));
        }
        fields.insert("prompt".into(), json!(prompt));
        fields.insert("gt_answer".into(), json!(answers[0]));
        fields.insert("gt_answers".into(), json!(answers));
        let mut s = Sample::new(id, fields);
        s.line = n + 1;
        samples.push(s);
    }
    SampleSet {
        name: name.to_string(),
        samples,
        errors,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evals_samples_are_spec_004_samples() {
        let text = concat!(
            r#"{"input": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Capital of France?"}], "ideal": "Paris"}"#,
            "\n",
            r#"{"input": "2+2?", "ideal": ["4", "four"]}"#,
            "\n",
            r#"{"input": [{"role": "system", "content": "x"}], "ideal": "y"}"#,
            "\n",
            r#"{"input": "no ideal"}"#,
            "\n",
        );
        assert!(looks_like(text.as_bytes()));
        let set = parse("data/capitals.jsonl", text.as_bytes());
        assert_eq!(set.samples.len(), 2);
        let a = &set.samples[0];
        assert_eq!(a.id, "capitals.0");
        assert_eq!(a.get("prompt"), Some(&json!("Capital of France?")));
        assert_eq!(a.get("system"), Some(&json!("Be brief.")));
        assert_eq!(a.get("gt_answer"), Some(&json!("Paris")));
        assert_eq!(
            set.samples[1].get("gt_answers"),
            Some(&json!(["4", "four"]))
        );
        assert_eq!(set.samples[1].id, "capitals.1");
        let e: Vec<String> = set.errors.iter().map(ToString::to_string).collect();
        assert_eq!(e.len(), 2, "{e:?}");
        assert!(e[0].contains(":3") && e[0].contains("input"), "{e:?}");
        assert!(e[1].contains(":4") && e[1].contains("ideal"), "{e:?}");
        assert!(!looks_like(
            br#"{"sample_id": "a", "input": "x", "ideal": "y"}"#
        ));
    }
}
