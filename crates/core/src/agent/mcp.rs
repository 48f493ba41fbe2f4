//! The Model Context Protocol as an agent's environment: the JSON-RPC 2.0
//! messages a case sends (`initialize`, `tools/list`, `tools/call`,
//! `resources/read` of `state://world`) and what their answers mean. Sans-IO:
//! the shells carry the messages (Streamable HTTP in the CLI and the page,
//! stdio in the CLI), one session per case, and hand each answer back as the
//! JSON-RPC response it was (see [`response_of`] for reading a body that is
//! JSON or server-sent events).

use super::ToolAnswer;
use crate::provider::{Answer, CallError, CallOutcome, ErrorKind};
use serde_json::{json, Value};
use std::sync::Arc;

/// The protocol version a session asks for (the server may answer another
/// it supports; the session goes on with it).
pub const PROTOCOL_VERSION: &str = "2025-11-25";

/// The resource whose text is the world's state as JSON (what `final_state`
/// compares).
pub const STATE_URI: &str = "state://world";

/// Where an agent task's MCP server is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum McpServer {
    /// A server over Streamable HTTP at this URL.
    Url(String),
    /// A server the CLI starts and talks to over its stdin and stdout (one
    /// process per case).
    Command(Vec<String>),
}

impl McpServer {
    /// How the server is named in messages.
    pub fn label(&self) -> String {
        match self {
            McpServer::Url(u) => u.clone(),
            McpServer::Command(c) => c.join(" "),
        }
    }
}

/// A request (with its `id`).
fn request(id: u64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// The `initialize` request a session opens with.
pub fn initialize() -> Value {
    request(
        0,
        "initialize",
        json!({
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "evalpage", "version": env!("CARGO_PKG_VERSION")},
        }),
    )
}

/// The notification sent once `initialize` is answered.
pub fn initialized() -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
}

/// The `tools/list` request.
pub fn list_tools(id: u64) -> Value {
    request(id, "tools/list", json!({}))
}

/// A `tools/call` request (`arguments`: the call's, a JSON object).
pub fn call_tool(id: u64, name: &str, arguments: Value) -> Value {
    request(
        id,
        "tools/call",
        json!({"name": name, "arguments": arguments}),
    )
}

/// The `resources/read` request of the world's state.
pub fn read_state(id: u64) -> Value {
    request(id, "resources/read", json!({"uri": STATE_URI}))
}

/// The JSON-RPC response with this `id` in an answer's body: the body
/// itself (`application/json`), or the `data` of one of its server-sent
/// events (`text/event-stream`, as a Streamable HTTP server answers unless
/// JSON is asked for). Anything else is out of protocol, said with what
/// came instead.
pub fn response_of(body: &str, content_type: Option<&str>, id: u64) -> Result<Value, String> {
    let ct = content_type.unwrap_or("").to_ascii_lowercase();
    let matching = |v: Value| -> Option<Value> {
        (v.get("id").and_then(Value::as_u64) == Some(id)
            && (v.get("result").is_some() || v.get("error").is_some()))
        .then_some(v)
    };
    if ct.starts_with("text/event-stream") {
        // events are separated by a blank line; an event's data is its
        // `data:` lines joined by newlines
        let text = body.replace("\r\n", "\n");
        for event in text.split("\n\n") {
            let data: Vec<&str> = event
                .lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .map(|d| d.strip_prefix(' ').unwrap_or(d))
                .collect();
            if data.is_empty() {
                continue;
            }
            if let Some(v) = serde_json::from_str(&data.join("\n"))
                .ok()
                .and_then(matching)
            {
                return Ok(v);
            }
        }
        return Err(format!(
            "its event stream held no JSON-RPC response to request {id}: {}",
            excerpt(body)
        ));
    }
    match serde_json::from_str::<Value>(body) {
        Ok(v) => matching(v).ok_or_else(|| {
            format!(
                "its answer is JSON but not the JSON-RPC response to request {id}: {}",
                excerpt(body)
            )
        }),
        Err(_) => Err(format!(
            "it answered {}, not JSON-RPC: {}",
            if ct.is_empty() {
                "with no content type".to_string()
            } else {
                ct.split(';').next().unwrap_or("").trim().to_string()
            },
            excerpt(body)
        )),
    }
}

/// The id of a request (`None` for a notification).
pub fn request_id(body: &Value) -> Option<u64> {
    body.get("id").and_then(Value::as_u64)
}

/// The protocol version an `initialize` response settled on.
pub fn negotiated(response: &Value) -> Option<String> {
    response
        .get("result")?
        .get("protocolVersion")?
        .as_str()
        .map(str::to_string)
}

/// The outcome of one exchange with an MCP server at `url` (an HTTP answer,
/// or a line of a stdio server as a 200 of JSON): a status that is not 2xx
/// fails the case, said as the server's with what it answered: 429 and 5xx
/// as HTTP errors (retried as a model's are), any other status as an
/// `InvalidResponse`, never fatal: a model endpoint's 401, 403 or 404 will
/// be the same for every case and stops the run, but an MCP server answers
/// 404 to a session it ended (and may guard one tool), which says nothing
/// of the other cases' sessions. A 2xx body is the JSON-RPC response to
/// request `id`, the answer's text, for the loop to read; anything else is
/// out of protocol (an `InvalidResponse` that says what came instead).
pub fn outcome(
    url: &str,
    status: u16,
    retry_after: Option<&str>,
    content_type: Option<&str>,
    body: &str,
    id: u64,
) -> CallOutcome {
    if !(200..300).contains(&status) {
        let retried = status == 429 || (500..600).contains(&status);
        let mut e = CallError::new(
            if retried {
                ErrorKind::Http
            } else {
                ErrorKind::InvalidResponse
            },
            format!("the MCP server answered HTTP {status}: {}", excerpt(body)),
        )
        .with_url(url);
        e.status_code = Some(status);
        e.response_snippet = Some(crate::text::truncate_chars(body.trim(), 300));
        e.retry_after_ms = retry_after.and_then(crate::provider::parse_retry_after);
        return CallOutcome::Failed(e);
    }
    match response_of(body, content_type, id) {
        Ok(v) => CallOutcome::Answer(Answer::from(v.to_string())),
        Err(why) => {
            let mut e = CallError::new(
                ErrorKind::InvalidResponse,
                format!("the MCP server answered out of protocol: {why}"),
            )
            .with_url(url);
            e.status_code = Some(status);
            e.response_snippet = Some(crate::text::truncate_chars(body.trim(), 300));
            CallOutcome::Failed(e)
        }
    }
}

/// The start of a body, on one line, for an error message.
fn excerpt(body: &str) -> String {
    let one: String = body.split_whitespace().collect::<Vec<_>>().join(" ");
    let cut: String = one.chars().take(120).collect();
    if cut.len() < one.len() {
        format!("{cut}…")
    } else if cut.is_empty() {
        "(an empty body)".into()
    } else {
        cut
    }
}

/// A JSON-RPC response's `result`, or its `error` said.
fn result(response: &Value) -> Result<&Value, String> {
    if let Some(e) = response.get("error") {
        let code = e.get("code").and_then(Value::as_i64).unwrap_or(0);
        let message = e.get("message").and_then(Value::as_str).unwrap_or("");
        return Err(format!("error {code}: {message}"));
    }
    response
        .get("result")
        .ok_or_else(|| "a response with neither result nor error".to_string())
}

/// The tools a `tools/list` response lists, as a request's `tools`
/// (OpenAI's form: `inputSchema` becomes `parameters`); a tool without a
/// name, or whose `inputSchema` is not a JSON Schema object of `"type":
/// "object"`, is out of protocol and said by name.
pub fn tools_of(response: &Value) -> Result<Arc<Value>, String> {
    let r = result(response)?;
    let Some(list) = r.get("tools").and_then(Value::as_array) else {
        return Err("its tools/list result has no `tools` list".into());
    };
    let mut out = Vec::with_capacity(list.len());
    for (i, t) in list.iter().enumerate() {
        let Some(name) = t
            .get("name")
            .and_then(Value::as_str)
            .filter(|n| !n.is_empty())
        else {
            return Err(format!("tools[{i}] has no name"));
        };
        let schema = t.get("inputSchema");
        let ok = schema
            .and_then(Value::as_object)
            .is_some_and(|s| s.get("type").and_then(Value::as_str) == Some("object"));
        if !ok {
            return Err(format!(
                "tool {name:?} has an invalid inputSchema (expected a JSON Schema object with \"type\": \"object\", found {})",
                schema.map_or("none".to_string(), |s| excerpt(&s.to_string()))
            ));
        }
        let mut f = json!({"name": name, "parameters": schema.cloned().unwrap_or(Value::Null)});
        if let Some(d) = t.get("description").and_then(Value::as_str) {
            f["description"] = Value::String(d.to_string());
        }
        out.push(json!({"type": "function", "function": f}));
    }
    Ok(Arc::new(Value::Array(out)))
}

/// What the model is told of a `tools/call` response: its content's text
/// parts (other parts named by type), `isError` kept; a JSON-RPC error (an
/// unknown tool, arguments the server refused) is the tool's error too: the
/// agent is expected to cope.
pub fn tool_answer(response: &Value) -> ToolAnswer {
    let r = match result(response) {
        Ok(r) => r,
        Err(e) => {
            return ToolAnswer {
                content: format!("error: {e}"),
                is_error: true,
            }
        }
    };
    let parts: Vec<String> = r
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|p| match p.get("type").and_then(Value::as_str) {
            Some("text") => p
                .get("text")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
            Some(other) => format!("[{other}]"),
            None => "[content]".to_string(),
        })
        .collect();
    let content = if parts.is_empty() {
        r.get("structuredContent")
            .map(Value::to_string)
            .unwrap_or_default()
    } else {
        parts.join("\n")
    };
    ToolAnswer {
        content,
        is_error: r.get("isError").and_then(Value::as_bool).unwrap_or(false),
    }
}

/// The world's state in a `resources/read` response of [`STATE_URI`]: its
/// first content's text, as JSON.
pub fn state_of(response: &Value) -> Result<Value, String> {
    let r = result(response)?;
    let text = r
        .get("contents")
        .and_then(Value::as_array)
        .and_then(|c| c.first())
        .and_then(|c| c.get("text"))
        .and_then(Value::as_str)
        .ok_or_else(|| format!("its {STATE_URI} has no text content"))?;
    serde_json::from_str(text).map_err(|e| format!("its {STATE_URI} is not JSON ({e})"))
}

/// A `tools/list` response listing these tools (each taking any object):
/// what a resumed case replays against, its tools named in its record.
pub fn listed(names: &[String]) -> Value {
    let tools: Vec<Value> = names
        .iter()
        .map(|n| json!({"name": n, "inputSchema": {"type": "object"}}))
        .collect();
    json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": tools}})
}

/// A `tools/call` response giving this answer.
pub fn answered(content: &str, is_error: bool) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "result": {
        "content": [{"type": "text", "text": content}], "isError": is_error}})
}

/// A `resources/read` response giving this state.
pub fn stated(state: &Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "result": {"contents": [
        {"uri": STATE_URI, "mimeType": "application/json", "text": state.to_string()}]}})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_response_is_read_from_json_or_from_server_sent_events() {
        let r = r#"{"jsonrpc":"2.0","id":3,"result":{"tools":[]}}"#;
        assert_eq!(
            response_of(r, Some("application/json"), 3).expect("json")["result"],
            json!({"tools": []})
        );
        let sse = format!("event: message\r\ndata: {{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"}}\r\n\r\nevent: message\r\ndata: {r}\r\n\r\n");
        assert_eq!(
            response_of(&sse, Some("text/event-stream"), 3).expect("sse")["id"],
            3
        );
        let e = response_of(
            "<html><body>Login</body></html>",
            Some("text/html; charset=utf-8"),
            3,
        )
        .expect_err("html");
        assert!(
            e.contains("answered text/html, not JSON-RPC: <html>"),
            "{e}"
        );
        let e = response_of(r, Some("application/json"), 4).expect_err("other id");
        assert!(e.contains("not the JSON-RPC response to request 4"), "{e}");
        let e = response_of("event: ping\n\n", Some("text/event-stream"), 3).expect_err("none");
        assert!(e.contains("no JSON-RPC response to request 3"), "{e}");
    }

    #[test]
    fn an_http_status_fails_the_case_as_the_server_s_and_never_stops_the_run() {
        let failed = |status: u16, body: &str| match outcome(
            "http://h/mcp?k=1",
            status,
            Some("2"),
            Some("text/plain"),
            body,
            1,
        ) {
            CallOutcome::Failed(e) => e,
            CallOutcome::Answer(a) => panic!("{status} answered {a:?}"),
        };
        for status in [401, 403, 404, 400] {
            let e = failed(status, "Session not found");
            assert_eq!(e.kind, ErrorKind::InvalidResponse, "{status}");
            assert!(!e.fatal() && !e.retryable(), "{status}");
            assert_eq!(
                e.message,
                format!("the MCP server answered HTTP {status}: Session not found")
            );
            assert_eq!(
                (e.status_code, e.url.as_deref()),
                (Some(status), Some("http://h/mcp"))
            );
        }
        for status in [429, 500, 503] {
            let e = failed(status, "");
            assert_eq!(e.kind, ErrorKind::Http, "{status}");
            assert!(!e.fatal() && e.retryable(), "{status}");
            assert_eq!(
                e.message,
                format!("the MCP server answered HTTP {status}: (an empty body)")
            );
            assert_eq!(e.retry_after_ms, Some(2000));
        }
    }

    #[test]
    fn listed_tools_become_a_request_s_tools_and_a_bad_schema_is_named() {
        let ok = json!({"jsonrpc":"2.0","id":1,"result":{"tools":[
            {"name":"balance","description":"A balance.","inputSchema":{"type":"object","properties":{"account":{"type":"string"}}}}]}});
        let t = tools_of(&ok).expect("tools");
        assert_eq!(t[0]["function"]["name"], "balance");
        assert_eq!(
            t[0]["function"]["parameters"]["properties"]["account"]["type"],
            "string"
        );
        assert_eq!(
            crate::agent::offered_names(Some(&t)),
            vec!["balance".to_string()]
        );
        let bad = json!({"jsonrpc":"2.0","id":1,"result":{"tools":[
            {"name":"pay","inputSchema":{"type":"string"}}]}});
        let e = tools_of(&bad).expect_err("bad schema");
        assert!(e.contains("tool \"pay\" has an invalid inputSchema"), "{e}");
        let refused =
            json!({"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}});
        assert_eq!(
            tools_of(&refused).expect_err("error"),
            "error -32601: Method not found"
        );
        // what a resumed case replays against lists the same names
        let names = vec!["a".to_string(), "b".to_string()];
        assert_eq!(
            crate::agent::offered_names(Some(&tools_of(&listed(&names)).expect("listed"))),
            names
        );
    }

    #[test]
    fn a_tool_s_answer_keeps_its_text_and_its_error() {
        let a = tool_answer(&json!({"jsonrpc":"2.0","id":2,"result":{"content":[
            {"type":"text","text":"120"},{"type":"image","data":"..."}],"isError":false}}));
        assert_eq!((a.content.as_str(), a.is_error), ("120\n[image]", false));
        let a = tool_answer(&answered("no such account", true));
        assert_eq!((a.content.as_str(), a.is_error), ("no such account", true));
        let a = tool_answer(
            &json!({"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Unknown tool: fly"}}),
        );
        assert_eq!(
            (a.content.as_str(), a.is_error),
            ("error: error -32602: Unknown tool: fly", true)
        );
        let state = json!({"accounts": {"a": 5}});
        assert_eq!(state_of(&stated(&state)).expect("state"), state);
        let e = state_of(
            &json!({"jsonrpc":"2.0","id":9,"error":{"code":-32002,"message":"Resource not found"}}),
        )
        .expect_err("no resource");
        assert!(e.contains("Resource not found"), "{e}");
    }
}
