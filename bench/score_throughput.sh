#!/usr/bin/env bash
# Scoring throughput (issue 3): scores N synthetic samples (default 100000, seed 7;
# evalpage_core::testing, over the core's task::synthetic) with every metric type on its own, reading
# the answers only (parse_only), and with all metrics together; natively
# (evalpage-score-bench, release) and in headless Chromium (tests/wasm_bench.rs,
# the page's Wasm). Prints one line per round: place, round, samples, seconds,
# samples/s. Measures only, asserts nothing.
# PLACES="native browser" (default) selects what runs.
# Both use the profiles as shipped: natively `release` (every crate at opt-level 3),
# in the browser `page` (opt-level "z", the bundles' profile; see Cargo.toml).
# Note: wasm-bindgen-test-runner 0.2.130 ignores `--ignored`; `--include-ignored`
# runs the ignored bench, and `--nocapture` shows its console.log lines.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
N="${N:-100000}"
PLACES="${PLACES:-native browser}"
cd "$ROOT"
LOG="$(mktemp)"; trap 'rm -f "$LOG"' EXIT

if [[ " $PLACES " == *" native "* ]]; then
  cargo build --quiet --release -p evalpage-cli --bin evalpage-score-bench
  "$ROOT/target/release/evalpage-score-bench" "$N" 7
fi

[[ " $PLACES " == *" browser "* ]] || exit 0
# No `cargo test --quiet`: cargo passes it on to the runner, which rejects it.
if ! CHROMEDRIVER="${CHROMEDRIVER:-/usr/bin/chromedriver}" \
  WASM_BINDGEN_TEST_TIMEOUT="${WASM_BINDGEN_TEST_TIMEOUT:-1800}" \
  EVALPAGE_BENCH_N="$N" \
  cargo test -p evalpage-web --profile page --target wasm32-unknown-unknown \
    --test wasm_bench -- --include-ignored --nocapture > "$LOG" 2>&1; then
  cat "$LOG" >&2
  echo "browser bench failed" >&2
  exit 1
fi
grep -E '^browser ' "$LOG"
grep -E '^(generated|checksum) ' "$LOG" >&2
