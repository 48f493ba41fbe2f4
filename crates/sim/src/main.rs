//! `cargo run --profile sim -p evalpage-sim -- --seeds N --first S` (the
//! `sim` profile is the release one with unwinding panics, so that a seed
//! whose run panics is a failure said with its replay): runs seeds
//! S to S+N-1 (see the crate's docs) and ends with one line
//! `N seeds, F failures, R seeds/s, Cx simulated time` (the simulated time
//! over the process's CPU time, as issue 44 sets it; then, in brackets, over
//! the wall-clock time and the calls made); each failing seed is
//! printed with its scenario and the command that replays it. Exit 1 on any
//! failure, 2 on bad arguments.

use std::process::ExitCode;

/// The simulator allocates per event as the core does; mimalloc serves
/// those many small allocations faster than the system allocator (the core's
/// code is the same, only the harness' allocator differs).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;
use std::time::Instant;

/// mimalloc's `mi_option_purge_delay` (its `mimalloc.h`, v3: the option after
/// the deprecated `mi_option_eager_commit_delay`, 14, which the Rust bindings
/// name; they do not name this one). Its default is 1000 ms (`options.c`).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Keeps the memory mimalloc frees instead of giving it back to the system:
/// a seed's runs free what the next seed's allocate again, and given back
/// (a second after it was freed, by default) it came back through page faults
/// that zero it, huge pages of 2 MiB where the kernel makes them: about 8 %
/// of the time in a profile, 10 to 20 % more seeds a second without it
/// (docs/BENCHMARKS.md). The simulator is one process that ends.
fn keep_freed_memory() {
    // SAFETY: sets one of mimalloc's options, a plain integer it reads when it
    // next considers purging; no memory is touched.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, -1) }
}

/// The CPU time this process has used so far (user and system, all its
/// threads: the simulator runs on one), in seconds; `None` where
/// `getrusage` fails.
fn cpu_seconds() -> Option<f64> {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage writes a whole `rusage` into the memory given, which
    // is one, and says by its return value whether it did.
    let ok = unsafe { libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr()) } == 0;
    // SAFETY: zeroed is a valid `rusage` (plain integers), written over when ok
    let u = unsafe { usage.assume_init() };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    ok.then(|| secs(u.ru_utime) + secs(u.ru_stime))
}

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
    keep_freed_memory();
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
    let cpu_started = cpu_seconds();
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
    // over CPU time, as issue 44 measures it (a VM's other work or a second
    // process on the core does not count); over the wall clock where the
    // CPU time cannot be read
    let cpu = match (cpu_started, cpu_seconds()) {
        (Some(a), Some(b)) if b > a => b - a,
        _ => secs,
    };
    let simulated = simulated_ms as f64 / 1000.0;
    // the seconds too, so that runs side by side can be summed (scripts/test.sh)
    println!(
        "{n} seeds, {failures} failures, {:.0} seeds/s, {:.0}x simulated time ({:.0}x over the wall clock, {calls} calls, {simulated:.0} s simulated in {cpu:.2} s of CPU time)",
        n as f64 / secs,
        simulated / cpu,
        simulated / secs
    );
    if failures > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

#[cfg(test)]
mod tests {
    use super::MI_OPTION_PURGE_DELAY;

    #[test]
    fn the_option_set_is_mimallocs_purge_delay() {
        // SAFETY: reads one of mimalloc's options.
        let delay = unsafe { libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY) };
        // its default (options.c: 1000 ms), and its neighbours' (the
        // deprecated eager commit delay, 1; the NUMA nodes, 0)
        assert_eq!(delay, 1000);
        let (before, after) = unsafe {
            (
                libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY - 1),
                libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY + 1),
            )
        };
        assert_eq!((before, after), (1, 0));
    }
}
