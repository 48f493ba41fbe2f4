//! `evalpage mock-server`: a deterministic OpenAI-compatible endpoint on
//! 127.0.0.1, answering with the core's demo model, with injected 500s, 429s
//! and hangs drawn from a seeded generator. HTTP/1.1 is hyper's, on a
//! single-threaded tokio runtime: one task per connection (keep-alive per
//! HTTP/1.1 rules), so latency and hangs hold only their own connection and a
//! burst of new connections never waits for a free worker. What is answered is
//! `routes` (pure), the faults `faults`; `conn` joins them to hyper. Request
//! headers are never logged (they may carry an API key), nor are query strings.

pub mod answers;
mod conn;
mod faults;
mod routes;
mod wire;

use crate::args::MockArgs;
use crate::error::CliError;
use answers::Answers;
use conn::Shared;
use faults::FaultPlan;
use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::net::TcpListener;

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
        require_key: args.require_key.clone(),
    });
    let listen_err = |e: std::io::Error| CliError::Listen {
        port: args.port,
        message: e.to_string(),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()
        .map_err(listen_err)?;
    runtime.block_on(async {
        // 127.0.0.1 only, never another interface.
        let listener = TcpListener::bind(("127.0.0.1", args.port))
            .await
            .map_err(listen_err)?;
        announce(listener.local_addr().map_err(listen_err)?.port());
        accept(&listener, &shared, args.log).await;
        Ok(())
    })
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

/// Accepts connections forever, each served on its own task.
async fn accept(listener: &TcpListener, shared: &Arc<Shared>, log: bool) {
    loop {
        match listener.accept().await {
            Ok((stream, _)) => {
                // Answers go out in one write; no need to wait for more.
                let _ = stream.set_nodelay(true);
                tokio::spawn(conn::serve(stream, Arc::clone(shared)));
            }
            Err(e) => {
                if log {
                    eprintln!("evalpage mock-server: could not accept a connection: {e}");
                }
                // E.g. out of file descriptors: back off instead of spinning.
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        }
    }
}
