//! The run loop. The main thread owns the engine; each `Command::Send` is
//! performed on its own worker thread (concurrency is small and bounded by the
//! engine), whose outcome comes back over a channel. Between outcomes the loop
//! sleeps in `recv_timeout` until the engine's `wake_at`, then feeds a `Tick`.
//! Events are written and console lines printed as each step produces them.

use super::backend::Backend;
use super::clock::Clock;
use super::output::{say, Output};
use crate::error::CliError;
use evalpage_core::console::case_line;
use evalpage_core::provider::{CallError, CallOutcome, ChatMessage, ErrorKind};
use evalpage_core::run::{Command, Engine, Input, RunStatus, Step};
use std::collections::HashMap;
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

/// Longest wait for an outcome when no retry is scheduled. Every request ends
/// within its own timeout, so this only bounds a quiet loop.
const IDLE_WAIT: Duration = Duration::from_secs(60);

/// An outcome reported by a worker.
#[derive(Debug)]
struct Settled {
    case: usize,
    attempt: u32,
    outcome: CallOutcome,
}

/// The loop's state besides the engine.
struct Driver {
    backend: Arc<Backend>,
    tx: Sender<Settled>,
    rx: Receiver<Settled>,
    /// Case -> attempt of the request whose outcome is awaited.
    in_flight: HashMap<usize, u32>,
    /// The wake time a `Tick` was last fed for.
    ticked: Option<u64>,
}

/// Runs the engine to the end, writing each event record as it is produced.
pub fn drive(
    engine: &mut Engine,
    backend: Backend,
    clock: &Clock,
    out: &mut Output,
) -> Result<(), CliError> {
    let (tx, rx) = channel();
    let mut d = Driver {
        backend: Arc::new(backend),
        tx,
        rx,
        in_flight: HashMap::new(),
        ticked: None,
    };
    let step = engine.start(clock.now_ms());
    let mut wake = d.apply(engine, step, out)?;
    while engine.status() == RunStatus::Running {
        let input = d.next_input(wake, clock);
        let step = engine.handle(input, clock.now_ms());
        wake = d.apply(engine, step, out)?;
    }
    Ok(())
}

impl Driver {
    /// Performs a step: starts and aborts requests, writes events, prints case lines.
    fn apply(
        &mut self,
        engine: &Engine,
        step: Step,
        out: &mut Output,
    ) -> Result<Option<u64>, CliError> {
        for command in step.commands {
            match command {
                Command::Send {
                    case,
                    attempt,
                    messages,
                } => self.send(case, attempt, messages),
                // The worker cannot be interrupted; forgetting the case makes its
                // late outcome be dropped here (the engine would ignore it too).
                Command::Abort { case } => {
                    self.in_flight.remove(&case);
                }
            }
        }
        for record in step.events {
            out.record(record)?;
        }
        let lang = engine.config().info.lang;
        for case in step.finished {
            if let (Some(c), Some(Some(r))) = (engine.cases().get(case), engine.results().get(case))
            {
                say(&case_line(lang, c, r));
            }
        }
        Ok(step.wake_at)
    }

    /// Starts a worker thread for one request.
    fn send(&mut self, case: usize, attempt: u32, messages: Vec<ChatMessage>) {
        self.in_flight.insert(case, attempt);
        let (backend, tx) = (Arc::clone(&self.backend), self.tx.clone());
        let spawned = thread::Builder::new()
            .name(format!("evalpage-case-{case}"))
            .spawn(move || {
                let outcome = backend.call(&messages);
                // The receiver is gone only when the run is over; nothing to do then.
                let _ = tx.send(Settled {
                    case,
                    attempt,
                    outcome,
                });
            });
        if let Err(e) = spawned {
            let err = CallError::new(
                ErrorKind::Network,
                format!("could not start a request thread: {e}"),
            );
            let failed = CallOutcome::Failed(err);
            let _ = self.tx.send(Settled {
                case,
                attempt,
                outcome: failed,
            });
        }
    }

    /// Waits for the next awaited outcome, or for `wake_at` to pass.
    fn next_input(&mut self, wake: Option<u64>, clock: &Clock) -> Input {
        // The engine repeats a past wake time while every slot is busy (a due retry
        // waiting for room). One Tick per wake time; after that only an outcome
        // can make room, so wait for one instead of spinning.
        let wake = wake.filter(|w| self.ticked != Some(*w));
        loop {
            let now = clock.now_ms();
            if let Some(w) = wake.filter(|w| now >= *w) {
                self.ticked = Some(w);
                return Input::Tick;
            }
            if self.in_flight.is_empty() && wake.is_none() {
                // Nothing can arrive and nothing is scheduled: settle what is left.
                eprintln!("evalpage: the run stalled with cases unfinished; stopping it");
                return Input::Cancel;
            }
            let wait = wake.map_or(IDLE_WAIT, |w| Duration::from_millis(w - now));
            if let Some(input) = self.receive(wait) {
                return input;
            }
        }
    }

    /// The next awaited outcome within `wait`; stale ones (aborted cases) are dropped.
    fn receive(&mut self, wait: Duration) -> Option<Input> {
        let s = self.rx.recv_timeout(wait).ok()?;
        if self.in_flight.get(&s.case) != Some(&s.attempt) {
            return None;
        }
        self.in_flight.remove(&s.case);
        Some(Input::Outcome {
            case: s.case,
            outcome: s.outcome,
        })
    }
}
