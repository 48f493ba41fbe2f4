#!/usr/bin/env bash
# Installs what is missing and runs every test: formatting and lints, native unit
# and integration tests (core, CLI with its mock endpoint, web state), the core's
# purity check, Wasm tests in headless Chromium, then the end-to-end tests in a
# real browser (scripts/e2e.sh, two lanes) against the page (its code optimised
# as release is) and `evalpage mock-server` (the CLI
# the native tests built; and a real
# GGUF model run in the page, fetched once per machine by scripts/test_model.sh;
# the MCP Python SDK for the agent tests' server, by scripts/test_mcp.sh), and
# 10,000 seeds of the simulator (crates/sim).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
. scripts/setup.sh
# each stage says how long the one before it took (where the time goes)
STARTED=$SECONDS; LAST=$SECONDS; LAST_STEP=""
step() {
  [ -n "$LAST_STEP" ] && printf '== took %ss: %s\n' "$((SECONDS - LAST))" "$LAST_STEP" >&2
  LAST=$SECONDS; LAST_STEP="$*"
  printf '\n\033[1m== %s\033[0m (at %ss)\n' "$*" "$((SECONDS - STARTED))" >&2
}

step "format and lints"
cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings

step "core purity: no browser, async runtime or HTTP crates"
# (that the core builds for wasm32 the Wasm tests and the page's build below
# show: both compile it for wasm32 as the page uses it; a build of the core
# alone, with its own features, was 40 s of a fresh clone's run shared with
# no other stage)
if cargo tree -p evalpage-core -e normal --prefix none | grep -E '^(yew|web-sys|js-sys|gloo[a-z-]*|tokio|reqwest|ureq|wasm-bindgen) '; then
  echo "evalpage-core depends on a crate it must not use" >&2; exit 1
fi

step "the MCP Python SDK the agent tests' MCP server runs on (once per machine)"
EVALPAGE_MCP_PYTHON="$(bash scripts/test_mcp.sh)"
export EVALPAGE_MCP_PYTHON

step "native tests"
cargo test --workspace

step "the simulator: 10,000 seeds of the real core against seeded faults (two processes, one per core)"
cargo build -q --profile sim -p evalpage-sim
SIM_LOG="$(mktemp)"
./target/sim/evalpage-sim --seeds 5000 --first 0 > "$SIM_LOG.a" & SIM_A=$!
./target/sim/evalpage-sim --seeds 5000 --first 5000 > "$SIM_LOG.b" & SIM_B=$!
SIM_OK=0
wait "$SIM_A" || SIM_OK=1
wait "$SIM_B" || SIM_OK=1
cat "$SIM_LOG.a" "$SIM_LOG.b"
# the 10,000 seeds' figure: both processes' simulated time over both's CPU time
cat "$SIM_LOG.a" "$SIM_LOG.b" | awk '/ s simulated in / {
    for (i = 1; i <= NF; i++) { if ($i == "simulated" && $(i+1) == "in") { sim += $(i-2); cpu += $(i+2) } }
} END { if (cpu > 0) printf "the 10,000 seeds: %.0fx simulated time over the two processes'"'"' CPU time\n", sim / cpu }'
rm -f "$SIM_LOG" "$SIM_LOG.a" "$SIM_LOG.b"
[ "$SIM_OK" = 0 ] || { echo "the simulator found a failing seed (replay it with the command printed above)" >&2; exit 1; }

step "wasm tests in headless Chromium"
cargo test -p evalpage-web --target wasm32-unknown-unknown

step "the page for the end-to-end tests (they run the CLI the native tests built)"
cargo build -q -p evalpage-cli
# The bundles in the `e2e` profile (Cargo.toml): the page profile's code without its fat
# LTO and wasm-opt, a third of the build time; scripts/serve.sh (trunk --release) builds `page`'s.
# Trunk's own build of index.html's rust link (which scripts/post_build.sh
# replaces) in that profile too, so that it shares the bundles' compiled crates
# instead of compiling the page crate once more in the dev profile.
EVALPAGE_WASM_PROFILE=e2e trunk build --offline --cargo-profile e2e

step "the GGUF model the end-to-end tests run in the page (once per machine)"
EVALPAGE_GGUF="$(bash scripts/test_model.sh)"
export EVALPAGE_GGUF

step "end-to-end tests in Chromium"
bash scripts/e2e.sh
step "all tests passed"
