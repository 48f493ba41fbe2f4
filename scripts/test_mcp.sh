#!/usr/bin/env bash
# Puts the official MCP Python SDK (PyPI `mcp`, pinned) in a virtualenv of its own at
# ~/.cache/evalpage/mcp-venv, once per machine, for the test MCP server
# (examples/agent/bank_server.py) the agent tests start on loopback. Prints the
# virtualenv's python.
set -euo pipefail
VERSION=2.3.0
VENV="$HOME/.cache/evalpage/mcp-venv-$VERSION"
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c 'import mcp.server.mcpserver' 2>/dev/null; then
  echo "evalpage: installing the MCP Python SDK $VERSION for the test MCP server (once per machine)" >&2
  mkdir -p "$(dirname "$VENV")"
  rm -rf "$VENV.part"
  python3 -m venv "$VENV.part"
  "$VENV.part/bin/pip" install --quiet --disable-pip-version-check "mcp==$VERSION" >&2
  rm -rf "$VENV"
  mv "$VENV.part" "$VENV"
  # a venv records its own path in its scripts; the interpreter is all the tests run
fi
echo "$VENV/bin/python"
