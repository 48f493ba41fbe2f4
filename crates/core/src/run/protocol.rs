//! The protocol between the run engine and the shells: what a shell feeds in
//! ([`Input`]), what the engine asks it to do ([`Command`]), the answer to one
//! input ([`Step`]) and where the run is ([`RunStatus`]).

use crate::provider::{CallOutcome, ChatMessage};

/// What the shell tells the engine.
#[derive(Clone, Debug, PartialEq)]
pub enum Input {
    /// A call for this case settled.
    Outcome {
        /// Case index.
        case: usize,
        /// What happened.
        outcome: CallOutcome,
    },
    /// Time passed (after `wake_at`).
    Tick,
    /// The user cancelled: abort what is in flight, settle the rest as cancelled.
    Cancel,
    /// Send nothing new; calls in flight still settle.
    Pause,
    /// Start sending again after a pause.
    Resume,
}

/// What the engine asks the shell to do.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// Send this request; report back with `Input::Outcome { case, .. }`.
    Send {
        /// Case index.
        case: usize,
        /// 1-based attempt number.
        attempt: u32,
        /// The chat messages to send.
        messages: Vec<ChatMessage>,
        /// A JSON body to POST instead of a chat request (see `Call::body`).
        body: Option<serde_json::Value>,
        /// The pool (model) that answers it: the kind's numbering
        /// (`Kind::pools`), e.g. a task's models then its judge.
        pool: usize,
        /// Which asking of the same request this is (see `Call::repeat`):
        /// the response cache keys on it.
        repeat: u32,
        /// The request's `tools` (see `Call::tools`).
        tools: Option<std::sync::Arc<serde_json::Value>>,
    },
    /// Abort the request in flight for this case; its outcome will be ignored.
    Abort {
        /// Case index.
        case: usize,
    },
}

/// The engine's answer to one input.
#[derive(Clone, Debug, PartialEq)]
pub struct Step<E> {
    /// Requests to send or abort.
    pub commands: Vec<Command>,
    /// Event records to append to the log, in order.
    pub events: Vec<E>,
    /// Indices of cases that finished in this step.
    pub finished: Vec<usize>,
    /// Call `handle(Input::Tick, ..)` at this time (ms) if nothing else happens first.
    pub wake_at: Option<u64>,
}

impl<E> Default for Step<E> {
    fn default() -> Self {
        Step {
            commands: Vec::new(),
            events: Vec::new(),
            finished: Vec::new(),
            wake_at: None,
        }
    }
}

/// Where the run is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunStatus {
    /// Not started.
    Idle,
    /// Cases pending or in flight.
    Running,
    /// Every case settled.
    Done,
    /// Cancelled by the user; unfinished cases are settled as cancelled.
    Cancelled,
}
