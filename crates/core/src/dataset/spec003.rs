//! Spec 003 `TestSampleRecord` datasets: one JSON object per line with `id`,
//! `messages` (the canonical chat: `role`, `content`, optional `name` and
//! `metadata`), `expected` (the reference answer, any JSON, may be absent),
//! `tags` and `metadata` (`metadata.language` feeds the language breakdown).
//!
//! Derived, as spec 003 defines them:
//! - `language` = `metadata.language` (a non-empty string), else none;
//! - `length_bucket` = `report::length_bucket` of all message contents joined by
//!   a newline: `short` below 50 characters, `medium` below 200, `long` from 200.
//!
//! A message `content` may be a string, null (an empty message) or an array of
//! OpenAI-style parts, whose `text` parts are joined by a newline. Each non-blank
//! line gives one record or one line-numbered `LineError`; `id` is required.

use super::jsonl::{id_value, read_objects, Place};
use super::sample::Sample;
use super::{kind, LineError};
use crate::position::KeyError;
use crate::text::length_bucket;
use serde::Serialize;
use serde_json::{json, Map, Value};

/// One chat message of a record.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Message {
    /// `system`, `user`, `assistant`, ...
    pub role: String,
    /// Text content (parts joined).
    pub content: String,
    /// Optional speaker name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Free message metadata.
    #[serde(skip_serializing_if = "Map::is_empty")]
    pub metadata: Map<String, Value>,
}

/// One spec 003 dataset record.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TestSampleRecord {
    /// Record id.
    pub id: String,
    /// 1-based line in the source file.
    pub line: usize,
    /// The conversation, at least one message.
    pub messages: Vec<Message>,
    /// Reference answer, when given.
    pub expected: Option<Value>,
    /// Free tags, used for breakdowns.
    pub tags: Vec<String>,
    /// Free metadata (`language`, `keywords`, ...).
    pub metadata: Map<String, Value>,
}

impl TestSampleRecord {
    /// `metadata.language`, when it is a non-empty string.
    pub fn language(&self) -> Option<&str> {
        let lang = self.metadata.get("language")?.as_str()?.trim();
        (!lang.is_empty()).then_some(lang)
    }

    /// `short`, `medium` or `long` by the characters of all message contents.
    pub fn length_bucket(&self) -> &'static str {
        let text: Vec<&str> = self.messages.iter().map(|m| m.content.as_str()).collect();
        length_bucket(&text.join("\n"))
    }

    /// The content of the last `user` message (what the model is asked), or "".
    pub fn last_user_content(&self) -> &str {
        self.messages
            .iter()
            .rev()
            .find(|m| m.role == "user")
            .map_or("", |m| m.content.as_str())
    }

    /// The record as a generic sample for templates and metrics. Fields: `id`,
    /// `messages`, `expected`, `tags`, `metadata`, and the derived `language`,
    /// `length_bucket` and `prompt` (the last user message's content).
    pub fn to_sample(&self) -> Sample {
        let mut fields = Map::new();
        fields.insert("id".into(), json!(self.id));
        fields.insert("messages".into(), json!(self.messages));
        fields.insert(
            "expected".into(),
            self.expected.clone().unwrap_or(Value::Null),
        );
        fields.insert("tags".into(), json!(self.tags));
        fields.insert("metadata".into(), Value::Object(self.metadata.clone()));
        fields.insert("language".into(), json!(self.language()));
        fields.insert("length_bucket".into(), json!(self.length_bucket()));
        fields.insert("prompt".into(), json!(self.last_user_content()));
        Sample {
            id: self.id.clone(),
            line: self.line,
            fields,
        }
    }
}

/// A parsed spec 003 dataset: valid records and the lines that were skipped.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TestSampleSet {
    /// File name as given by the user.
    pub name: String,
    /// Valid records in file order.
    pub records: Vec<TestSampleRecord>,
    /// One entry per skipped line.
    pub errors: Vec<LineError>,
}

/// Parses a spec 003 JSONL dataset from raw bytes (see the module doc for the rules).
pub fn parse(name: &str, bytes: &[u8]) -> TestSampleSet {
    let (records, errors) = read_objects(name, bytes, "id", |r: &TestSampleRecord| &r.id, build);
    TestSampleSet {
        name: name.to_string(),
        records,
        errors,
    }
}

fn build(mut obj: Map<String, Value>, at: Place) -> Result<TestSampleRecord, KeyError> {
    let id = id_value(obj.get("id"), "id")?
        .ok_or_else(|| KeyError::new("id", "missing: every record needs an `id`"))?;
    let messages = match obj.remove("messages") {
        Some(Value::Array(items)) if !items.is_empty() => items
            .into_iter()
            .enumerate()
            .map(|(i, m)| message(i, m))
            .collect::<Result<Vec<_>, _>>()?,
        Some(Value::Array(_)) => {
            return Err(KeyError::new("messages", "expected at least one message"))
        }
        Some(v) => {
            return Err(KeyError::new(
                "messages",
                format!("expected an array of messages, found {}", kind(&v)),
            ))
        }
        None => {
            return Err(KeyError::new(
                "messages",
                "missing: every record needs `messages`",
            ))
        }
    };
    let metadata = object_field(obj.remove("metadata"), "metadata")?;
    if let Some(v) = metadata
        .get("language")
        .filter(|v| !v.is_null() && !v.is_string())
    {
        return Err(KeyError::new(
            "metadata.language",
            format!("expected a string, found {}", kind(v)),
        ));
    }
    Ok(TestSampleRecord {
        id,
        line: at.line,
        messages,
        expected: obj.remove("expected").filter(|v| !v.is_null()),
        tags: tags(obj.remove("tags"))?,
        metadata,
    })
}

fn message(i: usize, v: Value) -> Result<Message, KeyError> {
    let field = format!("messages[{i}]");
    let Value::Object(mut m) = v else {
        return Err(KeyError::new(
            &field,
            format!("expected a message object, found {}", kind(&v)),
        ));
    };
    let role = match m.remove("role") {
        Some(Value::String(r)) if !r.trim().is_empty() => r.trim().to_string(),
        _ => {
            return Err(KeyError::new(
                format!("{field}.role"),
                "expected a non-empty string role",
            ))
        }
    };
    let content = content_text(m.remove("content")).map_err(|found| {
        KeyError::new(
            format!("{field}.content"),
            format!("expected a string or an array of text parts, found {found}"),
        )
    })?;
    let name = match m.remove("name") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s),
        Some(v) => {
            return Err(KeyError::new(
                format!("{field}.name"),
                format!("expected a string, found {}", kind(&v)),
            ))
        }
    };
    let metadata = object_field(m.remove("metadata"), &format!("{field}.metadata"))?;
    Ok(Message {
        role,
        content,
        name,
        metadata,
    })
}

/// A message content as text; `Err` names the JSON type that cannot be one.
fn content_text(v: Option<Value>) -> Result<String, &'static str> {
    match v {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(s)) => Ok(s),
        Some(Value::Array(parts)) => Ok(parts
            .iter()
            .filter_map(|p| match p {
                Value::String(s) => Some(s.as_str()),
                Value::Object(o) => o.get("text").and_then(Value::as_str),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n")),
        Some(other) => Err(kind(&other)),
    }
}

fn object_field(v: Option<Value>, field: &str) -> Result<Map<String, Value>, KeyError> {
    match v {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Object(m)) => Ok(m),
        Some(v) => Err(KeyError::new(
            field,
            format!("expected an object, found {}", kind(&v)),
        )),
    }
}

fn tags(v: Option<Value>) -> Result<Vec<String>, KeyError> {
    match v {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .into_iter()
            .enumerate()
            .map(|(i, t)| match t {
                Value::String(s) => Ok(s),
                other => Err(KeyError::new(
                    "tags",
                    format!("item {i}: expected a string, found {}", kind(&other)),
                )),
            })
            .collect(),
        Some(v) => Err(KeyError::new(
            "tags",
            format!("expected an array of strings, found {}", kind(&v)),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOY: &str = r#"{"id":"toy-001","messages":[{"role":"system","content":"support"},{"role":"user","content":"비밀번호를 잊었어요"}],"expected":"비밀번호 재설정을 위해 등록된 이메일을 확인하세요.","tags":["toy","support","ko"],"metadata":{"language":"ko"}}"#;

    #[test]
    fn reads_the_spec_record_and_derives_language_and_length() {
        let set = parse("toy.jsonl", TOY.as_bytes());
        assert!(set.errors.is_empty(), "{:?}", set.errors);
        let r = &set.records[0];
        assert_eq!(r.language(), Some("ko"));
        // "support\n비밀번호를 잊었어요" is 7 + 1 + 10 = 18 characters
        assert_eq!(r.length_bucket(), "short");
        assert_eq!(r.last_user_content(), "비밀번호를 잊었어요");
        let s = r.to_sample();
        assert_eq!(
            s.get("prompt").and_then(Value::as_str),
            Some("비밀번호를 잊었어요")
        );
        assert_eq!(
            s.get("metadata.language").and_then(Value::as_str),
            Some("ko")
        );
        assert_eq!(
            s.get("messages.1.role").and_then(Value::as_str),
            Some("user")
        );
    }

    #[test]
    fn length_bucket_counts_all_messages() {
        let long = "x".repeat(120);
        let line = format!(
            r#"{{"id":"a","messages":[{{"role":"user","content":"{long}"}},{{"role":"assistant","content":"{long}"}}]}}"#
        );
        let set = parse("l.jsonl", line.as_bytes());
        assert_eq!(set.records[0].length_bucket(), "long");
        assert_eq!(set.records[0].language(), None);
        assert_eq!(set.records[0].expected, None);
    }

    #[test]
    fn content_parts_and_null_content_are_text() {
        let line = r#"{"id":"p","messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"image_url"},"b"]},{"role":"assistant","content":null}]}"#;
        let r = &parse("p.jsonl", line.as_bytes()).records[0];
        assert_eq!(r.messages[0].content, "a\nb");
        assert_eq!(r.messages[1].content, "");
    }

    #[test]
    fn errors_name_line_and_field() {
        let input = [
            r#"{"messages":[{"role":"user","content":"a"}]}"#,
            r#"{"id":"b","messages":[]}"#,
            r#"{"id":"c","messages":[{"content":"a"}]}"#,
            r#"{"id":"d","messages":[{"role":"user","content":5}]}"#,
            r#"{"id":"e","messages":[{"role":"user"}],"tags":"x"}"#,
            r#"{"id":"f","messages":[{"role":"user"}],"metadata":{"language":1}}"#,
            r#"{"id":"g","messages":[{"role":"user"}],"metadata":[]}"#,
        ]
        .join("\n");
        let set = parse("e.jsonl", input.as_bytes());
        assert!(set.records.is_empty());
        let shown: Vec<String> = set.errors.iter().map(ToString::to_string).collect();
        assert_eq!(
            shown[0],
            "e.jsonl:1: field `id`: missing: every record needs an `id`"
        );
        assert_eq!(
            shown[1],
            "e.jsonl:2: field `messages`: expected at least one message"
        );
        assert!(shown[2].starts_with("e.jsonl:3: field `messages[0].role`"));
        assert!(shown[3].contains(
            "`messages[0].content`: expected a string or an array of text parts, found a number"
        ));
        assert!(shown[4].contains("`tags`: expected an array of strings, found a string"));
        assert!(shown[5].contains("`metadata.language`: expected a string, found a number"));
        assert!(shown[6].contains("`metadata`: expected an object, found an array"));
    }
}
