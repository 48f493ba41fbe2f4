#!/usr/bin/env bash
# Runs the end-to-end tests (tests/e2e/*.test.mjs), one `node --test` per file,
# in two lanes at once. The files that run a model inside the page (they keep
# a core busy with the model's threads) run one after another in the first
# lane, never two at once (with threads.test.mjs in the other lane the model
# files slowed by a quarter); every other file waits in a queue, largest first
# (the larger a test file, the longer it runs, roughly), and each lane takes
# the next one when it is free (the first lane too, once its model files are
# done), so the two lanes end together instead of one waiting on the other.
# A third lane made the whole slower (503 s against 442 s to 497 s with two
# fixed lanes: the in-page model's file took 388 s instead of 284 s). Each
# file's output is printed whole when it ends; at the end, how long each file
# took, slowest first, and the wall time. Every file runs even when one fails;
# the exit status is 1 if any failed.
#   bash scripts/e2e.sh                          every file
#   bash scripts/e2e.sh tests/e2e/rag.test.mjs   only these
#   EVALPAGE_E2E_LANES=1 bash scripts/e2e.sh     one file at a time (N: N lanes)
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
LANES="${EVALPAGE_E2E_LANES:-2}"
case "$LANES" in '' | *[!0-9]* | 0) echo "EVALPAGE_E2E_LANES must be a number from 1" >&2; exit 2 ;; esac
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
# The queue of the other files, largest first: one entry per file, taken by
# moving it out, which only one lane can do.
mkdir -p "$WORK/queue" "$WORK/taken"
i=0
for f in $(for f in "${LIGHT[@]}"; do printf '%s %s\n' "$(wc -c < "$f")" "$f"; done | sort -rn | cut -d' ' -f2); do
  printf '%s\n' "$f" > "$WORK/queue/$(printf '%04d' "$i")"
  i=$((i + 1))
done
# next_file LANE: the next file of the queue, taken by this lane; nothing
# when the queue is empty
next_file() {
  local q
  for q in "$WORK"/queue/*; do
    [ -e "$q" ] || return 1
    if mv "$q" "$WORK/taken/$(basename "$q").$1" 2>/dev/null; then
      cat "$WORK/taken/$(basename "$q").$1"
      return 0
    fi
  done
  return 1
}
# run_file LANE FILE: runs one file, its output printed when it ends, its time
# and outcome kept in $WORK
run_file() {
  local t0=$SECONDS out="$WORK/$(basename "$2").log"
  node --test --test-concurrency=1 "$2" > "$out" 2>&1 || echo "$2" >> "$WORK/failed"
  printf '%5ds  %s\n' "$((SECONDS - t0))" "$2" >> "$WORK/times"
  { printf '\n== %s (lane %s, %ss)\n' "$2" "$1" "$((SECONDS - t0))"; cat "$out"; } >&2
}
# lane NAME FILE...: runs the files given in turn, then files of the queue
# until it is empty
lane() {
  local name="$1" f; shift
  for f in "$@"; do run_file "$name" "$f"; done
  while f="$(next_file "$name")"; do run_file "$name" "$f"; done
}
STARTED=$SECONDS
LANE_PIDS=()
lane model "${HEAVY[@]}" &
LANE_PIDS+=($!)
for n in $(seq 2 "$LANES"); do
  lane "$n" &
  LANE_PIDS+=($!)
done
wait "${LANE_PIDS[@]}"
printf '\n== end-to-end time per file (s), slowest first\n' >&2
sort -rn "$WORK/times" >&2
awk '{ s += $1 } END { printf "%5ds  the files one after another (%d files)\n", s, NR }' "$WORK/times" >&2
printf '%5ds  wall time (lanes: %s)\n' "$((SECONDS - STARTED))" "$LANES" >&2
if [ -s "$WORK/failed" ]; then
  printf 'end-to-end files that failed: %s\n' "$(tr '\n' ' ' < "$WORK/failed")" >&2
  exit 1
fi
