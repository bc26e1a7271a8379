"""Streamable HTTP side by side (issue 17): toolgen against the SDK's MCPServer and FastMCP.

Every server serves the same 3-tool set (`make_specs.py`'s `serve3`) over
Streamable HTTP on 127.0.0.1 in its fastest stateless configuration:

- `toolgen serve SPECS --mock --http 127.0.0.1:0` (one process, default options);
- the official SDK's `MCPServer`, `stateless_http=True, json_response=True`;
- FastMCP (its own venv), `stateless_http=True, json_response=True`.

The same load client (`http_load.py`'s minimal keep-alive HTTP/1.1 client, N
concurrent connections, requests of the stateless 2026-07-28 era) calls
`tools/call get_issue` back to back, after a short warm-up; every answer is
checked (status, id, `structuredContent`). The client shares the 2 cores with
the server, so the figures are a floor for every contender alike.
"""

from __future__ import annotations

import asyncio
import re
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import http_load
import make_specs
import serve_bench

CALL = http_load.Call(
    make_specs.BENCH_TOOL_NAME,
    make_specs.BENCH_ARGUMENTS,
    make_specs.bench_result(**make_specs.BENCH_ARGUMENTS),
)


@dataclass(frozen=True)
class HttpContender:
    key: str
    label: str
    toolgen: bool
    argv: Callable[[Path, Path, int], list[str]]
    """(spec set, tools/list JSON, port) -> command line; port 0: the server picks one and
    prints its URL on stderr."""


def _toolgen(specs: Path, defs: Path, port: int) -> list[str]:
    return [
        str(serve_bench.BIN / "toolgen"),
        "serve",
        str(specs),
        "--mock",
        "--http",
        "127.0.0.1:0",
    ]


def _sdk(specs: Path, defs: Path, port: int) -> list[str]:
    script = serve_bench.CONTENDERS / "sdk_mcpserver.py"
    return [sys.executable, str(script), str(defs), "--http", str(port)]


def _fastmcp(specs: Path, defs: Path, port: int) -> list[str]:
    script = serve_bench.CONTENDERS / "fastmcp_server.py"
    return [
        str(serve_bench.FASTMCP_VENV / "bin" / "python"),
        str(script),
        str(defs),
        "--http",
        str(port),
    ]


CONTENDERS = (
    HttpContender("toolgen_http", "toolgen serve --mock --http", True, _toolgen),
    HttpContender("mcpserver_http", "SDK MCPServer (stateless, JSON)", False, _sdk),
    HttpContender("fastmcp_http", "FastMCP (stateless, JSON)", False, _fastmcp),
)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _wait_listening(port: int, process: subprocess.Popen[bytes], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited {process.returncode} before listening")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"nothing listens on port {port} after {timeout:g} s")


def start(
    contender: HttpContender, specs: Path, defs: Path, log: IO[bytes]
) -> tuple[subprocess.Popen[bytes], str]:
    """Start the server; return it and its URL once it accepts connections."""
    port = 0 if contender.toolgen else free_port()
    process = subprocess.Popen(
        contender.argv(specs, defs, port), stdout=log, stderr=subprocess.PIPE
    )
    assert process.stderr is not None
    try:
        if contender.toolgen:
            line = process.stderr.readline().decode(errors="replace")
            found = re.search(r"http://127\.0\.0\.1:(\d+)/mcp", line)
            if found is None:
                raise RuntimeError(f"the server did not start: {line!r}")
            port = int(found.group(1))
        _wait_listening(port, process, 90.0)
    except Exception:
        stop(process)
        raise
    # Nobody reads the server's stderr from here on: let a thread drain it into the log.
    import threading

    threading.Thread(target=_drain, args=(process.stderr, log), daemon=True).start()
    return process, f"http://127.0.0.1:{port}/mcp"


def _drain(stream: IO[bytes], log: IO[bytes]) -> None:
    for chunk in iter(lambda: stream.read(4096), b""):
        log.write(chunk)


def stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(10)


def measure(
    contender: HttpContender,
    specs: Path,
    defs: Path,
    clients: int,
    seconds: float,
    warmup: float,
    log: IO[bytes],
) -> http_load.Run:
    """One server, one warm-up, one timed load; the server is stopped afterwards."""
    process, url = start(contender, specs, defs, log)
    try:
        if warmup > 0:
            asyncio.run(http_load.measure(url, "modern", clients, warmup, CALL))
        return asyncio.run(http_load.measure(url, "modern", clients, seconds, CALL))
    finally:
        stop(process)
