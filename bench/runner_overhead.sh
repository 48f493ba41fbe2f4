#!/usr/bin/env bash
# Runner overhead: `evalpage run` and the page in headless Chromium against
# `evalpage mock-server --latency-ms 50`, N cases (default 500) at concurrency C
# (default 16). Prints wall time / ideal, where ideal = N x 0.05 / C for the CLI and
# N x 0.05 / min(C, 6) for the browser (6 HTTP/1.1 connections per origin), and the
# page's time against a bare `fetch` loop of the same requests from the same page
# (bench/browser_overhead.mjs): the runner's own cost.
# CACHE=1 runs both with the response cache on (the CLI's --cache DIR, the page's
# *Reuse answers from earlier runs*): a first run that stores every answer, then a
# second run whose every answer is a hit (its wall time per case is the lookup cost).
# Needs the release builds: scripts/test.sh makes them, or
#   cargo build --release -p evalpage-cli && trunk build --release --offline
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
N="${N:-500}"; C="${C:-16}"; LATENCY_MS=50
BIN="$ROOT/target/release/evalpage"
WORK="$(mktemp -d)"; trap 'kill $MOCK_PID 2>/dev/null || true; rm -rf "$WORK"' EXIT
# With CACHE=1 every question is made unique (the case id appended), so the
# storing run's requests all miss the cache: identical requests share an entry.
python3 - "$ROOT/www/demo/demo_dataset.jsonl" "$N" "${CACHE:-0}" > "$WORK/bench.jsonl" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8") if l.strip()]
for i in range(int(sys.argv[2])):
    r = dict(rows[i % len(rows)]); r["id"] = f"B{i+1}"
    if sys.argv[3] == "1":
        r["q"] = f"{r['q']} ({r['id']})"
    print(json.dumps(r, ensure_ascii=False))
PY
"$BIN" mock-server --port 0 --latency-ms "$LATENCY_MS" > "$WORK/mock.out" &
MOCK_PID=$!
for _ in $(seq 100); do grep -q listening "$WORK/mock.out" && break; sleep 0.05; done
URL="$(grep -o 'http://[^ ]*' "$WORK/mock.out")"

CACHE_ARGS=()
LABEL="cli"
[ "${CACHE:-0}" = 1 ] && CACHE_ARGS=(--cache "$WORK/cache") && LABEL="cli (cache on, storing)"
start=$(date +%s.%N)
"$BIN" run --dataset "$WORK/bench.jsonl" --endpoint "$URL" --model evalpage-demo --concurrency "$C" "${CACHE_ARGS[@]}" --out "$WORK/out" > /dev/null
end=$(date +%s.%N)
python3 - "$start" "$end" "$N" "$C" "$LATENCY_MS" "$LABEL" <<'PY'
import sys
s, e, n, c, l = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
ideal = n * l / 1000 / c
print(f"{sys.argv[6]}: {n} cases, concurrency {c}, wall {e-s:.2f} s, ideal {ideal:.2f} s, ratio {(e-s)/ideal:.2f}")
PY
if [ "${CACHE:-0}" = 1 ]; then
  start=$(date +%s.%N)
  "$BIN" run --dataset "$WORK/bench.jsonl" --endpoint "$URL" --model evalpage-demo --concurrency "$C" "${CACHE_ARGS[@]}" --out "$WORK/out2" > /dev/null
  end=$(date +%s.%N)
  python3 - "$start" "$end" "$N" <<'PY'
import sys
s, e, n = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
print(f"cli (cache on, every answer a hit): {n} cases, wall {e-s:.2f} s, {(e-s)*1000/n:.2f} ms per case, lookup and the run's own work included")
PY
fi
node "$ROOT/bench/browser_overhead.mjs" "$URL" "$WORK/bench.jsonl" "$N" "$C" "$LATENCY_MS"
