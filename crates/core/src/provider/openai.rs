//! OpenAI-compatible chat completions (`POST {base}/chat/completions`), as served
//! by OpenAI, vLLM, Ollama (`/v1`), llama.cpp's server and LiteLLM.

use super::{strip_query, ApiKey, CallError, CallOutcome, ChatMessage, ErrorKind};
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
    let mut body = json!({ "model": cfg.model, "messages": messages, "stream": false });
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

/// Turns an HTTP answer into a `CallOutcome`: the first choice's message content,
/// or an error that says what was wrong.
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
    let value: Value = match serde_json::from_str(body) {
        Ok(v) => v,
        Err(e) => return invalid(format!("HTTP {status} answer is not JSON ({e}); is the base URL an OpenAI-compatible /v1 endpoint?")),
    };
    match value.pointer("/choices/0/message/content") {
        Some(Value::String(text)) => CallOutcome::Answer(text.clone()),
        Some(Value::Null) | None if value.pointer("/choices/0").is_some() => {
            invalid("missing field choices[0].message.content".into())
        }
        Some(other) => invalid(format!(
            "choices[0].message.content is {}, expected a string",
            crate::dataset::rag::kind(other)
        )),
        None => invalid("missing field choices[0]: not a chat completion answer".into()),
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

    fn cfg() -> OpenAiConfig {
        OpenAiConfig {
            base_url: "http://127.0.0.1:8091/v1/".into(),
            model: "m".into(),
            api_key: ApiKey::new("sk-test-123"),
            temperature: Some(0.0),
            max_tokens: Some(64),
        }
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
            CallOutcome::Answer("hello".into())
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
}
