"""A raw JSON-RPC client of a stdio server: write lines, read lines.

`FrameClient` runs `toolgen serve` as a subprocess (what users run: stdout protection,
exit codes, stderr); `InProcessClient` runs the same transport (`run_stdio`) on a
thread of the test process over a pair of pipes: faster, and measured by coverage
directly. Both speak through the same methods.
"""

from __future__ import annotations

import asyncio
import json
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from toolgen.serve.engine import Engine
from toolgen.serve.handlers import import_object, instantiate
from toolgen.serve.stdio import run_stdio
from toolgen.serve.toolset import RuntimeToolSet
from toolgen.spec.pipeline import load_spec_set

HERE = Path(__file__).resolve().parent
DEMO_SPEC = HERE / "spec"
DEMO_HANDLERS = f"{HERE / 'handlers.py'}:Handlers"
MODERN = "2026-07-28"
READ_LIMIT = 30.0  # seconds: a guard against hanging forever, never a timing assertion


def modern_meta(version: str = MODERN) -> dict[str, Any]:
    return {
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientCapabilities": {},
    }


class Frames:
    """Frames over a pair of byte streams: `send` writes one, `recv` reads the next line."""

    def __init__(self, to_server: IO[bytes], from_server: IO[bytes]) -> None:
        self._to_server = to_server
        self._lines: queue.Queue[bytes | None] = queue.Queue()
        self._rest: list[bytes] | None = None
        threading.Thread(target=self._pump, args=(from_server,), daemon=True).start()

    def _pump(self, stream: IO[bytes]) -> None:
        for line in stream:
            self._lines.put(line)
        self._lines.put(None)

    def send_raw(self, data: bytes) -> None:
        self._to_server.write(data)
        self._to_server.flush()

    def send(self, message: Any) -> None:
        self.send_raw(json.dumps(message).encode() + b"\n")

    def recv_line(self) -> bytes:
        line = self._lines.get(timeout=READ_LIMIT)
        if line is None:
            raise EOFError("the server closed stdout")
        return line

    def recv(self) -> Any:
        return json.loads(self.recv_line())

    def request(self, request_id: Any, method: str, params: Any = None) -> Any:
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return self.recv()

    def notify(self, method: str, params: Any = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)

    def initialize(self, version: str = "2025-11-25") -> Any:
        reply = self.request(
            0,
            "initialize",
            {
                "protocolVersion": version,
                "capabilities": {},
                "clientInfo": {"name": "frames", "version": "1"},
            },
        )
        self.notify("notifications/initialized")
        return reply

    def close(self) -> list[bytes]:
        """Close the server's input, wait for it to end, and return the lines written after
        the last `recv`."""
        if self._rest is not None:
            return self._rest
        self._to_server.close()
        self._wait()
        rest = []
        while (line := self._lines.get(timeout=READ_LIMIT)) is not None:
            rest.append(line)
        self._rest = rest
        return rest

    def _wait(self) -> None:
        raise NotImplementedError


class FrameClient(Frames):
    """`toolgen serve ARGS` (or any `command`) as a subprocess; `stderr` holds what it logged
    once closed."""

    def __init__(
        self, *args: str, command: Sequence[str] = (), env: dict[str, str] | None = None
    ) -> None:
        self.process = subprocess.Popen(
            list(command) or [sys.executable, "-m", "toolgen", "serve", *args],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert self.process.stdin is not None and self.process.stdout is not None
        super().__init__(self.process.stdin, self.process.stdout)
        self.stderr = b""
        self._err_thread = threading.Thread(target=self._pump_err, daemon=True)
        self._err_thread.start()

    def _pump_err(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.stderr += line

    def _wait(self) -> None:
        self.process.wait(timeout=READ_LIMIT)
        self._err_thread.join(timeout=READ_LIMIT)


class EngineClient(Frames):
    """The stdio transport on a thread of this process, serving `engine`."""

    def __init__(self, engine: Engine) -> None:
        server_in, client_out = os.pipe()
        client_in, server_out = os.pipe()
        self._server = threading.Thread(
            target=_serve, args=(engine, server_in, server_out), daemon=True
        )
        self._server.start()
        super().__init__(os.fdopen(client_out, "wb"), os.fdopen(client_in, "rb"))

    def _wait(self) -> None:
        self._server.join(timeout=READ_LIMIT)
        assert not self._server.is_alive(), "the server did not end after its input closed"


class InProcessClient(EngineClient):
    """The stdio transport on a thread of this process, serving `spec` with `handlers`."""

    def __init__(self, spec: Path, handlers: str, *, timeout: float | None = None) -> None:
        tools = RuntimeToolSet(load_spec_set([spec]))
        super().__init__(Engine(tools, instantiate(import_object(handlers)), timeout=timeout))


def _serve(engine: Engine, read_fd: int, write_fd: int) -> None:
    """Serve until end of input, then close the output as an exiting process would."""
    with os.fdopen(read_fd, "rb") as stdin, os.fdopen(write_fd, "wb") as stdout:
        asyncio.run(run_stdio(engine, stdin, stdout))
