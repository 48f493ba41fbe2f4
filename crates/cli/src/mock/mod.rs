//! `evalpage mock-server`: a deterministic OpenAI-compatible endpoint on
//! 127.0.0.1, answering with the core's demo model, with injected 500s, 429s
//! and hangs drawn from a seeded generator. Each request is answered on its own
//! thread so latency does not serialise them. Request headers are never logged
//! (they may carry an API key), nor are query strings.

mod answers;
mod faults;
mod routes;

use crate::args::MockArgs;
use crate::error::CliError;
use answers::Answers;
use faults::{Fault, FaultPlan};
use routes::{Reply, Route};
use std::io::{Read, Write};
use std::sync::Arc;
use std::thread;
use std::time::Duration;
use tiny_http::{Header, Request, Response, Server};

/// Largest request body read, in bytes.
const BODY_LIMIT: u64 = 8 * 1024 * 1024;

/// CORS headers carried by every response, so a browser page can call the mock.
const CORS: &[(&str, &str)] = &[
    ("Access-Control-Allow-Origin", "*"),
    (
        "Access-Control-Allow-Headers",
        "authorization, content-type",
    ),
    ("Access-Control-Allow-Methods", "GET, POST, OPTIONS"),
    // Lets a page read Retry-After on a cross-origin 429.
    ("Access-Control-Expose-Headers", "Retry-After"),
];

/// Serves until the process is killed.
pub fn serve(args: &MockArgs) -> Result<(), CliError> {
    let answers = match &args.answers {
        Some(path) => Answers::load(path)?,
        None => Answers::default(),
    };
    let answers = Arc::new(match (&args.task, &args.dataset) {
        (Some(task), Some(dataset)) => answers.with_task(task, dataset)?,
        _ => answers,
    });
    let (server, port) = bind(args.port)?;
    announce(port);
    let mut plan = FaultPlan::new(
        args.fail_rate,
        args.rate_limit_rate,
        args.hang_rate,
        args.seed,
    );
    let latency = Duration::from_millis(args.latency_ms);
    let log = args.log;
    for request in server.incoming_requests() {
        let route = routes::route(request.method().as_str(), request.url());
        // One draw per chat request, in arrival order, on this thread: deterministic.
        let fault = match route {
            Route::Chat => plan.draw(),
            _ => Fault::None,
        };
        let spawned = thread::Builder::new()
            .name("evalpage-mock-request".into())
            .spawn({
                let answers = Arc::clone(&answers);
                move || handle(request, route, fault, latency, log, &answers)
            });
        if let Err(e) = spawned {
            eprintln!("evalpage mock-server: could not start a request thread: {e}");
        }
    }
    Ok(())
}

/// Listens on 127.0.0.1 (never another interface) and returns the real port.
fn bind(port: u16) -> Result<(Server, u16), CliError> {
    let listen_err = |message: String| CliError::Listen { port, message };
    let server = Server::http(("127.0.0.1", port)).map_err(|e| listen_err(e.to_string()))?;
    let real = server
        .server_addr()
        .to_ip()
        .map(|a| a.port())
        .ok_or_else(|| listen_err("not listening on an IP address".into()))?;
    Ok((server, real))
}

/// The one startup line tests wait for.
fn announce(port: u16) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(
        out,
        "evalpage mock-server listening on http://127.0.0.1:{port}/v1"
    )
    .and_then(|()| out.flush());
}

/// Reads the body, waits as the reply asks, answers, and optionally logs a line.
fn handle(
    mut request: Request,
    route: Route,
    fault: Fault,
    latency: Duration,
    log: bool,
    answers: &Answers,
) {
    let mut body = String::new();
    let read = request
        .as_reader()
        .take(BODY_LIMIT)
        .read_to_string(&mut body);
    let reply = match read {
        Ok(_) => routes::respond(route, fault, &body, latency, answers),
        Err(e) => routes::error(
            400,
            &format!("request body is not UTF-8 text: {e}"),
            "invalid_request_error",
        ),
    };
    thread::sleep(reply.delay);
    if log {
        log_line(&request, &reply, fault);
    }
    let status = reply.status;
    if let Err(e) = request.respond(to_response(reply)) {
        if log {
            eprintln!("evalpage mock-server: could not send {status}: {e}");
        }
    }
}

/// `POST /v1/chat/completions -> 200 (ok; authorization header present)`.
fn log_line(request: &Request, reply: &Reply, fault: Fault) {
    let path = request.url().split(['?', '#']).next().unwrap_or("");
    let auth = request
        .headers()
        .iter()
        .any(|h| h.field.equiv("Authorization"));
    eprintln!(
        "evalpage mock-server: {} {path} -> {} ({}; authorization header {})",
        request.method(),
        reply.status,
        fault.label(),
        if auth { "present" } else { "absent" }
    );
}

/// The reply as a tiny_http response with CORS and content-type headers.
fn to_response(reply: Reply) -> Response<std::io::Cursor<Vec<u8>>> {
    let json = (!reply.body.is_empty()).then_some(("Content-Type", "application/json"));
    let extra = reply.headers.iter().map(|(k, v)| (*k, v.as_str()));
    let headers: Vec<Header> = CORS
        .iter()
        .copied()
        .chain(json)
        .chain(extra)
        .filter_map(|(k, v)| Header::from_bytes(k.as_bytes(), v.as_bytes()).ok())
        .collect();
    let mut response = Response::from_data(reply.body.into_bytes()).with_status_code(reply.status);
    for h in headers {
        response.add_header(h);
    }
    response
}
