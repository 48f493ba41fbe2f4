//! `cargo run --profile sim -p evalpage-sim -- --seeds N --first S` (the
//! `sim` profile is the release one built for speed; `--release` runs the
//! same at about half the speed, built for size as the page is): runs seeds
//! S to S+N-1 (see the crate's docs) and ends with one line
//! `N seeds, F failures, R seeds/s, Cx simulated time`; each failing seed is
//! printed with its scenario and the command that replays it. Exit 1 on any
//! failure, 2 on bad arguments.

use std::process::ExitCode;

/// The simulator allocates per event as the core does; mimalloc serves
/// those many small allocations faster than the system allocator (the core's
/// code is the same, only the harness' allocator differs).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;
use std::time::Instant;

fn arg(args: &[String], name: &str, default: u64) -> Result<u64, String> {
    match args.iter().position(|a| a == name) {
        None => Ok(default),
        Some(i) => args
            .get(i + 1)
            .and_then(|v| v.replace('_', "").parse().ok())
            .ok_or_else(|| format!("{name} takes a number")),
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(bad) = args
        .iter()
        .enumerate()
        .find(|(i, a)| i % 2 == 0 && !matches!(a.as_str(), "--seeds" | "--first"))
    {
        eprintln!(
            "evalpage-sim: unknown argument {}; usage: evalpage-sim [--seeds N] [--first S]",
            bad.1
        );
        return ExitCode::from(2);
    }
    let (n, first) = match (arg(&args, "--seeds", 1000), arg(&args, "--first", 0)) {
        (Ok(n), Ok(f)) => (n, f),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("evalpage-sim: {e}");
            return ExitCode::from(2);
        }
    };
    let started = Instant::now();
    let (mut failures, mut simulated_ms, mut calls) = (0u64, 0u64, 0u64);
    // a panic is the seed's failure, said with its replay, and the seeds go on
    std::panic::set_hook(Box::new(|_| {}));
    for seed in first..first + n {
        let (sc, broken, ms, c) = match std::panic::catch_unwind(|| evalpage_sim::run_seed(seed)) {
            Ok(x) => x,
            Err(p) => {
                let what = p
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                (
                    evalpage_sim::Scenario::of(seed),
                    vec![format!("the core panicked: {what}")],
                    0,
                    0,
                )
            }
        };
        simulated_ms += ms;
        calls += c;
        if !broken.is_empty() {
            failures += 1;
            println!("FAIL {}", sc.describe());
            for b in &broken {
                println!("  - {b}");
            }
        }
    }
    let secs = started.elapsed().as_secs_f64().max(1e-9);
    println!(
        "{n} seeds, {failures} failures, {:.0} seeds/s, {:.0}x simulated time ({calls} calls)",
        n as f64 / secs,
        simulated_ms as f64 / 1000.0 / secs
    );
    if failures > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
