#!/usr/bin/env bash
# Runner overhead: `evalpage run` and the page in headless Chromium against
# `evalpage mock-server --latency-ms 50`, N cases (default 500) at concurrency C
# (default 16). Prints wall time / ideal, where ideal = N x 0.05 / C for the CLI and
# N x 0.05 / min(C, 6) for the browser (6 HTTP/1.1 connections per origin).
# Needs the release builds: scripts/test.sh makes them, or
#   cargo build --release -p evalpage-cli && trunk build --release --offline
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
N="${N:-500}"; C="${C:-16}"; LATENCY_MS=50
BIN="$ROOT/target/release/evalpage"
WORK="$(mktemp -d)"; trap 'kill $MOCK_PID 2>/dev/null || true; rm -rf "$WORK"' EXIT
python3 - "$ROOT/www/demo/demo_dataset.jsonl" "$N" > "$WORK/bench.jsonl" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8") if l.strip()]
for i in range(int(sys.argv[2])):
    r = dict(rows[i % len(rows)]); r["id"] = f"B{i+1}"
    print(json.dumps(r, ensure_ascii=False))
PY
"$BIN" mock-server --port 0 --latency-ms "$LATENCY_MS" > "$WORK/mock.out" &
MOCK_PID=$!
for _ in $(seq 100); do grep -q listening "$WORK/mock.out" && break; sleep 0.05; done
URL="$(grep -o 'http://[^ ]*' "$WORK/mock.out")"

start=$(date +%s.%N)
"$BIN" run --dataset "$WORK/bench.jsonl" --endpoint "$URL" --model evalpage-demo --concurrency "$C" --out "$WORK/out" > /dev/null
end=$(date +%s.%N)
python3 - "$start" "$end" "$N" "$C" "$LATENCY_MS" <<'PY'
import sys
s, e, n, c, l = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
ideal = n * l / 1000 / c
print(f"cli:     {n} cases, concurrency {c}, wall {e-s:.2f} s, ideal {ideal:.2f} s, ratio {(e-s)/ideal:.2f}")
PY
node "$ROOT/bench/browser_overhead.mjs" "$URL" "$WORK/bench.jsonl" "$N" "$C" "$LATENCY_MS"
