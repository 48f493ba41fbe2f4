#!/bin/sh
# Trunk post_build hook (see Trunk.toml), run in Trunk's staging directory:
#  1. builds the viewer's own Wasm bundle (bin `evalpage-view`, `?mode=view`) the way
#     Trunk builds the run modes' bundle (cargo, wasm-bindgen --target web, and in
#     release wasm-opt -Oz), names its files by a hash of the .wasm, and writes their
#     names on index.html's loader <script> (data-evalpage-view-js/-wasm), where
#     www/init.js picks them for `?mode=view`;
#  2. copies index.html to eval/ (spec 002's /eval address) with its relative paths
#     ("./x") made to reach one level up ("../x"), so eval/ works under any prefix too.
set -eu
: "${TRUNK_STAGING_DIR:?run by trunk as a post_build hook}"
ROOT="${TRUNK_SOURCE_DIR:-$(pwd)}"
cd "$ROOT"
PROFILE="${TRUNK_PROFILE:-debug}"
TARGET_DIR="$(cargo metadata --format-version 1 --no-deps --offline | sed 's/.*"target_directory":"\([^"]*\)".*/\1/')"
if [ "$PROFILE" = release ]; then
  cargo build --offline --release --target wasm32-unknown-unknown --bin evalpage-view
else
  cargo build --offline --target wasm32-unknown-unknown --bin evalpage-view
fi
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT
wasm-bindgen --target web --no-typescript --out-dir "$OUT" --out-name evalpage-view \
  "$TARGET_DIR/wasm32-unknown-unknown/$PROFILE/evalpage-view.wasm"
if [ "$PROFILE" = release ]; then
  wasm-opt -Oz --output "$OUT/opt.wasm" "$OUT/evalpage-view_bg.wasm"
  mv "$OUT/opt.wasm" "$OUT/evalpage-view_bg.wasm"
fi
HASH="$(sha256sum "$OUT/evalpage-view_bg.wasm" | cut -c1-16)"
cp "$OUT/evalpage-view.js" "$TRUNK_STAGING_DIR/evalpage-view-$HASH.js"
cp "$OUT/evalpage-view_bg.wasm" "$TRUNK_STAGING_DIR/evalpage-view-${HASH}_bg.wasm"
sed -i "s#data-evalpage-js=#data-evalpage-view-js=\"./evalpage-view-$HASH.js\" data-evalpage-view-wasm=\"./evalpage-view-${HASH}_bg.wasm\" data-evalpage-js=#" \
  "$TRUNK_STAGING_DIR/index.html"
grep -q "evalpage-view-$HASH.js" "$TRUNK_STAGING_DIR/index.html" || {
  echo "post_build: no loader <script data-evalpage-js> in index.html to name the viewer's bundle on" >&2
  exit 1
}
mkdir -p "$TRUNK_STAGING_DIR/eval"
sed 's#="\./#="../#g' "$TRUNK_STAGING_DIR/index.html" > "$TRUNK_STAGING_DIR/eval/index.html"
