//! One seed's scenario (the generator: each field drawn from the seed with
//! its own salt) and the faults of its calls, drawn per (seed, case,
//! attempt).

use evalpage_core::report::Price;
use evalpage_core::run::StartSpec;
use evalpage_core::SplitMix64;

/// What one seed runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    /// The seed.
    pub seed: u64,
    /// What kind of evaluation runs.
    pub kind: SimKind,
    /// Samples (the kind's demo samples, repeated with fresh ids).
    pub cases: usize,
    /// Models asked (each sample asked once per model; 1 for the RAG check).
    pub models: usize,
    /// How many times a task asks each sample of each model (1 but for
    /// tasks and agents).
    pub repeats: u32,
    /// The concurrency cap.
    pub concurrency: usize,
    /// Attempts per call.
    pub max_attempts: u32,
    /// The first back-off, ms.
    pub backoff_base_ms: u64,
    /// The call timeout, ms.
    pub timeout_ms: u64,
    /// Faults per thousand calls.
    pub fault_per_mille: u64,
    /// Crash (cut the log, resume) once this many cases have settled.
    pub crash_after: Option<usize>,
    /// Cancel once this many cases have settled.
    pub cancel_after: Option<usize>,
    /// The spending cap (the model's price is [`PRICE`]), if any.
    pub max_cost: Option<f64>,
    /// The run's clock jumps by this many ms (back when negative) before the
    /// input with this number (the engine's inputs counted from 1).
    pub clock_jump: Option<(u64, i64)>,
}

/// The simulated model's price: a call of 500 prompt and 100 completion
/// tokens costs 0.9.
pub const PRICE: Price = Price {
    in_per_mtok: 1_000.0,
    out_per_mtok: 4_000.0,
};

/// The kinds of evaluation the simulator runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SimKind {
    /// The RAG accuracy/citation check (spec 002) over the demo dataset.
    Rag,
    /// A task (spec 004's `event_eval` preset) asked of several models.
    Task,
    /// A retrieval evaluation: a search endpoint's ranked lists (JSON).
    Retrieval,
    /// Spec 001's multi-turn dialogs (the demo's): a job's calls are its
    /// turns, each sent with the answers before it.
    Dialog,
    /// An agent task with scripted tools (`examples/agent/bank.yaml`): a
    /// job's calls are its steps, each sent with the tools' results before it.
    Agent,
}

/// A fault of one call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// A 5xx status.
    Server(u16),
    /// 429, with `Retry-After` seconds or without.
    RateLimited(Option<u64>),
    /// No answer before the timeout.
    Hang,
    /// A body that is not a chat completion (an HTML page).
    Malformed,
    /// A chat completion cut short (a body that is not whole JSON).
    Truncated,
    /// An answer of tool calls, with no content.
    ToolCalls,
    /// The connection dropped.
    Dropped,
    /// The answer cut at `finish_reason: length`.
    Length,
    /// The answer carries reasoning.
    Reasoning,
}

/// A number drawn from (seed, a, b, salt): the same whatever the order calls arrive in.
pub(crate) fn draw(seed: u64, a: u64, b: u64, salt: u64) -> u64 {
    let mut r = SplitMix64::new(
        seed ^ a.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ b.wrapping_mul(0xC2B2_AE3D_27D4_EB4F) ^ salt,
    );
    r.next_u64()
}

impl Scenario {
    /// The scenario of `seed` (the generator: each field drawn from the seed
    /// with its own salt).
    pub fn of(seed: u64) -> Scenario {
        let d = |salt: u64, n: u64| draw(seed, 0, 0, salt) % n;
        let kind = [
            SimKind::Rag,
            SimKind::Task,
            SimKind::Retrieval,
            SimKind::Dialog,
            SimKind::Agent,
        ][d(22, 5) as usize];
        let (models, repeats) = match kind {
            SimKind::Rag | SimKind::Retrieval | SimKind::Dialog => (1, 1),
            SimKind::Task | SimKind::Agent => (
                1 + d(23, 3) as usize,
                // a third of the runs ask each sample 2 or 3 times
                if d(24, 3) == 0 {
                    2 + d(25, 2) as u32
                } else {
                    1
                },
            ),
        };
        let cases = 1 + d(1, 40) as usize;
        let crash = d(7, 3) == 0;
        let cancel = !crash && d(8, 8) == 0;
        Scenario {
            seed,
            kind,
            cases,
            models,
            repeats,
            concurrency: 1 + d(2, 8) as usize,
            max_attempts: 1 + d(3, 4) as u32,
            backoff_base_ms: [250, 1_000, 2_000][d(4, 3) as usize],
            timeout_ms: [30_000, 60_000, 120_000][d(5, 3) as usize],
            fault_per_mille: [0, 50, 200, 500][d(6, 4) as usize],
            crash_after: crash.then(|| d(9, cases as u64 + 1) as usize),
            cancel_after: cancel.then(|| d(10, cases as u64 + 1) as usize),
            max_cost: (d(15, 3) == 0)
                .then(|| 0.1 * d(16, 12 * (cases * models * repeats as usize) as u64) as f64),
            clock_jump: (d(17, 4) == 0).then(|| {
                let ms = if d(19, 2) == 0 {
                    -(1_000 + d(20, 60_000) as i64)
                } else {
                    1_000 + d(21, 3_600_000) as i64
                };
                (1 + d(18, 2 * cases as u64 + 1), ms)
            }),
        }
    }

    /// The scenario in one line, with the command that replays it.
    pub fn describe(&self) -> String {
        format!(
            "seed {}: {:?}, {} cases, {} models, {} repeats, concurrency {}, {} attempts, back-off {} ms, timeout {} ms, \
             faults {}/1000, crash after {:?}, cancel after {:?}, spending cap {:?}, \
             clock jump (before input, ms) {:?}; replay: \
             cargo run --profile sim -p evalpage-sim -- --seeds 1 --first {}",
            self.seed,
            self.kind,
            self.cases,
            self.models,
            self.repeats,
            self.concurrency,
            self.max_attempts,
            self.backoff_base_ms,
            self.timeout_ms,
            self.fault_per_mille,
            self.crash_after,
            self.cancel_after,
            self.max_cost,
            self.clock_jump,
            self.seed
        )
    }

    /// The fault of the `attempt` of `case`'s call `turn` (its turn in a
    /// dialog, its step in an agent's case; 0 for the kinds that make one
    /// call per case), if any.
    pub fn fault(&self, case: usize, turn: usize, attempt: u32) -> Option<Fault> {
        let call = call_number(case, turn);
        let x = draw(self.seed, call, u64::from(attempt), 11);
        if x % 1000 >= self.fault_per_mille {
            return None;
        }
        let k = draw(self.seed, call, u64::from(attempt), 12);
        Some(match k % 10 {
            0 => Fault::Server([500, 502, 503][(k / 10 % 3) as usize]),
            1 => Fault::RateLimited(Some(1 + k / 10 % 60)),
            2 => Fault::RateLimited(None),
            3 => Fault::Hang,
            4 => Fault::Malformed,
            5 => Fault::Truncated,
            6 => Fault::Dropped,
            7 => Fault::Length,
            8 => Fault::ToolCalls,
            _ => Fault::Reasoning,
        })
    }

    /// The latency of the `attempt` of `case`'s call `turn`, ms: log-uniform
    /// from 0.4 s to 30 s (median 3.5 s, mean 6.9 s), as a chat model's whole
    /// answer takes.
    pub fn latency_ms(&self, case: usize, turn: usize, attempt: u32) -> u64 {
        let call = call_number(case, turn);
        let u = (draw(self.seed, call, u64::from(attempt), 13) % 10_000) as f64 / 10_000.0;
        (400.0 * 75f64.powf(u)) as u64
    }

    /// How the run starts: its spending cap over the models' price.
    pub(crate) fn start_spec(&self) -> StartSpec {
        StartSpec {
            max_cost: self.max_cost,
            prices: (0..self.models)
                .map(model_name)
                .chain(["sim".to_string(), crate::kinds::URL.to_string()])
                .map(|m| (m, PRICE))
                .collect(),
            ..StartSpec::default()
        }
    }
}

/// A call's number for the draws: the case's own for its first call (as
/// before dialogs and agents), its turn in the high bits after.
fn call_number(case: usize, turn: usize) -> u64 {
    case as u64 | (turn as u64) << 40
}

/// The name of the simulated model `i` of a task run.
pub(crate) fn model_name(i: usize) -> String {
    format!("m{}", i + 1)
}
