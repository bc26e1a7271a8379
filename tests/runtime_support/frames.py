"""A raw JSON-RPC client over a `toolgen serve` subprocess: write lines, read lines."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

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


class FrameClient:
    """One server process; `send` writes a frame, `recv` reads the next response line."""

    def __init__(self, *args: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "toolgen", "serve", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self._lines: queue.Queue[bytes | None] = queue.Queue()
        self.stderr = b""
        self._rest: list[bytes] | None = None
        threading.Thread(target=self._pump, daemon=True).start()
        self._err_thread = threading.Thread(target=self._pump_err, daemon=True)
        self._err_thread.start()

    def _pump(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._lines.put(line)
        self._lines.put(None)

    def _pump_err(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.stderr += line

    def send_raw(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

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
        """Close stdin, wait for exit, and return the lines written after the last `recv`.

        Afterwards `stderr` holds everything the server logged."""
        if self._rest is not None:
            return self._rest
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=READ_LIMIT)
        self._err_thread.join(timeout=READ_LIMIT)
        rest = []
        while (line := self._lines.get(timeout=READ_LIMIT)) is not None:
            rest.append(line)
        self._rest = rest
        return rest
