//! Tool calls: the one call type every answer's calls become, the readers of
//! the answer shapes that carry calls (OpenAI chat messages and completions,
//! Anthropic messages, OpenAI Responses output, BFCL's result lists), BFCL's
//! checker ([`bfcl`]) and a partial credit that is well defined ([`f1`]).

pub mod bfcl;
pub mod data;
pub mod decl;
pub mod f1;
pub mod message;
pub mod py;
pub mod trajectory;

use py::Py;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One function call a model made.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Call {
    /// The call's id (`tool_calls[].id`, `tool_use.id`, `call_id`), when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The function's name.
    pub name: String,
    /// The arguments as the model sent them: JSON text, which may not parse.
    pub arguments: String,
}

impl Call {
    /// A call of `name` with `arguments` (JSON text).
    pub fn new(name: &str, arguments: &str) -> Call {
        Call {
            id: None,
            name: name.to_string(),
            arguments: arguments.to_string(),
        }
    }

    /// The arguments read as Python's `json.loads` reads them.
    pub fn arguments_py(&self) -> Result<Py, String> {
        Py::parse(&self.arguments).map_err(|e| e.to_string())
    }

    /// The arguments as JSON, when they parse.
    pub fn arguments_json(&self) -> Option<Value> {
        serde_json::from_str(&self.arguments).ok()
    }

    /// The arguments for people: pretty-printed when they are JSON, as sent
    /// when not.
    pub fn arguments_pretty(&self) -> String {
        self.arguments_json()
            .and_then(|v| serde_json::to_string_pretty(&v).ok())
            .unwrap_or_else(|| self.arguments.clone())
    }
}

/// The calls' names, `a, b` (for messages).
pub(crate) fn call_names(calls: &[Call]) -> String {
    calls
        .iter()
        .map(|c| c.name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// What an answer holds: its text and, when it made any, its calls.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AnswerParts {
    /// The text (empty when the answer is calls only).
    pub text: String,
    /// The calls; `None` when the answer holds no call list.
    pub calls: Option<Vec<Call>>,
    /// The whole conversation, when the answer is one (an agent's messages:
    /// assistant messages with their calls, tool results, the final answer).
    pub trajectory: Option<Vec<message::ChatMessage>>,
}

/// Reads a saved answer: a string; an OpenAI assistant message (`content`,
/// `tool_calls`); a whole chat completion (`choices[0].message`); an Anthropic
/// message (`content` blocks of `text` and `tool_use`); an OpenAI Responses
/// output (`output` items of `message` and `function_call`, or the list of
/// items itself); or a BFCL result (a list of `{name: arguments}`). An error
/// names the field (under `field`) and what was expected.
pub fn read_answer(v: &Value, field: &str) -> Result<AnswerParts, String> {
    read_answer_at(v, At::Field(field))
}

/// Where a value sits in what is being read (`response.messages[3]`), put
/// in words only when an error names it.
#[derive(Clone, Copy)]
enum At<'a> {
    Field(&'a str),
    Key(&'a At<'a>, &'static str),
    Index(&'a At<'a>, usize),
}

impl<'a> At<'a> {
    fn key(&'a self, key: &'static str) -> At<'a> {
        At::Key(self, key)
    }

    fn index(&'a self, i: usize) -> At<'a> {
        At::Index(self, i)
    }
}

impl std::fmt::Display for At<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            At::Field(field) => f.write_str(field),
            At::Key(parent, key) => write!(f, "{parent}.{key}"),
            At::Index(parent, i) => write!(f, "{parent}[{i}]"),
        }
    }
}

fn read_answer_at(v: &Value, field: At<'_>) -> Result<AnswerParts, String> {
    match v {
        Value::String(s) => Ok(AnswerParts {
            text: s.clone(),
            ..AnswerParts::default()
        }),
        Value::Object(o) => {
            if let Some(choices) = o.get("choices") {
                let msg = choices
                    .get(0)
                    .and_then(|c| c.get("message"))
                    .ok_or_else(|| format!("{field}.choices[0].message: missing (a chat completion holds its answer there)"))?;
                return read_answer_at(msg, field.key("choices[0].message"));
            }
            if let Some(output) = o.get("output") {
                return read_responses_output(output, field.key("output"));
            }
            if let Some(Value::Array(messages)) = o.get("messages") {
                return read_conversation(messages, field.key("messages"));
            }
            match o.get("content") {
                Some(Value::Array(blocks)) if o.get("tool_calls").is_none() => {
                    read_anthropic(blocks, field.key("content"))
                }
                content => {
                    let text = match content {
                        None | Some(Value::Null) => String::new(),
                        Some(Value::String(s)) => s.clone(),
                        Some(Value::Array(parts)) => text_parts(parts),
                        Some(other) => {
                            return Err(format!("{field}.content: expected text, found {}", kind(other)))
                        }
                    };
                    let calls = match o.get("tool_calls") {
                        None | Some(Value::Null) => None,
                        Some(Value::Array(list)) => Some(
                            list.iter()
                                .enumerate()
                                .map(|(i, c)| read_openai_call(c, field.key("tool_calls").index(i)))
                                .collect::<Result<Vec<_>, _>>()?,
                        ),
                        Some(other) => {
                            return Err(format!(
                                "{field}.tool_calls: expected a list of calls, found {}",
                                kind(other)
                            ))
                        }
                    };
                    Ok(AnswerParts {
                        text,
                        calls,
                        trajectory: None,
                    })
                }
            }
        }
        Value::Array(items) => {
            if !items.is_empty() && items.iter().all(|i| i.get("role").is_some()) {
                return read_conversation(items, field);
            }
            if items.iter().all(|i| i.get("type").is_some()) && !items.is_empty() {
                return read_responses_output(v, field);
            }
            // BFCL's result: [{name: arguments}], arguments a JSON string or object.
            let calls = items
                .iter()
                .enumerate()
                .map(|(i, item)| match item {
                    Value::Object(o) if o.len() == 1 => {
                        let (name, args) = o.iter().next().map(|(k, v)| (k.clone(), v)).unwrap_or_default();
                        Ok(Call {
                            id: None,
                            name,
                            arguments: arguments_text(args),
                        })
                    }
                    other => Err(format!(
                        "{field}[{i}]: expected {{\"function name\": arguments}}, found {}",
                        kind(other)
                    )),
                })
                .collect::<Result<Vec<_>, _>>()?;
            Ok(AnswerParts {
                text: String::new(),
                calls: Some(calls),
                trajectory: None,
            })
        }
        other => Err(format!(
            "{field}: expected a string, an assistant message, a chat completion, an Anthropic message or a Responses output; found {}",
            kind(other)
        )),
    }
}

/// A whole conversation (OpenAI chat messages, `{"messages": [...]}` too):
/// its text is the last assistant message's, its calls every assistant
/// message's in order (`None` when no assistant message holds a call list),
/// and the messages are kept as the trajectory. Each message is read as an
/// assistant message is, so an error names it (`response[3].tool_calls`).
fn read_conversation(items: &[Value], field: At<'_>) -> Result<AnswerParts, String> {
    let mut messages = Vec::with_capacity(items.len());
    let mut calls: Option<Vec<Call>> = None;
    let mut text = String::new();
    for (i, item) in items.iter().enumerate() {
        let at = field.index(i);
        let role = match item.get("role") {
            Some(Value::String(r)) => r.clone(),
            other => {
                return Err(format!(
                    "{at}.role: expected a role (user, assistant, tool, system), found {}",
                    other.map_or("nothing", kind)
                ))
            }
        };
        let parts = read_answer_at(item, at)?;
        if role == "assistant" || role == "ai" {
            text = parts.text.clone();
            if let Some(c) = &parts.calls {
                calls.get_or_insert_with(Vec::new).extend(c.iter().cloned());
            }
        }
        messages.push(message::ChatMessage {
            role,
            content: parts.text,
            tool_calls: parts.calls,
            tool_call_id: item
                .get("tool_call_id")
                .and_then(Value::as_str)
                .map(str::to_string),
        });
    }
    Ok(AnswerParts {
        text,
        calls,
        trajectory: Some(messages),
    })
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// Arguments as JSON text: a string as it is, anything else serialised.
fn arguments_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn text_parts(parts: &[Value]) -> String {
    parts
        .iter()
        .filter_map(|p| p.get("text").and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join("")
}

fn name_of(v: &Value, field: At<'_>) -> Result<String, String> {
    match v.get("name") {
        Some(Value::String(s)) if !s.is_empty() => Ok(s.clone()),
        Some(other) => Err(format!(
            "{field}.name: expected the function's name, found {}",
            kind(other)
        )),
        None => Err(format!("{field}.name: missing")),
    }
}

fn id_of(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_string)
}

/// An OpenAI `tool_calls` list (`field` names it in errors).
pub fn read_openai_calls(list: &Value, field: &str) -> Result<Vec<Call>, String> {
    let field = At::Field(field);
    match list {
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, c)| read_openai_call(c, field.index(i)))
            .collect(),
        other => Err(format!(
            "{field}: expected a list of calls, found {}",
            kind(other)
        )),
    }
}

fn read_openai_call(c: &Value, field: At<'_>) -> Result<Call, String> {
    let f = c
        .get("function")
        .ok_or_else(|| format!("{field}.function: missing (a tool call is {{id, type: \"function\", function: {{name, arguments}}}})"))?;
    let name = name_of(f, field.key("function"))?;
    Ok(Call {
        id: id_of(c, "id"),
        name,
        arguments: f
            .get("arguments")
            .map(arguments_text)
            .unwrap_or_else(|| "{}".to_string()),
    })
}

fn read_anthropic(blocks: &[Value], field: At<'_>) -> Result<AnswerParts, String> {
    let mut text = String::new();
    let mut calls = Vec::new();
    for (i, b) in blocks.iter().enumerate() {
        match b.get("type").and_then(Value::as_str) {
            Some("text") => text.push_str(b.get("text").and_then(Value::as_str).unwrap_or("")),
            Some("tool_use") => calls.push(item_call(b, id_of(b, "id"), "input", field, i)?),
            _ => {}
        }
    }
    Ok(AnswerParts {
        text,
        calls: (!calls.is_empty()).then_some(calls),
        trajectory: None,
    })
}

/// A call given as one item of a list (Anthropic's `tool_use` block, a
/// Responses `function_call`): its name, and its arguments under `args_key`.
fn item_call(
    item: &Value,
    id: Option<String>,
    args_key: &str,
    field: At<'_>,
    i: usize,
) -> Result<Call, String> {
    Ok(Call {
        id,
        name: name_of(item, field.index(i))?,
        arguments: item
            .get(args_key)
            .map(arguments_text)
            .unwrap_or_else(|| "{}".to_string()),
    })
}

fn read_responses_output(output: &Value, field: At<'_>) -> Result<AnswerParts, String> {
    let Value::Array(items) = output else {
        return Err(format!(
            "{field}: expected the list of output items, found {}",
            kind(output)
        ));
    };
    let mut text = String::new();
    let mut calls = Vec::new();
    for (i, item) in items.iter().enumerate() {
        match item.get("type").and_then(Value::as_str) {
            Some("message") => {
                if let Some(Value::Array(parts)) = item.get("content") {
                    text.push_str(&text_parts(parts));
                }
            }
            Some("function_call") => {
                let id = id_of(item, "call_id").or_else(|| id_of(item, "id"));
                calls.push(item_call(item, id, "arguments", field, i)?)
            }
            _ => {}
        }
    }
    Ok(AnswerParts {
        text,
        calls: (!calls.is_empty()).then_some(calls),
        trajectory: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn calls(v: Value) -> Vec<(String, String)> {
        read_answer(&v, "response")
            .unwrap()
            .calls
            .unwrap_or_default()
            .into_iter()
            .map(|c| (c.name, c.arguments))
            .collect()
    }

    #[test]
    fn hostile_arguments_fail_as_a_parse_error_not_a_crash() {
        // 100,000 levels of nesting, a 4 MB string, a number past f64:
        // each is an answer, checked without a stack overflow or a panic.
        let deep = "[".repeat(100_000) + &"]".repeat(100_000);
        let f = Py::from_json(&json!({"name": "f", "parameters": {"type": "dict",
            "properties": {"x": {"type": "string"}}, "required": ["x"]}}));
        let possible = Py::from_json(&json!([{"f": {"x": ["a"]}}]));
        let check = |args: &str| {
            bfcl::check(
                bfcl::Category::Simple,
                std::slice::from_ref(&f),
                Some(&[Call::new("f", args)]),
                &possible,
            )
        };
        let v = check(&format!("{{\"x\": {deep}}}"));
        assert_eq!(v.error_type, Some("parse_error"));
        let long = format!("{{\"x\": \"{}\"}}", "a".repeat(4 << 20));
        assert_eq!(check(&long).error_type, Some("value_error:string"));
        assert!(
            check(&long).errors[0].chars().count() < 1000,
            "the message is cut"
        );
        assert!(!check("{\"x\": 1e400}").valid);
        let f1 = f1::score(
            &[Call::new("f", "{}")],
            &[Call::new("f", &format!("{{\"x\": {deep}}}"))],
            f1::ArgsMode::Exact,
        );
        assert_eq!(f1.f1, 0.0);
    }

    #[test]
    fn every_shape_becomes_one_call_list() {
        let want = vec![("get_weather".to_string(), r#"{"city":"Paris"}"#.to_string())];
        let msg = json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}]});
        assert_eq!(calls(msg.clone()), want);
        assert_eq!(calls(json!({"choices": [{"message": msg}]})), want);
        assert_eq!(
            calls(json!({"type": "message", "role": "assistant", "content": [
                {"type": "text", "text": "Let me look."},
                {"type": "tool_use", "id": "t1", "name": "get_weather", "input": {"city": "Paris"}}]})),
            want
        );
        assert_eq!(
            calls(
                json!({"output": [{"type": "function_call", "call_id": "c", "name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}]})
            ),
            want
        );
        assert_eq!(
            calls(json!([{"get_weather": "{\"city\":\"Paris\"}"}])),
            want
        );
        let text = read_answer(&json!("It is sunny."), "response").unwrap();
        assert_eq!((text.text.as_str(), text.calls), ("It is sunny.", None));
    }

    #[test]
    fn a_bad_shape_is_named_with_its_field() {
        let e = read_answer(
            &json!({"content": "x", "tool_calls": {"a": 1}}),
            "line 3: response",
        )
        .unwrap_err();
        assert_eq!(
            e,
            "line 3: response.tool_calls: expected a list of calls, found an object"
        );
        let e =
            read_answer(&json!({"tool_calls": [{"type": "function"}]}), "response").unwrap_err();
        assert!(
            e.starts_with("response.tool_calls[0].function: missing"),
            "{e}"
        );
        let e = read_answer(&json!(3), "response").unwrap_err();
        assert!(e.contains("found a number"), "{e}");
        // a path several levels down, spelled out only for the error
        let e = read_answer(
            &json!({"messages": [{"role": "user", "content": "q"},
                {"role": "assistant", "tool_calls": [{"function": {"arguments": "{}"}}]}]}),
            "line 7: trajectory",
        )
        .unwrap_err();
        assert_eq!(
            e,
            "line 7: trajectory.messages[1].tool_calls[0].function.name: missing"
        );
    }
}
