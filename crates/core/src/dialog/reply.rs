//! A dialog run's answer read for spec 001's trace fields (issue 11): the
//! fields `recall`, `tools`, `compliance`, `profile_snapshot` come from the
//! response's top-level `evalpage_trace` object (`Answer::trace`), or from the
//! message itself when its content is a JSON object (optionally in a
//! ```json fence) holding the answer text under `answer`, `content`, `text` or
//! `reply` and at least one trace field. Otherwise the answer is plain text
//! and has no trace fields.
//!
//! A trace field of the wrong shape is left out and named in `problems` (the
//! trace records them as `trace_problems`), never guessed.

use super::trace::{Compliance, Recall, ToolCall};
use crate::provider::Answer;
use serde_json::{Map, Value};

/// The trace fields of §4.3 an endpoint may send.
pub const TRACE_FIELDS: [&str; 4] = ["recall", "tools", "compliance", "profile_snapshot"];

/// The answer's text and the trace fields it carried.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Reply {
    /// The answer text that is scored.
    pub text: String,
    /// `recall`, when sent.
    pub recall: Option<Recall>,
    /// `tools`, when sent.
    pub tools: Option<Vec<ToolCall>>,
    /// `compliance`, when sent.
    pub compliance: Option<Compliance>,
    /// `profile_snapshot`, when sent.
    pub profile_snapshot: Option<Value>,
    /// Where the fields came from: `evalpage_trace`, `message`, or `None`.
    pub source: Option<&'static str>,
    /// Fields of the wrong shape, left out.
    pub problems: Vec<String>,
}

/// Reads an answer (see the module doc).
pub fn read(a: &Answer) -> Reply {
    if let Some(Value::Object(t)) = &a.trace {
        return with_fields(a.text.clone(), t, "evalpage_trace");
    }
    if let Some((text, obj)) = json_message(&a.text) {
        return with_fields(text, &obj, "message");
    }
    Reply {
        text: a.text.clone(),
        ..Reply::default()
    }
}

/// The answer text and object of a JSON message that carries trace fields.
fn json_message(content: &str) -> Option<(String, Map<String, Value>)> {
    let t = content.trim();
    let t = t
        .strip_prefix("```json")
        .or_else(|| t.strip_prefix("```"))
        .and_then(|r| r.trim_end().strip_suffix("```"))
        .unwrap_or(t)
        .trim();
    if !t.starts_with('{') {
        return None;
    }
    let Ok(Value::Object(obj)) = serde_json::from_str::<Value>(t) else {
        return None;
    };
    if !TRACE_FIELDS.iter().any(|k| obj.contains_key(*k)) {
        return None;
    }
    let text = ["answer", "content", "text", "reply"]
        .iter()
        .find_map(|k| obj.get(*k).and_then(Value::as_str))?
        .to_string();
    Some((text, obj))
}

fn with_fields(text: String, t: &Map<String, Value>, source: &'static str) -> Reply {
    let mut problems = Vec::new();
    let part = |k: &str| -> Option<Value> { t.get(k).filter(|v| !v.is_null()).cloned() };
    let (recall, tools, compliance, snapshot) = (
        part("recall"),
        part("tools"),
        part("compliance"),
        part("profile_snapshot"),
    );
    let recall = recall.and_then(|v| {
        serde_json::from_value::<Recall>(v)
            .map_err(|e| problems.push(format!("recall: {e}")))
            .ok()
    });
    let tools = tools.and_then(|v| {
        serde_json::from_value::<Vec<ToolCall>>(v)
            .map_err(|e| problems.push(format!("tools: {e}")))
            .ok()
    });
    let compliance = compliance.and_then(|v| {
        serde_json::from_value::<Compliance>(v)
            .map_err(|e| problems.push(format!("compliance: {e}")))
            .ok()
    });
    let profile_snapshot = match snapshot {
        Some(v @ Value::Object(_)) => Some(v),
        Some(v) => {
            problems.push(format!("profile_snapshot: expected an object, found {v}"));
            None
        }
        None => None,
    };
    Reply {
        text,
        recall,
        tools,
        compliance,
        profile_snapshot,
        source: Some(source),
        problems,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn fields_come_from_evalpage_trace_or_a_json_message() {
        let a = Answer {
            text: "答".into(),
            trace: Some(
                json!({"recall": {"short_term_context": "user: 问", "items": []},
                "compliance": {"is_compliant": true, "violations": []}}),
            ),
            ..Answer::default()
        };
        let r = read(&a);
        assert_eq!((r.text.as_str(), r.source), ("答", Some("evalpage_trace")));
        assert_eq!(
            r.recall.and_then(|r| r.short_term_context).as_deref(),
            Some("user: 问")
        );
        assert_eq!(r.compliance.and_then(|c| c.is_compliant), Some(true));

        let m = "```json\n{\"answer\": \"好的\", \"tools\": [{\"tool_name\": \"risk_template\"}], \"profile_snapshot\": 3}\n```";
        let r = read(&Answer::from(m));
        assert_eq!((r.text.as_str(), r.source), ("好的", Some("message")));
        assert_eq!(r.tools.map(|t| t.len()), Some(1));
        assert_eq!(
            r.problems,
            ["profile_snapshot: expected an object, found 3"]
        );

        for plain in [
            "普通回答",
            "{\"answer\": \"没有追踪字段\"}",
            "{\"recall\": {}}",
        ] {
            let r = read(&Answer::from(plain));
            assert_eq!((r.text.as_str(), r.source), (plain, None), "{plain}");
        }
        let bad = Answer {
            text: "x".into(),
            trace: Some(json!({"recall": {"items": "none"}})),
            ..Answer::default()
        };
        let r = read(&bad);
        assert!(r.recall.is_none());
        assert!(r.problems[0].starts_with("recall: "), "{:?}", r.problems);
    }
}
