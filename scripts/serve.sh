#!/usr/bin/env bash
# Installs what is missing, builds the page in release mode and serves it at
# http://127.0.0.1:8080/ (also /eval). The built-in demo dataset and offline demo
# model work with no endpoint and no key.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
. scripts/setup.sh
echo "[serve] building (the first release build of the five mode bundles takes a few minutes on 2 cores), then serving http://127.0.0.1:8080/" >&2
exec trunk serve --release --offline --no-autoreload --address 127.0.0.1 --port "${PORT:-8080}"
