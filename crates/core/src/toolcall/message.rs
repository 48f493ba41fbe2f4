//! The one structured chat message every provider, the pipeline and both
//! shells send and read: text, an assistant's calls, a tool's result.

use serde::{Deserialize, Serialize};

/// One chat message, as OpenAI's chat completions carry it: a role and its
/// text; an assistant's function calls (`tool_calls`, each with its id); a
/// tool's result (`role: tool`, the `tool_call_id` it answers). Read back
/// leniently: content that is null (a message of calls only) is empty text,
/// and content given as parts is their text.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ChatMessage {
    /// `system`, `user`, `assistant` or `tool`.
    pub role: String,
    /// Message text.
    #[serde(default, deserialize_with = "content_text")]
    pub content: String,
    /// The calls an assistant message makes.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "wire_calls")]
    pub tool_calls: Option<Vec<super::Call>>,
    /// The call a tool message answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
}

impl ChatMessage {
    /// A message with the given role.
    pub fn new(role: &str, content: impl Into<String>) -> Self {
        ChatMessage {
            role: role.to_string(),
            content: content.into(),
            tool_calls: None,
            tool_call_id: None,
        }
    }

    /// An assistant message making these calls (with the text that came
    /// with them, often empty).
    pub fn assistant_calls(text: impl Into<String>, calls: Vec<super::Call>) -> Self {
        ChatMessage {
            tool_calls: Some(calls),
            ..ChatMessage::new("assistant", text)
        }
    }

    /// A tool's result for the call `call_id`.
    pub fn tool_result(call_id: &str, content: impl Into<String>) -> Self {
        ChatMessage {
            tool_call_id: Some(call_id.to_string()),
            ..ChatMessage::new("tool", content)
        }
    }
}

/// A message's content as text: a string, null (none), or a list of parts
/// (their `text` joined).
fn content_text<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    use serde::de::Error;
    match serde_json::Value::deserialize(d)? {
        serde_json::Value::Null => Ok(String::new()),
        serde_json::Value::String(s) => Ok(s),
        serde_json::Value::Array(parts) => Ok(parts
            .iter()
            .filter_map(|p| p.get("text").and_then(serde_json::Value::as_str))
            .collect()),
        other => Err(D::Error::custom(format!(
            "content: expected text, a list of parts or null, found {other}"
        ))),
    }
}

/// `tool_calls` on the wire: `[{id, type: "function", function: {name,
/// arguments}}]`.
mod wire_calls {
    use crate::toolcall::Call;
    use serde::{Deserialize, Deserializer, Serializer};
    use serde_json::{json, Value};

    pub fn serialize<S: Serializer>(calls: &Option<Vec<Call>>, s: S) -> Result<S::Ok, S::Error> {
        let list: Vec<Value> = calls
            .iter()
            .flatten()
            .map(|c| {
                json!({"id": c.id, "type": "function",
                       "function": {"name": c.name, "arguments": c.arguments}})
            })
            .collect();
        s.collect_seq(list)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<Call>>, D::Error> {
        use serde::de::Error;
        match Value::deserialize(d)? {
            Value::Null => Ok(None),
            v => crate::toolcall::read_openai_calls(&v, "tool_calls")
                .map(Some)
                .map_err(D::Error::custom),
        }
    }
}
