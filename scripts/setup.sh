#!/usr/bin/env bash
# Installs what evalpage needs and is missing, idempotently: the wasm32 target,
# Trunk 0.21.14, wasm-bindgen-cli 0.2.130 (must equal the wasm-bindgen crate in
# Cargo.lock), wasm-split-cli 0.2.4 (wasm_split_cli_support, for the split points
# of scripts/post_build.sh), Debian's Chromium + ChromeDriver, and the npm tools (wasm-opt from
# binaryen, playwright-core,
# axe-core for the accessibility test). Source it (`. scripts/setup.sh`) to get PATH set.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export PATH="$HOME/.cargo/bin:$ROOT/node_modules/.bin:$PATH"
say() { printf '\033[1m[setup]\033[0m %s\n' "$*" >&2; }

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi
if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then
  say "installing Chromium and ChromeDriver (Debian packages)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
fi
if [ "$(trunk --version 2>/dev/null)" != "trunk 0.21.14" ]; then
  say "installing Trunk 0.21.14 (about 8 minutes on 2 cores, once per machine)"
  cargo install --locked trunk --version 0.21.14
fi
if [ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen 0.2.130" ]; then
  say "installing wasm-bindgen-cli 0.2.130 (about 2 minutes, once per machine)"
  cargo install wasm-bindgen-cli --version 0.2.130
fi
if ! cargo install --list | grep -qx 'wasm_split_cli_support v0.2.4:'; then
  say "installing wasm-split-cli 0.2.4 (about a minute, once per machine)"
  cargo install --locked wasm_split_cli_support --version 0.2.4 --features build-binary
fi
if [ ! -x "$ROOT/node_modules/.bin/wasm-opt" ] || [ ! -d "$ROOT/node_modules/playwright-core" ] \
  || [ ! -f "$ROOT/node_modules/axe-core/axe.min.js" ] \
  || [ ! -f "$ROOT/node_modules/@wllama/wllama/esm/index.js" ]; then
  say "installing npm packages (binaryen's wasm-opt, playwright-core, axe-core; @wllama/wllama, the in-page model engine)"
  (cd "$ROOT" && npm ci --no-audit --no-fund --loglevel=error)
fi
export CHROMEDRIVER=/usr/bin/chromedriver
