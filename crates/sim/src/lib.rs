//! A seeded simulator of evalpage runs (issue 44): the real core (the one run
//! engine, `Pipeline`, over one of five kinds: the RAG check, a task asked of
//! several models, a retrieval evaluation, spec 001's multi-turn dialogs, an
//! agent task with scripted tools) against a simulated
//! transport and clock, with faults drawn per (seed, case, attempt), never
//! from arrival order; time advances only by events, so a minute of back-off
//! costs nothing.
//!
//! One seed expands into a [`Scenario`] (printed by [`Scenario::describe`]):
//! the kind, how many cases (the kind's demo samples, ids made unique),
//! models and repeats (a task's or an agent's samples asked 1 to 3 times),
//! the concurrency (each model's),
//! the attempts and back-off, the call timeout, the fault rate, a spending
//! cap or none, and whether the run crashes (its event log cut at a byte, a
//! torn last record included, then resumed) or is cancelled, after how many
//! settled cases. The endpoint answers HTTP, read by the core's own parser
//! (`parse_response`, as the shells read theirs): the demo model's chat
//! completion, or a fault: 5xx, 429 with and without `Retry-After`, an HTML
//! page, a body cut short, an answer cut at `finish_reason: length`, an
//! answer of tool calls, an answer with reasoning; or the transport fails: a
//! hang past the timeout, a dropped connection. Latencies are drawn the same
//! way (0.4 s to 30 s, log-uniform). The run's clock may jump back or forward.
//!
//! After each seed, [`check`] verifies the invariants: every case settled
//! exactly once in the final log and report, none lost, none doubled; a case
//! settled before a crash never sent again, nor a dialog's settled turn;
//! requests never more than each
//! call's attempts (a dialog's turn, an agent's step); in-flight calls never above the concurrency; no call
//! sent once the run spent its cap; a `Retry-After` always honoured; verdicts equal to the fault-free run's
//! wherever the answer was the same; the log reconciles with the report
//! (spec 000 section 5); the same seed run twice gives the same trace hash.

mod endpoint;
mod kinds;
mod report;
mod run;
mod scenario;

pub use kinds::Simulated;
pub use run::{simulate_kind, Keep, Trace};
pub use scenario::{Fault, Scenario, SimKind, PRICE};

use evalpage_core::dialog::DialogKind;
use evalpage_core::events::reconcile;
use evalpage_core::rag::RagKind;
use evalpage_core::retrieval::RetrievalKind;
use evalpage_core::task::TaskKind;
use run::record_key;
use std::collections::BTreeMap;

/// Runs `sc` (with faults, or fault-free), its report rendered and checked.
pub fn simulate(sc: &Scenario, faults: bool) -> Trace {
    fn one<K: Simulated + Clone>(sc: &Scenario, faults: bool) -> Trace
    where
        K::Record: serde::Serialize,
    {
        simulate_kind(sc, faults, Keep::Everything, &K::build(sc))
    }
    match sc.kind {
        SimKind::Rag => one::<RagKind>(sc, faults),
        SimKind::Task | SimKind::Agent => one::<TaskKind>(sc, faults),
        SimKind::Retrieval => one::<RetrievalKind>(sc, faults),
        SimKind::Dialog => one::<DialogKind>(sc, faults),
    }
}

/// A seed's three runs of its kind, over one build of its dataset: with
/// faults (its files rendered and checked), the same again (for its log's
/// hash), and fault-free (for the verdicts).
fn three_runs<K: Simulated + Clone>(sc: &Scenario) -> [Trace; 3]
where
    K::Record: serde::Serialize,
{
    let built = K::build(sc);
    [
        simulate_kind(sc, true, Keep::Everything, &built),
        simulate_kind(sc, true, Keep::Log, &built),
        simulate_kind(sc, false, Keep::Verdicts, &built),
    ]
}

/// The invariants of a seed's run: each broken one, said.
pub fn check(sc: &Scenario, run: &Trace, clean: &Trace, again: &Trace) -> Vec<String> {
    let mut out = run.broken.clone();
    let ids = &run.keys;
    // every case settled exactly once in the final log
    let log = run.read_log();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for r in &log.records {
        if r["record_type"] == "case" {
            let id = record_key(r).unwrap_or_default();
            *seen.entry(id).or_default() += 1;
        }
    }
    for id in ids {
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
    // and in the report, with its rates over every case (the kind's checks)
    out.extend(run.report_problems.iter().cloned());
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
    // a resumed job starts no more calls than it had left (a dialog's turns
    // the log settled are taken over, never sent again)
    let mut restarted: Vec<_> = run.restarted_calls.iter().collect();
    restarted.sort();
    for (job, n) in restarted {
        if let Some(left) = run
            .calls_left
            .get(job)
            .filter(|left| (*n as usize) > **left)
        {
            let id = ids.get(*job).map_or("?", String::as_str);
            out.push(format!(
                "case {id} started {n} calls after the resume, with {left} left to play"
            ));
        }
    }
    // requests never more than the attempts of each call (a turn of a
    // dialog, a step of an agent's case); a crash may start a call over once
    let parts = 1 + u32::from(sc.crash_after.is_some());
    let mut sends: Vec<_> = run.sends.iter().collect();
    sends.sort();
    for ((case, turn), n) in sends {
        if *n > sc.max_attempts * parts {
            out.push(format!(
                "case {case} call {turn} sent {n} times (at most {} attempts)",
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
    let rec = reconcile(&run.report, log.as_ref());
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
    // deterministic: the same log byte for byte (so the same trace hash)
    if run.log != again.log {
        out.push("the same seed gave another event log".into());
    }
    out
}

/// Runs one seed: the faulty run (twice, for determinism) and the
/// fault-free one; the broken invariants, and the simulated time and calls.
pub fn run_seed(seed: u64) -> (Scenario, Vec<String>, u64, u64) {
    run_scenario(Scenario::of(seed))
}

/// Runs one scenario as [`run_seed`] runs a seed's (a seed's scenario kept
/// as it was drawn when the generator changes).
pub fn run_scenario(sc: Scenario) -> (Scenario, Vec<String>, u64, u64) {
    let [run, again, clean] = match sc.kind {
        SimKind::Rag => three_runs::<RagKind>(&sc),
        SimKind::Task | SimKind::Agent => three_runs::<TaskKind>(&sc),
        SimKind::Retrieval => three_runs::<RetrievalKind>(&sc),
        SimKind::Dialog => three_runs::<DialogKind>(&sc),
    };
    let broken = check(&sc, &run, &clean, &again);
    (
        sc,
        broken,
        run.simulated_ms + again.simulated_ms + clean.simulated_ms,
        run.calls + again.calls + clean.calls,
    )
}
