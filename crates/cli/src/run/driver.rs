//! The run loop, for every kind of run (the one engine, `Pipeline<K>`, over
//! the RAG check's or a task's kind). The main thread owns the engine; each `Command::Send` is
//! performed on its own worker thread (concurrency is small and bounded by the
//! engine), whose outcome comes back over a channel. Between outcomes the loop
//! sleeps in `recv_timeout` until the engine's `wake_at`, then feeds a `Tick`.
//! Each step's events and finished cases go to the caller's `on_step` as the
//! step is produced (it writes the logs and prints console lines).

use super::clock::Clock;
use crate::error::CliError;
use evalpage_core::run::{Command, Input, Kind, Pipeline, RunStatus, Step};
use evalpage_core::{CallError, CallOutcome, ChatMessage, ErrorKind};
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

/// One request of a job: chat messages, or a JSON body for an endpoint that
/// is not a chat model (see `evalpage_core::run::Call`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Request {
    /// The pool (model) that answers it: the kind's numbering (a task's
    /// models, then its judge).
    pub pool: usize,
    /// The chat messages.
    pub messages: Vec<ChatMessage>,
    /// The JSON body to POST instead, when there is one.
    pub body: Option<serde_json::Value>,
    /// Which asking of the same request this is (the cache keys on it).
    pub repeat: u32,
    /// The request's `tools`, when the task offers any.
    pub tools: Option<Arc<serde_json::Value>>,
}

/// Answers job `case`'s request; blocks until the endpoint answers, fails or
/// times out. Called on worker threads.
pub type Caller = Arc<dyn Fn(usize, &Request) -> CallOutcome + Send + Sync>;

/// The loop's state besides the engine.
struct Driver {
    call: Caller,
    tx: Sender<Settled>,
    rx: Receiver<Settled>,
    /// Case -> attempt of the request whose outcome is awaited.
    in_flight: HashMap<usize, u32>,
    /// The wake time a `Tick` was last fed for.
    ticked: Option<u64>,
}

/// Runs the engine to the end; `on_step(engine, events, finished cases)` is
/// called for every step, in order.
pub fn drive<K, F>(
    engine: &mut Pipeline<K>,
    call: Caller,
    clock: &Clock,
    mut on_step: F,
) -> Result<(), CliError>
where
    K: Kind,
    F: FnMut(&Pipeline<K>, Vec<K::Record>, Vec<usize>) -> Result<(), CliError>,
{
    let (tx, rx) = channel();
    let mut d = Driver {
        call,
        tx,
        rx,
        in_flight: HashMap::new(),
        ticked: None,
    };
    let step = engine.start(clock.now_ms());
    let mut wake = d.apply(engine, step, &mut on_step)?;
    while engine.status() == RunStatus::Running {
        let step = match d.next_input(wake, clock) {
            Some(input) => engine.handle(input, clock.now_ms()),
            None => {
                let why =
                    "the run stalled with cases unfinished (nothing in flight, nothing scheduled)";
                eprintln!("evalpage: {why}; stopping it");
                engine.fail(why, clock.now_ms())
            }
        };
        wake = d.apply(engine, step, &mut on_step)?;
    }
    Ok(())
}

impl Driver {
    /// Performs a step: starts and aborts requests, then hands the events and
    /// finished cases to `on_step`.
    fn apply<K, F>(
        &mut self,
        engine: &Pipeline<K>,
        step: Step<K::Record>,
        on_step: &mut F,
    ) -> Result<Option<u64>, CliError>
    where
        K: Kind,
        F: FnMut(&Pipeline<K>, Vec<K::Record>, Vec<usize>) -> Result<(), CliError>,
    {
        for command in step.commands {
            match command {
                Command::Send {
                    case,
                    attempt,
                    messages,
                    body,
                    pool,
                    repeat,
                    tools,
                } => self.send(
                    case,
                    attempt,
                    Request {
                        pool,
                        messages,
                        body,
                        repeat,
                        tools,
                    },
                ),
                // The worker cannot be interrupted; forgetting the case makes its
                // late outcome be dropped here (the engine would ignore it too).
                Command::Abort { case } => {
                    self.in_flight.remove(&case);
                }
            }
        }
        on_step(engine, step.events, step.finished)?;
        Ok(step.wake_at)
    }

    /// Starts a worker thread for one request.
    fn send(&mut self, case: usize, attempt: u32, request: Request) {
        self.in_flight.insert(case, attempt);
        let (call, tx) = (Arc::clone(&self.call), self.tx.clone());
        let spawned = thread::Builder::new()
            .name(format!("evalpage-case-{case}"))
            .spawn(move || {
                let outcome = call(case, &request);
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

    /// Waits for the next awaited outcome, or for `wake_at` to pass; `None`
    /// when nothing can arrive and nothing is scheduled (a stalled run).
    fn next_input(&mut self, wake: Option<u64>, clock: &Clock) -> Option<Input> {
        // The engine repeats a past wake time while every slot is busy (a due retry
        // waiting for room). One Tick per wake time; after that only an outcome
        // can make room, so wait for one instead of spinning.
        let wake = wake.filter(|w| self.ticked != Some(*w));
        loop {
            let now = clock.now_ms();
            if let Some(w) = wake.filter(|w| now >= *w) {
                self.ticked = Some(w);
                return Some(Input::Tick);
            }
            if self.in_flight.is_empty() && wake.is_none() {
                return None;
            }
            let wait = wake.map_or(IDLE_WAIT, |w| Duration::from_millis(w - now));
            if let Some(input) = self.receive(wait) {
                return Some(input);
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
