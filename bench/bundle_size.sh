#!/usr/bin/env bash
# Prints the raw and gzipped size of the release bundle (wasm + js + css) in dist/.
# Build first: `trunk build --release --offline` (scripts/serve.sh and scripts/test.sh do).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIST="${1:-$ROOT/dist}"
total_raw=0; total_gz=0
printf '%-48s %10s %10s\n' file raw gzip
for f in "$DIST"/*.wasm "$DIST"/*.js "$DIST"/*.css; do
  [ -e "$f" ] || continue
  raw=$(stat -c %s "$f"); gz=$(gzip -9 -c "$f" | wc -c)
  total_raw=$((total_raw + raw)); total_gz=$((total_gz + gz))
  printf '%-48s %10d %10d\n' "$(basename "$f")" "$raw" "$gz"
done
printf '%-48s %10d %10d\n' TOTAL "$total_raw" "$total_gz"
printf 'bundle: %.1f KB raw, %.1f KB gzipped\n' "$(echo "$total_raw/1024" | bc -l)" "$(echo "$total_gz/1024" | bc -l)"
