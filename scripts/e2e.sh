#!/usr/bin/env bash
# Runs the end-to-end tests (tests/e2e/*.test.mjs), one `node --test` per file,
# in two lanes at once: the files that run a model inside the page (they keep
# both cores busy with the model's threads) one after another in the first
# lane, every other file one after another in the second (with threads.test.mjs
# in the second lane the two model files slowed by a quarter: 632 s against
# 535 s in all). Each file's output is
# printed whole when it ends; at the end, how long each file took, slowest
# first, and the wall time. Every file runs even when one fails; the exit
# status is 1 if any failed.
#   bash scripts/e2e.sh                          every file
#   bash scripts/e2e.sh tests/e2e/rag.test.mjs   only these (in the lanes they belong to)
#   EVALPAGE_E2E_LANES=1 bash scripts/e2e.sh     one file at a time
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
if [ "$#" -gt 0 ]; then FILES=("$@"); else FILES=(tests/e2e/*.test.mjs); fi
HEAVY=() LIGHT=()
for f in "${FILES[@]}"; do
  case "$(basename "$f")" in
    local_model*.test.mjs | threads.test.mjs) HEAVY+=("$f") ;;
    *) LIGHT+=("$f") ;;
  esac
done
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
# lane NAME FILE...: runs the files in turn, each file's output printed when
# it ends, its time and outcome kept in $WORK
lane() {
  local name="$1"; shift
  for f in "$@"; do
    local t0=$SECONDS out="$WORK/$(basename "$f").log"
    node --test --test-concurrency=1 "$f" > "$out" 2>&1 || echo "$f" >> "$WORK/failed"
    printf '%5ds  %s\n' "$((SECONDS - t0))" "$f" >> "$WORK/times"
    { printf '\n== %s (lane %s, %ss)\n' "$f" "$name" "$((SECONDS - t0))"; cat "$out"; } >&2
  done
}
STARTED=$SECONDS
if [ "${EVALPAGE_E2E_LANES:-2}" = 1 ]; then
  lane 1 "${HEAVY[@]}" "${LIGHT[@]}"
else
  lane model "${HEAVY[@]}" &
  MODEL_LANE=$!
  lane rest "${LIGHT[@]}"
  wait "$MODEL_LANE"
fi
printf '\n== end-to-end time per file (s), slowest first\n' >&2
sort -rn "$WORK/times" >&2
awk '{ s += $1 } END { printf "%5ds  the files one after another (%d files)\n", s, NR }' "$WORK/times" >&2
printf '%5ds  wall time (lanes: %s)\n' "$((SECONDS - STARTED))" "${EVALPAGE_E2E_LANES:-2}" >&2
if [ -s "$WORK/failed" ]; then
  printf 'end-to-end files that failed: %s\n' "$(tr '\n' ' ' < "$WORK/failed")" >&2
  exit 1
fi
