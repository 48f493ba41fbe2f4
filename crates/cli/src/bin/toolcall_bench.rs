//! Tool-call verdicts per second on one core (issue 41): BFCL's checker
//! (`evalpage_core::bfcl_check`) over every answer of the BFCL parity fixture
//! (`crates/core/tests/data/bfcl`: 4,524 answers over 11 categories), the
//! entries' declarations and possible answers read once, each answer's
//! arguments parsed in every verdict (as scoring a fresh answer does), round
//! after round on this thread; then `tool_call_f1` over the same call lists.
//!
//! Usage: `evalpage-toolcall-bench [DIR] [ROUNDS]` (default the fixture, 200
//! rounds). Build it in release mode (`bench/toolcall_throughput.sh` does).
//! It measures and prints; it asserts nothing about timings.

use evalpage_core::BfclCategory;
use evalpage_core::{bfcl_check, read_bfcl, read_tool_answer, tool_call_f1, ArgsMode, Call, Py};
use serde_json::Value;
use std::collections::HashMap;
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

struct Case {
    category: BfclCategory,
    functions: Vec<Py>,
    possible: Py,
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
        cases.push(Case {
            category: BfclCategory::from_name(&e.category)?,
            functions: e.functions_py(),
            possible: e
                .ground_truth
                .as_ref()
                .map(Py::from_json)
                .unwrap_or(Py::List(Vec::new())),
            calls: read_tool_answer(&a["response"], "response")?.calls,
        });
    }
    eprintln!("{} answers, {rounds} rounds, one thread", cases.len());
    let started = Instant::now();
    let mut valid = 0usize;
    for _ in 0..rounds {
        for c in &cases {
            let v = bfcl_check(
                c.category,
                black_box(&c.functions),
                black_box(c.calls.as_deref()),
                &c.possible,
            );
            valid += usize::from(v.valid);
        }
    }
    let n = rounds * cases.len();
    let s = started.elapsed().as_secs_f64();
    println!(
        "tool_call (BFCL checker): {n} verdicts in {s:.3} s = {:.0} verdicts/s ({valid} valid)",
        n as f64 / s
    );
    // reading the arguments alone (JSON as Python reads it), part of every verdict
    let started = Instant::now();
    let mut parsed = 0usize;
    for _ in 0..rounds {
        for c in &cases {
            for call in c.calls.iter().flatten() {
                parsed += usize::from(black_box(call.arguments_py()).is_ok());
            }
        }
    }
    let s = started.elapsed().as_secs_f64();
    println!("  of which reading the arguments: {s:.3} s ({parsed} argument objects)");
    // the answers BFCL accepts alone: the cost of a verdict without a failure to explain
    let right: Vec<&Case> = cases
        .iter()
        .filter(|c| bfcl_check(c.category, &c.functions, c.calls.as_deref(), &c.possible).valid)
        .collect();
    let started = Instant::now();
    let mut still = 0usize;
    for _ in 0..rounds {
        for c in &right {
            let v = bfcl_check(
                c.category,
                black_box(&c.functions),
                black_box(c.calls.as_deref()),
                &c.possible,
            );
            still += usize::from(v.valid);
        }
    }
    let m = rounds * right.len();
    let s = started.elapsed().as_secs_f64();
    println!(
        "tool_call, right answers only: {m} verdicts in {s:.3} s = {:.0} verdicts/s ({still} valid)",
        m as f64 / s
    );
    // tool_call_f1: each answer's calls against the right answer's calls of its entry
    let started = Instant::now();
    let mut sum = 0.0;
    for _ in 0..rounds {
        for (i, c) in cases.iter().enumerate() {
            let made = c.calls.as_deref().unwrap_or_default();
            let expected = cases[i.saturating_sub(1)]
                .calls
                .as_deref()
                .unwrap_or_default();
            sum += tool_call_f1(black_box(expected), black_box(made), ArgsMode::Exact).f1;
        }
    }
    let s = started.elapsed().as_secs_f64();
    println!(
        "tool_call_f1 (exact): {n} scores in {s:.3} s = {:.0} scores/s (checksum {sum:.1})",
        n as f64 / s
    );
    Ok(())
}
