"""A raw newline-delimited JSON-RPC client for MCP stdio servers, and the serving measurements.

The same client drives every contender, so client overhead is equal: request
lines are encoded once, responses are read with `readline` and parsed with
the standard `json` module. Nothing here knows which server it talks to.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

PROTOCOL = "2025-11-25"
TIMEOUT = 60.0


def _line(message: dict[str, Any]) -> bytes:
    return json.dumps(message, separators=(",", ":")).encode() + b"\n"


def initialize_line(request_id: int = 0) -> bytes:
    return _line(
        {
            "jsonrpc": "2.0",
            "id": request_id,
            "method": "initialize",
            "params": {
                "protocolVersion": PROTOCOL,
                "capabilities": {},
                "clientInfo": {"name": "toolgen-bench", "version": "1"},
            },
        }
    )


INITIALIZED = _line({"jsonrpc": "2.0", "method": "notifications/initialized"})


def call_line(request_id: int, name: str, arguments: dict[str, Any]) -> bytes:
    params = {"name": name, "arguments": arguments}
    return _line({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params})


def list_line(request_id: int) -> bytes:
    return _line({"jsonrpc": "2.0", "id": request_id, "method": "tools/list"})


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (from /proc: steady under load)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def sequential(
    client: StdioClient, lines: list[bytes], first_id: int
) -> tuple[float, list[float], float]:
    """Send `lines` (request ids `first_id`, `first_id + 1`, ...) one at a time, each after the
    previous answer: the seconds they took, each one's latency (s) and the server's CPU seconds
    per call."""
    latencies = []
    cpu = cpu_seconds(client.proc.pid)
    started = time.perf_counter()
    for i, line in enumerate(lines):
        sent = time.perf_counter()
        client.send(line)
        client.receive(first_id + i)
        latencies.append(time.perf_counter() - sent)
    seconds = time.perf_counter() - started
    return seconds, latencies, (cpu_seconds(client.proc.pid) - cpu) / len(lines)


class ServerGone(RuntimeError):
    """The server closed its stdout (crashed or exited) before answering."""


class StdioClient:
    """One spawned server process and the pipes to it."""

    def __init__(self, argv: list[str], cwd: Path, stderr: IO[bytes] | None = None) -> None:
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr if stderr is not None else subprocess.DEVNULL,
            bufsize=1 << 16,
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self._in = self.proc.stdin
        self._out = self.proc.stdout

    def send(self, data: bytes) -> None:
        self._in.write(data)
        self._in.flush()

    def receive(self, request_id: int) -> dict[str, Any]:
        """The response with this id (server notifications in between are skipped)."""
        while True:
            line = self._out.readline()
            if not line:
                raise ServerGone(f"server exited (code {self.proc.poll()}) before answering")
            message = json.loads(line)
            if message.get("id") == request_id and ("result" in message or "error" in message):
                return message

    def receive_raw(self, request_id: int) -> bytes:
        """The raw line of the response with this id, decoded only when its head is unclear."""
        marker = b'"id":%d' % request_id
        while True:
            line = self._out.readline()
            if not line:
                raise ServerGone(f"server exited (code {self.proc.poll()}) before answering")
            head = line[:120].replace(b" ", b"")
            if marker + b"," in head or marker + b"}" in head:
                return line
            message = json.loads(line)
            if message.get("id") == request_id and ("result" in message or "error" in message):
                return line

    def receive_any(self) -> dict[str, Any]:
        """The next response, whatever its id."""
        while True:
            line = self._out.readline()
            if not line:
                raise ServerGone(f"server exited (code {self.proc.poll()}) before answering")
            message = json.loads(line)
            if "id" in message and ("result" in message or "error" in message):
                return message

    def request(self, data: bytes, request_id: int) -> dict[str, Any]:
        self.send(data)
        return self.receive(request_id)

    def initialize(self) -> float:
        """Handshake; return seconds from spawn to the initialize response."""
        self.request(initialize_line(0), 0)
        elapsed = time.perf_counter() - self.started
        self.send(INITIALIZED)
        return elapsed

    def peak_rss_kib(self) -> int | None:
        """VmHWM of the server process (its peak resident set), from /proc."""
        try:
            status = Path(f"/proc/{self.proc.pid}/status").read_text()
        except OSError:
            return None
        for line in status.splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
        return None

    def close(self) -> None:
        """Close stdin (a stdio server must then exit); kill it if it does not."""
        with contextlib.suppress(OSError):
            self._in.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self._out.close()

    def __enter__(self) -> StdioClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass
class ServeSizes:
    """How much work one serving session does."""

    warmup: int = 200
    sequential: int = 2000
    pipelined: int = 2000
    lists: int = 50
    cold_starts: int = 3


@dataclass
class SessionResult:
    """What one serving session of one contender measured (seconds, KiB)."""

    cold_start: list[float] = field(default_factory=list)
    cold_start_large: float | None = None
    latencies: list[float] = field(default_factory=list)
    sequential_seconds: float = 0.0
    pipelined_seconds: float = 0.0
    pipelined_calls: int = 0
    list_small: list[float] = field(default_factory=list)
    list_large: list[float] = field(default_factory=list)
    peak_rss_kib: int | None = None
    peak_rss_large_kib: int | None = None
    problems: list[str] = field(default_factory=list)


def check_call(response: dict[str, Any], expected: dict[str, Any]) -> str | None:
    """Why a `tools/call` response is not the expected structured result, or None."""
    result = response.get("result")
    if not isinstance(result, dict):
        return f"tools/call failed: {json.dumps(response)[:200]}"
    if result.get("isError"):
        return f"tools/call returned isError: {json.dumps(result)[:200]}"
    structured = result.get("structuredContent")
    if structured != expected and structured != {"result": expected}:
        return f"unexpected structuredContent: {json.dumps(structured)[:200]}"
    content = result.get("content") or []
    if not any(block.get("type") == "text" for block in content):
        return "no text fallback in the result"
    return None


def _pipelined(client: StdioClient, lines: list[bytes]) -> float:
    """Send all requests from a writer thread while reading; seconds until the last response."""
    failure: list[BaseException] = []

    def write() -> None:
        try:
            for data in lines:
                client.send(data)
        except BaseException as exc:  # reported by the reader's side
            failure.append(exc)

    started = time.perf_counter()
    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    for _ in lines:
        client.receive_any()
    elapsed = time.perf_counter() - started
    writer.join(TIMEOUT)
    if failure:
        raise failure[0]
    return elapsed


def serve_session(
    argv_small: list[str],
    argv_large: list[str],
    cwd: Path,
    tool: str,
    arguments: dict[str, Any],
    expected: dict[str, Any],
    sizes: ServeSizes,
    small_tools: int,
    large_tools: int,
    log: IO[bytes] | None = None,
) -> SessionResult:
    """One round for one contender: cold starts, calls, pipelining, lists, peak RSS."""
    out = SessionResult()
    for _ in range(max(sizes.cold_starts - 1, 0)):
        with StdioClient(argv_small, cwd, log) as client:
            out.cold_start.append(client.initialize())
    with StdioClient(argv_small, cwd, log) as client:
        out.cold_start.append(client.initialize())
        first = client.request(call_line(1, tool, arguments), 1)
        problem = check_call(first, expected)
        if problem:
            out.problems.append(problem)
            return out
        next_id = 2
        for _ in range(sizes.warmup):
            client.request(call_line(next_id, tool, arguments), next_id)
            next_id += 1
        lines = [call_line(next_id + i, tool, arguments) for i in range(sizes.sequential)]
        out.sequential_seconds, out.latencies, _ = sequential(client, lines, next_id)
        next_id += sizes.sequential
        lines = [call_line(next_id + i, tool, arguments) for i in range(sizes.pipelined)]
        out.pipelined_seconds = _pipelined(client, lines)
        out.pipelined_calls = sizes.pipelined
        next_id += sizes.pipelined
        out.list_small = _lists(client, next_id, sizes.lists, small_tools, out)
        out.peak_rss_kib = client.peak_rss_kib()
    with StdioClient(argv_large, cwd, log) as client:
        out.cold_start_large = client.initialize()
        out.list_large = _lists(client, 1, sizes.lists, large_tools, out)
        out.peak_rss_large_kib = client.peak_rss_kib()
    return out


def list_page_line(request_id: int, cursor: str | None) -> bytes:
    if cursor is None:
        return list_line(request_id)
    params = {"cursor": cursor}
    return _line({"jsonrpc": "2.0", "id": request_id, "method": "tools/list", "params": params})


NEXT_CURSOR = re.compile(rb'"nextCursor"\s*:\s*"((?:[^"\\]|\\.)*)"')


def list_all(client: StdioClient, first_id: int, parse: bool = True) -> tuple[int, int]:
    """Fetch every page of tools/list; return (tools listed, requests used).

    With `parse=False` (the timed fetches) the client does not decode the
    (large) result: it reads the response line and takes `nextCursor` from the
    raw bytes, so the time measured is the server's, not the client's JSON
    parser's. The untimed first fetch parses and checks everything.
    """
    cursor: str | None = None
    count = requests = 0
    while True:
        request_id = first_id + requests
        client.send(list_page_line(request_id, cursor))
        requests += 1
        if not parse:
            line = client.receive_raw(request_id)
            found = NEXT_CURSOR.search(line[-400:]) or NEXT_CURSOR.search(line)
            if found is None:
                return count, requests
            cursor = json.loads(b'"' + found.group(1) + b'"')
            continue
        response = client.receive(request_id)
        result = response.get("result")
        if not isinstance(result, dict) or not isinstance(result.get("tools"), list):
            raise ServerGone(f"tools/list failed: {json.dumps(response)[:200]}")
        count += len(result["tools"])
        cursor = result.get("nextCursor")
        if not cursor:
            return count, requests


def _lists(
    client: StdioClient, first_id: int, count: int, expected_tools: int, out: SessionResult
) -> list[float]:
    """Latency of `count` complete tools/list fetches (all pages; after one untimed warm-up)."""
    try:
        listed, used = list_all(client, first_id)
    except ServerGone as exc:
        out.problems.append(str(exc))
        return []
    if listed != expected_tools:
        out.problems.append(f"tools/list gave {listed} tools, expected {expected_tools}")
    next_id = first_id + used
    timings = []
    for _ in range(count):
        t0 = time.perf_counter()
        _, used = list_all(client, next_id, parse=False)
        timings.append(time.perf_counter() - t0)
        next_id += used
    return timings
