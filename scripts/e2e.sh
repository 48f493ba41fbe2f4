#!/usr/bin/env bash
# Runs the end-to-end tests (tests/e2e/*.test.mjs) one file at a time, as
# `node --test --test-concurrency=1 tests/e2e/` would, and says how long each file
# took, slowest first, so the suite's time can be looked at per file. Every file
# runs even when one fails; the exit status is 1 if any failed. Extra arguments
# (e.g. file names) narrow the run: `bash scripts/e2e.sh tests/e2e/rag.test.mjs`.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
if [ "$#" -gt 0 ]; then FILES=("$@"); else FILES=(tests/e2e/*.test.mjs); fi
TIMES="$(mktemp)"; FAILED=()
for f in "${FILES[@]}"; do
  t0=$SECONDS
  node --test --test-concurrency=1 "$f" || FAILED+=("$f")
  printf '%5ds  %s\n' "$((SECONDS - t0))" "$f" >> "$TIMES"
done
printf '\n== end-to-end time per file (s), slowest first\n' >&2
sort -rn "$TIMES" >&2
awk '{ s += $1 } END { printf "%5ds  in all (%d files)\n", s, NR }' "$TIMES" >&2
rm -f "$TIMES"
if [ "${#FAILED[@]}" -gt 0 ]; then
  printf 'end-to-end files that failed: %s\n' "${FAILED[*]}" >&2
  exit 1
fi
