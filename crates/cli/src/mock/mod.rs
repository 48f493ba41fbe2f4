//! `evalpage mock-server`: a deterministic OpenAI-compatible endpoint on
//! 127.0.0.1, answering with the core's demo model, with injected 500s, 429s
//! and hangs drawn from a seeded generator. A small HTTP/1.1 server on
//! `std::net`: one thread per connection (keep-alive per HTTP/1.1 rules), so
//! latency and hangs block only their own connection and a burst of new
//! connections never waits for a free worker. Request headers are never logged
//! (they may carry an API key), nor are query strings.

pub mod answers;
mod conn;
mod faults;
mod http;
mod routes;

use crate::args::MockArgs;
use crate::error::CliError;
use answers::Answers;
use conn::{End, Shared};
use faults::FaultPlan;
use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// How long a connection may stay silent (idle between keep-alive requests, or
/// stalled mid-request) or refuse to take our bytes before it is closed.
const IDLE_TIMEOUT: Duration = Duration::from_secs(30);

/// After refusing a request, how long to keep reading (and dropping) what the
/// client still sends, and how much at most.
const LINGER: Duration = Duration::from_secs(2);
const LINGER_BYTES: u64 = 2 * http::BODY_LIMIT;

/// Serves until the process is killed.
pub fn serve(args: &MockArgs) -> Result<(), CliError> {
    let answers = match &args.answers {
        Some(path) => Answers::load(path)?,
        None => Answers::default(),
    };
    let mut answers = match (&args.task, &args.dataset) {
        (Some(task), Some(dataset)) => answers.with_task(task, dataset)?,
        _ => answers,
    };
    if let Some(style) = args.dialog_trace {
        answers = answers.with_dialogs(style, args.dialogs.as_deref())?;
    }
    answers.style = args.reasoning_style;
    answers.finish_reason = args.finish_reason.clone();
    answers.fail_status = args.fail_status;
    let (listener, port) = bind(args.port)?;
    announce(port);
    let shared = Arc::new(Shared {
        answers,
        plan: Mutex::new(FaultPlan::new(
            args.fail_rate,
            args.rate_limit_rate,
            args.hang_rate,
            args.seed,
        )),
        latency: Duration::from_millis(args.latency_ms),
        log: args.log,
        sleep: thread::sleep,
    });
    for stream in listener.incoming() {
        match stream {
            Ok(stream) => spawn_connection(stream, &shared),
            Err(e) => {
                if args.log {
                    eprintln!("evalpage mock-server: could not accept a connection: {e}");
                }
                // E.g. out of file descriptors: back off instead of spinning.
                thread::sleep(Duration::from_millis(20));
            }
        }
    }
    Ok(())
}

/// Listens on 127.0.0.1 (never another interface) and returns the real port.
fn bind(port: u16) -> Result<(TcpListener, u16), CliError> {
    let listen_err = |e: std::io::Error| CliError::Listen {
        port,
        message: e.to_string(),
    };
    let listener = TcpListener::bind(("127.0.0.1", port)).map_err(listen_err)?;
    let real = listener.local_addr().map_err(listen_err)?.port();
    Ok((listener, real))
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

/// Serves one connection on its own thread.
fn spawn_connection(stream: TcpStream, shared: &Arc<Shared>) {
    let shared = Arc::clone(shared);
    let spawned = thread::Builder::new()
        .name("evalpage-mock-conn".into())
        .spawn(move || connection(stream, &shared));
    if let Err(e) = spawned {
        // The stream went down with the closure: the client sees a closed connection.
        eprintln!("evalpage mock-server: could not start a connection thread: {e}");
    }
}

fn connection(mut stream: TcpStream, shared: &Shared) {
    // Answers go out in one write; no need to wait for more.
    let _ = stream.set_nodelay(true);
    let timeouts = stream
        .set_read_timeout(Some(IDLE_TIMEOUT))
        .and_then(|()| stream.set_write_timeout(Some(IDLE_TIMEOUT)));
    if timeouts.is_err() {
        return;
    }
    if conn::serve(&mut stream, shared) == End::Refused {
        linger(&mut stream);
    }
}

/// After refusing a request whose body the client may still be sending: stop
/// writing, then read and drop what arrives for a short while, so closing with
/// unread bytes does not reset the connection before the client reads the answer.
fn linger(stream: &mut TcpStream) {
    let _ = stream.shutdown(Shutdown::Write);
    let deadline = Instant::now() + LINGER;
    let mut chunk = [0u8; 16 * 1024];
    let mut drained = 0u64;
    while drained < LINGER_BYTES {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() || stream.set_read_timeout(Some(left)).is_err() {
            return;
        }
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => return,
            Ok(n) => drained += n as u64,
        }
    }
}
