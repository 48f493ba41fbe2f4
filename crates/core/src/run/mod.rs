//! The run as a sans-IO state machine.
//!
//! `Engine::start(now)` and `Engine::handle(input, now)` return a `Step`: the
//! requests to send, the event records to append, the cases that just finished,
//! and when to call back (`wake_at`) for scheduled retries. The browser and the
//! CLI perform the commands and feed the outcomes back; tests feed scripted
//! outcomes. Nothing here sleeps, reads a clock or draws OS randomness.

mod end;
pub(crate) mod pipeline;
mod protocol;
mod result;
pub(crate) mod scheduler;
mod shard;
mod start;

pub use end::{finish, run_meta, Ended, Finish, KindDecl, RunEnd};
pub use pipeline::{
    prompt_tokens_max, Budget, Call, JobOutcome, Kind, Pipeline, PriorJob, StopReason,
};
pub use protocol::{Command, Input, RunStatus, Step};
pub use result::{AnswerPolicy, RunIdentity, RunInfo, RunSettings};
pub use scheduler::{Scheduler, Settled};
pub use shard::{shard_of, Shard};
pub use start::{Estimate, PoolModel, Start, StartError, StartSpec, TakenOver};

/// Batch files: a run's calls as OpenAI Batch input, and the answers of the
/// engines that run them read back (see `provider::batch`).
pub use crate::provider::batch;
