//! Batch files: a run's calls written as OpenAI Batch input, and the answers
//! of the engines that run such files read back, joined on `custom_id`
//! (never on line order).
//!
//! Requests: one JSONL line per call, `{custom_id, method: "POST", url:
//! "/v1/chat/completions", body}`, the body exactly as a live run would POST
//! it. [`custom_id`] names the job and the call (and the sample where its
//! characters fit): at most 64 characters of `[A-Za-z0-9_-]`, so one file
//! works with OpenAI, Anthropic, vLLM and Ray, and a person can read it.
//!
//! Answers ([`read_answers`]), every shape one line or one JSON document at a
//! time, whatever the file holds:
//! - OpenAI Batch output and error files: `{custom_id, response: {status_code,
//!   request_id, body}, error}`; an `error: {code, message}` (e.g.
//!   `batch_expired`) or a non-2xx `status_code` is a failed call with its cause;
//! - `vllm run-batch` output: the same shape, errors as strings or objects,
//!   and the older shape with the chat completion directly under `response`;
//! - Ray Data's `write_json` shards: rows with the kept `custom_id` and the
//!   endpoint's answer under `http_response` (or `response`), an `error`
//!   string or object when the request failed;
//! - Anthropic Message Batches results: `{custom_id, result: {type}}` with
//!   `succeeded` (the message's text blocks, usage, `stop_reason`),
//!   `errored`, `canceled` or `expired`.
//!
//! A line that is none of these is an error at its line; the rest is read.

use super::{Answer, CallError, CallOutcome, ErrorKind, Usage};
use crate::dataset::LineError;
use serde_json::Value;

/// The longest `custom_id` every batch engine takes.
pub const CUSTOM_ID_MAX: usize = 64;

/// Lines per request file (OpenAI's Batch API takes at most 50,000).
pub const LINES_PER_FILE: usize = 50_000;

/// The chat completions route of every request line.
pub const BATCH_URL: &str = "/v1/chat/completions";

/// The `custom_id` of call `call` (0-based) of job `job`:
/// `j<job>-c<call>-<sample id>`, the sample id reduced to `[A-Za-z0-9_-]`
/// (other characters become `_`) and cut to fit 64 characters. Unique per
/// (job, call) whatever the sample ids.
pub fn custom_id(job: usize, call: usize, sample: Option<&str>) -> String {
    let head = format!("j{job}-c{call}");
    let Some(sample) = sample else { return head };
    let room = CUSTOM_ID_MAX.saturating_sub(head.len() + 1);
    let tail: String = sample
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(room)
        .collect();
    if tail.is_empty() {
        head
    } else {
        format!("{head}-{tail}")
    }
}

/// The job and call a `custom_id` of [`custom_id`] names.
pub fn job_of(custom_id: &str) -> Option<(usize, usize)> {
    let mut parts = custom_id.splitn(3, '-');
    let job = parts.next()?.strip_prefix('j')?.parse().ok()?;
    let call = parts.next()?.strip_prefix('c')?.parse().ok()?;
    Some((job, call))
}

/// One request line of a batch input file.
pub fn request_line(custom_id: &str, body: &Value) -> String {
    // written field by field so `custom_id` comes first for a person reading
    format!(
        "{{\"custom_id\":{},\"method\":\"POST\",\"url\":{},\"body\":{}}}",
        Value::from(custom_id),
        Value::from(BATCH_URL),
        body
    )
}

/// The request files of one round: `(custom_id, body)` pairs grouped by the
/// body's `model` into `requests-<model>.jsonl` (the model reduced to
/// `[A-Za-z0-9._-]`), at most [`LINES_PER_FILE`] lines each
/// (`requests-<model>-2.jsonl` beyond), in the order given: (file name, text).
pub fn request_files<'a>(
    requests: impl IntoIterator<Item = (&'a str, &'a Value)>,
) -> Vec<(String, String)> {
    let mut by_model: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for (custom_id, body) in requests {
        let model = body.get("model").and_then(Value::as_str).unwrap_or("model");
        by_model
            .entry(file_part(model))
            .or_default()
            .push(request_line(custom_id, body));
    }
    let mut out = Vec::new();
    for (model, lines) in by_model {
        for (n, chunk) in lines.chunks(LINES_PER_FILE).enumerate() {
            let name = match n {
                0 => format!("requests-{model}.jsonl"),
                _ => format!("requests-{model}-{}.jsonl", n + 1),
            };
            out.push((name, chunk.iter().map(|l| format!("{l}\n")).collect()));
        }
    }
    out
}

/// A model name as a file name part.
fn file_part(model: &str) -> String {
    model
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect::<String>()
        .trim_matches('.')
        .to_string()
}

/// Whether `new` replaces `old` for the same `custom_id` when several
/// answer files are read (a retry of the failed requests): an answer beats
/// a failure; between two of the same kind, the later one wins.
pub fn replaces(old: Option<&CallOutcome>, new: &CallOutcome) -> bool {
    !matches!(
        (old, new),
        (Some(CallOutcome::Answer(_)), CallOutcome::Failed(_))
    )
}

/// One answer read back: the call it answers and what came.
#[derive(Clone, Debug, PartialEq)]
pub struct BatchAnswer {
    /// The request's `custom_id`.
    pub custom_id: String,
    /// The answer, or why the request failed.
    pub outcome: CallOutcome,
}

/// Reads the answers of one file (`name` for errors). Blank lines are
/// skipped; a file that is one JSON array or object is read too.
pub fn read_answers(name: &str, bytes: &[u8]) -> (Vec<BatchAnswer>, Vec<LineError>) {
    let mut answers = Vec::new();
    let mut errors = Vec::new();
    let text = String::from_utf8_lossy(bytes);
    let trimmed = text.trim_start();
    // a JSON document (an array of rows, or one row) rather than JSONL
    if trimmed.starts_with('[') {
        if let Ok(Value::Array(rows)) = serde_json::from_str::<Value>(trimmed) {
            for (i, row) in rows.iter().enumerate() {
                match answer_of(row) {
                    Ok(a) => answers.push(a),
                    Err(e) => errors.push(line_error(name, i + 1, format!("row {}: {e}", i + 1))),
                }
            }
            return (answers, errors);
        }
    }
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let row: Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => {
                errors.push(line_error(name, i + 1, format!("not JSON: {e}")));
                continue;
            }
        };
        match answer_of(&row) {
            Ok(a) => answers.push(a),
            Err(e) => errors.push(line_error(name, i + 1, e)),
        }
    }
    (answers, errors)
}

fn line_error(file: &str, line: usize, message: String) -> LineError {
    LineError::new(file, line, crate::position::KeyError::whole(message))
}

/// One row of any of the shapes of the module doc.
pub fn answer_of(row: &Value) -> Result<BatchAnswer, String> {
    let custom_id = row
        .get("custom_id")
        .and_then(Value::as_str)
        .ok_or("no `custom_id` (expected a batch answer: {custom_id, response | error | result | http_response})")?
        .to_string();
    let outcome = if let Some(result) = row.get("result").filter(|r| r.is_object()) {
        anthropic(result)?
    } else if let Some(e) = row.get("error").filter(|e| !e.is_null()) {
        failed(e, None)
    } else if let Some(r) = ["response", "http_response"]
        .iter()
        .find_map(|k| row.get(*k).filter(|r| !r.is_null()))
    {
        response(r)?
    } else {
        return Err(format!(
            "`{custom_id}`: no `response`, `error`, `result` or `http_response`"
        ));
    };
    Ok(BatchAnswer { custom_id, outcome })
}

/// `response`: `{status_code, request_id, body}` (OpenAI, vLLM) or the chat
/// completion itself (older vLLM, Ray's `http_response`).
fn response(r: &Value) -> Result<CallOutcome, String> {
    let (status, body) = match (r.get("status_code").and_then(Value::as_u64), r.get("body")) {
        (Some(s), Some(b)) => (u16::try_from(s).unwrap_or(599), b),
        (None, Some(b)) if b.is_object() && r.get("choices").is_none() => (200, b),
        _ => (200, r),
    };
    let text = match body {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    Ok(super::openai::parse_response(
        BATCH_URL, status, None, &text,
    ))
}

/// An `error` string or object (`{code, message}`, `{type, message}`,
/// `{error: {...}}`) as a failed call.
fn failed(e: &Value, status: Option<u16>) -> CallOutcome {
    let inner = e.get("error").filter(|i| i.is_object()).unwrap_or(e);
    let text = |k: &str| inner.get(k).and_then(Value::as_str).map(str::to_string);
    let code = text("code").or_else(|| text("type"));
    let message = match (inner.as_str(), text("message")) {
        (Some(s), _) => s.to_string(),
        (None, Some(m)) => m,
        (None, None) => inner.to_string(),
    };
    let expired = code.as_deref() == Some("batch_expired");
    let kind = if expired {
        ErrorKind::Timeout
    } else if status.is_some() {
        ErrorKind::Http
    } else {
        ErrorKind::InvalidResponse
    };
    let mut err = CallError::new(
        kind,
        match &code {
            Some(c) => format!("the batch did not answer this request: {c}: {message}"),
            None => format!("the batch did not answer this request: {message}"),
        },
    );
    err.status_code = status;
    err.timeout = expired;
    CallOutcome::Failed(err)
}

/// Anthropic Message Batches: `result.type` succeeded / errored / canceled /
/// expired.
fn anthropic(result: &Value) -> Result<CallOutcome, String> {
    let kind = result.get("type").and_then(Value::as_str).unwrap_or("");
    match kind {
        "succeeded" => {
            let m = result.get("message").ok_or("`result.message` is missing")?;
            // the content blocks of one type, their `field` joined
            let blocks = |kind: &str, field: &str| -> String {
                m.get("content")
                    .and_then(Value::as_array)
                    .map(|blocks| {
                        blocks
                            .iter()
                            .filter(|b| b.get("type").and_then(Value::as_str) == Some(kind))
                            .filter_map(|b| b.get(field).and_then(Value::as_str))
                            .collect()
                    })
                    .unwrap_or_default()
            };
            let text = blocks("text", "text");
            let reasoning = blocks("thinking", "thinking");
            // `tool_use` blocks are the calls (read as saved answers read them)
            let calls = match m.get("content") {
                Some(Value::Array(b))
                    if b.iter()
                        .any(|x| x.get("type").and_then(Value::as_str) == Some("tool_use")) =>
                {
                    crate::toolcall::read_answer(m, "result.message")?.calls
                }
                _ => None,
            };
            let tokens = |k: &str| {
                m.get("usage")
                    .and_then(|u| u.get(k))
                    .and_then(Value::as_u64)
            };
            let usage = match (tokens("input_tokens"), tokens("output_tokens")) {
                (Some(i), Some(o)) => Some(Usage {
                    prompt_tokens: i,
                    completion_tokens: o,
                    reasoning_tokens: None,
                    timings: None,
                }),
                _ => None,
            };
            let finish_reason = m.get("stop_reason").and_then(Value::as_str).map(|r| {
                match r {
                    "max_tokens" => "length",
                    "end_turn" | "stop_sequence" => "stop",
                    "tool_use" => "tool_calls",
                    other => other,
                }
                .to_string()
            });
            Ok(CallOutcome::Answer(Answer {
                text,
                calls,
                reasoning: (!reasoning.is_empty()).then_some(reasoning),
                finish_reason,
                usage,
                ..Answer::default()
            }))
        }
        "errored" => Ok(failed(result.get("error").unwrap_or(&Value::Null), None)),
        "canceled" | "expired" => {
            // a request the batch canceled or let expire is a failed call of
            // this run (with its cause), not a cancel by the user
            let expired = kind == "expired";
            let mut e = CallError::new(
                if expired {
                    ErrorKind::Timeout
                } else {
                    ErrorKind::InvalidResponse
                },
                format!("the batch did not answer this request: {kind}"),
            );
            e.timeout = expired;
            Ok(CallOutcome::Failed(e))
        }
        other => Err(format!(
            "`result.type` is `{other}`; expected succeeded, errored, canceled or expired"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn chat(text: &str) -> Value {
        json!({"id": "x", "object": "chat.completion", "choices": [{"index": 0,
            "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7}})
    }

    fn text_of(o: &CallOutcome) -> Option<&str> {
        match o {
            CallOutcome::Answer(a) => Some(a.text.as_str()),
            CallOutcome::Failed(_) => None,
        }
    }

    #[test]
    fn custom_ids_fit_every_engine_and_name_job_call_and_sample() {
        let id = custom_id(12, 1, Some("财报/Q3 report"));
        assert!(id.len() <= CUSTOM_ID_MAX);
        assert!(id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'));
        assert!(id.starts_with("j12-c1-"), "{id}");
        assert_eq!(job_of(&id), Some((12, 1)));
        let long = custom_id(99_999, 3, Some(&"x".repeat(200)));
        assert_eq!(long.len(), CUSTOM_ID_MAX);
        assert_eq!(job_of(&long), Some((99_999, 3)));
        assert_eq!(custom_id(1, 0, None), "j1-c0");
        assert_eq!(job_of("j1-c0"), Some((1, 0)));
        assert_eq!(job_of("nope"), None);
    }

    #[test]
    fn every_engine_shape_is_read_and_errors_keep_their_cause() {
        let lines = [
            // OpenAI Batch output
            json!({"id": "b1", "custom_id": "j0-c0", "response": {"status_code": 200, "request_id": "r", "body": chat("A")}, "error": null}),
            // OpenAI error file
            json!({"id": "b2", "custom_id": "j1-c0", "response": null, "error": {"code": "batch_expired", "message": "This request could not be executed before the completion window expired."}}),
            // a non-2xx status in the output
            json!({"custom_id": "j2-c0", "response": {"status_code": 400, "body": {"error": {"message": "bad max_tokens"}}}, "error": null}),
            // vLLM: error as a string; the older shape
            json!({"custom_id": "j3-c0", "response": null, "error": "model overloaded"}),
            json!({"custom_id": "j4-c0", "response": chat("B")}),
            // Ray Data
            json!({"custom_id": "j5-c0", "http_response": chat("C"), "extra": 1}),
            // Anthropic
            json!({"custom_id": "j6-c0", "result": {"type": "succeeded", "message": {"content": [{"type": "text", "text": "D"}], "stop_reason": "max_tokens", "usage": {"input_tokens": 3, "output_tokens": 9}}}}),
            json!({"custom_id": "j7-c0", "result": {"type": "errored", "error": {"type": "error", "error": {"type": "invalid_request_error", "message": "too long"}}}}),
            json!({"custom_id": "j8-c0", "result": {"type": "expired"}}),
        ];
        let mut text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        text.push_str("not json\n{\"custom_id\": \"j9-c0\"}\n{\"no\": 1}\n");
        let (answers, errors) = read_answers("out.jsonl", text.as_bytes());
        assert_eq!(answers.len(), 9);
        assert_eq!(errors.len(), 3);
        assert_eq!(errors[0].line, 10);
        let by = |id: &str| {
            answers
                .iter()
                .find(|a| a.custom_id == id)
                .map(|a| &a.outcome)
        };
        assert_eq!(by("j0-c0").and_then(text_of), Some("A"));
        assert_eq!(by("j4-c0").and_then(text_of), Some("B"));
        assert_eq!(by("j5-c0").and_then(text_of), Some("C"));
        match by("j6-c0") {
            Some(CallOutcome::Answer(a)) => {
                assert_eq!(a.text, "D");
                assert_eq!(a.finish_reason.as_deref(), Some("length"));
                assert_eq!(a.usage.clone().map(|u| u.completion_tokens), Some(9));
            }
            other => panic!("{other:?}"),
        }
        let err = |id: &str| match by(id) {
            Some(CallOutcome::Failed(e)) => e.clone(),
            other => panic!("{id}: {other:?}"),
        };
        assert!(err("j1-c0").message.contains("batch_expired"));
        assert_eq!(err("j2-c0").status_code, Some(400));
        assert!(err("j2-c0").message.contains("bad max_tokens"));
        assert!(err("j3-c0").message.contains("model overloaded"));
        assert!(err("j7-c0").message.contains("too long"));
        assert!(err("j8-c0").message.contains("expired"));
    }

    #[test]
    fn request_files_are_one_per_model_and_split_at_the_line_limit() {
        let a = json!({"model": "Qwen/Qwen2.5-7B"});
        let b = json!({"model": "m"});
        let ids: Vec<String> = (0..LINES_PER_FILE + 1)
            .map(|i| format!("j{i}-c0"))
            .collect();
        let mut reqs: Vec<(&str, &Value)> = ids.iter().map(|i| (i.as_str(), &a)).collect();
        reqs.push(("j0-c1", &b));
        let files = request_files(reqs);
        let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "requests-Qwen_Qwen2.5-7B.jsonl",
                "requests-Qwen_Qwen2.5-7B-2.jsonl",
                "requests-m.jsonl"
            ]
        );
        assert_eq!(files[0].1.lines().count(), LINES_PER_FILE);
        assert_eq!(files[1].1.lines().count(), 1);
    }

    #[test]
    fn an_answer_beats_a_failure_whatever_the_order() {
        let ok = CallOutcome::Answer(Answer::from("a".to_string()));
        let failed = CallOutcome::Failed(CallError::new(ErrorKind::Http, "500"));
        assert!(replaces(None, &failed));
        assert!(replaces(Some(&failed), &ok));
        assert!(!replaces(Some(&ok), &failed));
        assert!(replaces(Some(&ok), &ok));
    }

    #[test]
    fn a_request_line_is_openai_batch_input() {
        let line = request_line("j0-c0-s1", &json!({"model": "m", "messages": []}));
        assert!(line.starts_with("{\"custom_id\":\"j0-c0-s1\""), "{line}");
        let v: Value = serde_json::from_str(&line).expect("json");
        assert_eq!(v["method"], "POST");
        assert_eq!(v["url"], BATCH_URL);
        assert_eq!(v["body"]["model"], "m");
    }

    #[test]
    fn a_json_array_of_rows_is_read_too() {
        let rows = json!([{"custom_id": "j0-c0", "http_response": chat("A")}]).to_string();
        let (answers, errors) = read_answers("shard.json", rows.as_bytes());
        assert_eq!((answers.len(), errors.len()), (1, 0));
    }
}
