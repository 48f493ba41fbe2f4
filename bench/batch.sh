#!/usr/bin/env bash
# Batch files: `evalpage batch export` and `batch import` of a task over N
# samples (default 100,000; the event_eval demo rows repeated with unique ids)
# for one registry model that is never contacted. The answers file is made
# here from the request lines (a vLLM-shaped output line per request, in
# reverse order, every answer the sample's right JSON). Prints the wall time
# of export and of import, and the lines written.
# Needs the release CLI: cargo build --release -p evalpage-cli
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
N="${N:-100000}"
BIN="$ROOT/target/release/evalpage"
WORK="$(mktemp -d)"; trap 'rm -rf "$WORK"' EXIT
python3 - "$ROOT/www/demo/tasks/event_eval.jsonl" "$N" > "$WORK/data.jsonl" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8") if l.strip()]
for i in range(int(sys.argv[2])):
    r = dict(rows[i % len(rows)]); r["sample_id"] = f"B{i+1}"
    print(json.dumps(r, ensure_ascii=False))
PY
echo '{"models": [{"name": "m", "base_url": "http://127.0.0.1:9/v1"}]}' > "$WORK/registry.json"
cd "$WORK"
t0=$(date +%s.%N)
"$BIN" batch export --task event_eval --dataset data.jsonl --models m --model-registry registry.json --out b > /dev/null
t1=$(date +%s.%N)
python3 - b/round-1 answers.jsonl data.jsonl <<'PY'
import glob, json, sys
truth = {}
for l in open(sys.argv[3], encoding="utf-8"):
    r = json.loads(l)
    truth[r["sample_id"]] = {"sentiment": r["gt_sentiment"], "impact_score": r["gt_impact_score"], "keywords": r["gt_keywords"]}
out = []
for f in sorted(glob.glob(sys.argv[1] + "/*.jsonl")):
    for l in open(f, encoding="utf-8"):
        req = json.loads(l)
        sample = req["custom_id"].rsplit("-", 1)[1]
        body = {"choices": [{"index": 0, "message": {"role": "assistant", "content": json.dumps(truth[sample])}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 300, "completion_tokens": 30, "total_tokens": 330}}
        out.append(json.dumps({"id": "v", "custom_id": req["custom_id"], "response": {"status_code": 200, "request_id": "r", "body": body}, "error": None}))
out.reverse()
open(sys.argv[2], "w").write("\n".join(out) + "\n")
PY
t2=$(date +%s.%N)
"$BIN" batch import b answers.jsonl > /dev/null 2> import.err || { cat import.err; exit 1; }
t3=$(date +%s.%N)
requests=$(cat b/round-1/*.jsonl | wc -l)
files=$(ls b/round-1 | wc -l)
python3 - "$N" "$t0" "$t1" "$t2" "$t3" "$requests" "$files" "$(wc -l < b/results.jsonl)" <<'PY'
import sys
n, t0, t1, t2, t3, req, files, results = sys.argv[1:]
t0, t1, t2, t3 = map(float, (t0, t1, t2, t3))
print(f"batch export: {n} samples -> {req} requests in {files} file(s): {t1 - t0:.2f} s")
print(f"batch import: {req} answers -> {results} results.jsonl lines: {t3 - t2:.2f} s")
PY
