#!/usr/bin/env bash
# Soak: N cases (default 2000, the demo dataset cycled with unique ids) against
# `evalpage mock-server --fail-rate 0.10 --rate-limit-rate 0.10 --hang-rate 0.05
# --seed 7` (500s, 429s with Retry-After: 1, and hangs of 120 s), first with
# `evalpage run --concurrency 16 --timeout-s 2 --max-attempts 4`, then in headless
# Chromium with the same settings (bench/browser_soak.mjs). After each run:
# `evalpage reconcile`, then checks that every case id is in eval_rag_report.json's scores
# exactly once per metric and exactly once as a `case` record, that each case is ok
# or failed with error_detail; prints cases, attempts, failures by kind and wall time.
# Each run is bounded (LIMIT_S, default 600 s); the mock servers are killed on exit.
# Needs the release builds: cargo build --release -p evalpage-cli && trunk build --release --offline
# Knobs: N, C, TIMEOUT_S, MAX_ATTEMPTS, SEED, LIMIT_S, SKIP_BROWSER=1, KEEP=1 (keep the work dir).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
N="${N:-2000}"; C="${C:-16}"; TIMEOUT_S="${TIMEOUT_S:-2}"; MAX_ATTEMPTS="${MAX_ATTEMPTS:-4}"
SEED="${SEED:-7}"; LIMIT_S="${LIMIT_S:-600}"
FAULTS=(--fail-rate 0.10 --rate-limit-rate 0.10 --hang-rate 0.05 --seed "$SEED")
BIN="$ROOT/target/release/evalpage"
CHECK=(node "$ROOT/bench/browser_soak.mjs")
[ -x "$BIN" ] || { echo "soak: $BIN missing: cargo build --release -p evalpage-cli" >&2; exit 1; }
WORK="$(mktemp -d "${TMPDIR:-/tmp}/evalpage-soak.XXXXXX")"
MOCK_PIDS=()
cleanup() {
  for p in "${MOCK_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  if [ "${KEEP:-0}" = 1 ]; then echo "soak: kept $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

python3 - "$ROOT/www/demo/demo_dataset.jsonl" "$N" > "$WORK/soak.jsonl" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8") if l.strip()]
for i in range(int(sys.argv[2])):
    r = dict(rows[i % len(rows)]); r["id"] = f"S{i+1:05d}"
    print(json.dumps(r, ensure_ascii=False))
PY

# Starts a mock-server with the faults, logging one line per request to $1; sets URL.
start_mock() {
  "$BIN" mock-server --port 0 "${FAULTS[@]}" --log > "$WORK/$1.out" 2> "$WORK/$1.log" &
  MOCK_PIDS+=($!)
  for _ in $(seq 200); do grep -q listening "$WORK/$1.out" && break; sleep 0.05; done
  URL="$(grep -o 'http://[^ ]*' "$WORK/$1.out")" || { echo "soak: mock-server did not start" >&2; exit 1; }
}
now() { date +%s.%N; }
status=0
echo "soak: $N cases, concurrency $C, timeout $TIMEOUT_S s, max attempts $MAX_ATTEMPTS, mock ${FAULTS[*]} (hangs last 120 s)"

# --- CLI ---
start_mock mock-cli
t0=$(now)
set +e
timeout -k 5 "$LIMIT_S" "$BIN" run --dataset "$WORK/soak.jsonl" --endpoint "$URL" --model evalpage-demo \
  --concurrency "$C" --timeout-s "$TIMEOUT_S" --max-attempts "$MAX_ATTEMPTS" --lang en --out "$WORK/cli" \
  > "$WORK/cli.stdout" 2> "$WORK/cli.stderr"
rc=$?
set -e
wall=$(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.2f}')" "$t0" "$(now)")
kill "${MOCK_PIDS[0]}" 2>/dev/null || true
if [ "$rc" != 0 ]; then
  echo "cli: evalpage run exited $rc after $wall s (124 = over LIMIT_S=$LIMIT_S)"; tail -3 "$WORK/cli.stderr"; status=1
else
  if "$BIN" reconcile --report "$WORK/cli/eval_rag_report.json" --events "$WORK/cli/eval_rag_report.events.json-seq" > "$WORK/cli.reconcile" 2>&1; then
    echo "cli: reconcile ok"
  else
    echo "cli: RECONCILE FAILED"; cat "$WORK/cli.reconcile"; status=1
  fi
  "${CHECK[@]}" check cli "$WORK/soak.jsonl" "$WORK/cli" "$wall" "$WORK/mock-cli.log" || status=1
fi

# --- browser ---
if [ "${SKIP_BROWSER:-0}" != 1 ]; then
  start_mock mock-browser
  set +e
  timeout -k 10 "$((LIMIT_S + 120))" "${CHECK[@]}" run "$URL" "$WORK/soak.jsonl" "$WORK/browser" \
    "$C" "$TIMEOUT_S" "$MAX_ATTEMPTS" "$LIMIT_S" "$WORK/mock-browser.log"
  rc=$?
  set -e
  [ "$rc" = 0 ] || status=1
  if [ -f "$WORK/browser/eval_rag_report.json" ]; then
    if "$BIN" reconcile --report "$WORK/browser/eval_rag_report.json" --events "$WORK/browser/eval_rag_report.events.json-seq" > "$WORK/browser.reconcile" 2>&1; then
      echo "browser: reconcile ok"
    else
      echo "browser: RECONCILE FAILED"; cat "$WORK/browser.reconcile"; status=1
    fi
  fi
fi
[ "$status" = 0 ] && echo "soak: all checks passed" || echo "soak: SOME CHECKS FAILED"
exit "$status"
