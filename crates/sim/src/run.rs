//! One seed's run: the real engine of its kind against the simulated
//! endpoint and clock, to its end or to a crash (the log cut, then resumed)
//! or a cancel; what it did is its [`Trace`].

use crate::endpoint::{completion, cost, mock_reply};
use crate::kinds::{Simulated, START_MS, URL};
use crate::report::read_report;
use crate::scenario::{draw, Fault, Scenario};
use evalpage_core::events::{read, to_jsonl, ReadLog};
use evalpage_core::run::{finish, Command, Input, Pipeline, RunEnd, RunStatus, Step};
use evalpage_core::{parse_json_response, parse_response, CallError, CallOutcome, ErrorKind};
use serde_json::json;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, HashMap};

/// What a seed's run did, for the invariants.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    /// The final event log (JSONL; empty for the fault-free run, kept for
    /// its verdicts alone: see [`Keep::Verdicts`]).
    pub log: String,
    /// The final report (the kind's report file, as JSON).
    pub report: serde_json::Value,
    /// Problems of the report the kind found (see `Simulated::check_report`).
    pub report_problems: Vec<String>,
    /// Each job's name in the log, by job number.
    pub keys: Vec<String>,
    /// Each settled job's verdicts (its scores, as JSON), by name.
    pub verdicts: BTreeMap<String, String>,
    /// Each settled job's answer, by name (none when it failed).
    pub answers: BTreeMap<String, Option<String>>,
    /// Sends per call: job and turn (its turn in a dialog, its step in an
    /// agent's case, 0 for a kind that makes one call per job), all parts of
    /// the run.
    pub sends: HashMap<(usize, usize), u32>,
    /// Sends per job after a resume.
    pub resent: HashMap<usize, u32>,
    /// First attempts per job after a resume (calls started again).
    pub restarted_calls: HashMap<usize, u32>,
    /// The calls each job may still start after the resume, where its kind
    /// takes over part of a job (a dialog's settled turns).
    pub calls_left: HashMap<usize, usize>,
    /// Jobs settled in the log a crash left (complete records), by name.
    pub settled_before_crash: Vec<String>,
    /// Broken invariants seen while running.
    pub broken: Vec<String>,
    /// Simulated time, ms.
    pub simulated_ms: u64,
    /// Calls sent.
    pub calls: u64,
    /// The final log as read for the report's checks, with the text it was
    /// read from (the invariants read `log` again unless it is that text).
    pub read: Option<(String, ReadLog)>,
}

impl Trace {
    /// The final log, read: the copy read for the report's checks when
    /// `log` is still the text it was read from.
    pub fn read_log(&self) -> std::borrow::Cow<'_, ReadLog> {
        match &self.read {
            Some((text, log)) if *text == self.log => std::borrow::Cow::Borrowed(log),
            _ => std::borrow::Cow::Owned(read(self.log.as_bytes())),
        }
    }
}

/// One part of a run (before a crash, or to its end).
struct Part<'a, K: Simulated>
where
    K::Record: serde::Serialize,
{
    sc: &'a Scenario,
    faults: bool,
    now: u64,
    seq: u64,
    heap: BinaryHeap<Reverse<(u64, u64, usize)>>,
    /// Each call in flight: its outcome and the `Retry-After` sent with it, ms.
    pending: HashMap<u64, (CallOutcome, Option<u64>)>,
    /// Each job in flight: its call's number and pool.
    in_flight: HashMap<usize, (u64, usize)>,
    retry_not_before: HashMap<usize, u64>,
    log: String,
    /// Whether the records are written to `log` (a run whose log nothing
    /// reads, the fault-free one, leaves it empty).
    write_log: bool,
    cases_logged: usize,
    wake: Option<u64>,
    /// What the answers delivered so far cost (at [`PRICE`]).
    spent: f64,
    /// The run's clock minus the simulation's, ms (a clock jump moves it).
    skew: i64,
    /// Inputs fed to the engine so far.
    inputs: u64,
    kind: std::marker::PhantomData<K>,
}

impl<K: Simulated> Part<'_, K>
where
    K::Record: serde::Serialize,
{
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

    fn absorb(
        &mut self,
        engine: &Pipeline<K>,
        step: Step<K::Record>,
        trace: &mut Trace,
        resumed: bool,
    ) {
        for e in step.events.iter().filter(|_| self.write_log) {
            let line = to_jsonl(e);
            if line.starts_with("{\"record_type\":\"case\"") {
                self.cases_logged += 1;
            }
            self.log.push_str(&line);
        }
        for c in step.commands {
            match c {
                Command::Send {
                    case,
                    attempt,
                    messages,
                    pool,
                    body,
                    ..
                } => {
                    trace.calls += 1;
                    let turn = turn_of(&messages);
                    *trace.sends.entry((case, turn)).or_default() += 1;
                    if resumed {
                        *trace.resent.entry(case).or_default() += 1;
                        if attempt == 1 {
                            *trace.restarted_calls.entry(case).or_default() += 1;
                        }
                    }
                    // each model's pool has the run's concurrency
                    let busy = self.in_flight.values().filter(|(_, p)| *p == pool).count();
                    if busy >= self.sc.concurrency {
                        trace.broken.push(format!(
                            "case {case} sent with {busy} calls of its model in flight (cap {})",
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
                    let json = body.is_some();
                    let name = trace.keys.get(case).map_or("", String::as_str);
                    let (outcome, after) =
                        self.outcome(engine, (case, turn, attempt), pool, json, &messages, name);
                    // the pause the endpoint asked for, as it sent it (not as
                    // the core read it)
                    let asked = match self
                        .faults
                        .then(|| self.sc.fault(case, turn, attempt))
                        .flatten()
                    {
                        Some(Fault::RateLimited(Some(s))) => Some(s * 1000),
                        _ => None,
                    };
                    self.seq += 1;
                    self.in_flight.insert(case, (self.seq, pool));
                    self.pending.insert(self.seq, (outcome, asked));
                    self.heap.push(Reverse((self.now + after, self.seq, case)));
                }
                Command::Abort { case } => {
                    if let Some((seq, _)) = self.in_flight.remove(&case) {
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
    /// A call with a JSON body (a search endpoint's) is answered with the
    /// kind's JSON and read by `parse_json_response`; the chat faults (a cut
    /// answer, tool calls, reasoning) do not apply to it.
    fn outcome(
        &self,
        engine: &Pipeline<K>,
        (case, turn, attempt): (usize, usize, u32),
        pool: usize,
        json: bool,
        messages: &[evalpage_core::ChatMessage],
        name: &str,
    ) -> (CallOutcome, u64) {
        let latency = self.sc.latency_ms(case, turn, attempt);
        let fault = if self.faults {
            self.sc.fault(case, turn, attempt)
        } else {
            None
        };
        let http = |status: u16, retry_after: Option<String>, body: &str| {
            let read = if json {
                parse_json_response
            } else {
                parse_response
            };
            (read(URL, status, retry_after.as_deref(), body), latency)
        };
        let reply = mock_reply(engine, (case, name), pool, json, messages);
        let (answer, body) = (&reply.0, &reply.1);
        let fault = fault
            .filter(|f| !json || !matches!(f, Fault::Length | Fault::ToolCalls | Fault::Reasoning));
        match fault {
            None => http(200, None, body),
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
                http(200, None, &completion(answer, message, "length"))
            }
            Some(Fault::ToolCalls) => {
                let message = json!({"role": "assistant", "content": null, "tool_calls": [{
                    "id": "call_1", "type": "function",
                    "function": {"name": "search", "arguments": "{\"q\": \"RAG\"}"},
                }]});
                http(200, None, &completion(answer, message, "tool_calls"))
            }
            Some(Fault::Reasoning) => {
                let message = json!({"role": "assistant", "content": answer.text,
                    "reasoning_content": "thinking it over"});
                http(200, None, &completion(answer, message, "stop"))
            }
        }
    }

    /// Runs `engine` until it ends, or until `stop_after` cases are logged
    /// (then: `true`, crashed or cancelled as `cancel` says).
    fn drive(
        &mut self,
        engine: &mut Pipeline<K>,
        trace: &mut Trace,
        resumed: bool,
        stop_after: Option<usize>,
        cancel: bool,
    ) -> bool {
        let now = self.tick();
        let step = engine.start(now);
        self.absorb(engine, step, trace, resumed);
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
                    self.absorb(engine, step, trace, resumed);
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
                    self.absorb(engine, step, trace, resumed);
                }
                (_, Some(w)) => {
                    // a wake-up before the next answer
                    self.now = self.now.max(w);
                    let now = self.tick();
                    let step = engine.handle(Input::Tick, now);
                    self.absorb(engine, step, trace, resumed);
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

/// What a run keeps of itself for the invariants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    /// Its log, its report (rendered and checked) and its verdicts: the
    /// seed's run with faults.
    Everything,
    /// Its verdicts: the fault-free run (its log is not written).
    Verdicts,
    /// Its log alone: the second run with faults (for determinism).
    Log,
}

/// Runs `sc` with its kind (with faults, or fault-free) and returns what it
/// did, as much as `keep` says. `built` is
/// the kind over the scenario's dataset ([`Simulated::build`]), fresh: each
/// run (and a resume) starts from a copy of it, so a seed's runs read and
/// check its task and dataset once.
pub fn simulate_kind<K: Simulated + Clone>(
    sc: &Scenario,
    faults: bool,
    keep: Keep,
    built: &K,
) -> Trace
where
    K::Record: serde::Serialize,
{
    let mut trace = Trace::default();
    let spec = sc.start_spec();
    let mut part = new_part::<K>(sc, faults, START_MS);
    let mut engine = match Pipeline::prepare(built.clone(), &spec, None) {
        Ok((engine, _)) => engine,
        Err(e) => {
            trace.broken.push(format!("the run was refused: {e}"));
            return trace;
        }
    };
    let jobs = engine.progress().1;
    trace.keys = (0..jobs).map(|j| K::key(&engine, j)).collect();
    let (stop, cancel) = match (faults, sc.crash_after, sc.cancel_after) {
        (true, Some(k), _) => (Some(k), false),
        (true, None, Some(k)) => (Some(k), true),
        _ => (None, false),
    };
    // a crash or a cancel is counted in the log's case records
    part.write_log = keep != Keep::Verdicts || stop.is_some();
    let crashed = part.drive(&mut engine, &mut trace, false, stop, cancel);
    let (engine, part) = if crashed {
        // the log cut inside its last record (a torn write) or before it (a
        // write that failed), then resumed
        let cut = cut_point(sc, &part.log);
        let prior = read(&part.log.as_bytes()[..cut]);
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
            .filter_map(record_key)
            .collect();
        let (mut resumed, _) = match Pipeline::prepare(built.clone(), &spec, Some(&prior)) {
            Ok(x) => x,
            Err(e) => {
                trace.broken.push(format!("the resume was refused: {e}"));
                return trace;
            }
        };
        trace.calls_left = (0..jobs)
            .filter_map(|j| Some((j, K::calls_left(&resumed, j, &prior)?)))
            .collect();
        let mut again = new_part::<K>(sc, faults, part.now + 5_000);
        again.drive(&mut resumed, &mut trace, true, None, false);
        (resumed, again)
    } else {
        (engine, part)
    };
    trace.simulated_ms = part.now - START_MS;
    if keep == Keep::Everything {
        check_files(sc, &engine, jobs, &part, &mut trace);
    }
    if keep != Keep::Log {
        for (key, verdict, answer) in K::verdicts(&engine) {
            trace.verdicts.insert(key.clone(), verdict);
            trace.answers.insert(key, answer);
        }
    }
    trace.log = part.log;
    trace
}

/// Renders the run's files (`run::finish`, as the shells end a run), reads
/// its report back and checks it against the log: what `trace` keeps of it.
fn check_files<K: Simulated>(
    sc: &Scenario,
    engine: &Pipeline<K>,
    jobs: usize,
    part: &Part<'_, K>,
    trace: &mut Trace,
) where
    K::Record: serde::Serialize,
{
    let end = RunEnd {
        version: "sim".into(),
        metadata: None,
        ended_at_ms: part.now,
        prices: Default::default(),
    };
    let ended = match finish(engine, K::inputs(sc), &end) {
        Ok(ended) => ended,
        Err(e) => {
            let e = format!("the report could not be rendered: {e}");
            return trace.broken.push(e);
        }
    };
    let report = ended
        .files
        .iter()
        .find(|(name, _)| name.as_str() == K::NAMES.report)
        .and_then(|(_, t)| read_report(t));
    match report {
        Some(r) => {
            let log = read(part.log.as_bytes());
            trace.report_problems = K::check_report(jobs, &r, &log);
            trace.report = r;
            trace.read = Some((part.log.clone(), log));
        }
        None => trace.broken.push("the run wrote no report".into()),
    }
}

/// A `case` record's job name: its `case_id`, after its `model` when it has
/// one, with its `repeat` when the run asks each case several times.
pub(crate) fn record_key(r: &serde_json::Value) -> Option<String> {
    let id = r["case_id"].as_str()?;
    let key = match r["model"].as_str() {
        Some(m) => format!("{m}/{id}"),
        None => id.to_string(),
    };
    Some(match r["repeat"].as_u64() {
        Some(k) => format!("{key}#{k}"),
        None => key,
    })
}

fn new_part<K: Simulated>(sc: &Scenario, faults: bool, now: u64) -> Part<'_, K>
where
    K::Record: serde::Serialize,
{
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
        write_log: true,
        cases_logged: 0,
        wake: None,
        spent: 0.0,
        skew: 0,
        inputs: 0,
        kind: std::marker::PhantomData,
    }
}

/// Where the log is cut: a byte inside its last record (a torn write), or
/// at its start (a write that failed) or its end, as the seed says.
fn cut_point(sc: &Scenario, log: &str) -> usize {
    let last = log.trim_end_matches('\n').rfind('\n').map_or(0, |i| i + 1);
    let span = (log.len() - last) as u64;
    let mut at = last + (draw(sc.seed, 0, 0, 14) % (span + 1)) as usize;
    while !log.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// A call's turn: the assistant messages its request carries (a dialog's
/// answers so far, an agent's steps so far; 0 for a first call).
fn turn_of(messages: &[evalpage_core::ChatMessage]) -> usize {
    messages.iter().filter(|m| m.role == "assistant").count()
}
