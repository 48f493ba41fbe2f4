#!/bin/sh
# Trunk post_build hook (see Trunk.toml), run in Trunk's staging directory:
#  1. builds the other modes' Wasm bundles (bins `evalpage-task`, `evalpage-retrieval`,
#     `evalpage-dialog` and the viewer's `evalpage-view`; Trunk built the RAG check's,
#     `evalpage-web`) the way Trunk builds its bundle (cargo, wasm-bindgen --target web,
#     and in release wasm-opt -Oz), names their files by a hash of the .wasm, and writes
#     their names on index.html's loader <script> (data-evalpage-<mode>-js/-wasm), where
#     www/init.js finds each mode's bundle when the mode is first opened;
#  2. copies index.html to eval/ (spec 002's /eval address) with its relative paths
#     ("./x") made to reach one level up ("../x"), so eval/ works under any prefix too.
set -eu
: "${TRUNK_STAGING_DIR:?run by trunk as a post_build hook}"
ROOT="${TRUNK_SOURCE_DIR:-$(pwd)}"
cd "$ROOT"
PROFILE="${TRUNK_PROFILE:-debug}"
MODES="task retrieval dialog view"
TARGET_DIR="$(cargo metadata --format-version 1 --no-deps --offline | sed 's/.*"target_directory":"\([^"]*\)".*/\1/')"
BINS=""
for m in $MODES; do BINS="$BINS --bin evalpage-$m"; done
if [ "$PROFILE" = release ]; then
  # shellcheck disable=SC2086
  cargo build --offline --release --target wasm32-unknown-unknown $BINS
else
  # shellcheck disable=SC2086
  cargo build --offline --target wasm32-unknown-unknown $BINS
fi
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT
for m in $MODES; do
  name="evalpage-$m"
  wasm-bindgen --target web --no-typescript --out-dir "$OUT" --out-name "$name" \
    "$TARGET_DIR/wasm32-unknown-unknown/$PROFILE/$name.wasm"
  if [ "$PROFILE" = release ]; then
    wasm-opt -Oz --output "$OUT/opt.wasm" "$OUT/${name}_bg.wasm"
    mv "$OUT/opt.wasm" "$OUT/${name}_bg.wasm"
  fi
  HASH="$(sha256sum "$OUT/${name}_bg.wasm" | cut -c1-16)"
  cp "$OUT/$name.js" "$TRUNK_STAGING_DIR/$name-$HASH.js"
  cp "$OUT/${name}_bg.wasm" "$TRUNK_STAGING_DIR/$name-${HASH}_bg.wasm"
  sed -i "s#data-evalpage-js=#data-evalpage-$m-js=\"./$name-$HASH.js\" data-evalpage-$m-wasm=\"./$name-${HASH}_bg.wasm\" data-evalpage-js=#" \
    "$TRUNK_STAGING_DIR/index.html"
  grep -q "$name-$HASH.js" "$TRUNK_STAGING_DIR/index.html" || {
    echo "post_build: no loader <script data-evalpage-js> in index.html to name the $m bundle on" >&2
    exit 1
  }
done
mkdir -p "$TRUNK_STAGING_DIR/eval"
sed 's#="\./#="../#g' "$TRUNK_STAGING_DIR/index.html" > "$TRUNK_STAGING_DIR/eval/index.html"
