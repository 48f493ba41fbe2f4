//! Tool-call verdicts per second on one core (issue 41): BFCL's checker
//! (`evalpage_core::BfclChecker`) over every answer of the BFCL parity fixture
//! (`crates/core/tests/data/bfcl`: 4,524 answers over 11 categories), round
//! after round on this thread. Each entry is read once into a checker
//! (declarations indexed, possible answers standardised; that cost is
//! printed apart). Three figures: the verdict with each answer's arguments
//! parsed in it (as scoring a fresh answer does), the parse alone
//! (`bfcl_decode`: JSON read as Python reads it), and the verdict on answers
//! already decoded; then the same on the answers BFCL accepts alone; then
//! `tool_call_f1` over the same call lists.
//!
//! Usage: `evalpage-toolcall-bench [DIR] [ROUNDS]` (default the fixture, 200
//! rounds). Build it in release mode (`bench/toolcall_throughput.sh` does).
//! It measures and prints; it asserts nothing about timings.

use evalpage_core::BfclCategory;
use evalpage_core::{
    bfcl_decode, match_trajectory, read_bfcl, read_tool_answer, tool_call_f1, trajectory_steps,
    ArgsMode, ArgsRules, BfclChecker, Call, ChatMessage, Py, TrajectoryMode,
};
use serde_json::Value;
use std::collections::HashMap;
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

/// mimalloc serves the many small allocations of reading and scoring
/// (strings, JSON values) faster than the system allocator: 25 to 30% more
/// tool-call verdicts a second (docs/BENCHMARKS.md).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

struct Case {
    category: BfclCategory,
    functions: Vec<Py>,
    possible: Py,
    checker: BfclChecker,
    calls: Option<Vec<Call>>,
}

fn main() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let dir = PathBuf::from(args.next().unwrap_or_else(|| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/../core/tests/data/bfcl").to_string()
    }));
    let rounds: usize = match args.next() {
        Some(a) => a.parse().map_err(|e| format!("ROUNDS `{a}`: {e}"))?,
        None => 200,
    };
    let read = |name: &str| {
        std::fs::read_to_string(dir.join(name))
            .map_err(|e| format!("{}: {e}", dir.join(name).display()))
    };
    let mut entries = HashMap::new();
    let listing = std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for f in listing.flatten() {
        let name = f.file_name().to_string_lossy().to_string();
        if !name.starts_with("BFCL_") {
            continue;
        }
        let text = read(&name)?;
        let answers = std::fs::read_to_string(dir.join("possible_answer").join(&name)).ok();
        let r = read_bfcl(&name, &text, answers.as_deref().map(|t| (name.as_str(), t)))?;
        for e in r.entries {
            entries.insert(e.id.clone(), e);
        }
    }
    let mut cases = Vec::new();
    for line in read("answers.jsonl")?.lines() {
        let a: Value = serde_json::from_str(line).map_err(|e| e.to_string())?;
        let id = a["id"].as_str().unwrap_or("");
        let Some(e) = entries.get(id) else { continue };
        let category = BfclCategory::from_name(&e.category)?;
        let functions = e.functions_py();
        let possible = e
            .ground_truth
            .as_ref()
            .map(Py::from_json)
            .unwrap_or(Py::List(Vec::new()));
        cases.push(Case {
            checker: BfclChecker::new(category, &functions, &possible),
            category,
            functions,
            possible,
            calls: read_tool_answer(&a["response"], "response")?.calls,
        });
    }
    eprintln!("{} answers, {rounds} rounds, one thread", cases.len());
    let all: Vec<&Case> = cases.iter().collect();
    let right: Vec<&Case> = cases
        .iter()
        .filter(|c| c.checker.check(c.calls.as_deref()).valid)
        .collect();
    verdicts("tool_call (BFCL checker)", &all, rounds);
    verdicts("tool_call, right answers only", &right, rounds);
    // reading an entry into a checker, once per entry and scorer
    let r = rounds_timed(rounds, cases.len(), || {
        for c in &cases {
            black_box(BfclChecker::new(
                c.category,
                black_box(&c.functions),
                black_box(&c.possible),
            ));
        }
    });
    println!("reading an entry into a checker (once per entry): {r} entries/s");
    // tool_call_f1: each answer's calls against the right answer's calls of its entry
    let mut sum = 0.0;
    let r = rounds_timed(rounds, cases.len(), || {
        for (i, c) in cases.iter().enumerate() {
            let made = c.calls.as_deref().unwrap_or_default();
            let expected = cases[i.saturating_sub(1)]
                .calls
                .as_deref()
                .unwrap_or_default();
            sum += tool_call_f1(black_box(expected), black_box(made), ArgsMode::Exact).f1;
        }
    });
    println!("tool_call_f1 (exact): {r} scores/s (checksum {sum:.1})");
    trajectories(&dir.join("../trajectory"), rounds)
}

/// `trajectory_match` over the 240 pairs of the trajectory parity fixture
/// (`tests/data/trajectory`), in the four modes, exact arguments.
fn trajectories(dir: &std::path::Path, rounds: usize) -> Result<(), String> {
    let text = std::fs::read_to_string(dir.join("cases.jsonl"))
        .map_err(|e| format!("{}: {e}", dir.join("cases.jsonl").display()))?;
    let mut pairs = Vec::new();
    for line in text.lines() {
        let v: Value = serde_json::from_str(line).map_err(|e| e.to_string())?;
        let read = |k: &str| -> Result<Vec<ChatMessage>, String> {
            serde_json::from_value(v[k].clone()).map_err(|e| format!("{k}: {e}"))
        };
        pairs.push((read("outputs")?, read("reference")?));
    }
    let rules = ArgsRules::default();
    let modes = [
        TrajectoryMode::Strict,
        TrajectoryMode::Unordered,
        TrajectoryMode::Subset,
        TrajectoryMode::Superset,
    ];
    let mut matched = 0usize;
    let r = rounds_timed(rounds, pairs.len() * modes.len(), || {
        for (o, reference) in &pairs {
            let (o, reference) = (trajectory_steps(o), trajectory_steps(reference));
            for mode in modes {
                matched +=
                    usize::from(match_trajectory(black_box(&o), &reference, mode, &rules).matched);
            }
        }
    });
    println!(
        "trajectory_match ({} pairs x 4 modes, exact arguments): {r} verdicts/s ({matched} matched)",
        pairs.len()
    );
    Ok(())
}

/// Runs `round` `rounds` times, each timed alone, and says the rate of
/// `per_round` items a second over the median round and over the fastest
/// (this 2-core VM's neighbours slow some rounds two- or threefold).
fn rounds_timed(rounds: usize, per_round: usize, mut round: impl FnMut()) -> String {
    let mut secs: Vec<f64> = (0..rounds.max(1))
        .map(|_| {
            let started = Instant::now();
            round();
            started.elapsed().as_secs_f64()
        })
        .collect();
    secs.sort_by(f64::total_cmp);
    let rate = |s: f64| per_round as f64 / s;
    format!(
        "{:.0} (median round), {:.0} (fastest)",
        rate(secs[secs.len() / 2]),
        rate(secs[0])
    )
}

/// Times the verdicts on `cases`, `rounds` times over: with each answer's
/// arguments parsed in the verdict, the parse alone, and the verdict on
/// answers decoded before the clock starts. Prints the three rates.
fn verdicts(label: &str, cases: &[&Case], rounds: usize) {
    let mut valid = 0usize;
    let whole = rounds_timed(rounds, cases.len(), || {
        for c in cases {
            let v = black_box(&c.checker).check(black_box(c.calls.as_deref()));
            valid += usize::from(v.valid);
        }
    });
    let mut parsed = 0usize;
    let parse = rounds_timed(rounds, cases.len(), || {
        for c in cases {
            parsed += black_box(bfcl_decode(black_box(c.calls.as_deref()))).objects();
        }
    });
    let decoded: Vec<_> = cases
        .iter()
        .map(|c| bfcl_decode(c.calls.as_deref()))
        .collect();
    let mut still = 0usize;
    let verdict = rounds_timed(rounds, cases.len(), || {
        for (c, d) in cases.iter().zip(&decoded) {
            still += usize::from(black_box(&c.checker).check_decoded(black_box(d)).valid);
        }
    });
    println!(
        "{label}: {} answers x {rounds} rounds ({valid} valid)\n  with the arguments parsed: {whole} verdicts/s\n  the arguments parsed alone ({parsed} calls): {parse} answers/s\n  the verdict on decoded answers: {verdict} verdicts/s ({still} valid)",
        cases.len()
    );
}
