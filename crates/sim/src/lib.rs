//! A seeded simulator of evalpage runs (issue 44): the real core (the one run
//! engine, `Pipeline`, over the RAG check's kind) against a simulated
//! transport and clock, with faults drawn per (seed, case, attempt), never
//! from arrival order; time advances only by events, so a minute of back-off
//! costs nothing.
//!
//! One seed expands into a [`Scenario`] (printed by [`Scenario::describe`]):
//! how many cases (from the demo dataset, ids made unique), the concurrency,
//! the attempts and back-off, the call timeout, the fault rate, a spending
//! cap or none, and whether the run crashes (its event log cut at a byte, a
//! torn last record included, then resumed) or is cancelled, after how many
//! settled cases. The endpoint answers HTTP, read by the core's own parser
//! (`parse_response`, as the shells read theirs): the demo model's chat
//! completion, or a fault: 5xx, 429 with and without `Retry-After`, an HTML
//! page, a body cut short, an answer cut at `finish_reason: length`, an
//! answer of tool calls, an answer with reasoning; or the transport fails: a
//! hang past the timeout, a dropped connection. Latencies are drawn the same
//! way (0.4 s to 30 s, log-uniform).
//!
//! After each seed, [`check`] verifies the invariants: every case settled
//! exactly once in the final log and report, none lost, none doubled; a case
//! settled before a crash never sent again; requests never more than each
//! case's attempts; in-flight calls never above the concurrency; no call
//! sent once the run spent its cap; a `Retry-After` always honoured; verdicts equal to the fault-free run's
//! wherever the answer was the same; the log reconciles with the report
//! (spec 000 section 5); the same seed run twice gives the same trace hash.

use evalpage_core::events::{read, reconcile, to_jsonl, Record};
use evalpage_core::rag::{
    self, AccuracyVerdict, CitationVerdict, Engine, RagCase, RagKind, RunConfig,
};
use evalpage_core::report::Price;
use evalpage_core::run::{
    finish, Command, Finish, Input, Pipeline, RunEnd, RunIdentity, RunInfo, RunSettings, RunStatus,
    StartSpec, Step,
};
use evalpage_core::{
    demo, parse_response, sha256_hex, Answer, CallError, CallOutcome, ErrorKind, Lang,
    ScoringConfig, SplitMix64,
};
use serde_json::json;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, HashMap};

/// What one seed runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    /// The seed.
    pub seed: u64,
    /// Cases (the demo dataset's questions, repeated with fresh ids).
    pub cases: usize,
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
fn draw(seed: u64, a: u64, b: u64, salt: u64) -> u64 {
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
        let cases = 1 + d(1, 40) as usize;
        let crash = d(7, 3) == 0;
        let cancel = !crash && d(8, 8) == 0;
        Scenario {
            seed,
            cases,
            concurrency: 1 + d(2, 8) as usize,
            max_attempts: 1 + d(3, 4) as u32,
            backoff_base_ms: [250, 1_000, 2_000][d(4, 3) as usize],
            timeout_ms: [30_000, 60_000, 120_000][d(5, 3) as usize],
            fault_per_mille: [0, 50, 200, 500][d(6, 4) as usize],
            crash_after: crash.then(|| d(9, cases as u64 + 1) as usize),
            cancel_after: cancel.then(|| d(10, cases as u64 + 1) as usize),
            max_cost: (d(15, 3) == 0).then(|| 0.1 * d(16, 12 * cases as u64) as f64),
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
            "seed {}: {} cases, concurrency {}, {} attempts, back-off {} ms, timeout {} ms, \
             faults {}/1000, crash after {:?}, cancel after {:?}, spending cap {:?}, \
             clock jump (before input, ms) {:?}; replay: \
             cargo run --profile sim -p evalpage-sim -- --seeds 1 --first {}",
            self.seed,
            self.cases,
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

    /// The fault of `case`'s `attempt`, if any.
    pub fn fault(&self, case: usize, attempt: u32) -> Option<Fault> {
        let x = draw(self.seed, case as u64, u64::from(attempt), 11);
        if x % 1000 >= self.fault_per_mille {
            return None;
        }
        let k = draw(self.seed, case as u64, u64::from(attempt), 12);
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

    /// The latency of `case`'s `attempt`, ms: log-uniform from 0.4 s to 30 s
    /// (median 3.5 s, mean 6.9 s), as a chat model's whole answer takes.
    pub fn latency_ms(&self, case: usize, attempt: u32) -> u64 {
        let u = (draw(self.seed, case as u64, u64::from(attempt), 13) % 10_000) as f64 / 10_000.0;
        (400.0 * 75f64.powf(u)) as u64
    }

    /// How the run starts: its spending cap over the model's price.
    fn start_spec(&self) -> StartSpec {
        StartSpec {
            max_cost: self.max_cost,
            prices: [("sim".to_string(), PRICE)].into_iter().collect(),
            ..StartSpec::default()
        }
    }

    fn config(&self) -> RunConfig {
        RunConfig {
            run: RunIdentity {
                run_id: format!("sim-{}", self.seed),
                tool: "evalpage-sim".into(),
                started_at_ms: START_MS,
                argv: vec![],
                dataset: "sim.jsonl".into(),
                settings: RunSettings {
                    concurrency: self.concurrency,
                    max_attempts: self.max_attempts,
                    backoff_base_ms: self.backoff_base_ms,
                    timeout_ms: self.timeout_ms,
                    ..RunSettings::default()
                },
            },
            info: RunInfo {
                lang: Lang::Zh,
                backend: "openai".into(),
                model: "sim".into(),
                endpoint: Some(URL.into()),
                parameters: serde_json::json!({"temperature": 0}),
                dataset_name: "sim.jsonl".into(),
                dataset_line_errors: 0,
            },
            scoring: ScoringConfig::default(),
            system_prompt: "sys".into(),
            dataset_meta: None,
        }
    }

    fn dataset(&self) -> Vec<u8> {
        let lines: Vec<&str> = demo::DATASET
            .lines()
            .filter(|l| !l.trim().is_empty())
            .collect();
        let mut out = String::new();
        for i in 0..self.cases {
            let mut v: serde_json::Value =
                serde_json::from_str(lines[i % lines.len()]).unwrap_or_default();
            v["id"] = serde_json::Value::from(format!("c{i:04}"));
            out.push_str(&v.to_string());
            out.push('\n');
        }
        out.into_bytes()
    }
}

const START_MS: u64 = 1_000_000;

/// The simulated endpoint.
const URL: &str = "http://127.0.0.1:1/v1";

/// The simulated endpoint's answer: the demo model's (`demo::reply`), a pure
/// function of the messages, kept per messages so the transport costs next
/// to nothing and the time measured is the core's.
fn demo_reply(messages: &[evalpage_core::ChatMessage]) -> (Answer, String) {
    thread_local! {
        static SEEN: std::cell::RefCell<HashMap<String, (Answer, String)>> = std::cell::RefCell::new(HashMap::new());
    }
    let key = serde_json::to_string(messages).unwrap_or_default();
    SEEN.with(|seen| {
        let mut seen = seen.borrow_mut();
        if seen.len() > 10_000 {
            seen.clear();
        }
        seen.entry(key)
            .or_insert_with(|| {
                let a = demo::reply(messages);
                let body = completion(&a, json!({"role": "assistant", "content": a.text}), "stop");
                (a, body)
            })
            .clone()
    })
}

/// What an outcome's usage costs at [`PRICE`] (the core's formula).
fn cost(outcome: &CallOutcome) -> f64 {
    let usage = match outcome {
        CallOutcome::Answer(a) => a.usage.as_ref(),
        CallOutcome::Failed(e) => e.usage.as_deref(),
    };
    usage.map_or(0.0, |u| {
        u.prompt_tokens as f64 * PRICE.in_per_mtok / 1e6
            + u.completion_tokens as f64 * PRICE.out_per_mtok / 1e6
    })
}

/// A chat completion's body: `message`, `finish_reason` and the answer's usage.
fn completion(a: &Answer, message: serde_json::Value, finish: &str) -> String {
    let (p, c) = a
        .usage
        .as_ref()
        .map_or((0, 0), |u| (u.prompt_tokens, u.completion_tokens));
    json!({
        "id": "sim",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c},
    })
    .to_string()
}

/// What a seed's run did, for the invariants.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    /// The final event log (JSONL).
    pub log: String,
    /// The final report (`eval_rag_report.json`).
    pub report: serde_json::Value,
    /// Each case's verdicts (accuracy, citation) in the final results, by id.
    pub verdicts: BTreeMap<String, (Option<AccuracyVerdict>, Option<CitationVerdict>)>,
    /// Each case's answer, by id (none when it failed).
    pub answers: BTreeMap<String, Option<String>>,
    /// Sends per case (all parts of the run).
    pub sends: HashMap<usize, u32>,
    /// Sends per case after a resume.
    pub resent: HashMap<usize, u32>,
    /// Cases settled in the log a crash left (complete records).
    pub settled_before_crash: Vec<String>,
    /// Broken invariants seen while running.
    pub broken: Vec<String>,
    /// Simulated time, ms.
    pub simulated_ms: u64,
    /// Calls sent.
    pub calls: u64,
}

/// One part of a run (before a crash, or to its end).
struct Part<'a> {
    sc: &'a Scenario,
    faults: bool,
    now: u64,
    seq: u64,
    heap: BinaryHeap<Reverse<(u64, u64, usize)>>,
    /// Each call in flight: its outcome and the `Retry-After` sent with it, ms.
    pending: HashMap<u64, (CallOutcome, Option<u64>)>,
    in_flight: HashMap<usize, u64>,
    retry_not_before: HashMap<usize, u64>,
    log: String,
    cases_logged: usize,
    wake: Option<u64>,
    /// What the answers delivered so far cost (at [`PRICE`]).
    spent: f64,
    /// The run's clock minus the simulation's, ms (a clock jump moves it).
    skew: i64,
    /// Inputs fed to the engine so far.
    inputs: u64,
}

impl Part<'_> {
    /// The run's clock: the simulation's, moved by the jumps so far.
    fn clock(&self) -> u64 {
        self.now.saturating_add_signed(self.skew)
    }

    /// The clock for the next input to the engine; the scenario's jump
    /// happens before its input.
    fn tick(&mut self) -> u64 {
        self.inputs += 1;
        if self.faults {
            if let Some((at, ms)) = self.sc.clock_jump {
                if at == self.inputs {
                    self.skew += ms;
                }
            }
        }
        self.clock()
    }

    fn absorb(&mut self, step: Step<Record>, trace: &mut Trace, resumed: bool) {
        for e in &step.events {
            if matches!(e, Record::Case(_)) {
                self.cases_logged += 1;
            }
            self.log.push_str(&to_jsonl(e));
        }
        for c in step.commands {
            match c {
                Command::Send {
                    case,
                    attempt,
                    messages,
                    ..
                } => {
                    trace.calls += 1;
                    *trace.sends.entry(case).or_default() += 1;
                    if resumed {
                        *trace.resent.entry(case).or_default() += 1;
                    }
                    if self.in_flight.len() >= self.sc.concurrency {
                        trace.broken.push(format!(
                            "case {case} sent with {} calls in flight (cap {})",
                            self.in_flight.len(),
                            self.sc.concurrency
                        ));
                    }
                    if let Some(cap) = self.sc.max_cost.filter(|c| self.spent >= *c) {
                        trace.broken.push(format!(
                            "case {case} sent after the run spent {:.4} of its cap of {cap}",
                            self.spent
                        ));
                    }
                    // by the run's clock (which a jump moves); the pause is
                    // the next send's alone
                    if let Some(t) = self.retry_not_before.remove(&case).as_ref() {
                        if self.clock() < *t {
                            trace.broken.push(format!(
                                "case {case} sent again at {} ms, before its Retry-After ({} ms)",
                                self.clock().saturating_sub(START_MS),
                                t.saturating_sub(START_MS)
                            ));
                        }
                    }
                    let (outcome, after) = self.outcome(case, attempt, &messages);
                    // the pause the endpoint asked for, as it sent it (not as
                    // the core read it)
                    let asked = match self.faults.then(|| self.sc.fault(case, attempt)).flatten() {
                        Some(Fault::RateLimited(Some(s))) => Some(s * 1000),
                        _ => None,
                    };
                    self.seq += 1;
                    self.in_flight.insert(case, self.seq);
                    self.pending.insert(self.seq, (outcome, asked));
                    self.heap.push(Reverse((self.now + after, self.seq, case)));
                }
                Command::Abort { case } => {
                    if let Some(seq) = self.in_flight.remove(&case) {
                        self.pending.remove(&seq);
                    }
                }
            }
        }
        // a wake-up is asked by the run's clock
        self.wake = step
            .wake_at
            .map(|w| w.saturating_add_signed(-self.skew).max(self.now));
    }

    /// What the endpoint does with `case`'s `attempt`, and after how long:
    /// an HTTP answer read by the core's own parser (`parse_response`, as
    /// the shells read theirs), or a transport failure (a hang past the
    /// timeout, a dropped connection) as the shells report them.
    fn outcome(
        &self,
        case: usize,
        attempt: u32,
        messages: &[evalpage_core::ChatMessage],
    ) -> (CallOutcome, u64) {
        let latency = self.sc.latency_ms(case, attempt);
        let fault = if self.faults {
            self.sc.fault(case, attempt)
        } else {
            None
        };
        let http = |status: u16, retry_after: Option<String>, body: &str| {
            (
                parse_response(URL, status, retry_after.as_deref(), body),
                latency,
            )
        };
        let (answer, body) = demo_reply(messages);
        match fault {
            None => http(200, None, &body),
            Some(Fault::Server(s)) => http(s, None, r#"{"error":{"message":"upstream failed"}}"#),
            Some(Fault::RateLimited(after)) => http(
                429,
                after.map(|s| s.to_string()),
                r#"{"error":{"message":"Rate limit reached","type":"rate_limit_exceeded"}}"#,
            ),
            Some(Fault::Hang) => {
                let mut e = CallError::new(ErrorKind::Timeout, "no answer".to_string());
                e.timeout = true;
                (CallOutcome::Failed(e), self.sc.timeout_ms)
            }
            Some(Fault::Malformed) => http(200, None, "<html><body>502 Bad Gateway</body></html>"),
            Some(Fault::Truncated) => {
                let mut at = body.len() / 2;
                while !body.is_char_boundary(at) {
                    at -= 1;
                }
                http(200, None, &body[..at])
            }
            Some(Fault::Dropped) => (
                CallOutcome::Failed(CallError::new(
                    ErrorKind::Network,
                    "connection reset".to_string(),
                )),
                latency,
            ),
            Some(Fault::Length) => {
                let cut: String = answer
                    .text
                    .chars()
                    .take(answer.text.chars().count() / 2)
                    .collect();
                let message = json!({"role": "assistant", "content": cut});
                http(200, None, &completion(&answer, message, "length"))
            }
            Some(Fault::ToolCalls) => {
                let message = json!({"role": "assistant", "content": null, "tool_calls": [{
                    "id": "call_1", "type": "function",
                    "function": {"name": "search", "arguments": "{\"q\": \"RAG\"}"},
                }]});
                http(200, None, &completion(&answer, message, "tool_calls"))
            }
            Some(Fault::Reasoning) => {
                let message = json!({"role": "assistant", "content": answer.text,
                    "reasoning_content": "thinking it over"});
                http(200, None, &completion(&answer, message, "stop"))
            }
        }
    }

    /// Runs `engine` until it ends, or until `stop_after` cases are logged
    /// (then: `true`, crashed or cancelled as `cancel` says).
    fn drive(
        &mut self,
        engine: &mut Engine,
        trace: &mut Trace,
        resumed: bool,
        stop_after: Option<usize>,
        cancel: bool,
    ) -> bool {
        let now = self.tick();
        let step = engine.start(now);
        self.absorb(step, trace, resumed);
        for _ in 0..1_000_000 {
            if engine.status() != RunStatus::Running {
                return false;
            }
            if let Some(k) = stop_after {
                if self.cases_logged >= k {
                    if !cancel {
                        return true;
                    }
                    let now = self.tick();
                    let step = engine.handle(Input::Cancel, now);
                    self.absorb(step, trace, resumed);
                    continue;
                }
            }
            let next_call = self.heap.peek().map(|Reverse((t, _, _))| *t);
            match (next_call, self.wake) {
                (Some(t), w) if w.is_none_or(|w| t <= w) => {
                    let Some(Reverse((t, seq, case))) = self.heap.pop() else {
                        break;
                    };
                    self.now = self.now.max(t);
                    let Some((outcome, asked)) = self.pending.remove(&seq) else {
                        continue;
                    };
                    self.in_flight.remove(&case);
                    self.spent += cost(&outcome);
                    let now = self.tick();
                    if let Some(ms) = asked {
                        self.retry_not_before.insert(case, now + ms);
                    }
                    let step = engine.handle(Input::Outcome { case, outcome }, now);
                    self.absorb(step, trace, resumed);
                }
                (_, Some(w)) => {
                    // a wake-up before the next answer
                    self.now = self.now.max(w);
                    let now = self.tick();
                    let step = engine.handle(Input::Tick, now);
                    self.absorb(step, trace, resumed);
                }
                _ => break,
            }
        }
        if engine.status() == RunStatus::Running {
            trace
                .broken
                .push("the run never ended (no call in flight, no wake-up)".into());
        }
        false
    }
}

/// Runs `sc` (with faults, or fault-free) and returns what it did.
pub fn simulate(sc: &Scenario, faults: bool) -> Trace {
    let data = sc.dataset();
    let cases = rag::parse("sim.jsonl", &data).cases;
    simulate_with(sc, &data, &cases, faults, true)
}

/// [`simulate`] of the scenario's dataset (`data`, read into `cases`), the
/// report rendered only when `report` (a second run and the fault-free one
/// need their log and verdicts alone).
fn simulate_with(
    sc: &Scenario,
    data: &[u8],
    cases: &[RagCase],
    faults: bool,
    report: bool,
) -> Trace {
    let mut trace = Trace::default();
    let cases = cases.to_vec();
    let spec = sc.start_spec();
    let mut part = new_part(sc, faults, START_MS);
    let mut engine = match Pipeline::prepare(RagKind::new(sc.config(), cases.clone()), &spec, None)
    {
        Ok((engine, _)) => engine,
        Err(e) => {
            trace.broken.push(format!("the run was refused: {e}"));
            return trace;
        }
    };
    let (stop, cancel) = match (faults, sc.crash_after, sc.cancel_after) {
        (true, Some(k), _) => (Some(k), false),
        (true, None, Some(k)) => (Some(k), true),
        _ => (None, false),
    };
    let crashed = part.drive(&mut engine, &mut trace, false, stop, cancel);
    let (engine, part) = if crashed {
        // the log cut inside its last record (a torn write), then resumed
        let cut = cut_point(sc, &part.log);
        let cut_log = &part.log[..cut];
        let prior = read(cut_log.as_bytes());
        trace.settled_before_crash = prior
            .records
            .iter()
            .filter(|r| r["record_type"] == "case")
            // a case the run did not send (a cancel, a spending cap) is sent
            // by the resume: only an answered or failed case is settled
            .filter(|r| {
                !matches!(
                    r["error_detail"]["kind"].as_str(),
                    Some("not_run" | "cancelled")
                )
            })
            .filter_map(|r| r["case_id"].as_str().map(str::to_string))
            .collect();
        let (mut resumed, _) =
            match Pipeline::prepare(RagKind::new(sc.config(), cases), &spec, Some(&prior)) {
                Ok(x) => x,
                Err(e) => {
                    trace.broken.push(format!("the resume was refused: {e}"));
                    return trace;
                }
            };
        let mut again = new_part(sc, faults, part.now + 5_000);
        again.drive(&mut resumed, &mut trace, true, None, false);
        (resumed, again)
    } else {
        (engine, part)
    };
    trace.simulated_ms = part.now - START_MS;
    let end = RunEnd {
        version: "sim".into(),
        metadata: None,
        ended_at_ms: part.now,
        prices: Default::default(),
    };
    if report {
        match finish(&engine, data.to_vec(), &end) {
            Ok(ended) => {
                let report = ended
                    .files
                    .iter()
                    .find(|(name, _)| name.as_str() == RagKind::NAMES.report)
                    .and_then(|(_, t)| serde_json::from_str(t).ok());
                match report {
                    Some(r) => trace.report = r,
                    None => trace.broken.push("the run wrote no report".into()),
                }
            }
            Err(e) => trace
                .broken
                .push(format!("the report could not be rendered: {e}")),
        }
    }
    for r in engine.results().iter().flatten() {
        trace
            .verdicts
            .insert(r.case_id.clone(), (r.accuracy.clone(), r.citation.clone()));
        trace.answers.insert(
            r.case_id.clone(),
            r.error.is_none().then(|| r.answer.clone()).flatten(),
        );
    }
    trace.log = part.log;
    trace
}

fn new_part(sc: &Scenario, faults: bool, now: u64) -> Part<'_> {
    Part {
        sc,
        faults,
        now,
        seq: 0,
        heap: BinaryHeap::new(),
        pending: HashMap::new(),
        in_flight: HashMap::new(),
        retry_not_before: HashMap::new(),
        log: String::new(),
        cases_logged: 0,
        wake: None,
        spent: 0.0,
        skew: 0,
        inputs: 0,
    }
}

/// Where the log is cut: a byte inside its last record (a torn write), or
/// at its end, as the seed says.
fn cut_point(sc: &Scenario, log: &str) -> usize {
    let last = log.trim_end_matches('\n').rfind('\n').map_or(0, |i| i + 1);
    let span = (log.len() - last) as u64;
    let mut at = last + (draw(sc.seed, 0, 0, 14) % (span + 1)) as usize;
    while !log.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// The invariants of a seed's run: each broken one, said.
pub fn check(sc: &Scenario, run: &Trace, clean: &Trace, again: &Trace) -> Vec<String> {
    let mut out = run.broken.clone();
    let ids: Vec<String> = (0..sc.cases).map(|i| format!("c{i:04}")).collect();
    // every case settled exactly once in the final log
    let log = read(run.log.as_bytes());
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for r in &log.records {
        if r["record_type"] == "case" {
            let id = r["case_id"].as_str().unwrap_or_default().to_string();
            *seen.entry(id).or_default() += 1;
        }
    }
    for id in &ids {
        match seen.get(id) {
            Some(1) => {}
            Some(n) => out.push(format!("case {id} settled {n} times in the log")),
            None => out.push(format!("case {id} lost: no case record")),
        }
    }
    if seen.len() > ids.len() {
        out.push(format!(
            "{} case records of unknown cases",
            seen.len() - ids.len()
        ));
    }
    // and in the report
    match run.report["metrics"]["cases"].as_u64() {
        Some(t) if t as usize == sc.cases => {}
        Some(t) => out.push(format!("the report counts {t} cases of {}", sc.cases)),
        None => out.push("the report has no metrics.cases".into()),
    }
    // every rate over every case, failed calls included; the failed calls
    // are the log's cases without an answer
    let m = &run.report["metrics"];
    for (rate, count) in [
        ("pass_rate", "passed_cases"),
        ("accuracy", "accurate_cases"),
        ("citation_rate", "cited_cases"),
    ] {
        let (Some(r), Some(k)) = (m[rate].as_f64(), m[count].as_u64()) else {
            out.push(format!(
                "the report has no metrics.{rate} or metrics.{count}"
            ));
            continue;
        };
        let want = if sc.cases == 0 {
            0.0
        } else {
            k as f64 / sc.cases as f64
        };
        if (r - want).abs() > 1e-9 {
            out.push(format!(
                "metrics.{rate} is {r}, not {count} over all {} cases ({want})",
                sc.cases
            ));
        }
    }
    let unanswered = log
        .of_type("case")
        .filter(|r| r["llm_call_ok"] == false)
        .count();
    if m["failed_calls"].as_u64() != Some(unanswered as u64) {
        out.push(format!(
            "metrics.failed_calls is {}, the log has {unanswered} cases without an answer",
            m["failed_calls"]
        ));
    }
    // a case settled before the crash is never sent again
    for id in &run.settled_before_crash {
        if let Some(i) = ids.iter().position(|x| x == id) {
            if let Some(n) = run.resent.get(&i) {
                out.push(format!(
                    "case {id} settled before the crash and sent {n} times after"
                ));
            }
        }
    }
    // requests never more than the attempts (a crash may start a case over once)
    let parts = 1 + u32::from(sc.crash_after.is_some());
    for (case, n) in &run.sends {
        if *n > sc.max_attempts * parts {
            out.push(format!(
                "case {case} sent {n} times (at most {} attempts)",
                sc.max_attempts * parts
            ));
        }
    }
    // verdicts equal to the fault-free run's wherever the answer was the same
    for (id, answer) in &run.answers {
        if answer.is_some()
            && clean.answers.get(id) == Some(answer)
            && clean.verdicts.get(id) != run.verdicts.get(id)
        {
            out.push(format!(
                "case {id}: the same answer scored differently than without faults"
            ));
        }
    }
    // the log reconciles with the report
    let rec = reconcile(&run.report, &log);
    if !rec.ok {
        let bad: Vec<String> = rec
            .checks
            .iter()
            .filter(|c| !c.ok)
            .map(|c| format!("{}: report {} log {}", c.name, c.report, c.log))
            .collect();
        out.push(format!(
            "the log does not reconcile with the report: {}",
            bad.join("; ")
        ));
    }
    // deterministic
    if sha256_hex(run.log.as_bytes()) != sha256_hex(again.log.as_bytes()) {
        out.push("the same seed gave another event log".into());
    }
    out
}

/// Runs one seed: the faulty run (twice, for determinism) and the
/// fault-free one; the broken invariants, and the simulated time and calls.
pub fn run_seed(seed: u64) -> (Scenario, Vec<String>, u64, u64) {
    let sc = Scenario::of(seed);
    let data = sc.dataset();
    let cases = rag::parse("sim.jsonl", &data).cases;
    let run = simulate_with(&sc, &data, &cases, true, true);
    let again = simulate_with(&sc, &data, &cases, true, false);
    let clean = simulate_with(&sc, &data, &cases, false, false);
    let broken = check(&sc, &run, &clean, &again);
    (
        sc,
        broken,
        run.simulated_ms + again.simulated_ms + clean.simulated_ms,
        run.calls + again.calls + clean.calls,
    )
}
