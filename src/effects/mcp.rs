//! The page's MCP transport: the JSON-RPC requests of an agent case's loop
//! (the core's agent walk says which) POSTed with `fetch` to the task's MCP
//! server over Streamable HTTP, one session per case. A session is opened
//! by `initialize` (the `Mcp-Session-Id` it answers is kept and sent back,
//! the protocol version it settled on goes as `MCP-Protocol-Version`), then
//! `notifications/initialized`; it is deleted when its case settles. What an
//! answer means is the core's (`mcp_outcome`): JSON or server-sent events,
//! out of protocol said. Nothing but the server's URL is contacted, and no
//! key goes to it.

use evalpage_core::{mcp_initialize, mcp_initialized, mcp_negotiated, mcp_outcome, mcp_request_id};
use evalpage_core::{CallError, CallOutcome, ErrorKind, MCP_PROTOCOL_VERSION};
use gloo_net::http::Request;
use serde_json::Value;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;
use web_sys::AbortSignal;

/// One case's session: its id (when the server gave one) and the protocol
/// version it settled on.
#[derive(Clone, Debug)]
struct Session {
    id: Option<String>,
    version: String,
}

/// The task's MCP server and the sessions of its cases (by job number).
#[derive(Debug)]
pub struct McpSessions {
    url: String,
    open: RefCell<HashMap<usize, Session>>,
}

/// How one exchange is bounded: the run's abort signal and timeout.
pub struct Bound<'a> {
    /// Aborted on cancel and when the timeout fires.
    pub signal: &'a AbortSignal,
    /// Set by the timer before it aborts.
    pub timed_out: Rc<Cell<bool>>,
    /// The timeout, ms (for the message).
    pub timeout_ms: u64,
}

impl McpSessions {
    /// The sessions of the server at `url` (none open yet).
    pub fn new(url: &str) -> Rc<McpSessions> {
        Rc::new(McpSessions {
            url: url.to_string(),
            open: RefCell::default(),
        })
    }

    /// Sends job `job`'s request `body` in the job's session (opened by its
    /// first request) and reads the answer. A session broken by anything but
    /// a 429 or 5xx (the HTTP errors retried) is not reused: the next try
    /// opens another.
    pub async fn call(&self, job: usize, body: &Value, bound: Bound<'_>) -> CallOutcome {
        let known = self.open.borrow().get(&job).cloned();
        let session = match known {
            Some(s) => s,
            None => match self.start(&bound).await {
                Ok(s) => {
                    self.open.borrow_mut().insert(job, s.clone());
                    s
                }
                Err(e) => return CallOutcome::Failed(e),
            },
        };
        let (outcome, _) = self.exchange(&session, body, &bound).await;
        if let CallOutcome::Failed(e) = &outcome {
            if e.kind != ErrorKind::Http {
                self.open.borrow_mut().remove(&job);
            }
        }
        outcome
    }

    /// Ends job `job`'s session (its case settled): deleted on the server,
    /// as the protocol asks (best effort: a server that keeps sessions frees it).
    pub fn close(&self, job: usize) {
        let gone = self.open.borrow_mut().remove(&job);
        if let Some(Session { id: Some(id), .. }) = gone {
            let url = self.url.clone();
            super::spawn(async move {
                if let Ok(req) = Request::delete(&url).header("mcp-session-id", &id).build() {
                    let _ = req.send().await;
                }
            });
        }
    }

    /// Ends every session still open (the run stopped).
    pub fn close_all(&self) {
        let jobs: Vec<usize> = self.open.borrow().keys().copied().collect();
        for job in jobs {
            self.close(job);
        }
    }

    fn error(&self, kind: ErrorKind, message: String) -> CallError {
        CallError::new(kind, format!("MCP server {}: {message}", self.url)).with_url(&self.url)
    }

    /// Opens a session: `initialize`, then `notifications/initialized`.
    async fn start(&self, bound: &Bound<'_>) -> Result<Session, CallError> {
        let mut session = Session {
            id: None,
            version: MCP_PROTOCOL_VERSION.to_string(),
        };
        let (init, id) = self.exchange(&session, &mcp_initialize(), bound).await;
        let init = match init {
            CallOutcome::Answer(a) => a,
            CallOutcome::Failed(e) => return Err(e),
        };
        session.id = id;
        let response: Value = serde_json::from_str(&init.text).unwrap_or(Value::Null);
        if let Some(e) = response.get("error") {
            return Err(self.error(
                ErrorKind::InvalidResponse,
                format!("initialize was refused: {e}"),
            ));
        }
        if let Some(v) = mcp_negotiated(&response) {
            session.version = v;
        }
        let status = self
            .post(&session, &mcp_initialized(), true, bound)
            .await?
            .status();
        if !(200..300).contains(&status) {
            return Err(self.error(
                ErrorKind::InvalidResponse,
                format!("notifications/initialized was answered HTTP {status}"),
            ));
        }
        Ok(session)
    }

    /// POSTs `body` in `session` (`versioned`: with the protocol version,
    /// which `initialize` does not carry).
    async fn post(
        &self,
        session: &Session,
        body: &Value,
        versioned: bool,
        bound: &Bound<'_>,
    ) -> Result<gloo_net::http::Response, CallError> {
        let mut builder = Request::post(&self.url)
            .abort_signal(Some(bound.signal))
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        if versioned {
            builder = builder.header("mcp-protocol-version", &session.version);
        }
        if let Some(id) = &session.id {
            builder = builder.header("mcp-session-id", id);
        }
        let request = builder.body(body.to_string()).map_err(|e| {
            self.error(
                ErrorKind::Network,
                format!("could not build the request: {e}"),
            )
        })?;
        request.send().await.map_err(|e| self.lost(&e, bound))
    }

    /// A request that got no answer: the timeout's, or the network's (the
    /// browser does not tell CORS from a server that is down).
    fn lost(&self, e: &gloo_net::Error, bound: &Bound<'_>) -> CallError {
        if bound.timed_out.get() {
            CallError {
                timeout: true,
                ..self.error(
                    ErrorKind::Timeout,
                    format!("no answer within {} s", bound.timeout_ms / 1000),
                )
            }
        } else {
            self.error(
                ErrorKind::Network,
                format!(
                    "the browser could not reach it ({e}): the server is down or unreachable, or \
                     it does not allow this page's origin (CORS: it must answer with \
                     Access-Control-Allow-Origin, allow the headers mcp-session-id and \
                     mcp-protocol-version and expose mcp-session-id; docs/guide/agents.md)"
                ),
            )
        }
    }

    /// One request and its answer, with the session id the answer gave.
    async fn exchange(
        &self,
        session: &Session,
        body: &Value,
        bound: &Bound<'_>,
    ) -> (CallOutcome, Option<String>) {
        let id = mcp_request_id(body).unwrap_or(0);
        let response = match self.post(session, body, id != 0, bound).await {
            Ok(r) => r,
            Err(e) => return (CallOutcome::Failed(e), None),
        };
        let headers = response.headers();
        let given = headers.get("mcp-session-id");
        let (retry_after, content_type) = (headers.get("retry-after"), headers.get("content-type"));
        let status = response.status();
        let outcome = match response.text().await {
            Ok(text) => mcp_outcome(
                &self.url,
                status,
                retry_after.as_deref(),
                content_type.as_deref(),
                &text,
                id,
            ),
            Err(e) => CallOutcome::Failed(self.lost(&e, bound)),
        };
        (outcome, given)
    }
}
