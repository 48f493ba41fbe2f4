//! OpenAI-compatible chat completions (`POST {base}/chat/completions`), as served
//! by OpenAI, vLLM, Ollama (`/v1`), llama.cpp's server and LiteLLM.

use super::completion::Fields;
use super::{strip_query, Answer, ApiKey, CallError, CallOutcome, ChatMessage, ErrorKind, Usage};
use crate::json_path::kind;
use crate::text::truncate_chars;
use serde::Serialize;
use serde_json::{json, Value};
use std::fmt;

/// Endpoint settings. The key is an `ApiKey`, which cannot be serialized.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct OpenAiConfig {
    /// API base URL as OpenAI clients take it, e.g. `http://127.0.0.1:8091/v1`.
    pub base_url: String,
    /// Model name.
    pub model: String,
    /// Optional bearer key.
    pub api_key: Option<ApiKey>,
    /// Sampling temperature.
    pub temperature: Option<f64>,
    /// Maximum tokens in the answer.
    pub max_tokens: Option<u32>,
    /// Further body parameters (a task's `default_params` merged with the model
    /// registry's: `response_format`, `top_p`, `seed`, ...). `model`, `messages`
    /// and `stream` are always the run's own; `temperature` and `max_tokens`
    /// above win when set.
    pub params: serde_json::Map<String, Value>,
}

/// Settings that are safe to publish (reports, logs): everything but the key.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PublicSettings {
    /// Base URL without query string.
    pub base_url: String,
    /// Model name.
    pub model: String,
    /// Temperature, if set.
    pub temperature: Option<f64>,
    /// Max tokens, if set.
    pub max_tokens: Option<u32>,
}

impl OpenAiConfig {
    /// The settings without the key.
    pub fn public(&self) -> PublicSettings {
        PublicSettings {
            base_url: strip_query(&self.base_url),
            model: self.model.clone(),
            temperature: self.temperature,
            max_tokens: self.max_tokens,
        }
    }
}

/// An HTTP request for a transport to send. `Debug` hides the authorization header.
#[derive(Clone, PartialEq)]
pub struct HttpRequest {
    /// Full URL.
    pub url: String,
    /// Header pairs, including `Authorization` when a key is set.
    pub headers: Vec<(String, String)>,
    /// JSON body.
    pub body: String,
}

impl fmt::Debug for HttpRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let headers: Vec<(&str, &str)> = self
            .headers
            .iter()
            .map(|(k, v)| {
                let hidden = k.eq_ignore_ascii_case("authorization");
                (k.as_str(), if hidden { "***" } else { v.as_str() })
            })
            .collect();
        f.debug_struct("HttpRequest")
            .field("url", &self.url)
            .field("headers", &headers)
            .field("body", &self.body)
            .finish()
    }
}

/// `{base}/chat/completions`, tolerating a trailing slash on the base.
pub fn chat_url(base_url: &str) -> String {
    format!("{}/chat/completions", base_url.trim().trim_end_matches('/'))
}

/// Builds the chat completion request for these messages.
pub fn build_request(cfg: &OpenAiConfig, messages: &[ChatMessage]) -> HttpRequest {
    build_chat_request(cfg, messages, None)
}

/// Builds the chat completion request for these messages, offering `tools`
/// (OpenAI's `tools` list) when given: the task's `tool_choice` and
/// `parallel_tool_calls` pass through with its other parameters. The cache
/// keys on the body, so on the tools too.
pub fn build_chat_request(
    cfg: &OpenAiConfig,
    messages: &[ChatMessage],
    tools: Option<&Value>,
) -> HttpRequest {
    let mut body = Value::Object(cfg.params.clone());
    body["model"] = json!(cfg.model);
    body["messages"] = json!(messages);
    if let Some(t) = tools {
        body["tools"] = t.clone();
    }
    body["stream"] = json!(false);
    if let Some(t) = cfg.temperature {
        body["temperature"] = json!(t);
    }
    if let Some(m) = cfg.max_tokens {
        body["max_tokens"] = json!(m);
    }
    let mut headers = vec![("Content-Type".to_string(), "application/json".to_string())];
    if let Some(key) = &cfg.api_key {
        headers.push((
            "Authorization".to_string(),
            format!("Bearer {}", key.expose()),
        ));
    }
    HttpRequest {
        url: chat_url(&cfg.base_url),
        headers,
        body: body.to_string(),
    }
}

/// A JSON request to an endpoint that is not a chat model (a retrieval
/// service): `body` POSTed as it is to `url`, with the key as a bearer token
/// when one is set.
pub fn build_json_request(url: &str, body: &Value, key: Option<&super::ApiKey>) -> HttpRequest {
    let mut headers = vec![("Content-Type".to_string(), "application/json".to_string())];
    if let Some(key) = key {
        headers.push((
            "Authorization".to_string(),
            format!("Bearer {}", key.expose()),
        ));
    }
    HttpRequest {
        url: url.to_string(),
        headers,
        body: body.to_string(),
    }
}

/// Turns the HTTP answer of a JSON endpoint into a `CallOutcome`: a non-2xx
/// status is an `Http` error as for chat models (retried on 429 and 5xx, with
/// its `Retry-After`); a 2xx body is the answer's text as it came, for the
/// kind to read (a body that is not JSON is an `InvalidResponse`).
pub fn parse_json_response(
    url: &str,
    status: u16,
    retry_after: Option<&str>,
    body: &str,
) -> CallOutcome {
    if !(200..300).contains(&status) {
        return parse_response(url, status, retry_after, body);
    }
    if let Err(e) = serde_json::from_str::<Value>(body) {
        let start = body.trim_start();
        let looks = if start.is_empty() {
            "is empty".to_string()
        } else if start.starts_with('<') {
            "is an HTML or XML page, not JSON".to_string()
        } else {
            format!("is not JSON ({e})")
        };
        let mut err = CallError::new(
            ErrorKind::InvalidResponse,
            format!("HTTP {status} answer {looks}"),
        )
        .with_url(url);
        err.status_code = Some(status);
        err.response_snippet = Some(truncate_chars(body.trim(), 300));
        return CallOutcome::Failed(err);
    }
    CallOutcome::Answer(Answer::from(body.to_string()))
}

/// Turns an HTTP answer into a `CallOutcome`: the first choice's final answer
/// with its reasoning kept apart (`reasoning_content` / `reasoning` fields, a
/// leading `<think>…</think>` block), its `finish_reason` and the `usage`, or
/// an error that says what was wrong.
pub fn parse_response(
    url: &str,
    status: u16,
    retry_after: Option<&str>,
    body: &str,
) -> CallOutcome {
    let snippet = || Some(truncate_chars(body.trim(), 300));
    if !(200..300).contains(&status) {
        let mut e = CallError::new(ErrorKind::Http, http_message(status, body)).with_url(url);
        e.status_code = Some(status);
        e.response_snippet = snippet();
        e.retry_after_ms = retry_after.and_then(super::parse_retry_after);
        return CallOutcome::Failed(e);
    }
    let invalid = |msg: String| {
        let mut e = CallError::new(ErrorKind::InvalidResponse, msg).with_url(url);
        e.status_code = Some(status);
        e.response_snippet = snippet();
        CallOutcome::Failed(e)
    };
    // the usual shape read in one pass; anything else through a `Value`,
    // which says what is wrong (the same answer or error either way)
    let read = match super::completion::fields(body) {
        Some(fields) => answer_from(fields),
        None => match serde_json::from_str(body) {
            Ok(value) => answer_of(value),
            Err(e) => return invalid(not_json(status, body, &e)),
        },
    };
    match read {
        Ok(answer) => CallOutcome::Answer(answer),
        Err(msg) => invalid(msg),
    }
}

/// Why a 2xx body that is not JSON was refused, with what it looks like instead.
fn not_json(status: u16, body: &str, e: &serde_json::Error) -> String {
    let start = body.trim_start();
    let looks = if start.is_empty() {
        "is empty".to_string()
    } else if start.starts_with('<') {
        "is an HTML or XML page, not JSON".to_string()
    } else if start.starts_with("data:") {
        "is a server-sent event stream, not JSON (streaming must be off)".to_string()
    } else {
        format!("is not JSON ({e})")
    };
    format!("HTTP {status} answer {looks}; is the base URL an OpenAI-compatible /v1 endpoint?")
}

/// `choices[0].message.content` split into answer and reasoning, with the
/// choice's `finish_reason` and the top-level `usage`; or what the JSON holds
/// instead.
fn answer_of(value: Value) -> Result<Answer, String> {
    let Value::Object(mut top) = value else {
        return Err(format!(
            "the answer is {}, expected a chat completion object",
            kind(&value)
        ));
    };
    let usage = top.remove("usage");
    let timings = top.remove("timings");
    let trace = top.remove("evalpage_trace");
    let mut choice = first_choice(top)?;
    let finish_reason = choice.remove("finish_reason");
    let mut message = match choice.remove("message") {
        Some(Value::Object(m)) => m,
        None | Some(Value::Null) => return Err(no_message(&choice)),
        Some(v) => {
            return Err(format!(
                "choices[0].message is {}, expected an object",
                kind(&v)
            ))
        }
    };
    answer_from(Fields {
        usage,
        timings,
        trace,
        finish_reason,
        content: message.remove("content"),
        reasoning_content: message.remove("reasoning_content"),
        reasoning: message.remove("reasoning"),
        tool_calls: message.remove("tool_calls"),
        refusal: message.remove("refusal"),
    })
}

/// The answer from the fields read of a chat completion whose first choice
/// has a message (a `null` field counts as absent).
fn answer_from(f: Fields) -> Result<Answer, String> {
    let usage = f.usage.as_ref().and_then(usage_of).map(|mut u| {
        u.timings = f.timings.as_ref().and_then(timings_of).map(Box::new);
        u
    });
    let trace = f.trace.filter(Value::is_object);
    let finish_reason = f
        .finish_reason
        .as_ref()
        .and_then(Value::as_str)
        .map(|r| truncate_chars(r, 64));
    let field = [&f.reasoning_content, &f.reasoning]
        .into_iter()
        .find_map(|v| v.as_ref().and_then(Value::as_str))
        .filter(|r| !r.trim().is_empty());
    let calls = match &f.tool_calls {
        None | Some(Value::Null) => None,
        Some(list) => Some(crate::toolcall::read_openai_calls(
            list,
            "choices[0].message.tool_calls",
        )?),
    };
    let content = match &f.content {
        Some(Value::String(text)) => text.as_str(),
        // a reasoning model cut off while thinking has reasoning and no
        // content; an answer of calls only has none either
        None | Some(Value::Null) if field.is_some() || calls.is_some() => "",
        None | Some(Value::Null) => return Err(no_content(f.refusal.as_ref())),
        Some(v) => {
            return Err(format!(
                "choices[0].message.content is {}, expected a string",
                kind(v)
            ))
        }
    };
    let (inline, text) = split_think(content);
    let reasoning = match (field, inline) {
        (Some(f), Some(i)) => Some(format!("{f}\n\n{i}")),
        (f, i) => f.map(str::to_string).or(i),
    };
    Ok(Answer {
        text,
        calls,
        reasoning,
        finish_reason,
        usage,
        trace,
        cached: None,
    })
}

/// Splits a leading `<think>…</think>` block off `content`: (reasoning,
/// answer). Also when the opening tag is missing and only `</think>` appears
/// (some chat templates put `<think>` in the prompt), and when the closing tag
/// is missing (cut off while thinking: all of it is reasoning).
pub fn split_think(content: &str) -> (Option<String>, String) {
    const OPEN: &str = "<think>";
    const CLOSE: &str = "</think>";
    let start = content.trim_start();
    let (thought, rest) = if let Some(after) = start.strip_prefix(OPEN) {
        match after.find(CLOSE) {
            Some(i) => (&after[..i], &after[i + CLOSE.len()..]),
            None => (after, ""),
        }
    } else if let Some(i) = content.find(CLOSE).filter(|_| !content.contains(OPEN)) {
        (&content[..i], &content[i + CLOSE.len()..])
    } else {
        return (None, content.to_string());
    };
    let thought = thought.trim();
    let reasoning = (!thought.is_empty()).then(|| thought.to_string());
    (reasoning, rest.trim_start().to_string())
}

/// `usage` with `prompt_tokens`, `completion_tokens` and
/// `completion_tokens_details.reasoning_tokens`; `None` unless it is an object
/// with at least one of the two counts as a non-negative integer.
fn usage_of(v: &Value) -> Option<Usage> {
    let count = |x: Option<&Value>| x.and_then(Value::as_u64);
    let prompt = count(v.get("prompt_tokens"));
    let completion = count(v.get("completion_tokens"));
    if prompt.is_none() && completion.is_none() {
        return None;
    }
    Some(Usage {
        prompt_tokens: prompt.unwrap_or(0),
        completion_tokens: completion.unwrap_or(0),
        reasoning_tokens: count(
            v.get("completion_tokens_details")
                .and_then(|d| d.get("reasoning_tokens")),
        ),
        timings: None,
    })
}

/// llama.cpp's `timings` (`prompt_n`, `prompt_ms`, `predicted_n`,
/// `predicted_ms`); `None` unless each is a non-negative finite number.
fn timings_of(v: &Value) -> Option<super::Timings> {
    let n = |k: &str| v.get(k).and_then(Value::as_u64);
    let us = |k: &str| {
        let ms = v.get(k).and_then(Value::as_f64)?;
        (ms.is_finite() && ms >= 0.0).then(|| (ms * 1000.0).round() as u64)
    };
    Some(super::Timings {
        prompt_n: n("prompt_n")?,
        prompt_us: us("prompt_ms")?,
        predicted_n: n("predicted_n")?,
        predicted_us: us("predicted_ms")?,
    })
}

type Object = serde_json::Map<String, Value>;

/// `choices[0]` as an object.
fn first_choice(mut top: Object) -> Result<Object, String> {
    let choices = match top.remove("choices") {
        Some(Value::Array(c)) => c,
        None | Some(Value::Null) => return Err(no_choices(&top)),
        Some(v) => return Err(format!("`choices` is {}, expected an array", kind(&v))),
    };
    match choices.into_iter().next() {
        Some(Value::Object(c)) => Ok(c),
        Some(v) => Err(format!("choices[0] is {}, expected an object", kind(&v))),
        None => Err("`choices` is empty: the server returned no answer".into()),
    }
}

/// A choice without `message`: a legacy `/completions` answer carries `text`.
fn no_message(choice: &Object) -> String {
    if choice.get("text").is_some_and(Value::is_string) {
        "choices[0] has `text` but no `message`: a legacy /completions answer; \
         the base URL should lead to /chat/completions"
            .into()
    } else {
        "missing field choices[0].message.content (no `message`)".into()
    }
}

/// A message without text or calls: a refusal, or nothing.
fn no_content(refusal: Option<&Value>) -> String {
    if let Some(r) = refusal.and_then(Value::as_str) {
        format!("the model refused: {}", truncate_chars(r, 200))
    } else {
        "missing field choices[0].message.content".into()
    }
}

/// A JSON object without `choices`: an error object some servers send with a 2xx
/// status, or something else entirely.
fn no_choices(top: &Object) -> String {
    let server = top.get("error").and_then(|e| {
        e.get("message")
            .and_then(Value::as_str)
            .or_else(|| e.as_str())
    });
    match server {
        Some(m) => format!(
            "the server answered with an error instead of a chat completion: {}",
            truncate_chars(m, 200)
        ),
        None => "missing field choices[0]: not a chat completion answer".into(),
    }
}

fn http_message(status: u16, body: &str) -> String {
    let server = serde_json::from_str::<Value>(body).ok().and_then(|v| {
        v.pointer("/error/message")
            .and_then(Value::as_str)
            .map(str::to_string)
    });
    let hint = match status {
        400 => "the request was rejected; check the model name and parameters",
        401 => "unauthorized; check the API key",
        403 => "forbidden; the key has no access to this model",
        404 => "not found; check the base URL (it usually ends in /v1) and the model name",
        429 => "rate limited",
        500..=599 => "server error",
        _ => "unexpected status",
    };
    match server {
        Some(m) => format!("HTTP {status}: {hint} ({})", truncate_chars(&m, 200)),
        None => format!("HTTP {status}: {hint}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_one_pass_reader_and_the_value_reader_agree_on_every_body() {
        let bodies = [
            r#"{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"Paris"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}"#,
            r#"{"choices":[{"message":{"content":"<think>hm</think> 42","reasoning_content":"first"}}],"timings":{"prompt_n":1,"prompt_ms":2.5,"predicted_n":3,"predicted_ms":4},"usage":{"prompt_tokens":1}}"#,
            r#"{"choices":[{"message":{"content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}"#,
            r#"{"choices":[{"message":{"content":"a","reasoning_content":7,"reasoning":"r"}},{"nope":[1,2]}],"evalpage_trace":{"k":1}}"#,
            r#"{"choices":[{"message":{"content":"a"},"message":{"content":"b"}}],"usage":null,"evalpage_trace":[1]}"#,
            r#"{"choices":[{"message":{"content":null,"refusal":"no"}}]}"#,
            r#"{"choices":[{"message":{"content":null}}]}"#,
            r#"{"choices":[{"message":{"content":5}}]}"#,
            r#"{"choices":[{"message":{"content":"x","tool_calls":"bad"}}]}"#,
            r#"{"choices":[{"message":{"content":"x"},"finish_reason":3}],"usage":{"prompt_tokens":-1,"completion_tokens":2.5}}"#,
            r#"{"choices":[{"message":{"content":"a"}}],"choices":[{"message":{"content":"b"}}]}"#,
            // shapes only the `Value` reader reads (it says what is wrong)
            r#"{"choices":[{"message":null,"text":"legacy"}]}"#,
            r#"{"choices":[{"message":{"content":"a"},"message":null}]}"#,
            r#"{"choices":[[{"content":"an array for a choice"}]]}"#,
            r#"{"choices":[{"message":[null,"an array for a message"]}]}"#,
            r#"{"choices":[]}"#,
            r#"{"choices":null,"error":{"message":"quota"}}"#,
            r#"{"error":"bad"}"#,
            r#"[{"message":{"content":"top-level array"}}]"#,
            r#"{"choices":[{"message":{"content":"a"}}]} trailing"#,
            r#"{"choices":[{"message":{"content":"a"}}]"#,
        ];
        for (i, body) in bodies.into_iter().enumerate() {
            let by_value = serde_json::from_str(body)
                .map_err(|e| e.to_string())
                .map(answer_of);
            let fields = super::super::completion::fields(body);
            // the first eleven have the usual shape
            assert_eq!(fields.is_some(), i < 11, "{body}");
            match fields {
                Some(fields) => assert_eq!(Ok(answer_from(fields)), by_value, "{body}"),
                None => assert!(
                    by_value.as_ref().map_or(true, |r| r.is_err()),
                    "{body}: read as a Value but not in one pass: {by_value:?}"
                ),
            }
            // and `parse_response` gives what the `Value` reader gives
            let outcome = parse_response("http://h/v1/chat/completions", 200, None, body);
            match (&outcome, &by_value) {
                (CallOutcome::Answer(a), Ok(Ok(b))) => assert_eq!(a, b, "{body}"),
                (CallOutcome::Failed(e), Ok(Err(msg))) => assert_eq!(&e.message, msg, "{body}"),
                (CallOutcome::Failed(e), Err(_)) => {
                    assert_eq!(e.kind, ErrorKind::InvalidResponse, "{body}")
                }
                _ => panic!("{body}: {outcome:?} against {by_value:?}"),
            }
        }
    }

    #[test]
    fn an_agent_conversation_goes_out_in_openai_s_form_and_reads_back() {
        let call = crate::toolcall::Call {
            id: Some("call_1".into()),
            name: "add".into(),
            arguments: "{\"x\": 2}".into(),
        };
        let messages = vec![
            ChatMessage::new("user", "2 + 3?"),
            ChatMessage::assistant_calls("", vec![call]),
            ChatMessage::tool_result("call_1", "5"),
        ];
        let tools = json!([{"type": "function", "function": {"name": "add", "parameters": {"type": "object"}}}]);
        let req = build_chat_request(&cfg(), &messages, Some(&tools));
        let body: Value = serde_json::from_str(&req.body).expect("json");
        assert_eq!(body["tools"], tools);
        assert_eq!(
            body["messages"][1]["tool_calls"],
            json!([{"id": "call_1", "type": "function", "function": {"name": "add", "arguments": "{\"x\": 2}"}}])
        );
        assert_eq!(body["messages"][2]["tool_call_id"], "call_1");
        assert!(body["messages"][0].get("tool_calls").is_none());
        let back: Vec<ChatMessage> =
            serde_json::from_value(body["messages"].clone()).expect("messages");
        assert_eq!(back, messages);
        // content null (calls only) and content in parts read as text
        let lenient: Vec<ChatMessage> = serde_json::from_value(json!([
            {"role": "assistant", "content": null, "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
            {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}
        ]))
        .expect("lenient");
        assert_eq!(
            (lenient[0].content.as_str(), lenient[1].content.as_str()),
            ("", "ab")
        );
        assert_eq!(lenient[0].tool_calls.as_ref().map(Vec::len), Some(1));
    }

    fn cfg() -> OpenAiConfig {
        OpenAiConfig {
            base_url: "http://127.0.0.1:8091/v1/".into(),
            model: "m".into(),
            api_key: ApiKey::new("sk-test-123"),
            temperature: Some(0.0),
            max_tokens: Some(64),
            params: Default::default(),
        }
    }

    #[test]
    fn extra_params_go_into_the_body_but_cannot_replace_the_run_s_own() {
        let mut c = cfg();
        c.params = serde_json::from_str(
            r#"{"response_format": {"type": "json_object"}, "model": "other", "temperature": 1, "stream": true}"#,
        )
        .expect("json");
        let req = build_request(&c, &[ChatMessage::new("user", "hi")]);
        let body: Value = serde_json::from_str(&req.body).expect("json body");
        assert_eq!(body["response_format"]["type"], "json_object");
        assert_eq!(body["model"], "m");
        assert_eq!(body["temperature"], 0.0);
        assert_eq!(body["stream"], false);
    }

    #[test]
    fn builds_request_with_key_header_but_debug_hides_it() {
        let req = build_request(&cfg(), &[ChatMessage::new("user", "hi")]);
        assert_eq!(req.url, "http://127.0.0.1:8091/v1/chat/completions");
        let body: Value = serde_json::from_str(&req.body).expect("json body");
        assert_eq!(body["model"], "m");
        assert_eq!(body["messages"][0]["content"], "hi");
        assert_eq!(body["max_tokens"], 64);
        assert!(req
            .headers
            .iter()
            .any(|(k, v)| k == "Authorization" && v == "Bearer sk-test-123"));
        assert!(!format!("{req:?}").contains("sk-test"));
        assert!(!format!("{:?}", cfg()).contains("sk-test"));
    }

    #[test]
    fn parses_answers_and_errors() {
        let ok = r#"{"choices":[{"message":{"role":"assistant","content":"hello"}}]}"#;
        assert_eq!(
            parse_response("u", 200, None, ok),
            CallOutcome::text("hello")
        );
        let CallOutcome::Failed(e) = parse_response("http://h/v1?k=1", 429, Some("3"), "{}") else {
            panic!("expected failure")
        };
        assert_eq!((e.status_code, e.retry_after_ms), (Some(429), Some(3000)));
        assert_eq!(e.url.as_deref(), Some("http://h/v1"));
        assert!(e.retryable());
        let CallOutcome::Failed(e) = parse_response("u", 200, None, "<html>") else {
            panic!("expected failure")
        };
        assert_eq!(e.kind, ErrorKind::InvalidResponse);
        assert!(e.message.contains("not JSON"));
        let CallOutcome::Failed(e) = parse_response("u", 200, None, r#"{"choices":[{}]}"#) else {
            panic!("expected failure")
        };
        assert!(e.message.contains("choices[0].message.content"));
        let CallOutcome::Failed(e) =
            parse_response("u", 401, None, r#"{"error":{"message":"bad key"}}"#)
        else {
            panic!("expected failure")
        };
        assert!(e.message.contains("check the API key") && e.message.contains("bad key"));
        assert!(!e.retryable());
    }

    fn failure(status: u16, body: &str) -> CallError {
        match parse_response("http://h/v1/chat/completions", status, None, body) {
            CallOutcome::Failed(e) => e,
            other => panic!("expected a failure for {body:?}, got {other:?}"),
        }
    }

    #[test]
    fn regression_wrong_shapes_name_the_field_and_the_type_found() {
        // before: all of these said "missing field choices[0]"
        let cases = [
            (
                r#"{"choices":"hello"}"#,
                "`choices` is a string, expected an array",
            ),
            (r#"{"choices":[]}"#, "`choices` is empty"),
            (
                r#"{"choices":[42]}"#,
                "choices[0] is a number, expected an object",
            ),
            (
                r#"{"choices":[{"message":"hi"}]}"#,
                "choices[0].message is a string",
            ),
            (r#"[{"message":{"content":"x"}}]"#, "the answer is an array"),
            (r#""just text""#, "the answer is a string"),
            (
                r#"{"choices":[{"message":{"content":["a"]}}]}"#,
                "content is an array",
            ),
            (
                r#"{"choices":[{"message":{"content":null,"refusal":"no"}}]}"#,
                "refused: no",
            ),
        ];
        for (body, expected) in cases {
            let e = failure(200, body);
            assert_eq!(e.kind, ErrorKind::InvalidResponse);
            assert!(e.message.contains(expected), "{body}: {}", e.message);
        }
    }

    #[test]
    fn regression_error_object_with_2xx_status_shows_the_server_message() {
        let e = failure(200, r#"{"error":{"message":"model is loading"}}"#);
        assert!(e.message.contains("model is loading"), "{}", e.message);
        let e = failure(200, r#"{"error":"overloaded"}"#);
        assert!(e.message.contains("overloaded"), "{}", e.message);
    }

    #[test]
    fn regression_empty_and_html_bodies_say_so() {
        assert!(failure(200, "  ").message.contains("answer is empty"));
        let e = failure(
            200,
            "<!DOCTYPE html><html><body>Welcome to nginx</body></html>",
        );
        assert!(
            e.message.contains("HTML") && e.message.contains("not JSON"),
            "{}",
            e.message
        );
        assert!(e.response_snippet.expect("snippet").contains("nginx"));
        let e = failure(200, "data: {\"choices\":[]}\n\ndata: [DONE]\n");
        assert!(e.message.contains("event stream"), "{}", e.message);
    }

    fn answer(body: &str) -> Answer {
        match parse_response("u", 200, None, body) {
            CallOutcome::Answer(a) => a,
            other => panic!("expected an answer for {body:?}, got {other:?}"),
        }
    }

    fn content(c: &str) -> String {
        json!({"choices": [{"message": {"content": c}, "finish_reason": "stop"}]}).to_string()
    }

    #[test]
    fn think_blocks_are_split_off_the_answer() {
        let a = answer(&content("<think>the doc says Milvus</think>\n\nChromaDB"));
        assert_eq!(a.text, "ChromaDB");
        assert_eq!(a.reasoning.as_deref(), Some("the doc says Milvus"));
        assert_eq!(a.finish_reason.as_deref(), Some("stop"));
        // leading whitespace before the block
        let a = answer(&content("  \n<think>x</think>y"));
        assert_eq!((a.reasoning.as_deref(), a.text.as_str()), (Some("x"), "y"));
        // the opening tag was in the prompt: only </think> appears
        let a = answer(&content("thinking about Neo4j\n</think>\nMilvus"));
        assert_eq!(a.text, "Milvus");
        assert_eq!(a.reasoning.as_deref(), Some("thinking about Neo4j"));
        // cut off while thinking: no closing tag, all reasoning
        let a = answer(&content("<think>still thinking"));
        assert_eq!(
            (a.reasoning.as_deref(), a.text.as_str()),
            (Some("still thinking"), "")
        );
        // an empty block, and no block at all
        let a = answer(&content("<think></think>ok"));
        assert_eq!((a.reasoning, a.text.as_str()), (None, "ok"));
        let a = answer(&content("plain <think> later </think> text"));
        assert_eq!(
            (a.reasoning, a.text.as_str()),
            (None, "plain <think> later </think> text")
        );
    }

    #[test]
    fn llama_cpp_timings_are_read_and_hostile_ones_ignored() {
        let body = r#"{"choices":[{"message":{"content":"ok"},"finish_reason":"stop"}],
            "usage":{"prompt_tokens":12,"completion_tokens":3},
            "timings":{"prompt_n":12,"prompt_ms":450.5,"predicted_n":3,"predicted_ms":212.25}}"#;
        let t = answer(body).usage.and_then(|u| u.timings).expect("timings");
        assert_eq!(
            (t.prompt_n, t.prompt_us, t.predicted_n, t.predicted_us),
            (12, 450_500, 3, 212_250)
        );
        for bad in [
            r#""timings":{"prompt_n":-1,"prompt_ms":1,"predicted_n":1,"predicted_ms":1}"#,
            r#""timings":{"prompt_n":1,"prompt_ms":-5,"predicted_n":1,"predicted_ms":1}"#,
            r#""timings":"fast""#,
            r#""timings":{"prompt_n":1}"#,
        ] {
            let body = format!(
                r#"{{"choices":[{{"message":{{"content":"ok"}}}}],"usage":{{"prompt_tokens":1,"completion_tokens":1}},{bad}}}"#
            );
            let u = answer(&body).usage.expect("usage");
            assert_eq!(u.timings, None, "{bad}");
        }
    }

    #[test]
    fn reasoning_fields_usage_and_finish_reason_are_read() {
        let body = r#"{"choices":[{"message":{"content":"Paris","reasoning_content":"capital of France"},"finish_reason":"length"}],
            "usage":{"prompt_tokens":12,"completion_tokens":30,"completion_tokens_details":{"reasoning_tokens":25}}}"#;
        let a = answer(body);
        assert_eq!(a.text, "Paris");
        assert_eq!(a.reasoning.as_deref(), Some("capital of France"));
        assert!(a.truncated());
        assert_eq!(
            a.usage,
            Some(Usage {
                prompt_tokens: 12,
                completion_tokens: 30,
                reasoning_tokens: Some(25),
                timings: None,
            })
        );
        let a = answer(
            r#"{"choices":[{"message":{"content":"<think>b</think>c","reasoning":"a"}}],"usage":{"prompt_tokens":3}}"#,
        );
        assert_eq!(
            (a.reasoning.as_deref(), a.text.as_str()),
            (Some("a\n\nb"), "c")
        );
        assert_eq!(
            a.usage.map(|u| (u.prompt_tokens, u.completion_tokens)),
            Some((3, 0))
        );
        // reasoning and no content: cut off while thinking
        let a = answer(
            r#"{"choices":[{"message":{"content":null,"reasoning_content":"hmm"},"finish_reason":"length"}]}"#,
        );
        assert_eq!((a.text.as_str(), a.truncated()), ("", true));
    }

    #[test]
    fn hostile_usage_and_reasoning_shapes_are_ignored_not_trusted() {
        for usage in [
            r#""usage":"lots""#,
            r#""usage":{"prompt_tokens":-1,"completion_tokens":"9"}"#,
            r#""usage":[1,2]"#,
            r#""usage":null"#,
        ] {
            let body = format!(
                r#"{{"choices":[{{"message":{{"content":"x","reasoning":7}},"finish_reason":5}}],{usage}}}"#
            );
            let a = answer(&body);
            assert_eq!(a, Answer::from("x"), "{body}");
        }
        let big = "9".repeat(40);
        let a = answer(&format!(
            r#"{{"choices":[{{"message":{{"content":"x"}}}}],"usage":{{"prompt_tokens":{big},"completion_tokens":2}}}}"#
        ));
        assert_eq!(
            a.usage.map(|u| (u.prompt_tokens, u.completion_tokens)),
            Some((0, 2))
        );
        // the content-is-required rule still holds without a reasoning field
        let e = failure(
            200,
            r#"{"choices":[{"message":{"content":null,"reasoning":""}}]}"#,
        );
        assert!(
            e.message.contains("choices[0].message.content"),
            "{}",
            e.message
        );
    }
}
