#!/usr/bin/env bash
# Prints the raw, gzipped (gzip -9) and brotli (quality 11, node's zlib) size of
# the release bundles in dist/: every file, then
# what each page loads (wasm + its wasm-bindgen js + www/init.js + css): the run
# modes' page (evalpage-web: RAG, task, retrieval, dialogs) and the viewer's
# (evalpage-view, `?mode=view`).
# Build first: `trunk build --release --offline` (scripts/serve.sh and scripts/test.sh do).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIST="${1:-$ROOT/dist}"
printf '%-48s %10s %10s %10s\n' file raw gzip brotli
declare -A RAW GZ BR
brotli_size() {
  node -e 'const z=require("zlib");const b=require("fs").readFileSync(process.argv[1]);process.stdout.write(String(z.brotliCompressSync(b,{params:{[z.constants.BROTLI_PARAM_QUALITY]:11}}).length))' "$1"
}
for f in "$DIST"/*.wasm "$DIST"/*.js "$DIST"/*.css; do
  [ -e "$f" ] || continue
  n="$(basename "$f")"
  RAW[$n]=$(stat -c %s "$f"); GZ[$n]=$(gzip -9 -c "$f" | wc -c); BR[$n]=$(brotli_size "$f")
  printf '%-48s %10d %10d %10d\n' "$n" "${RAW[$n]}" "${GZ[$n]}" "${BR[$n]}"
done
page() { # label, bundle prefix
  local raw=0 gz=0 br=0 n
  for n in "${!RAW[@]}"; do
    case "$n" in
      "$2"-*|init.js|style-*.css) raw=$((raw + RAW[$n])); gz=$((gz + GZ[$n])); br=$((br + BR[$n])) ;;
    esac
  done
  [ "$raw" -gt 0 ] || { echo "no $2 bundle in $DIST" >&2; exit 1; }
  printf '%s: %.1f KB raw, %.1f KB gzipped, %.1f KB brotli\n' "$1" "$(echo "$raw/1024" | bc -l)" "$(echo "$gz/1024" | bc -l)" "$(echo "$br/1024" | bc -l)"
}
page "run modes' page (evalpage-web)" evalpage-web
page "viewer's page (evalpage-view)" evalpage-view
