//! The answers `evalpage score` scores: JSONL, one object per line,
//! `{"sample_id": "...", "response": "<raw model answer>", "model": "<optional name>"}`,
//! or spec 003 `RunRecord` lines (`sample_id`, `response_text`, the model in
//! `run_config.model`), such as the `results.jsonl` every evalpage run writes.
//!
//! `sample_id` is a non-empty string or a number; `response` a string (it may
//! be empty: an empty answer is still an answer), or an answer that may hold
//! function calls: an OpenAI assistant message (`content`, `tool_calls`), a
//! whole chat completion (`choices[0].message`), an Anthropic message
//! (`tool_use` blocks), an OpenAI Responses output (`function_call` items) or
//! BFCL's list of `{name: arguments}` (`toolcall::read_answer`), or a whole
//! conversation (a saved agent run; a `RunRecord`'s `trajectory` is read
//! too), with the world's state at its end in `final_state`; `model` an optional
//! non-empty string, default [`DEFAULT_MODEL`]. Other keys are ignored. A bad
//! line, or a second answer for the same sample and model, is a line-numbered
//! `LineError` and is skipped; every good line is kept.

use crate::dataset::jsonl::{id_value, read_objects, Place};
use crate::dataset::{kind, LineError};
use crate::position::KeyError;
use crate::toolcall::{read_answer, AnswerParts};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::HashMap;

/// The model name of answers that name none.
pub const DEFAULT_MODEL: &str = "responses";

/// One answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Response {
    /// 1-based line in the responses file.
    pub line: usize,
    /// The sample answered.
    pub sample_id: String,
    /// The model's raw answer text (empty for an answer of calls only).
    pub response: String,
    /// The function calls the answer made, when it holds a call list.
    pub calls: Option<Vec<crate::toolcall::Call>>,
    /// The whole conversation, when the answer is one (a saved agent run).
    pub trajectory: Option<Vec<crate::toolcall::message::ChatMessage>>,
    /// The world's state at the end of a saved agent run (`final_state`):
    /// what the `final_state` metric compares.
    pub final_state: Option<Value>,
    /// The model that answered.
    pub model: String,
    /// Unique per line (the reader's own duplicate check is not used).
    #[serde(skip)]
    key: String,
}

/// A parsed responses file.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ResponseSet {
    /// File name as given.
    pub name: String,
    /// Valid answers in file order.
    pub responses: Vec<Response>,
    /// One entry per skipped line.
    pub errors: Vec<LineError>,
}

impl ResponseSet {
    /// Model names in order of first appearance.
    pub fn models(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for r in &self.responses {
            if !out.contains(&r.model) {
                out.push(r.model.clone());
            }
        }
        out
    }
}

/// Parses a responses file from raw bytes (see the module doc for the rules).
pub fn parse(name: &str, bytes: &[u8]) -> ResponseSet {
    let (read, mut errors) = read_objects(name, bytes, "sample_id", |r: &Response| &r.key, build);
    let mut seen: HashMap<(String, String), usize> = HashMap::new();
    let mut responses = Vec::new();
    for r in read {
        let k = (r.model.clone(), r.sample_id.clone());
        if let Some(first) = seen.get(&k) {
            errors.push(LineError {
                file: name.to_string(),
                line: r.line,
                field: Some("sample_id".into()),
                message: format!(
                    "second response for sample `{}` of model `{}` (first on line {first}); ignored",
                    r.sample_id, r.model
                ),
            });
            continue;
        }
        seen.insert(k, r.line);
        responses.push(r);
    }
    errors.sort_by_key(|e| e.line);
    ResponseSet {
        name: name.to_string(),
        responses,
        errors,
    }
}

fn build(obj: Map<String, Value>, at: Place) -> Result<Response, KeyError> {
    // BFCL's result lines name the sample `id`.
    let id_key = if obj.contains_key("sample_id") || !obj.contains_key("id") {
        "sample_id"
    } else {
        "id"
    };
    let sample_id = id_value(obj.get(id_key), id_key)?
        .ok_or_else(|| KeyError::new("sample_id", "missing: every response needs a `sample_id`"))?;
    let AnswerParts {
        text: response,
        calls,
        trajectory,
    } = answer_text(&obj)?;
    let model = match obj
        .get("model")
        .or_else(|| obj.get("run_config").and_then(|c| c.get("model")))
    {
        None | Some(Value::Null) => DEFAULT_MODEL.to_string(),
        Some(Value::String(s)) if !s.trim().is_empty() => s.trim().to_string(),
        Some(v) => {
            let message = format!("expected a non-empty model name, found {}", kind(v));
            return Err(KeyError::new("model", message));
        }
    };
    let final_state = obj.get("final_state").filter(|v| !v.is_null()).cloned();
    Ok(Response {
        line: at.line,
        sample_id,
        response,
        calls,
        trajectory,
        final_state,
        model,
        key: at.line.to_string(),
    })
}

/// The answer of a line: `response`, or a spec 003 `RunRecord`'s
/// `response_text` (a record without one is a call that gave no answer), with
/// the calls it made (`response` as a message, or a record's `tool_calls`).
fn answer_text(obj: &Map<String, Value>) -> Result<AnswerParts, KeyError> {
    let (key, value) = match (obj.get("response"), obj.get("response_text"), obj.get("result")) {
        (Some(v), _, _) => ("response", v),
        (None, Some(v), _) => ("response_text", v),
        // BFCL's result lines: the calls as [{name: arguments}], or text.
        (None, None, Some(v)) => ("result", v),
        (None, None, None) => {
            return Err(KeyError::new(
                "response",
                "missing: expected the model's answer text (`response`, or a RunRecord's `response_text`)",
            ))
        }
    };
    match value {
        Value::String(s) if key == "response_text" => {
            let calls = match obj.get("tool_calls") {
                None | Some(Value::Null) => None,
                // as evalpage records them ({id, name, arguments}), or OpenAI's
                Some(v) => match Vec::<crate::toolcall::Call>::deserialize(v) {
                    Ok(calls) => Some(calls),
                    Err(_) => {
                        read_answer(&serde_json::json!({"tool_calls": v}), "tool_calls")
                            .map_err(located)?
                            .calls
                    }
                },
            };
            // an agent's record keeps its conversation beside its answer
            let trajectory = match obj.get("trajectory") {
                None | Some(Value::Null) => None,
                Some(v) => read_answer(v, "trajectory").map_err(located)?.trajectory,
            };
            Ok(AnswerParts {
                text: s.clone(),
                calls,
                trajectory,
            })
        }
        Value::String(s) => Ok(AnswerParts {
            text: s.clone(),
            ..AnswerParts::default()
        }),
        Value::Object(_) | Value::Array(_) if key != "response_text" => {
            read_answer(value, key).map_err(located)
        }
        Value::Null if key == "response_text" => {
            let status = obj
                .get("status")
                .and_then(Value::as_str)
                .unwrap_or("unknown");
            Err(KeyError::new(
                key,
                format!("null: the run recorded no answer (status `{status}`); the sample counts as not answered"),
            ))
        }
        v => Err(KeyError::new(
            key,
            format!(
                "expected a string or a model's message (with `content` or `tool_calls`), found {}",
                kind(v)
            ),
        )),
    }
}

/// A reader's `path: message` as a key error at that path.
fn located(e: String) -> KeyError {
    match e.split_once(": ") {
        Some((path, message)) => KeyError::new(path, message),
        None => KeyError::new("response", e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_run_record_lines_with_the_model_in_run_config() {
        let text = concat!(
            "{\"sample_id\":\"S1\",\"backend\":\"openai\",\"run_config\":{\"model\":\"m1\"},\"response_text\":\"a\",\"status\":\"ok\",\"attempts\":1}\n",
            "{\"sample_id\":\"S2\",\"run_config\":{\"model\":\"m1\"},\"response_text\":null,\"status\":\"failed\"}\n",
            "{\"sample_id\":\"S3\",\"model\":\"m2\",\"run_config\":{\"model\":\"m1\"},\"response_text\":\"c\"}\n",
        );
        let set = parse("results.jsonl", text.as_bytes());
        let got: Vec<(&str, &str, &str)> = set
            .responses
            .iter()
            .map(|r| (r.sample_id.as_str(), r.model.as_str(), r.response.as_str()))
            .collect();
        assert_eq!(got, vec![("S1", "m1", "a"), ("S3", "m2", "c")]);
        assert_eq!(set.errors.len(), 1);
        assert!(
            set.errors[0]
                .to_string()
                .contains("no answer (status `failed`)"),
            "{}",
            set.errors[0]
        );
    }

    #[test]
    fn reads_models_defaults_and_reports_bad_lines() {
        let text = concat!(
            "{\"sample_id\":\"S1\",\"response\":\"a\",\"model\":\"m1\"}\n",
            "{\"sample_id\":\"S1\",\"response\":\"b\"}\n",
            "\n",
            "{\"sample_id\":\"S2\",\"response\":3}\n",
            "{\"response\":\"x\"}\n",
            "{\"sample_id\":\"S1\",\"response\":\"c\",\"model\":\"m1\"}\n",
            "{\"sample_id\":7,\"response\":\"\",\"model\":\"\"}\n",
            "oops\n",
        );
        let set = parse("r.jsonl", text.as_bytes());
        let got: Vec<(&str, &str)> = set
            .responses
            .iter()
            .map(|r| (r.sample_id.as_str(), r.model.as_str()))
            .collect();
        assert_eq!(got, vec![("S1", "m1"), ("S1", "responses")]);
        assert_eq!(set.models(), vec!["m1", "responses"]);
        let shown: Vec<String> = set.errors.iter().map(ToString::to_string).collect();
        assert_eq!(shown.len(), 5, "{shown:?}");
        assert_eq!(
            shown[0],
            "r.jsonl:4: field `response`: expected a string or a model's message (with `content` or `tool_calls`), found a number"
        );
        assert!(shown[1].starts_with("r.jsonl:5: field `sample_id`: missing"));
        assert_eq!(shown[2], "r.jsonl:6: field `sample_id`: second response for sample `S1` of model `m1` (first on line 1); ignored");
        assert!(shown[3].starts_with("r.jsonl:7: field `model`"));
        assert!(shown[4].starts_with("r.jsonl:8: not valid JSON"));
    }
}
