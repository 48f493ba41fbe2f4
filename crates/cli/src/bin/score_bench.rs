//! Scoring throughput, natively (issue 3): scores synthetic samples
//! (`evalpage_core::task::synthetic`) with each metric type on its own and
//! with all of them together, and prints samples per second for each.
//!
//! Usage: `evalpage-score-bench [N] [SEED]` (default 100000 samples, seed 7).
//! Build it in release mode (`bench/score_throughput.sh` does). It measures
//! and prints; it asserts nothing about timings.

use std::hint::black_box;
use std::time::Instant;

/// mimalloc serves the many small allocations of reading and scoring
/// (strings, JSON values) faster than the system allocator: 25 to 30% more
/// tool-call verdicts a second (docs/BENCHMARKS.md).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let n: usize = match args.next() {
        Some(a) => a.parse().map_err(|e| format!("N `{a}`: {e}"))?,
        None => 100_000,
    };
    let seed: u64 = match args.next() {
        Some(a) => a.parse().map_err(|e| format!("SEED `{a}`: {e}"))?,
        None => 7,
    };
    let started = Instant::now();
    let set = evalpage_core::testing::generate(n, seed);
    eprintln!(
        "generated {n} samples (seed {seed}) in {:.2} s",
        started.elapsed().as_secs_f64()
    );
    let mut checksum = 0.0;
    let mut time = |label: &str, task: &evalpage_core::task::Task, parse_only: bool| {
        let started = Instant::now();
        let (samples, sum) = if parse_only {
            evalpage_core::testing::parse_round(black_box(task), black_box(&set))
        } else {
            evalpage_core::testing::score_round(black_box(task), black_box(&set))
        };
        let seconds = started.elapsed().as_secs_f64();
        checksum += black_box(sum);
        println!(
            "{}",
            evalpage_core::testing::report_line("native", label, samples, seconds)
        );
    };
    let all = evalpage_core::testing::task();
    time("parse_only", &all, true);
    for kind in evalpage_core::testing::metric_types() {
        let task = evalpage_core::testing::task_for(&[kind])
            .ok_or_else(|| format!("no synthetic task for metric type {kind}"))?;
        time(kind, &task, false);
    }
    time("all_metrics", &all, false);
    eprintln!("checksum {checksum:.6}");
    Ok(())
}
