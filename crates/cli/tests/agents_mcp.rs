//! Agent runs against MCP servers on the CLI's `run` path
//! (`examples/agent/bank_mcp.yaml`): the bank of `examples/agent/bank_server.py`,
//! built with the official MCP Python SDK (installed by `scripts/test_mcp.sh`
//! in a venv of its own), over Streamable HTTP answering server-sent events
//! or JSON, and over stdio (a process per case). Each case meets a fresh
//! world; the world's end state is scored; faults are the same at any
//! concurrency; a cut log resumes; a server that is down, answers HTML,
//! lists a tool with an invalid schema or never answers fails each case with
//! its cause and the run still ends with its report; a server at fault in
//! some cases only (a proxy in front of the bank) fails those and the others
//! score as in a clean run; a call of a missing tool or with arguments that
//! are not JSON is told to the model.

mod common;

use common::*;
use serde_json::{json, Value};
use std::collections::HashSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The python of the venv that holds the MCP SDK: `EVALPAGE_MCP_PYTHON`, or
/// what `scripts/test_mcp.sh` installs (once per machine).
fn python() -> &'static str {
    static PY: OnceLock<String> = OnceLock::new();
    PY.get_or_init(|| {
        if let Ok(p) = std::env::var("EVALPAGE_MCP_PYTHON") {
            return p;
        }
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/test_mcp.sh");
        let out = Command::new("bash")
            .arg(script)
            .stderr(Stdio::inherit())
            .output()
            .expect("run scripts/test_mcp.sh");
        assert!(out.status.success(), "scripts/test_mcp.sh failed");
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    })
}

/// The bank server on a free loopback port, stopped on drop.
struct Bank {
    child: Child,
    url: String,
}

impl Bank {
    fn start(json: bool) -> Bank {
        let port = free_port();
        let mut cmd = Command::new(python());
        cmd.arg(agent_example("bank_server.py"))
            .args(["--port", &port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        if json {
            cmd.arg("--json");
        }
        let mut child = cmd.spawn().expect("start the bank server");
        let deadline = Instant::now() + Duration::from_secs(30);
        // ready when an HTTP answer comes back: a bare connect can succeed
        // before the server listens (a loopback connect may pick the port it
        // dials as its own and meet itself), and then the run's first cases
        // would meet no server
        while !answers_http(port) {
            if let Ok(Some(status)) = child.try_wait() {
                panic!("the bank server ended at start: {status}");
            }
            assert!(Instant::now() < deadline, "the bank server did not start");
            std::thread::sleep(Duration::from_millis(100));
        }
        Bank {
            child,
            url: format!("http://127.0.0.1:{port}/mcp"),
        }
    }
}

/// Whether an HTTP server answers on `port` (any status).
fn answers_http(port: u16) -> bool {
    let Ok(mut c) = TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let _ = c.set_read_timeout(Some(Duration::from_secs(5)));
    let asked = c.write_all(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    let mut head = [0u8; 5];
    asked.is_ok() && c.read_exact(&mut head).is_ok() && &head == b"HTTP/"
}

impl Drop for Bank {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The example task with its server replaced by `mcp` (YAML) and `extra`
/// lines added under `tools:`, written beside a copy of its prompt.
fn task(s: &Scratch, mcp: &str, extra: &str) -> PathBuf {
    let text = std::fs::read_to_string(agent_example("bank_mcp.yaml")).expect("task");
    let prompt = std::fs::read_to_string(agent_example("bank_prompt.yaml")).expect("prompt");
    s.write("bank_prompt.yaml", &prompt);
    let text = text.replace(
        "  mcp: http://127.0.0.1:8765/mcp\n",
        &format!("  mcp: {mcp}\n{extra}"),
    );
    assert!(text.contains(mcp), "the example names its server");
    s.write("bank_mcp.yaml", &text)
}

fn stdio() -> String {
    format!(
        "{{command: [{}, {}]}}",
        python(),
        agent_example("bank_server.py").display()
    )
}

/// What must agree between two runs of one task: each case's scores,
/// trajectory, tools, end state and error (none).
fn verdicts(results: &[Value]) -> Vec<(Value, Value, Value, Value, Value, Value)> {
    results
        .iter()
        .map(|r| {
            (
                r["sample_id"].clone(),
                r["metrics"].clone(),
                r["trajectory"].clone(),
                r["agent"]["tools"].clone(),
                r["agent"]["state"].clone(),
                r["error"].clone(),
            )
        })
        .collect()
}

#[test]
fn an_agent_on_an_mcp_server_over_sse_json_and_stdio_gives_one_report() {
    let s = Scratch::new("mcp-transports");
    let data = agent_example("bank_mcp.jsonl");
    let (sse, json_server) = (Bank::start(false), Bank::start(true));
    let over_sse = run_task(&task(&s, &sse.url, ""), &data, &s.join("sse"), &["--mock"]);
    let over_json = run_task(
        &task(&s, &json_server.url, ""),
        &data,
        &s.join("json"),
        &["--mock"],
    );
    let over_stdio = run_task(
        &task(&s, &stdio(), ""),
        &data,
        &s.join("stdio"),
        &["--mock"],
    );
    assert_eq!(verdicts(&over_sse), verdicts(&over_json));
    assert_eq!(verdicts(&over_sse), verdicts(&over_stdio));
    let r = by_id(&over_sse);
    assert_eq!(r.len(), 6);
    // the tools the server listed are the ones recorded, per case
    for (id, c) in &r {
        assert_eq!(c["status"], "ok", "{id}");
        assert_eq!(
            c["agent"]["tools"],
            json!(["get_balance", "transfer", "freeze_card", "list_cards"]),
            "{id}"
        );
    }
    // every case starts from the same world: `save` moves 100 out of A1's 950
    // whatever the others did
    assert_eq!(r["save"]["agent"]["state"]["accounts"]["A1"], 850);
    assert_eq!(
        r["save"]["agent"]["state"]["transfers"]
            .as_array()
            .map(Vec::len),
        Some(1)
    );
    assert_eq!(r["save"]["metrics"]["end_state"]["value"], 1.0);
    // the tool's own error goes back to the model as its answer
    let told: Vec<&str> = r["overdraft"]["trajectory"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["role"] == "tool")
        .filter_map(|m| m["content"].as_str())
        .collect();
    assert_eq!(told.len(), 1);
    assert!(told[0].ends_with("insufficient funds in B2"), "{told:?}");
    assert_eq!(
        r["overdraft"]["agent"]["steps"][0]["tools"][0]["is_error"],
        true
    );
    assert_eq!(r["overdraft"]["metrics"]["end_state"]["value"], 1.0);
    // each call the server answered has its latency; the case's own figures
    // stay the model's
    for (id, c) in &r {
        for step in c["agent"]["steps"].as_array().into_iter().flatten() {
            for t in step["tools"].as_array().into_iter().flatten() {
                assert!(t["latency_ms"].is_u64(), "{id}: {t}");
            }
        }
    }
    // the mock model leaves out pay_rent's transfer: the world says so
    let pay = &r["pay_rent"]["metrics"]["end_state"];
    assert_eq!(pay["value"], 0.0);
    assert_eq!(
        pay["detail"]["diff"],
        json!([
            "accounts.A1: expected 150, found 950",
            "accounts.LANDLORD: expected 800, found 0"
        ])
    );
    // each step is in the log, as the model made it
    let log = std::fs::read_to_string(s.join("sse/report.events.jsonl")).expect("log");
    let steps = records(&log, "step");
    let calls: u64 = over_sse
        .iter()
        .filter_map(|c| c["agent"]["model_calls"].as_u64())
        .sum();
    assert_eq!(steps.len() as u64, calls);
    // the run's results, scored again by `evalpage score`: the same verdicts
    let mut cmd = evalpage();
    cmd.args(["score", "--task"])
        .arg(task(&s, &sse.url, ""))
        .arg("--dataset")
        .arg(&data)
        .arg("--responses")
        .arg(s.join("sse/results.jsonl"))
        .arg("--out")
        .arg(s.join("scored"));
    assert_ok(&finish(cmd));
    let scored = read_jsonl(&s.join("scored/results.jsonl"));
    let metrics = |rs: &[Value]| -> Vec<(Value, Value)> {
        rs.iter()
            .map(|r| (r["sample_id"].clone(), r["metrics"].clone()))
            .collect()
    };
    assert_eq!(metrics(&scored), metrics(&over_sse));
    assert_eq!(scored[1]["final_state"], over_sse[1]["agent"]["state"]);
}

#[test]
fn seeded_faults_on_an_mcp_server_are_the_same_at_concurrency_1_and_8() {
    let s = Scratch::new("mcp-faults");
    let bank = Bank::start(false);
    let t = task(
        &s,
        &bank.url,
        "  faults: {seed: 11, rate: 0.5, kinds: [error, malformed]}\n",
    );
    let data = agent_example("bank_mcp.jsonl");
    let one = run_task(&t, &data, &s.join("c1"), &["--mock", "--concurrency", "1"]);
    let eight = run_task(&t, &data, &s.join("c8"), &["--mock", "--concurrency", "8"]);
    assert_eq!(verdicts(&one), verdicts(&eight));
    let faulted = |rs: &[Value]| -> Vec<(String, String)> {
        rs.iter()
            .flat_map(|r| {
                let id = r["sample_id"].as_str().unwrap_or("").to_string();
                r["agent"]["steps"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .flat_map(|s| s["tools"].as_array().into_iter().flatten())
                    .filter_map(|t| t["fault"].as_str().map(str::to_string))
                    .map(move |f| (id.clone(), f))
                    .collect::<Vec<_>>()
            })
            .collect()
    };
    let f = faulted(&one);
    assert_eq!(f, faulted(&eight));
    assert!(!f.is_empty(), "rate 0.5 faults some calls");
    let report = read_json(&s.join("c1/report.json"));
    assert_eq!(report["metrics"]["faulted_calls"], f.len());
}

#[test]
fn a_cut_mcp_run_resumes_without_asking_a_settled_case_again() {
    let s = Scratch::new("mcp-resume");
    let bank = Bank::start(false);
    let t = task(&s, &bank.url, "");
    let data = agent_example("bank_mcp.jsonl");
    let full = run_task(
        &t,
        &data,
        &s.join("full"),
        &["--mock", "--concurrency", "1"],
    );
    let log = std::fs::read_to_string(s.join("full/report.events.jsonl")).expect("log");
    let third = log
        .match_indices("\"record_type\":\"case\"")
        .nth(2)
        .map(|(i, _)| i)
        .expect("three cases");
    let cut = s.write("cut.jsonl", &log[..third + 10]);
    let settled: Vec<String> = records(&log[..third], "case")
        .iter()
        .map(|c| c["case_id"].as_str().unwrap_or("").to_string())
        .collect();
    assert_eq!(settled.len(), 2);
    let out = s.join("resumed");
    let resumed = run_task(
        &t,
        &data,
        &out,
        &["--mock", "--resume-from", cut.to_str().unwrap_or_default()],
    );
    assert_eq!(verdicts(&full), verdicts(&resumed));
    let new_log = std::fs::read_to_string(out.join("report.events.jsonl")).expect("log");
    let asked: Vec<String> = records(&new_log, "step")
        .iter()
        .map(|c| c["case_id"].as_str().unwrap_or("").to_string())
        .collect();
    for id in &settled {
        assert!(!asked.contains(id), "{id} was settled and asked again");
    }
    // the trajectories the cut left unfinished (the server's pool lets the
    // next case start while one reads its world) run again from step 1
    let cut_open: std::collections::BTreeSet<String> = records(&log[..third], "step")
        .iter()
        .filter_map(|r| r["case_id"].as_str().map(str::to_string))
        .filter(|id| !settled.contains(id))
        .collect();
    let restarted: std::collections::BTreeSet<String> = records(&new_log, "step")
        .into_iter()
        .filter(|r| r["restarted"] == true && r["step"] == 1)
        .filter_map(|r| r["case_id"].as_str().map(str::to_string))
        .collect();
    assert!(!cut_open.is_empty());
    assert_eq!(restarted, cut_open);
}

/// A stand-in MCP server that answers every request as `answer` says:
/// `(status, content type, body)` for a JSON-RPC request body, `None` to
/// never answer.
fn double(answer: fn(&Value) -> Option<(u16, &'static str, String)>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(conn) = conn else { continue };
            std::thread::spawn(move || serve(conn, answer));
        }
    });
    format!("http://127.0.0.1:{port}/mcp")
}

fn serve(conn: TcpStream, answer: fn(&Value) -> Option<(u16, &'static str, String)>) {
    let mut reader = BufReader::new(conn);
    loop {
        let mut length = 0;
        let mut line = String::new();
        loop {
            line.clear();
            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            if line == "\r\n" {
                break;
            }
            if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                length = v.trim().parse().unwrap_or(0);
            }
        }
        let mut body = vec![0; length];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        let Some((status, ct, text)) = answer(&request) else {
            std::thread::sleep(Duration::from_secs(30));
            return;
        };
        let reply = format!(
            "HTTP/1.1 {status} X\r\ncontent-type: {ct}\r\nmcp-session-id: s1\r\ncontent-length: {}\r\n\r\n{text}",
            text.len()
        );
        if reader.get_mut().write_all(reply.as_bytes()).is_err() {
            return;
        }
    }
}

/// A well-behaved `initialize` and notification, then `rest`.
fn protocol(request: &Value, rest: Value) -> Option<(u16, &'static str, String)> {
    let id = request["id"].clone();
    Some(match request["method"].as_str() {
        Some("initialize") => (
            200,
            "application/json",
            json!({"jsonrpc": "2.0", "id": id, "result": {"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "double", "version": "1"}}}).to_string(),
        ),
        Some("notifications/initialized") => (202, "application/json", String::new()),
        _ => (
            200,
            "application/json",
            json!({"jsonrpc": "2.0", "id": id, "result": rest}).to_string(),
        ),
    })
}

#[test]
fn a_server_down_html_with_a_bad_schema_or_silent_fails_each_case_with_its_cause() {
    let s = Scratch::new("mcp-bad");
    let data = agent_example("bank_mcp.jsonl");
    let down = format!("http://127.0.0.1:{}/mcp", closed_port());
    let html = double(|_| {
        Some((
            200,
            "text/html; charset=utf-8",
            "<html><body>Sign in to continue</body></html>".into(),
        ))
    });
    let bad_schema = double(|r| {
        protocol(
            r,
            json!({"tools": [{"name": "get_balance", "inputSchema": {"type": "object"}},
                             {"name": "transfer", "inputSchema": "any"}]}),
        )
    });
    let silent = double(|_| None);
    for (name, url, cause) in [
        ("down", down.as_str(), "connection refused"),
        (
            "html",
            html.as_str(),
            "answered out of protocol: it answered text/html, not JSON-RPC: <html>",
        ),
        (
            "schema",
            bad_schema.as_str(),
            "tool \"transfer\" has an invalid inputSchema",
        ),
        ("silent", silent.as_str(), "no answer within 1 s"),
    ] {
        let out = s.join(name);
        let results = run_task(
            &task(&s, url, ""),
            &data,
            &out,
            &["--mock", "--timeout-s", "1", "--max-attempts", "1"],
        );
        assert_eq!(results.len(), 6, "{name}: every case recorded");
        for r in &results {
            let status = r["status"].as_str().unwrap_or("");
            assert!(["error", "timeout"].contains(&status), "{name}: {status}");
            let c = r["error_detail"]["cause"]
                .as_str()
                .unwrap_or("")
                .to_string();
            assert!(c.contains(cause), "{name}: {c}");
            assert!(
                c.contains("MCP server") || c.contains(url),
                "{name}: names the server: {c}"
            );
        }
        let report = read_json(&out.join("report.json"));
        assert_eq!(
            report["metrics"]["cases"], 6,
            "{name}: the report is written"
        );
    }
}

#[test]
fn a_call_of_a_missing_tool_or_with_arguments_not_json_is_told_and_the_case_goes_on() {
    let s = Scratch::new("mcp-bad-calls");
    let bank = Bank::start(false);
    let call = |id: &str, name: &str, args: &str| json!({"id": id, "type": "function", "function": {"name": name, "arguments": args}});
    let line = json!({
        "sample_id": "confused",
        "request": "How much is in A1?",
        "answer": ["950"],
        "expected_state": {"accounts": {"A1": 950}},
        "expected_trajectory": [
            {"role": "assistant", "content": "", "tool_calls": [
                call("a", "rob_bank", "{}"),
                call("b", "get_balance", "{account: A1")]},
            {"role": "tool", "tool_call_id": "a", "content": "?"},
            {"role": "tool", "tool_call_id": "b", "content": "?"},
            {"role": "assistant", "content": "", "tool_calls": [
                call("c", "get_balance", "{\"account\": \"A1\"}")]},
            {"role": "tool", "tool_call_id": "c", "content": "{\"balance\": 950}"},
            {"role": "assistant", "content": "A1 holds 950."}
        ]
    });
    let data = s.write("one.jsonl", &format!("{line}\n"));
    let results = run_task(&task(&s, &bank.url, ""), &data, &s.join("out"), &["--mock"]);
    let r = &results[0];
    assert_eq!(r["status"], "ok");
    // the mock model sends a step again once after an error answer: the two
    // bad calls are told twice
    assert_eq!(r["agent"]["call_problems"], 4);
    let told: Vec<&str> = r["trajectory"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["role"] == "tool")
        .filter_map(|m| m["content"].as_str())
        .collect();
    assert!(told[0].contains("no tool named \"rob_bank\""), "{told:?}");
    assert!(told[1].contains("not JSON"), "{told:?}");
    assert_eq!(r["metrics"]["end_state"]["value"], 1.0);
}

/// What the proxy does with one JSON-RPC request of a session.
enum Route {
    /// Sent on to the real server, its answer sent back.
    Forward,
    /// Answered here: (HTTP status, content type, body).
    Answer(u16, &'static str, String),
}

/// What a proxy saw and marked: the sessions `route` marked, and every
/// JSON-RPC request that reached it.
#[derive(Default)]
struct Seen {
    marked: HashSet<String>,
    requests: Vec<Value>,
}

/// A proxy in front of a real MCP server (`upstream`, answering JSON) that
/// sends every request on unless `route` answers it itself; `route` sees the
/// request and the set of sessions it marked (by `mcp-session-id`). Its URL
/// and what it saw.
fn proxy(
    upstream: String,
    route: fn(&Value, Option<&str>, &mut HashSet<String>) -> Route,
) -> (String, Arc<Mutex<Seen>>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let seen = Arc::new(Mutex::new(Seen::default()));
    let kept = seen.clone();
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(conn) = conn else { continue };
            let (upstream, seen) = (upstream.clone(), seen.clone());
            std::thread::spawn(move || relay(conn, &upstream, route, &seen));
        }
    });
    (format!("http://127.0.0.1:{port}/mcp"), kept)
}

fn relay(
    conn: TcpStream,
    upstream: &str,
    route: fn(&Value, Option<&str>, &mut HashSet<String>) -> Route,
    seen: &Mutex<Seen>,
) {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    let mut reader = BufReader::new(conn);
    loop {
        let mut first = String::new();
        if reader.read_line(&mut first).unwrap_or(0) == 0 {
            return;
        }
        let method = first.split_whitespace().next().unwrap_or("").to_string();
        let mut headers: Vec<(String, String)> = Vec::new();
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            if line == "\r\n" {
                break;
            }
            if let Some((k, v)) = line.split_once(':') {
                headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
            }
        }
        let header = |k: &str| headers.iter().find(|(h, _)| h == k).map(|(_, v)| v.clone());
        let length = header("content-length").map_or(0, |v| v.parse().unwrap_or(0));
        let mut body = vec![0; length];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        let session = header("mcp-session-id");
        let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        let decided = {
            let mut seen = seen.lock().expect("seen");
            seen.requests.push(request.clone());
            route(&request, session.as_deref(), &mut seen.marked)
        };
        let (status, ct, sid, text) = match decided {
            Route::Answer(status, ct, text) => (status, ct.to_string(), session, text),
            Route::Forward => {
                let forwarded = [
                    "content-type",
                    "accept",
                    "mcp-session-id",
                    "mcp-protocol-version",
                ];
                let answer = match method.as_str() {
                    "POST" => {
                        let mut req = agent.post(upstream);
                        for k in forwarded {
                            if let Some(v) = header(k) {
                                req = req.header(k, &v);
                            }
                        }
                        req.send(&body[..])
                    }
                    _ => {
                        let mut req = agent.delete(upstream);
                        for k in forwarded {
                            if let Some(v) = header(k) {
                                req = req.header(k, &v);
                            }
                        }
                        req.call()
                    }
                };
                let Ok(mut answer) = answer else { return };
                let got = |k: &str| {
                    answer
                        .headers()
                        .get(k)
                        .and_then(|v| v.to_str().ok())
                        .map(str::to_string)
                };
                let (ct, sid) = (
                    got("content-type").unwrap_or_default(),
                    got("mcp-session-id"),
                );
                let status = answer.status().as_u16();
                let text = answer.body_mut().read_to_string().unwrap_or_default();
                (status, ct, sid, text)
            }
        };
        let sid = sid.map_or(String::new(), |s| format!("mcp-session-id: {s}\r\n"));
        let reply = format!(
            "HTTP/1.1 {status} X\r\ncontent-type: {ct}\r\n{sid}content-length: {}\r\n\r\n{text}",
            text.len()
        );
        if reader.get_mut().write_all(reply.as_bytes()).is_err() {
            return;
        }
    }
}

/// The bank behind a proxy that answers an HTML login page to a balance
/// asked of account B2, HTTP 503 to a transfer from B2, HTTP 404 (a session
/// the server ended) to a balance asked of LANDLORD, and a JSON-RPC error to
/// the state read of a session that froze a card.
fn flaky_route(request: &Value, session: Option<&str>, marked: &mut HashSet<String>) -> Route {
    let id = request["id"].clone();
    let (tool, args) = (&request["params"]["name"], &request["params"]["arguments"]);
    match request["method"].as_str() {
        Some("tools/call") if tool == "get_balance" && args["account"] == "B2" => Route::Answer(
            200,
            "text/html; charset=utf-8",
            "<html><body>Sign in to continue</body></html>".into(),
        ),
        Some("tools/call") if tool == "transfer" && args["from_account"] == "B2" => Route::Answer(
            503,
            "text/plain",
            "the bank is closed for maintenance".into(),
        ),
        Some("tools/call") if tool == "get_balance" && args["account"] == "LANDLORD" => {
            Route::Answer(404, "text/plain", "Session not found".into())
        }
        Some("tools/call") if tool == "freeze_card" => {
            marked.extend(session.map(str::to_string));
            Route::Forward
        }
        Some("resources/read") if session.is_some_and(|s| marked.contains(s)) => Route::Answer(
            200,
            "application/json",
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32603, "message": "the world store is down"}}).to_string(),
        ),
        _ => Route::Forward,
    }
}

/// A message without its call ids: (role, text, calls as (name, arguments)).
type Shown = (Value, Value, Vec<(Value, Value)>);

/// A trajectory's messages without the call ids.
fn shown(t: &Value) -> Vec<Shown> {
    t.as_array()
        .into_iter()
        .flatten()
        .map(|m| {
            let calls = m["tool_calls"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|c| {
                    (
                        c["function"]["name"].clone(),
                        c["function"]["arguments"].clone(),
                    )
                })
                .collect();
            (m["role"].clone(), m["content"].clone(), calls)
        })
        .collect()
}

/// Each step's tool calls of an `agent` record: (name, arguments, answer,
/// error), latencies left out.
fn step_tools(agent: &Value) -> Vec<Vec<(Value, Value, Value, Value)>> {
    agent["steps"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|s| {
            s["tools"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|t| {
                    (
                        t["name"].clone(),
                        t["arguments"].clone(),
                        t["content"].clone(),
                        t["is_error"].clone(),
                    )
                })
                .collect()
        })
        .collect()
}

#[test]
fn a_server_at_fault_in_some_cases_fails_those_and_the_others_score_as_in_a_clean_run() {
    let s = Scratch::new("mcp-some-bad");
    let bank = Bank::start(true);
    // the example's six lines and one more, whose case meets a 404
    let mut lines = std::fs::read_to_string(agent_example("bank_mcp.jsonl")).expect("dataset");
    let call = json!({"id": "c0", "type": "function", "function": {"name": "get_balance", "arguments": "{\"account\": \"LANDLORD\"}"}});
    lines.push_str(&format!(
        "{}\n",
        json!({
            "sample_id": "landlord", "request": "How much is in LANDLORD?", "answer": ["0"],
            "expected_state": {"accounts": {"LANDLORD": 0}},
            "expected_trajectory": [
                {"role": "assistant", "content": "", "tool_calls": [call]},
                {"role": "tool", "tool_call_id": "c0", "content": "{\"balance\": 0}"},
                {"role": "assistant", "content": "LANDLORD holds 0."}
            ]
        })
    ));
    let data = s.write("bank_mcp.jsonl", &lines);
    let flags = ["--mock", "--max-attempts", "2"];
    let clean = run_task(&task(&s, &bank.url, ""), &data, &s.join("clean"), &flags);
    let (flaky, seen) = proxy(bank.url.clone(), flaky_route);
    let out = s.join("flaky");
    let results = run_task(&task(&s, &flaky, ""), &data, &out, &flags);
    assert_eq!(results.len(), 7, "every case recorded");
    let (clean, r) = (by_id(&clean), by_id(&results));
    assert!(clean.values().all(|c| c["status"] == "ok"));
    // the cases that met the proxy's faults fail with its cause, as an
    // infrastructure failure (retried, then given up), without scores
    let bad = [
        (
            "too_much",
            "the MCP server answered out of protocol: it answered text/html, not JSON-RPC: <html>",
        ),
        (
            "overdraft",
            "the MCP server answered HTTP 503: the bank is closed for maintenance",
        ),
        // unlike a model endpoint's 404, it does not stop the run
        (
            "landlord",
            "the MCP server answered HTTP 404: Session not found",
        ),
        (
            "lost_card",
            "the MCP server's state could not be read for final_state: error -32603: the world store is down",
        ),
    ];
    for (id, cause) in bad {
        let c = r[id];
        assert_eq!(c["status"], "error", "{id}: {c}");
        let why = c["error_detail"]["cause"].as_str().unwrap_or("");
        assert!(why.contains(cause), "{id}: {why}");
        if id != "lost_card" {
            assert!(c["agent"].is_null(), "{id}: the loop did not end");
        }
        // what the agent did before the server failed is kept: the
        // trajectory up to the failed call (the whole loop for lost_card)
        let (made, clean_made) = (shown(&c["trajectory"]), shown(&clean[id]["trajectory"]));
        assert!(!made.is_empty(), "{id}: {c}");
        assert_eq!(made[..], clean_made[..made.len()], "{id}");
    }
    // lost_card's loop ended before its world could not be read: its whole
    // trajectory and its steps are kept, as in the clean run, with no state
    let (lost, clean_lost) = (r["lost_card"], clean["lost_card"]);
    assert_eq!(shown(&lost["trajectory"]), shown(&clean_lost["trajectory"]));
    assert_eq!(lost["agent"]["end"], "answered", "{lost}");
    assert_eq!(
        lost["agent"]["model_calls"],
        clean_lost["agent"]["model_calls"]
    );
    assert_eq!(lost["agent"]["tools"], clean_lost["agent"]["tools"]);
    assert_eq!(
        step_tools(&lost["agent"]),
        step_tools(&clean_lost["agent"]),
        "the steps' calls and answers"
    );
    assert!(lost["agent"]["state"].is_null());
    assert!(lost["metrics"]["end_state"]["value"] != 1.0);
    assert_eq!(r["overdraft"]["error_detail"]["url"], flaky.as_str());
    // `attempts` counts the case's model calls' attempts, as on any agent
    // case (and the model call of any task): the mock model answers each at
    // its first attempt, so it is the model calls made: one per step record
    // in the log, and one more when the case failed within a step (its
    // trajectory holds that step's call). The server's calls (tools/list,
    // the 503 retried, the state read) are never counted.
    let log = std::fs::read_to_string(out.join("report.events.jsonl")).expect("log");
    let steps = records(&log, "step");
    for (id, c) in &r {
        let own: Vec<&Value> = steps
            .iter()
            .filter(|s| s["case_id"] == id.as_str())
            .collect();
        let asked = c["trajectory"]
            .as_array()
            .map_or(0, |t| t.iter().filter(|m| m["role"] == "assistant").count());
        let calls = own.len() + asked.saturating_sub(own.len());
        assert!(own.iter().all(|s| s["attempts"] == 1), "{id}");
        assert_eq!(c["attempts"], calls, "{id}: {c}");
        assert!(calls >= 1, "{id}: the model was asked");
    }
    // what reached the server: a 503 is retried as a model's would be (up to
    // --max-attempts 2), an answer out of protocol is not; every case that
    // ended read its world once
    let requests = seen.lock().expect("seen").requests.clone();
    let count = |f: &dyn Fn(&Value) -> bool| requests.iter().filter(|q| f(q)).count();
    let call = |q: &Value, tool: &str, key: &str| {
        q["method"] == "tools/call"
            && q["params"]["name"] == tool
            && q["params"]["arguments"][key] == "B2"
    };
    assert_eq!(count(&|q| call(q, "transfer", "from_account")), 2);
    assert_eq!(count(&|q| call(q, "get_balance", "account")), 1);
    let landlord = |q: &Value| q["params"]["arguments"]["account"] == "LANDLORD";
    assert_eq!(count(&landlord), 1);
    assert_eq!(count(&|q| q["method"] == "resources/read"), 4);
    // the others went through the proxy to the same server and score exactly
    // as in the clean run: trajectory, tools listed, end state, verdicts
    let healthy = ["balance", "pay_rent", "save"];
    for id in healthy {
        let (a, b) = (clean[id], r[id]);
        assert_eq!(b["status"], "ok", "{id}: {b}");
        assert_eq!(b["metrics"], a["metrics"], "{id}");
        assert_eq!(b["trajectory"], a["trajectory"], "{id}");
        assert_eq!(b["agent"]["tools"], a["agent"]["tools"], "{id}");
        assert_eq!(b["agent"]["state"], a["agent"]["state"], "{id}");
    }
    // (pay_rent's end state is the mock model's fault, not the server's)
    assert_eq!(r["pay_rent"]["metrics"]["end_state"]["value"], 0.0);
    assert_eq!(r["save"]["agent"]["state"]["accounts"]["A1"], 850);
    // the report is written: seven cases, the four failures listed; a failed
    // case (an infrastructure failure) scores 0 on every metric, end_state
    // included (its world was not read), and stays in every denominator:
    // each mean is the healthy cases' sum over all seven
    let report = read_json(&out.join("report.json"));
    assert_eq!(report["metrics"]["cases"], 7);
    assert_eq!(report["metrics"]["passed_cases"], 3);
    let mut failed: Vec<&str> = report["report"]["error_cases"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|e| e["sample_id"].as_str())
        .collect();
    failed.sort();
    assert_eq!(failed, ["landlord", "lost_card", "overdraft", "too_much"]);
    let summary = |metric: &str| {
        report["report"]["summaries"]
            .as_array()
            .and_then(|s| s.iter().find(|s| s["metric"] == metric))
            .cloned()
            .unwrap_or_else(|| panic!("no {metric} summary"))
    };
    for metric in ["trajectory", "call_f1", "end_state", "answer"] {
        for (id, _) in bad {
            assert_eq!(r[id]["metrics"][metric]["value"], 0.0, "{id} {metric}");
        }
        let m = summary(metric);
        assert_eq!(
            (&m["sample_count"], &m["skipped"]),
            (&json!(7), &json!(0)),
            "{m}"
        );
        let healthy_sum = healthy
            .iter()
            .map(|id| {
                clean[*id]["metrics"][metric]["value"]
                    .as_f64()
                    .unwrap_or(-1.0)
            })
            .sum::<f64>();
        let mean = m["mean"].as_f64().unwrap_or(-1.0);
        assert!((mean - healthy_sum / 7.0).abs() < 1e-12, "{metric}: {m}");
    }
    let why = &r["lost_card"]["metrics"]["end_state"]["detail"]["no_state"];
    assert!(
        why.as_str().is_some_and(|w| w.contains("state://world")),
        "{why}"
    );
    // resumed from its whole log, nothing is asked again and the failed
    // cases keep what their loops did
    let asked = seen.lock().expect("seen").requests.len();
    let log = out.join("report.events.jsonl");
    let again = run_task(
        &task(&s, &flaky, ""),
        &data,
        &s.join("again"),
        &["--mock", "--resume-from", log.to_str().unwrap_or_default()],
    );
    assert_eq!(seen.lock().expect("seen").requests.len(), asked);
    let again = by_id(&again);
    for (id, _) in bad {
        let (a, b) = (r[id], again[id]);
        assert_eq!(b["status"], "error", "{id}");
        assert_eq!(b["trajectory"], a["trajectory"], "{id}");
        assert_eq!(b["agent"], a["agent"], "{id}");
        assert_eq!(b["attempts"], a["attempts"], "{id}");
    }
}

#[test]
fn a_model_call_failing_for_good_counts_its_attempts_and_no_server_call() {
    let s = Scratch::new("mcp-model-down");
    let bank = Bank::start(true);
    // every model call answers HTTP 500: each case lists its tools, then its
    // first model call fails after --max-attempts 2
    let model = Mock::start(&["--fail-rate", "1"]);
    let registry = s.write(
        "registry.json",
        &format!(
            r#"{{"models": [{{"name": "down", "base_url": "{}"}}]}}"#,
            model.url
        ),
    );
    let out = s.join("out");
    let results = run_task(
        &task(&s, &bank.url, ""),
        &agent_example("bank_mcp.jsonl"),
        &out,
        &[
            "--models",
            "down",
            "--model-registry",
            registry.to_str().unwrap_or_default(),
            "--max-attempts",
            "2",
        ],
    );
    assert_eq!(results.len(), 6);
    for c in &results {
        assert_eq!(c["status"], "error", "{c}");
        assert_eq!(c["error_detail"]["status_code"], 500, "{c}");
        // the model call's two attempts, not the server's tools/list
        assert_eq!(c["attempts"], 2, "{c}");
    }
}
