#!/usr/bin/env bash
# Prints the raw, gzipped (gzip -9) and brotli (quality 11, node's zlib) size of
# the release bundles in dist/: every file, then per mode what its first load
# downloads (index.html + www/init.js + css + the mode's wasm-bindgen js and
# wasm, and the split loader its js imports: each mode is its own bundle, see
# www/init.js), what opening each other mode adds afterwards (the same, fetched
# once), and each bundle's split modules (`<bundle>.split_<point>.wasm`: the
# run code and the task mode's checks (the YAML reader and the Jinja engine),
# fetched once the page is up or at the first Start; the zip of a
# finished run and the dialog judge's prompts, fetched when their point is
# first called; `<bundle>.chunk_<n>.wasm`, code two points share, fetched with
# the first of them).
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
for f in "$DIST"/index.html; do
  RAW[index.html]=$(stat -c %s "$f"); GZ[index.html]=$(gzip -9 -c "$f" | wc -c); BR[index.html]=$(brotli_size "$f")
done
kb() { printf '%.1f' "$(echo "$1/1024" | bc -l)"; }
sizes() { # bundle prefix, with the shell's files too (1) or not (0): "raw gz br"
  local raw=0 gz=0 br=0 n
  for n in "${!RAW[@]}"; do
    case "$n" in
      "$1"-*.split_*.wasm|"$1"-*.chunk_*.wasm) continue ;;
      "$1"-*) ;;
      init.js|style-*.css|index.html) [ "$2" = 1 ] || continue ;;
      *) continue ;;
    esac
    raw=$((raw + RAW[$n])); gz=$((gz + GZ[$n])); br=$((br + BR[$n]))
  done
  echo "$raw $gz $br"
}
MODES=(rag:evalpage-web task:evalpage-task retrieval:evalpage-retrieval dialog:evalpage-dialog view:evalpage-view)
echo
echo "first load of each mode (index.html + init.js + css + the mode's js and wasm):"
for m in "${MODES[@]}"; do
  read -r raw gz br <<<"$(sizes "${m#*:}" 1)"
  [ "$raw" -gt 0 ] || { echo "no ${m#*:} bundle in $DIST" >&2; exit 1; }
  printf '  %-10s %8s KB raw %8s KB gzip %8s KB brotli\n' "${m%%:*}" "$(kb "$raw")" "$(kb "$gz")" "$(kb "$br")"
done
echo
echo "opening a mode afterwards adds (its js and wasm, once per page load; the same from any mode):"
for m in "${MODES[@]}"; do
  read -r raw gz br <<<"$(sizes "${m#*:}" 0)"
  printf '  %-10s %8s KB raw %8s KB gzip %8s KB brotli\n' "${m%%:*}" "$(kb "$raw")" "$(kb "$gz")" "$(kb "$br")"
done
echo
echo "fetched after the first load (not in any): the run code (split_run) and the task mode's checks (split_task_code)"
echo "in the background once the page is up or at the first Start, the others when their point is first called;"
echo "a chunk is code two points share, fetched with the first of them:"
for n in $(printf '%s\n' "${!RAW[@]}" | grep -E '\.(split|chunk)_.*\.wasm$' | sort); do
  printf '  %-44s %8s KB raw %8s KB gzip %8s KB brotli\n' "$n" "$(kb "${RAW[$n]}")" "$(kb "${GZ[$n]}")" "$(kb "${BR[$n]}")"
done
