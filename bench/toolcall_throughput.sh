#!/usr/bin/env bash
# Tool-call verdicts per second on one core (issue 41): BFCL's checker and
# tool_call_f1 over the 4,524 answers of the BFCL parity fixture, natively
# (evalpage-toolcall-bench, release). Prints one line per scorer. Measures
# only, asserts nothing. ROUNDS (default 200) sets how many times each answer
# is scored.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
cargo build --quiet --release -p evalpage-cli --bin evalpage-toolcall-bench
# cargo's target directory (CARGO_TARGET_DIR, when set, moves it)
TARGET="$(cargo metadata --format-version 1 --no-deps --offline | sed 's/.*"target_directory":"\([^"]*\)".*/\1/')"
"$TARGET/release/evalpage-toolcall-bench" "$ROOT/crates/core/tests/data/bfcl" "${ROUNDS:-200}"
