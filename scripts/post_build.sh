#!/bin/sh
# Trunk post_build hook (see Trunk.toml), run in Trunk's staging directory:
#  1. builds every mode's Wasm bundle: the bins `evalpage-web` (the RAG check),
#     `evalpage-task`, `evalpage-retrieval`, `evalpage-dialog` and the viewer's
#     `evalpage-view`. A bin with wasm-split points is split at them
#     (`#[wasm_split(..)]`, wasm_split_helpers; code that only a split point reaches
#     goes into a module fetched when that point is first called, e.g. the zip of
#     a finished run): wasm-split-cli cuts the module (cargo links it with
#     --emit-relocs), wasm-bindgen --target web runs on the main
#     module (keeping the table and stack exports the split modules import), and in
#     release wasm-opt -Oz runs on every module. Trunk cannot run a step between
#     cargo and wasm-bindgen, so what it builds from index.html's rust link (which
#     only keeps it from building the crate on its own) is removed here;
#  2. names each bundle's files by a hash of its modules
#     (`<bin>-<hash>.js`, `<bin>-<hash>_bg.wasm`, `<bin>-<hash>.split.js`,
#     `<bin>-<hash>.split_<point>.wasm` and `<bin>-<hash>.chunk_<n>.wasm`, the
#     code two points share) and writes the js and wasm names on
#     index.html's loader <script> (data-evalpage-js / -wasm for the RAG check,
#     data-evalpage-<mode>-js / -wasm for the others), where www/init.js finds each
#     mode's bundle when the mode is first opened;
#  3. copies index.html to eval/ (spec 002's /eval address) with its relative paths
#     ("./x") made to reach one level up ("../x"), so eval/ works under any prefix too.
set -eu
: "${TRUNK_STAGING_DIR:?run by trunk as a post_build hook}"
ROOT="${TRUNK_SOURCE_DIR:-$(pwd)}"
cd "$ROOT"
# The cargo profile of the bundles: Trunk's (with --release, `page`: release
# built for size, see Cargo.toml; else debug), or the one EVALPAGE_WASM_PROFILE
# names: scripts/test.sh builds the page of the end-to-end tests with `e2e`
# (optimised as `page` is, without its fat LTO, single codegen unit and
# wasm-opt, which take minutes and change nothing the tests look at).
PROFILE="${EVALPAGE_WASM_PROFILE:-${TRUNK_PROFILE:-debug}}"
if [ "$PROFILE" = release ]; then PROFILE=page; fi
TARGET_DIR="$(cargo metadata --format-version 1 --no-deps --offline | sed 's/.*"target_directory":"\([^"]*\)".*/\1/')"
# One cargo call per bin, so that only the bins with split points are linked with
# relocations kept (which wasm-split-cli needs; -C link-args reaches only the final
# link). Every bin has split points now (the viewer's: `import`, the readers of
# other tools' files).
# The modes are the page crate's bins, which cargo finds: `src/main.rs`
# (`evalpage-web`) is the RAG check's, `src/bin/evalpage-<mode>.rs` each other mode's.
MODES="rag$(for f in src/bin/evalpage-*.rs; do m="${f#src/bin/evalpage-}"; printf ' %s' "${m%.rs}"; done)"
SPLIT="$MODES"
bin_of() { if [ "$1" = rag ]; then echo evalpage-web; else echo "evalpage-$1"; fi; }
for m in $MODES; do
  set -- --offline --target wasm32-unknown-unknown --bin "$(bin_of "$m")"
  case "$PROFILE" in
    debug) ;;
    *) set -- "$@" --profile "$PROFILE" ;;
  esac
  case " $SPLIT " in
    *" $m "*) cargo rustc "$@" -- -C link-args=--emit-relocs ;;
    *) cargo rustc "$@" ;;
  esac
done
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT
# What Trunk made of index.html's one rust link is not used.
rm -f "$TRUNK_STAGING_DIR"/evalpage-view-*.js "$TRUNK_STAGING_DIR"/evalpage-view-*_bg.wasm
for m in $MODES; do
  name="$(bin_of "$m")"
  if [ "$m" = rag ]; then attr=evalpage; else attr="evalpage-$m"; fi
  rm -rf "$OUT/split" "$OUT/bg"
  mkdir -p "$OUT/split"
  case " $SPLIT " in
    *" $m "*)
      wasm-split-cli --target web --out-name "$name" \
        "$TARGET_DIR/wasm32-unknown-unknown/$PROFILE/$name.wasm" "$OUT/split" >/dev/null
      wasm-bindgen --target web --no-typescript --keep-lld-exports --out-dir "$OUT/bg" --out-name "$name" \
        "$OUT/split/$name.wasm" ;;
    *)
      wasm-bindgen --target web --no-typescript --out-dir "$OUT/bg" --out-name "$name" \
        "$TARGET_DIR/wasm32-unknown-unknown/$PROFILE/$name.wasm" ;;
  esac
  mv "$OUT/bg/${name}_bg.wasm" "$OUT/split/main.wasm"
  if [ "$PROFILE" = page ]; then
    for f in "$OUT"/split/*.wasm; do
      # The split modules declare no features; these are the ones rustc's
      # wasm32 target emits (the main module's come from its target_features section).
      wasm-opt -Oz --quiet --enable-reference-types --enable-bulk-memory --enable-nontrapping-float-to-int \
        --enable-sign-ext --enable-multivalue --enable-mutable-globals --output "$OUT/opt.wasm" "$f"
      mv "$OUT/opt.wasm" "$f"
    done
  fi
  rm -f "$OUT/split/$name.wasm"
  HASH="$(cat "$OUT/split/main.wasm" "$OUT"/split/split_*.wasm "$OUT"/split/chunk_*.wasm 2>/dev/null | sha256sum | cut -c1-16)"
  base="$name-$HASH"
  cp "$OUT/split/main.wasm" "$TRUNK_STAGING_DIR/${base}_bg.wasm"
  set -- "$OUT"/split/split_*.wasm
  if [ -e "$1" ]; then
    # The split loader imports the glue and fetches its modules by the names
    # wasm-split-cli gave them (split_<point>.wasm, and chunk_<n>.wasm for code
    # that two points share); give them the bundle's hashed names.
    sed "s#\"\./$name\.js\"#\"./$base.js\"#; s#\"\./\(split\|chunk\)_\([a-z0-9_]*\)\.wasm\"#\"./$base.\1_\2.wasm\"#g" \
      "$OUT/split/__wasm_split.js" > "$TRUNK_STAGING_DIR/$base.split.js"
    for f in "$OUT"/split/split_*.wasm "$OUT"/split/chunk_*.wasm; do
      [ -e "$f" ] && cp "$f" "$TRUNK_STAGING_DIR/$base.$(basename "$f")"
    done
    # (only the import statement: the imports object keeps the name the module imports by)
    sed "s#from \"\./__wasm_split\.js\"#from \"./$base.split.js\"#" "$OUT/bg/$name.js" > "$TRUNK_STAGING_DIR/$base.js"
  else
    cp "$OUT/bg/$name.js" "$TRUNK_STAGING_DIR/$base.js"
  fi
  sed -i "s#<script type=\"module\" src=\"\./init\.js\"#& data-$attr-js=\"./$base.js\" data-$attr-wasm=\"./${base}_bg.wasm\"#" \
    "$TRUNK_STAGING_DIR/index.html"
  grep -q "$base.js" "$TRUNK_STAGING_DIR/index.html" || {
    echo "post_build: no loader <script type=\"module\" src=\"./init.js\"> in index.html to name the $m bundle on" >&2
    exit 1
  }
done
mkdir -p "$TRUNK_STAGING_DIR/eval"
sed 's#="\./#="../#g' "$TRUNK_STAGING_DIR/index.html" > "$TRUNK_STAGING_DIR/eval/index.html"
# The engine of the model file on this device, which www/local_model.js fetches
# only when a model file is picked: @wllama/wllama's ES module (one file, its
# worker inside), its .wasm (llama.cpp) and its licence.
WLLAMA="$ROOT/node_modules/@wllama/wllama"
[ -f "$WLLAMA/esm/index.js" ] || {
  echo "post_build: node_modules/@wllama/wllama is missing: run scripts/setup.sh" >&2
  exit 1
}
mkdir -p "$TRUNK_STAGING_DIR/vendor/wllama"
cp "$WLLAMA/esm/index.js" "$TRUNK_STAGING_DIR/vendor/wllama/wllama.js"
cp "$WLLAMA/esm/wasm/wllama.wasm" "$TRUNK_STAGING_DIR/vendor/wllama/wllama.wasm"
cp "$WLLAMA/LICENCE" "$TRUNK_STAGING_DIR/vendor/wllama/LICENCE"
