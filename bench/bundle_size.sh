#!/usr/bin/env bash
# Prints the raw and gzipped size of the release bundles in dist/: every file, then
# what each page loads (wasm + its wasm-bindgen js + www/init.js + css): the run
# modes' page (evalpage-web: RAG, task, retrieval, dialogs) and the viewer's
# (evalpage-view, `?mode=view`).
# Build first: `trunk build --release --offline` (scripts/serve.sh and scripts/test.sh do).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIST="${1:-$ROOT/dist}"
printf '%-48s %10s %10s\n' file raw gzip
declare -A RAW GZ
for f in "$DIST"/*.wasm "$DIST"/*.js "$DIST"/*.css; do
  [ -e "$f" ] || continue
  n="$(basename "$f")"
  RAW[$n]=$(stat -c %s "$f"); GZ[$n]=$(gzip -9 -c "$f" | wc -c)
  printf '%-48s %10d %10d\n' "$n" "${RAW[$n]}" "${GZ[$n]}"
done
page() { # label, bundle prefix
  local raw=0 gz=0 n
  for n in "${!RAW[@]}"; do
    case "$n" in
      "$2"-*|init.js|style-*.css) raw=$((raw + RAW[$n])); gz=$((gz + GZ[$n])) ;;
    esac
  done
  [ "$raw" -gt 0 ] || { echo "no $2 bundle in $DIST" >&2; exit 1; }
  printf '%s: %.1f KB raw, %.1f KB gzipped\n' "$1" "$(echo "$raw/1024" | bc -l)" "$(echo "$gz/1024" | bc -l)"
}
page "run modes' page (evalpage-web)" evalpage-web
page "viewer's page (evalpage-view)" evalpage-view
