//! Scoring throughput in headless Chromium (issue 3): the Wasm twin of the
//! native `evalpage-score-bench`. Scores synthetic samples
//! (`evalpage_core::task::synthetic`) with each metric type on its own and
//! with all of them together, timed with `performance.now()`, and prints
//! samples per second for each. It measures only; it asserts no timing.
//!
//! Ignored in the normal suite. Run it (bench/score_throughput.sh does):
//! `CHROMEDRIVER=/usr/bin/chromedriver WASM_BINDGEN_TEST_TIMEOUT=1800 cargo test -p evalpage-web
//! --release --target wasm32-unknown-unknown --test wasm_bench -- --include-ignored --nocapture`
//! (this runner ignores `--ignored`). Work is sliced into batches with a yield
//! between them (untimed): chromedriver gives up on a page blocked for 30 s.
//! The sample count is 100,000 unless `EVALPAGE_BENCH_N` is set at build time.

#![cfg(target_arch = "wasm32")]

use evalpage_core::task::Task;
use evalpage_core::testing::{Generator, SyntheticSet};
use gloo_timers::future::TimeoutFuture;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// Samples per round.
fn sample_count() -> usize {
    option_env!("EVALPAGE_BENCH_N")
        .and_then(|n| n.parse().ok())
        .unwrap_or(100_000)
}

/// Milliseconds from `performance.now()`, else `Date.now()`.
fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or_else(js_sys::Date::now, |p| p.now())
}

/// Samples generated and scored per synchronous slice: a multiple of
/// `evalpage_core::testing::CHUNK` (so the work and checksum equal one native round), and
/// small enough that no slice blocks the page near chromedriver's 30 s limit.
const BATCH: usize = 5_000;

/// Times one round over the batches, yielding to the event loop between
/// batches (untimed), and prints its line; returns the round's checksum.
async fn time(label: &str, task: &Task, batches: &[SyntheticSet], parse_only: bool) -> f64 {
    let (mut samples, mut checksum, mut ms) = (0, 0.0, 0.0);
    for set in batches {
        TimeoutFuture::new(0).await;
        let started = now_ms();
        let (n, sum) = if parse_only {
            evalpage_core::testing::parse_round(task, set)
        } else {
            evalpage_core::testing::score_round(task, set)
        };
        ms += now_ms() - started;
        samples += n;
        checksum += sum;
    }
    console_log!(
        "{}",
        evalpage_core::testing::report_line("browser", label, samples, ms / 1000.0)
    );
    checksum
}

#[wasm_bindgen_test]
#[ignore = "benchmark: run with --include-ignored --nocapture (bench/score_throughput.sh)"]
async fn scoring_throughput() {
    let n = sample_count();
    let mut generator = Generator::new(7);
    let mut batches = Vec::new();
    let (mut left, mut ms) = (n, 0.0);
    while left > 0 {
        TimeoutFuture::new(0).await;
        let started = now_ms();
        batches.push(generator.batch(left.min(BATCH)));
        ms += now_ms() - started;
        left -= left.min(BATCH);
    }
    console_log!("generated {n} samples (seed 7) in {:.2} s", ms / 1000.0);
    let all = evalpage_core::testing::task();
    let mut checksum = time("parse_only", &all, &batches, true).await;
    for kind in evalpage_core::testing::metric_types() {
        let task = evalpage_core::testing::task_for(&[kind])
            .expect("every registered type has a synthetic task");
        checksum += time(kind, &task, &batches, false).await;
    }
    checksum += time("all_metrics", &all, &batches, false).await;
    console_log!("checksum {checksum:.6}");
}
