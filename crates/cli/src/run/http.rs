//! The native HTTP transport: performs the request that
//! `provider::openai::build_request` describes with a blocking `ureq` agent and
//! hands the answer to `provider::openai::parse_response`. Transport failures
//! become `CallError`s of kind `Network` or `Timeout` that say what to check.

pub use crate::store::At;
use crate::store::Store;
use evalpage_core::{build_chat_request, parse_response, ApiKey, OpenAiConfig};
use evalpage_core::{build_json_request, parse_json_response, HttpRequest};
use evalpage_core::{CallError, CallOutcome, ChatMessage, ErrorKind};
use std::io;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Largest answer body read, in bytes.
const BODY_LIMIT: u64 = 16 * 1024 * 1024;

/// An OpenAI-compatible endpoint and the agent that talks to it.
#[derive(Debug)]
pub struct HttpBackend {
    cfg: OpenAiConfig,
    agent: ureq::Agent,
    timeout: Duration,
    cache: Option<Arc<Store>>,
}

impl HttpBackend {
    /// A backend whose every request (connect, send, read) ends within `timeout`.
    pub fn new(cfg: OpenAiConfig, timeout: Duration) -> HttpBackend {
        HttpBackend::with_agent(cfg, agent(timeout), timeout)
    }

    /// A backend on a shared agent (one connection pool for several models).
    pub fn with_agent(cfg: OpenAiConfig, agent: ureq::Agent, timeout: Duration) -> HttpBackend {
        HttpBackend {
            cfg,
            agent,
            timeout,
            cache: None,
        }
    }

    /// Answers from `cache` first, and stores what is worth keeping there.
    pub fn with_cache(mut self, cache: Option<Arc<Store>>) -> HttpBackend {
        self.cache = cache;
        self
    }

    /// Sends one chat completion request (or takes its answer from the
    /// store: the cache, or a batch's answers) and classifies what came back.
    pub fn call(&self, messages: &[ChatMessage], at: At) -> CallOutcome {
        self.call_with_tools(messages, None, at)
    }

    /// [`HttpBackend::call`], offering `tools` (OpenAI's `tools` list).
    pub fn call_with_tools(
        &self,
        messages: &[ChatMessage],
        tools: Option<&serde_json::Value>,
        at: At,
    ) -> CallOutcome {
        let req = build_chat_request(&self.cfg, messages, tools);
        cached_send(self.cache.as_deref(), &req, at, || {
            send(&self.agent, &req, self.timeout, parse_response)
        })
    }
}

/// `send` through the store, when there is one: what it knows is answered
/// without a request; an answer worth keeping is stored with its latency.
fn cached_send(
    store: Option<&Store>,
    req: &HttpRequest,
    at: At,
    send: impl FnOnce() -> CallOutcome,
) -> CallOutcome {
    let Some(store) = store else {
        return send();
    };
    if let Some(known) = store.lookup(req, at) {
        return known;
    }
    let started = Instant::now();
    let outcome = send();
    if let CallOutcome::Answer(a) = &outcome {
        store.keep(req, at, a, started.elapsed().as_millis() as u64);
    }
    outcome
}

/// A JSON endpoint that is not a chat model (a retrieval service).
#[derive(Debug)]
pub struct JsonBackend {
    url: String,
    key: Option<ApiKey>,
    agent: ureq::Agent,
    timeout: Duration,
    cache: Option<Arc<Store>>,
}

impl JsonBackend {
    /// A backend POSTing to `url`, with the key as a bearer token when set.
    pub fn new(url: &str, key: Option<ApiKey>, timeout: Duration) -> JsonBackend {
        JsonBackend {
            url: url.to_string(),
            key,
            agent: agent(timeout),
            timeout,
            cache: None,
        }
    }

    /// Answers from `cache` first, and stores what is worth keeping there.
    pub fn with_cache(mut self, cache: Option<Arc<Store>>) -> JsonBackend {
        self.cache = cache;
        self
    }

    /// POSTs one body (or takes its answer from the cache) and classifies
    /// what came back.
    pub fn call(&self, body: &serde_json::Value) -> CallOutcome {
        let req = build_json_request(&self.url, body, self.key.as_ref());
        cached_send(self.cache.as_deref(), &req, At::default(), || {
            send(&self.agent, &req, self.timeout, parse_json_response)
        })
    }
}

/// Performs a request and hands status, `Retry-After` and body to `parse`.
fn send(
    agent: &ureq::Agent,
    req: &HttpRequest,
    timeout: Duration,
    parse: fn(&str, u16, Option<&str>, &str) -> CallOutcome,
) -> CallOutcome {
    let mut builder = agent.post(&req.url);
    for (name, value) in &req.headers {
        builder = builder.header(name.as_str(), value.as_str());
    }
    let fail = |e: ureq::Error| CallOutcome::Failed(classify(&e, timeout).with_url(&req.url));
    let mut resp = match builder.send(req.body.as_str()) {
        Ok(r) => r,
        Err(e) => return fail(e),
    };
    let status = resp.status().as_u16();
    let retry_after = resp
        .headers()
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let body = resp
        .body_mut()
        .with_config()
        .limit(BODY_LIMIT)
        .lossy_utf8(true)
        .read_to_string();
    match body {
        Ok(body) => parse(&req.url, status, retry_after.as_deref(), &body),
        Err(e) => fail(e),
    }
}

/// An agent whose every request (connect, send, read) ends within `timeout`.
pub fn agent(timeout: Duration) -> ureq::Agent {
    ureq::Agent::config_builder()
        .timeout_global(Some(timeout))
        .http_status_as_error(false)
        .build()
        .into()
}

/// Turns a transport error into a `CallError` (without URL; the caller adds it).
pub fn classify(e: &ureq::Error, timeout: Duration) -> CallError {
    let network = |msg: String| CallError::new(ErrorKind::Network, msg);
    match e {
        ureq::Error::Timeout(which) => CallError::new(
            ErrorKind::Timeout,
            format!(
                "no answer within {} s ({which} timeout); raise --timeout-s or check the endpoint",
                timeout.as_secs_f64()
            ),
        ),
        ureq::Error::Io(io) => network(io_message(io)),
        ureq::Error::HostNotFound => network("host not found: check the endpoint URL".into()),
        ureq::Error::ConnectionFailed => {
            network("connection failed: is the endpoint running?".into())
        }
        ureq::Error::BadUri(uri) => network(format!("bad endpoint URL: {uri}")),
        other => network(format!("request failed: {other}")),
    }
}

fn io_message(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::ConnectionRefused => "connection refused: is the endpoint running?".into(),
        io::ErrorKind::ConnectionReset | io::ErrorKind::ConnectionAborted => {
            "connection reset by the endpoint before it answered".into()
        }
        io::ErrorKind::UnexpectedEof => {
            "the endpoint closed the connection without answering".into()
        }
        io::ErrorKind::TimedOut => "network timeout while talking to the endpoint".into(),
        _ => format!("network error: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    #[test]
    fn classifies_transport_errors() {
        let t = Duration::from_secs(5);
        let e = classify(&ureq::Error::Timeout(ureq::Timeout::Global), t);
        assert_eq!((e.kind, e.timeout), (ErrorKind::Timeout, true));
        assert!(e.message.contains("5 s"));
        let refused = io::Error::from(io::ErrorKind::ConnectionRefused);
        let e = classify(&ureq::Error::Io(refused), t);
        assert_eq!(e.kind, ErrorKind::Network);
        assert!(e.message.contains("connection refused"));
        assert!(e.retryable());
    }

    #[test]
    fn closed_port_is_a_network_failure_with_the_url() {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .expect("a free port");
        let cfg = OpenAiConfig {
            base_url: format!("http://127.0.0.1:{port}/v1"),
            model: "m".into(),
            ..OpenAiConfig::default()
        };
        let backend = HttpBackend::new(cfg, Duration::from_secs(5));
        let CallOutcome::Failed(e) = backend.call(&[ChatMessage::new("user", "hi")], At::default())
        else {
            panic!("a closed port cannot answer")
        };
        assert_eq!(e.kind, ErrorKind::Network);
        assert!(e.message.contains("refused"), "{}", e.message);
        let url = format!("http://127.0.0.1:{port}/v1/chat/completions");
        assert_eq!(e.url.as_deref(), Some(url.as_str()));
    }
}
