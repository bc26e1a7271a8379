"""A real Streamable HTTP server (uvicorn, loopback, free port) in a background thread."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn
from conftest import ROOT

from toolgen.serve.engine import Engine
from toolgen.serve.http import SecurityPolicy, create_app
from toolgen.serve.http.guard import ConnectionLimits
from toolgen.serve.http.server import uvicorn_config
from toolgen.serve.toolset import RuntimeToolSet

GUARD = 30.0
"""Seconds before a hung start or stop of a server process fails: a guard, not a timing."""
START_GUARD = 20.0
"""Seconds to wait for the server to listen: a guard against a hang, not a timing assertion."""


def call_headers(tool: str, version: str) -> dict[str, str]:
    """The headers of a `tools/call` of `tool` in protocol revision `version`."""
    return {
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        "MCP-Protocol-Version": version,
        "Mcp-Method": "tools/call",
        "Mcp-Name": tool,
    }


@contextmanager
def http_server(
    tools: RuntimeToolSet,
    handlers: Any,
    policy: SecurityPolicy | None = None,
    limits: ConnectionLimits | None = None,
    **engine_options: Any,
) -> Iterator[str]:
    """Serve `tools` over HTTP on 127.0.0.1 and yield the endpoint URL (`.../mcp`)."""
    engine = Engine(tools, handlers, **engine_options)
    with asgi_server(create_app(engine, policy or SecurityPolicy()), limits) as base:
        yield f"{base}/mcp"


@contextmanager
def asgi_server(app: Any, limits: ConnectionLimits | None = None) -> Iterator[str]:
    """Serve any ASGI `app` on 127.0.0.1 (a free port) and yield its base URL, with
    the connection limits `toolgen serve --http` applies."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    port = sock.getsockname()[1]
    config = uvicorn_config(app, limits=limits, log_level="warning", access_log=False)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + START_GUARD
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the test HTTP server did not start")
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(START_GUARD)
        sock.close()


def _serve_argv(handlers: str, *args: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "toolgen",
        "serve",
        "specs/conformance",
        "--handlers",
        handlers,
        "--http",
        "127.0.0.1:0",
        *args,
    ]


class CliServer:
    """`toolgen serve specs/conformance --handlers HANDLERS --http 127.0.0.1:0 ARGS` (the real
    command), its URL, and what it writes on stderr (`lines`)."""

    @staticmethod
    def failing(handlers: str, *args: str) -> subprocess.CompletedProcess[str]:
        """The same command when it is expected to exit at once (a usage error)."""
        return subprocess.run(
            _serve_argv(handlers, *args), cwd=ROOT, capture_output=True, text=True, timeout=GUARD
        )

    def __init__(self, handlers: str, *args: str) -> None:
        self.process = subprocess.Popen(
            _serve_argv(handlers, *args),
            cwd=ROOT,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert self.process.stderr is not None
        first = self.process.stderr.readline()
        if " at http://" not in first:
            self.process.kill()
            raise AssertionError(f"no address announced: {first!r}")
        self.announced = first
        self.url = first.split(" at ", 1)[1].split()[0]
        self.lines: list[str] = []
        self.reader = threading.Thread(target=self._read_stderr, daemon=True)
        self.reader.start()

    def _read_stderr(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.lines.append(line)

    def stop(self, signum: int = signal.SIGTERM) -> int:
        """Send `signum`, wait for the exit (killing it past the guard), the return code."""
        if self.process.poll() is None:
            self.process.send_signal(signum)
        try:
            return self.process.wait(GUARD)
        finally:
            if self.process.poll() is None:
                self.process.kill()
            self.reader.join(GUARD)  # every line written before the exit is in `lines`
