//! The CLI's MCP transport: the JSON-RPC requests an agent case's loop
//! makes (`evalpage_core`'s agent walk says which), carried to the task's
//! MCP server with one session per case. Over Streamable HTTP a session is
//! opened by `initialize` (its `Mcp-Session-Id` kept and sent back, the
//! protocol version it settled on sent as `MCP-Protocol-Version`), then
//! `notifications/initialized`; answers are read as JSON or server-sent
//! events. Over stdio each case starts its own server process (a fresh
//! world), talks to it in JSON lines, and stops it when the case settles.
//! What an answer means is the core's (`mcp_outcome`); a server that is
//! down, silent or out of protocol fails the case with the cause.

use super::http::classify;
use evalpage_core::{mcp_initialize, mcp_initialized, mcp_negotiated, mcp_outcome, mcp_request_id};
use evalpage_core::{CallError, CallOutcome, ErrorKind, McpServer, MCP_PROTOCOL_VERSION};
use serde_json::Value;
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

/// Largest answer read, in bytes.
const BODY_LIMIT: u64 = 16 * 1024 * 1024;

/// The lines of a stdio server's stderr kept for an error message.
const STDERR_LINES: usize = 5;

/// One case's session.
enum Session {
    /// Over HTTP: its id (when the server gave one) and protocol version.
    Http { id: Option<String>, version: String },
    /// Over stdio: the case's own server process.
    Stdio(StdioServer),
}

/// A stdio server process: its stdin, its stdout's lines (read on a
/// thread, so a silent server times out), the end of its stderr.
struct StdioServer {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    stderr: Arc<Mutex<Vec<String>>>,
}

impl Drop for StdioServer {
    fn drop(&mut self) {
        // the case is over: its world goes with its process
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The task's MCP server, one session per case (by job number).
pub struct McpClient {
    server: McpServer,
    /// Where a stdio server is started (the task file's folder).
    dir: Option<std::path::PathBuf>,
    agent: ureq::Agent,
    timeout: Duration,
    sessions: Mutex<HashMap<usize, Arc<Mutex<Option<Session>>>>>,
}

impl McpClient {
    /// A client of `server` whose every exchange ends within `timeout`; a
    /// stdio server is started in `dir` (the task file's folder).
    pub fn new(server: McpServer, dir: Option<std::path::PathBuf>, timeout: Duration) -> McpClient {
        McpClient {
            server,
            dir,
            agent: super::http::agent(timeout),
            timeout,
            sessions: Mutex::new(HashMap::new()),
        }
    }

    /// Sends job `job`'s request `body` in the job's session (opened by its
    /// first request) and reads the answer.
    pub fn call(&self, job: usize, body: &Value) -> CallOutcome {
        let slot = {
            let mut sessions = match self.sessions.lock() {
                Ok(s) => s,
                Err(p) => p.into_inner(),
            };
            Arc::clone(sessions.entry(job).or_default())
        };
        let mut session = match slot.lock() {
            Ok(s) => s,
            Err(p) => p.into_inner(),
        };
        if session.is_none() {
            match self.open() {
                Ok(s) => *session = Some(s),
                Err(e) => return CallOutcome::Failed(e),
            }
        }
        let Some(s) = session.as_mut() else {
            return CallOutcome::Failed(self.error(ErrorKind::Network, "no session".into()));
        };
        let outcome = self.exchange(s, body);
        if let CallOutcome::Failed(e) = &outcome {
            if e.kind != ErrorKind::Http {
                // a broken session (anything but a 429 or 5xx, the HTTP
                // errors retried) is not reused: the next try opens another
                *session = None;
            }
        }
        outcome
    }

    /// Ends job `job`'s session (its case settled): a stdio server is
    /// stopped; an HTTP session is deleted, as the protocol asks.
    pub fn close(&self, job: usize) {
        let slot = match self.sessions.lock() {
            Ok(mut s) => s.remove(&job),
            Err(p) => p.into_inner().remove(&job),
        };
        let Some(slot) = slot else { return };
        let session = match slot.lock() {
            Ok(mut s) => s.take(),
            Err(p) => p.into_inner().take(),
        };
        if let (Some(Session::Http { id: Some(id), .. }), McpServer::Url(url)) =
            (session, &self.server)
        {
            // best effort: a server that keeps sessions frees this one
            let _ = self.agent.delete(url).header("mcp-session-id", &id).call();
        }
    }

    fn label(&self) -> String {
        match &self.server {
            McpServer::Url(u) => u.clone(),
            McpServer::Command(c) => format!("stdio:{}", c.join(" ")),
        }
    }

    fn error(&self, kind: ErrorKind, message: String) -> CallError {
        CallError::new(kind, format!("MCP server {}: {message}", self.label()))
            .with_url(&self.label())
    }

    /// Opens a session: `initialize`, then `notifications/initialized`.
    fn open(&self) -> Result<Session, CallError> {
        let mut session = match &self.server {
            McpServer::Url(_) => Session::Http {
                id: None,
                version: MCP_PROTOCOL_VERSION.to_string(),
            },
            McpServer::Command(command) => Session::Stdio(self.start(command)?),
        };
        let init = match self.exchange(&mut session, &mcp_initialize()) {
            CallOutcome::Answer(a) => a,
            CallOutcome::Failed(e) => return Err(e),
        };
        let response: Value = serde_json::from_str(&init.text).unwrap_or(Value::Null);
        if let Some(e) = response.get("error") {
            return Err(self.error(
                ErrorKind::InvalidResponse,
                format!("initialize was refused: {e}"),
            ));
        }
        if let (Session::Http { version, .. }, Some(v)) = (&mut session, mcp_negotiated(&response))
        {
            *version = v;
        }
        self.notify(&mut session, &mcp_initialized())?;
        Ok(session)
    }

    /// Starts a stdio server process.
    fn start(&self, command: &[String]) -> Result<StdioServer, CallError> {
        let (program, args) = command
            .split_first()
            .ok_or_else(|| self.error(ErrorKind::Network, "no command to start".into()))?;
        let mut cmd = Command::new(program);
        if let Some(d) = self.dir.as_deref().filter(|d| !d.as_os_str().is_empty()) {
            cmd.current_dir(d);
        }
        let mut child = cmd
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| self.error(ErrorKind::Network, format!("could not be started: {e}")))?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            return Err(self.error(ErrorKind::Network, "its pipes could not be opened".into()));
        };
        let (tx, lines) = channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout.take(BODY_LIMIT)).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let kept = Arc::new(Mutex::new(Vec::new()));
        let keep = Arc::clone(&kept);
        thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if let Ok(mut k) = keep.lock() {
                    k.push(line);
                    let n = k.len();
                    if n > STDERR_LINES {
                        k.drain(..n - STDERR_LINES);
                    }
                }
            }
        });
        Ok(StdioServer {
            child,
            stdin,
            lines,
            stderr: kept,
        })
    }

    /// Sends a notification (no answer is read but a status).
    fn notify(&self, session: &mut Session, body: &Value) -> Result<(), CallError> {
        match (session, &self.server) {
            (Session::Http { id, version }, McpServer::Url(url)) => {
                let mut req = self
                    .agent
                    .post(url)
                    .header("content-type", "application/json")
                    .header("accept", "application/json, text/event-stream")
                    .header("mcp-protocol-version", version.as_str());
                if let Some(id) = id {
                    req = req.header("mcp-session-id", id.as_str());
                }
                let resp = req
                    .send(body.to_string().as_str())
                    .map_err(|e| self.transport(&e))?;
                let status = resp.status().as_u16();
                if !(200..300).contains(&status) {
                    return Err(self.error(
                        ErrorKind::InvalidResponse,
                        format!("notifications/initialized was answered HTTP {status}"),
                    ));
                }
                Ok(())
            }
            (Session::Stdio(s), _) => self.write_line(s, body),
            (Session::Http { .. }, McpServer::Command(_)) => Ok(()),
        }
    }

    fn transport(&self, e: &ureq::Error) -> CallError {
        let c = classify(e, self.timeout);
        let message = c.message.replace("the endpoint", "the MCP server");
        CallError {
            message: format!("MCP server {}: {message}", self.label()),
            url: Some(self.label()),
            ..c
        }
    }

    fn write_line(&self, s: &mut StdioServer, body: &Value) -> Result<(), CallError> {
        writeln!(s.stdin, "{body}")
            .and_then(|()| s.stdin.flush())
            .map_err(|e| self.exited(s, &format!("its stdin is closed ({e})")))
    }

    /// The error of a stdio server that stopped, with the end of its stderr.
    fn exited(&self, s: &mut StdioServer, what: &str) -> CallError {
        let status = s
            .child
            .try_wait()
            .ok()
            .flatten()
            .map(|st| format!(" (it exited: {st})"))
            .unwrap_or_default();
        let tail = s.stderr.lock().map(|l| l.join(" | ")).unwrap_or_default();
        let tail = if tail.is_empty() {
            String::new()
        } else {
            format!("; its stderr ends: {tail}")
        };
        self.error(ErrorKind::Network, format!("{what}{status}{tail}"))
    }

    /// One request and its answer.
    fn exchange(&self, session: &mut Session, body: &Value) -> CallOutcome {
        let id = mcp_request_id(body).unwrap_or(0);
        match (session, &self.server) {
            (Session::Http { id: sid, version }, McpServer::Url(url)) => {
                let mut req = self
                    .agent
                    .post(url)
                    .header("content-type", "application/json")
                    .header("accept", "application/json, text/event-stream");
                if id != 0 {
                    req = req.header("mcp-protocol-version", version.as_str());
                }
                if let Some(s) = sid.as_deref() {
                    req = req.header("mcp-session-id", s);
                }
                let mut resp = match req.send(body.to_string().as_str()) {
                    Ok(r) => r,
                    Err(e) => return CallOutcome::Failed(self.transport(&e)),
                };
                let header = |name: &str| {
                    resp.headers()
                        .get(name)
                        .and_then(|v| v.to_str().ok())
                        .map(str::to_string)
                };
                if let Some(s) = header("mcp-session-id") {
                    *sid = Some(s);
                }
                let status = resp.status().as_u16();
                let (retry_after, content_type) = (header("retry-after"), header("content-type"));
                let text = resp
                    .body_mut()
                    .with_config()
                    .limit(BODY_LIMIT)
                    .lossy_utf8(true)
                    .read_to_string();
                match text {
                    Ok(text) => mcp_outcome(
                        url,
                        status,
                        retry_after.as_deref(),
                        content_type.as_deref(),
                        &text,
                        id,
                    ),
                    Err(e) => CallOutcome::Failed(self.transport(&e)),
                }
            }
            (Session::Stdio(s), _) => {
                if let Err(e) = self.write_line(s, body) {
                    return CallOutcome::Failed(e);
                }
                loop {
                    match s.lines.recv_timeout(self.timeout) {
                        Ok(line) => {
                            // a notification or a log line: not the answer
                            let v: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
                            if v.get("method").is_some() && v.get("id").is_none() {
                                continue;
                            }
                            return mcp_outcome(
                                &self.label(),
                                200,
                                None,
                                Some("application/json"),
                                &line,
                                id,
                            );
                        }
                        Err(RecvTimeoutError::Timeout) => {
                            return CallOutcome::Failed(CallError {
                                timeout: true,
                                ..self.error(
                                    ErrorKind::Timeout,
                                    format!(
                                    "no answer within {} s; raise --timeout-s or check the server",
                                    self.timeout.as_secs_f64()
                                ),
                                )
                            })
                        }
                        Err(RecvTimeoutError::Disconnected) => {
                            return CallOutcome::Failed(
                                self.exited(s, "its stdout closed before it answered"),
                            )
                        }
                    }
                }
            }
            (Session::Http { .. }, McpServer::Command(_)) => CallOutcome::Failed(self.error(
                ErrorKind::Network,
                "an HTTP session of a stdio server".into(),
            )),
        }
    }
}
