//! What the mock server answers, as plain values: routing, the OpenAI-shaped
//! chat completion from the demo model, the model list, error bodies, the
//! requests refused before their body is read, and the headers every answer
//! carries (CORS). No sockets here, so every answer is unit-tested.

use super::answers::{Answers, DialogTraceStyle, ReasoningStyle};
use super::faults::Fault;
use evalpage_core::demo;
use evalpage_core::ChatMessage;
use serde_json::{json, Value};
use std::time::Duration;

/// How long an injected hang lasts.
pub const HANG: Duration = Duration::from_secs(120);

/// Largest request body accepted, in bytes; a larger `Content-Length` gets 413.
pub const BODY_LIMIT: u64 = 8 * 1024 * 1024;

/// CORS headers carried by every response, so a browser page can call the mock.
pub const CORS: &[(&str, &str)] = &[
    ("Access-Control-Allow-Origin", "*"),
    (
        "Access-Control-Allow-Headers",
        "authorization, content-type",
    ),
    ("Access-Control-Allow-Methods", "GET, POST, OPTIONS"),
    // Lets a page read Retry-After on a cross-origin 429.
    ("Access-Control-Expose-Headers", "Retry-After"),
];

const WRONG_METHOD: &str = "method not allowed on this path";
const NOT_FOUND: &str = "unknown path; the mock serves POST /v1/chat/completions, \
POST /v1/retrieve and GET /v1/models";

/// Where a request goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// `POST /v1/chat/completions` or `/chat/completions`.
    Chat,
    /// `GET /v1/models` or `/models`.
    Models,
    /// `POST /v1/retrieve` or `/retrieve`: the demo retriever.
    Retrieve,
    /// `OPTIONS` anything (CORS preflight).
    Preflight,
    /// A known path with the wrong method.
    WrongMethod,
    /// Anything else.
    NotFound,
}

/// An answer to send, after `delay`.
#[derive(Clone, Debug, PartialEq)]
pub struct Reply {
    /// HTTP status.
    pub status: u16,
    /// JSON body (empty for 204).
    pub body: String,
    /// Extra headers besides CORS and content type.
    pub headers: Vec<(&'static str, String)>,
    /// Wait this long before answering.
    pub delay: Duration,
}

impl Reply {
    fn empty(status: u16) -> Reply {
        Reply {
            status,
            body: String::new(),
            headers: Vec::new(),
            delay: Duration::ZERO,
        }
    }

    fn json(status: u16, body: &Value) -> Reply {
        Reply {
            body: body.to_string(),
            ..Reply::empty(status)
        }
    }
}

/// Routes by method and path (the query string is ignored).
pub fn route(method: &str, url: &str) -> Route {
    let path = url.split(['?', '#']).next().unwrap_or("");
    let path = path.trim_end_matches('/');
    let (chat, models, retrieve) = (
        matches!(path, "/v1/chat/completions" | "/chat/completions"),
        matches!(path, "/v1/models" | "/models"),
        matches!(path, "/v1/retrieve" | "/retrieve"),
    );
    match method {
        "OPTIONS" => Route::Preflight,
        "POST" if chat => Route::Chat,
        "POST" if retrieve => Route::Retrieve,
        "GET" if models => Route::Models,
        _ if chat || models || retrieve => Route::WrongMethod,
        _ => Route::NotFound,
    }
}

/// The answer for a routed request; `fault` applies to chat and retrieval
/// requests only.
pub fn respond(
    route: Route,
    fault: Fault,
    body: &str,
    latency: Duration,
    answers: &Answers,
) -> Reply {
    match (route, fault) {
        (Route::Chat, _) if answers.fail_status.is_some() => {
            let status = answers.fail_status.unwrap_or(500);
            error(status, &fail_message(status), "invalid_request_error")
        }
        (Route::Preflight, _) => Reply::empty(204),
        (Route::Models, _) => Reply::json(200, &models()),
        (Route::WrongMethod, _) => error(405, WRONG_METHOD, "invalid_request_error"),
        (Route::NotFound, _) => error(404, NOT_FOUND, "invalid_request_error"),
        (Route::Chat, Fault::ServerError) => {
            error(500, "injected server error (--fail-rate)", "server_error")
        }
        (Route::Chat, Fault::RateLimited) => rate_limited(),
        (Route::Chat, Fault::Hang) => Reply {
            delay: HANG,
            ..chat(body, answers)
        },
        (Route::Chat, Fault::None) => Reply {
            delay: latency,
            ..chat(body, answers)
        },
        (Route::Retrieve, Fault::ServerError) => {
            error(500, "injected server error (--fail-rate)", "server_error")
        }
        (Route::Retrieve, Fault::RateLimited) => rate_limited(),
        (Route::Retrieve, Fault::Hang) => Reply {
            delay: HANG,
            ..retrieve(body)
        },
        (Route::Retrieve, Fault::None) => Reply {
            delay: latency,
            ..retrieve(body)
        },
    }
}

/// The 401 of a chat or retrieval request without the key the server
/// requires (`--require-key`): `authorization` is the request's header.
pub fn key_refusal(
    route: Route,
    authorization: Option<&str>,
    required: Option<&str>,
) -> Option<Reply> {
    let required = required?;
    if !matches!(route, Route::Chat | Route::Retrieve) {
        return None;
    }
    let sent = authorization.and_then(|h| h.strip_prefix("Bearer "));
    (sent != Some(required)).then(|| {
        error(
            401,
            "Incorrect API key provided (mock-server --require-key)",
            "invalid_request_error",
        )
    })
}

/// The answer for a routed request whose body arrived as these bytes: 400
/// when they are not UTF-8 text, else [`respond`].
pub fn respond_bytes(
    route: Route,
    fault: Fault,
    body: &[u8],
    latency: Duration,
    answers: &Answers,
) -> Reply {
    match std::str::from_utf8(body) {
        Ok(text) => respond(route, fault, text, latency, answers),
        Err(e) => error(
            400,
            &format!("request body is not UTF-8 text: {e}"),
            "invalid_request_error",
        ),
    }
}

/// A request refused before its body is read, from what its head says: a
/// chunked (`Transfer-Encoding`) body gets 411, a `Content-Length` over
/// [`BODY_LIMIT`] 413. The connection closes after the answer.
pub fn refusal(chunked: bool, length: u64) -> Option<Reply> {
    if chunked {
        return Some(error(
            411,
            "chunked (Transfer-Encoding) request bodies are not supported by the mock \
             server; send the body with a Content-Length header",
            "invalid_request_error",
        ));
    }
    (length > BODY_LIMIT).then(|| {
        error(
            413,
            &format!(
                "request body of {length} bytes is over the mock server's limit of \
                 {BODY_LIMIT} bytes"
            ),
            "invalid_request_error",
        )
    })
}

/// The answer to a request head that could not be read (`status` 400, or 431
/// for one over the limits), in the same OpenAI shape as every other error.
pub fn unreadable(status: u16, head_limit: usize, max_headers: usize) -> Reply {
    let message = match status {
        431 => format!(
            "request head is over the mock server's limit of {head_limit} bytes or \
             {max_headers} header lines"
        ),
        414 => "request target is too long".to_string(),
        _ => "malformed request head".to_string(),
    };
    error(status, &message, "invalid_request_error")
}

/// Statuses whose responses carry no body and no content headers (RFC 9110).
fn bodiless(status: u16) -> bool {
    matches!(status, 100..=199 | 204 | 304)
}

/// The headers of the response to `reply`, in order: CORS, the content type
/// (for a body), the reply's own headers, and `Connection: close` when `close`.
/// `Content-Length` is left to the writer. A value with a line break would
/// split the head: it is dropped (none is expected).
pub fn headers(reply: &Reply, close: bool) -> Vec<(&'static str, String)> {
    let mut all: Vec<(&'static str, String)> =
        CORS.iter().map(|(k, v)| (*k, v.to_string())).collect();
    if !bodiless(reply.status) && !reply.body.is_empty() {
        all.push(("Content-Type", "application/json".to_string()));
    }
    all.extend(reply.headers.iter().cloned());
    if close {
        all.push(("Connection", "close".to_string()));
    }
    all.retain(|(_, v)| !v.contains(['\r', '\n']));
    all
}

/// The demo retriever's answer (`evalpage_core::demo::retrieve`) to
/// `{"query": ..., "top_k": k}` (`q` and `k` are read too; k defaults to 5):
/// `{"results": [{"source", "rank", "score"}]}` best first, a document once
/// per matching paragraph; 400 for a body it cannot read.
pub fn retrieve(body: &str) -> Reply {
    let request: Value = match serde_json::from_str(body) {
        Ok(v) => v,
        Err(e) => {
            return error(
                400,
                &format!("request body is not valid JSON: {e}"),
                "invalid_request_error",
            )
        }
    };
    let Some(query) = ["query", "q"]
        .iter()
        .find_map(|k| request.get(*k).and_then(Value::as_str))
    else {
        return error(400, "missing string field `query`", "invalid_request_error");
    };
    let k = ["top_k", "k"]
        .iter()
        .find_map(|f| request.get(*f).and_then(Value::as_u64))
        .map_or(5, |k| usize::try_from(k).unwrap_or(usize::MAX));
    let results: Vec<Value> = demo::retrieve(query, k)
        .into_iter()
        .enumerate()
        .map(|(i, (doc, overlap))| json!({"source": doc, "rank": i + 1, "score": overlap}))
        .collect();
    Reply::json(200, &json!({"results": results}))
}

/// What a real endpoint says for an injected `--fail-status`.
fn fail_message(status: u16) -> String {
    let what = match status {
        401 => "Incorrect API key provided (injected by --fail-status 401)",
        403 => "You do not have access to this model (injected by --fail-status 403)",
        404 => "The model does not exist (injected by --fail-status 404)",
        _ => "injected failure (--fail-status)",
    };
    what.to_string()
}

fn rate_limited() -> Reply {
    let mut r = error(
        429,
        "injected rate limit (--rate-limit-rate)",
        "rate_limit_error",
    );
    r.headers.push(("Retry-After", "1".to_string()));
    r
}

/// An OpenAI-style error body.
pub fn error(status: u16, message: &str, kind: &str) -> Reply {
    let body = json!({"error": {"message": message, "type": kind, "param": null, "code": null}});
    Reply::json(status, &body)
}

/// The model list: only the demo model.
pub fn models() -> Value {
    json!({"object": "list", "data": [
        {"id": demo::MODEL_NAME, "object": "model", "created": 0, "owned_by": "evalpage"}
    ]})
}

/// A chat completion (scripted answer, else the demo model's), or 400 for a body it cannot read.
pub fn chat(body: &str, answers: &Answers) -> Reply {
    match parse_chat(body) {
        // the dialog mock answers all but judge requests (dialog judging
        // included), which get the mock judge's verdict through `completion`
        Ok((model, messages)) if answers.dialog.is_some() && !is_judge(&messages) => {
            Reply::json(200, &dialog_completion(&model, &messages, answers))
        }
        Ok((model, messages)) => Reply::json(200, &completion(&model, &messages, answers)),
        Err(message) => error(400, &message, "invalid_request_error"),
    }
}

/// A judge request: it carries the reply instruction the core appends to
/// every judge prompt (the mock judge answers it).
fn is_judge(messages: &[ChatMessage]) -> bool {
    evalpage_core::mock_judge_reply(messages, 0).is_some()
}

/// The model name (default: the demo model's) and messages of a request body.
fn parse_chat(body: &str) -> Result<(String, Vec<ChatMessage>), String> {
    let request: Value =
        serde_json::from_str(body).map_err(|e| format!("request body is not valid JSON: {e}"))?;
    let messages = request.get("messages").ok_or("missing field `messages`")?;
    // An agent's conversation holds assistant messages of calls only (content
    // null) and tool results; `ChatMessage` reads them (content in parts as
    // its text).
    let messages: Vec<ChatMessage> = serde_json::from_value(messages.clone()).map_err(|e| {
        format!("`messages` must be an array of chat messages {{role, content}}: {e}")
    })?;
    let model = request
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or(demo::MODEL_NAME);
    Ok((model.to_string(), messages))
}

/// The `chat.completion` object for these messages: the answer, its
/// reasoning as `--reasoning-style` sends it, the finish reason, and `usage`
/// (scripted, else counted by `demo::usage`: about four characters per token, the reasoning's
/// in `completion_tokens` and `completion_tokens_details.reasoning_tokens`).
pub fn completion(model: &str, messages: &[ChatMessage], answers: &Answers) -> Value {
    let reply = answers.reply(model, messages);
    let answer = reply.answer.as_str();
    let counted = demo::usage(messages, answer, reply.reasoning.as_deref());
    let id = format!("chatcmpl-evalpage-{:016x}", demo::fnv1a(answer));
    let mut message = json!({"role": "assistant", "content": answer});
    if let Some(r) = &reply.reasoning {
        match answers.style.unwrap_or_default() {
            ReasoningStyle::Field => message["reasoning_content"] = json!(r),
            ReasoningStyle::Reasoning => message["reasoning"] = json!(r),
            ReasoningStyle::Inline => {
                message["content"] = json!(format!("<think>\n{r}\n</think>\n\n{answer}"))
            }
            ReasoningStyle::InlineNoOpen => {
                message["content"] = json!(format!("{r}\n</think>\n\n{answer}"))
            }
        }
    }
    if let Some(calls) = &reply.tool_calls {
        message["tool_calls"] = calls.clone();
        if answer.is_empty() {
            message["content"] = Value::Null;
        }
    }
    let usage = reply.usage.clone().unwrap_or_else(|| {
        json!({
            "prompt_tokens": counted.prompt_tokens,
            "completion_tokens": counted.completion_tokens,
            "total_tokens": counted.prompt_tokens + counted.completion_tokens,
            "completion_tokens_details": {"reasoning_tokens": counted.reasoning_tokens.unwrap_or(0)}
        })
    });
    json!({
        "id": id,
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{
            "index": 0,
            "message": message,
            "finish_reason": reply.finish_reason.as_deref().unwrap_or(
                if reply.tool_calls.is_some() { "tool_calls" } else { "stop" }
            )
        }],
        "usage": usage
    })
}

/// The dialog mock's `chat.completion` (`--dialog-trace`): the core's
/// deterministic dialog model, its trace fields in a top-level
/// `evalpage_trace` (`field`) or with the answer as a JSON message content
/// (`message`).
pub fn dialog_completion(model: &str, messages: &[ChatMessage], answers: &Answers) -> Value {
    let Some((style, dialogs)) = &answers.dialog else {
        return completion(model, messages, answers);
    };
    let (text, trace) = evalpage_core::dialog::mock_answer(dialogs, messages);
    let counted = demo::usage(messages, &text, None);
    let content = match style {
        DialogTraceStyle::Field => text.clone(),
        DialogTraceStyle::Message => {
            let mut obj = trace.clone();
            obj["answer"] = json!(text);
            obj.to_string()
        }
    };
    let mut v = json!({
        "id": format!("chatcmpl-evalpage-{:016x}", demo::fnv1a(&text)),
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": counted.prompt_tokens, "completion_tokens": counted.completion_tokens,
                  "total_tokens": counted.prompt_tokens + counted.completion_tokens}
    });
    if *style == DialogTraceStyle::Field {
        v["evalpage_trace"] = trace;
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_required_key_refuses_chat_and_retrieval_requests_without_it() {
        let need = Some("sk-1");
        let refused = key_refusal(Route::Chat, None, need).map(|r| r.status);
        assert_eq!(refused, Some(401));
        let wrong = key_refusal(Route::Retrieve, Some("Bearer sk-2"), need).map(|r| r.status);
        assert_eq!(wrong, Some(401));
        assert!(key_refusal(Route::Chat, Some("Bearer sk-1"), need).is_none());
        assert!(
            key_refusal(Route::Preflight, None, need).is_none(),
            "CORS preflight needs no key"
        );
        assert!(key_refusal(Route::Chat, None, None).is_none());
    }

    #[test]
    fn routes_by_method_and_path() {
        assert_eq!(route("POST", "/v1/chat/completions"), Route::Chat);
        assert_eq!(route("POST", "/chat/completions?x=1"), Route::Chat);
        assert_eq!(route("GET", "/v1/models"), Route::Models);
        assert_eq!(route("OPTIONS", "/anything"), Route::Preflight);
        assert_eq!(route("GET", "/v1/chat/completions"), Route::WrongMethod);
        assert_eq!(route("POST", "/v2/else"), Route::NotFound);
    }

    #[test]
    fn chunked_and_oversized_bodies_are_refused_from_the_head() {
        assert_eq!(refusal(false, 0), None);
        assert_eq!(refusal(false, BODY_LIMIT), None);
        let over = refusal(false, BODY_LIMIT + 1).expect("413");
        assert_eq!(over.status, 413);
        let chunked = refusal(true, 3).expect("411");
        assert_eq!(chunked.status, 411);
        assert!(chunked.body.contains("Content-Length"), "{}", chunked.body);
        for r in [
            over,
            chunked,
            unreadable(431, 10, 2),
            unreadable(400, 10, 2),
        ] {
            let v: Value = serde_json::from_str(&r.body).expect("json");
            assert_eq!(v["error"]["type"], "invalid_request_error");
        }
        assert!(unreadable(431, 10, 2)
            .body
            .contains("10 bytes or 2 header lines"));
    }

    #[test]
    fn non_utf8_bodies_are_400() {
        let r = respond_bytes(
            Route::Chat,
            Fault::None,
            b"\xff\xfe",
            Duration::ZERO,
            &Answers::default(),
        );
        assert_eq!(r.status, 400);
        assert!(r.body.contains("not UTF-8"), "{}", r.body);
    }

    #[test]
    fn every_answer_carries_cors_then_its_type_own_headers_and_close() {
        fn names(h: &[(&'static str, String)]) -> Vec<&'static str> {
            h.iter().map(|(k, _)| *k).collect()
        }
        let cors: Vec<&str> = CORS.iter().map(|(k, _)| *k).collect();
        let mut limited = rate_limited();
        let h = headers(&limited, false);
        assert_eq!(names(&h)[..4], cors[..]);
        assert_eq!(names(&h)[4..], ["Content-Type", "Retry-After"]);
        assert_eq!(h[4].1, "application/json");
        let h = headers(&Reply::empty(204), true);
        assert_eq!(names(&h)[4..], ["Connection"]);
        assert_eq!(h[4].1, "close");
        // A value that would split the head is dropped.
        limited.headers = vec![("Retry-After", "1\r\nX-Evil: 1".to_string())];
        assert!(!names(&headers(&limited, false)).contains(&"Retry-After"));
    }

    #[test]
    fn chat_answers_with_the_demo_model_in_openai_shape() {
        let body = r#"{"model":"m1","messages":[{"role":"user","content":"RAG系统需要哪三个主要组件？"}]}"#;
        let r = respond(
            Route::Chat,
            Fault::None,
            body,
            Duration::from_millis(5),
            &Answers::default(),
        );
        assert_eq!((r.status, r.delay), (200, Duration::from_millis(5)));
        let v: Value = serde_json::from_str(&r.body).expect("json");
        let m = vec![ChatMessage::new("user", "RAG系统需要哪三个主要组件？")];
        assert_eq!(v["choices"][0]["message"]["content"], demo::answer(&m));
        assert_eq!(
            (v["model"].as_str(), v["object"].as_str()),
            (Some("m1"), Some("chat.completion"))
        );
        assert_eq!(v["choices"][0]["finish_reason"], "stop");
        assert!(v["usage"]["total_tokens"].as_u64().unwrap_or(0) > 0);
    }

    #[test]
    fn bad_bodies_get_openai_style_400() {
        for body in ["{nope", r#"{"model":"m"}"#, r#"{"messages":"hi"}"#] {
            let r = chat(body, &Answers::default());
            assert_eq!(r.status, 400, "{body}");
            let v: Value = serde_json::from_str(&r.body).expect("json");
            assert_eq!(v["error"]["type"], "invalid_request_error");
        }
    }

    #[test]
    fn faults_shape_the_reply() {
        let r = respond(
            Route::Chat,
            Fault::RateLimited,
            "{}",
            Duration::ZERO,
            &Answers::default(),
        );
        assert_eq!(r.status, 429);
        assert_eq!(r.headers, vec![("Retry-After", "1".to_string())]);
        assert_eq!(
            respond(
                Route::Chat,
                Fault::ServerError,
                "{}",
                Duration::ZERO,
                &Answers::default()
            )
            .status,
            500
        );
        assert_eq!(
            respond(
                Route::Chat,
                Fault::Hang,
                "{}",
                Duration::ZERO,
                &Answers::default()
            )
            .delay,
            HANG
        );
        let pre = respond(
            Route::Preflight,
            Fault::None,
            "",
            Duration::ZERO,
            &Answers::default(),
        );
        assert_eq!((pre.status, pre.body.as_str()), (204, ""));
        assert_eq!(
            respond(
                Route::NotFound,
                Fault::None,
                "",
                Duration::ZERO,
                &Answers::default()
            )
            .status,
            404
        );
    }

    #[test]
    fn reasoning_styles_finish_reason_and_fail_status_are_played() {
        let m = [ChatMessage::new("user", "x")];
        let mut a =
            Answers::parse("a", br#"{"q":"x","answer":"final","reasoning":"why"}"#).expect("valid");
        for (style, content, field) in [
            (
                ReasoningStyle::Field,
                "final",
                Some(("reasoning_content", "why")),
            ),
            (
                ReasoningStyle::Reasoning,
                "final",
                Some(("reasoning", "why")),
            ),
            (
                ReasoningStyle::Inline,
                "<think>\nwhy\n</think>\n\nfinal",
                None,
            ),
            (ReasoningStyle::InlineNoOpen, "why\n</think>\n\nfinal", None),
        ] {
            a.style = Some(style);
            let v = completion("m", &m, &a);
            let msg = &v["choices"][0]["message"];
            assert_eq!(msg["content"], content, "{style:?}");
            if let Some((k, r)) = field {
                assert_eq!(msg[k], r);
            }
            // "final" is 2 tokens, "why" 1
            assert_eq!(v["usage"]["completion_tokens"], 3);
            assert_eq!(
                v["usage"]["completion_tokens_details"]["reasoning_tokens"],
                1
            );
        }
        a.finish_reason = Some("length".into());
        assert_eq!(
            completion("m", &m, &a)["choices"][0]["finish_reason"],
            "length"
        );
        a.fail_status = Some(401);
        let r = respond(Route::Chat, Fault::None, "{}", Duration::ZERO, &a);
        assert_eq!(r.status, 401);
        assert!(r.body.contains("API key"), "{}", r.body);
        let ok = respond(Route::Models, Fault::None, "", Duration::ZERO, &a);
        assert_eq!(ok.status, 200, "only chat requests fail");
    }

    #[test]
    fn in_dialog_mode_judge_requests_get_the_mock_judge() {
        let mut a = Answers::default();
        a.dialog = Some((DialogTraceStyle::Field, Vec::new()));
        let p = evalpage_core::dialog_judge_prompt("dialog_rubric_items", evalpage_core::Lang::Zh)
            .expect("builtin")
            .with_tags(&["信息依据".to_string(), "边界声明".to_string()]);
        let m = [ChatMessage::new(
            "user",
            format!("回答……\n\n{}", p.instruction()),
        )];
        let body = serde_json::json!({"model": "grader", "messages": m}).to_string();
        let reply = chat(&body, &a);
        let v: Value = serde_json::from_str(&reply.body).expect("json");
        assert!(v.get("evalpage_trace").is_none(), "{v}");
        let text = v["choices"][0]["message"]["content"]
            .as_str()
            .unwrap_or_default();
        assert_eq!(
            Some(text.to_string()),
            evalpage_core::mock_judge_reply(&m, 0),
            "{text}"
        );
        assert!(v["usage"]["prompt_tokens"].as_u64().unwrap_or(0) > 0);
    }

    #[test]
    fn the_dialog_mock_sends_trace_fields_as_a_field_or_in_the_message() {
        let line = r#"{"dialog_id":"d","profile_gt":{"risk_level_gt":"稳健","constraints_gt":["不投资股票"]},"turns":[{"role":"user","content":"我是稳健型"},{"role":"assistant","content":"好的。","gt_turn_tags":{"risk_disclosure_required_gt":["市场不确定性"]}}]}"#;
        let set = evalpage_core::dialog::parse_dialogs("d.jsonl", line.as_bytes());
        let m = [ChatMessage::new("user", "我是稳健型")];
        let mut a = Answers::default();
        a.dialog = Some((DialogTraceStyle::Field, set.dialogs));
        let v = dialog_completion("m", &m, &a);
        assert!(v["evalpage_trace"]["recall"]["short_term_context"]
            .as_str()
            .is_some_and(|s| s.contains("我是稳健型")));
        assert!(v["evalpage_trace"]["compliance"]["is_compliant"].is_boolean());
        let text = v["choices"][0]["message"]["content"].as_str().unwrap_or("");
        assert!(text.starts_with("好的。"), "{text}");
        assert_eq!(v, dialog_completion("m", &m, &a), "deterministic");
        if let Some(d) = a.dialog.as_mut() {
            d.0 = DialogTraceStyle::Message;
        }
        let v = dialog_completion("m", &m, &a);
        assert!(v.get("evalpage_trace").is_none());
        let content = v["choices"][0]["message"]["content"].as_str().unwrap_or("");
        let inner: Value = serde_json::from_str(content).expect("a JSON message");
        assert_eq!(inner["answer"].as_str(), Some(text));
        assert!(inner["recall"].is_object());
    }
}
