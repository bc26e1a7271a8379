"""Bounded load test of `toolgen serve --http` on loopback: N concurrent clients for S seconds.

    python benchmarks/http_load.py                    # 50 clients, 10 s per era, print a table
    python benchmarks/http_load.py --write            # ... and update the http-load section
                                                      #     of benchmarks/RESULTS.md

The server is the real command (`toolgen serve specs/notes --mock --http
127.0.0.1:0`, one uvicorn process, default options) and every request is a
`tools/call` of `get_note`: input validated against the input schema, the
example output validated against the output schema, `structuredContent`
plus the text fallback. Each client keeps its connection alive and sends its
next request as soon as the previous answer arrives (a minimal asyncio
HTTP/1.1 client: a full one such as httpx costs more CPU per request than
the server). Two runs: the stateless 2026-07-28 era (headers and `_meta` on
every request) and the legacy era (one `initialize`d session per client,
ended with DELETE). Any non-200 status, JSON-RPC error, `isError` result,
wrong id or wrong `structuredContent` counts as an error. The client shares
the machine with the server, so the figures are a floor, not a ceiling.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import orjson

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "RESULTS.md"
START = "<!-- http-load:start -->"
END = "<!-- http-load:end -->"
MODERN = "2026-07-28"
LEGACY = "2025-11-25"
TOOL = "get_note"
ARGUMENTS = {"id": "n_0000abcd"}
EXPECTED = {"id": "n_0000abcd", "title": "Groceries", "body": "milk", "tags": ["home"]}


@dataclass(frozen=True)
class Call:
    """The one tool every client calls, its arguments, and the `structuredContent` expected."""

    tool: str
    arguments: dict[str, Any]
    expected: dict[str, Any]


NOTES = Call(TOOL, ARGUMENTS, EXPECTED)
META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
}


@dataclass
class Run:
    era: str
    clients: int
    seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    first_error: str = ""

    def fail(self, why: str) -> None:
        self.errors += 1
        if not self.first_error:
            self.first_error = why

    def percentile(self, q: float) -> float:
        ordered = sorted(self.latencies)
        if not ordered:
            return float("nan")
        rank = max(0, min(len(ordered) - 1, round(q / 100 * len(ordered)) - 1))
        return ordered[rank]

    @property
    def throughput(self) -> float:
        return len(self.latencies) / self.seconds if self.seconds else 0.0


def start_server(*extra: str) -> tuple[subprocess.Popen[str], str]:
    """The server, and its URL; `extra`: more `toolgen serve` options (`--workers 2`)."""
    command = [sys.executable, "-m", "toolgen", "serve", "specs/notes", "--mock"]
    process = subprocess.Popen(
        [*command, "--http", "127.0.0.1:0", *extra], cwd=ROOT, stderr=subprocess.PIPE, text=True
    )
    assert process.stderr is not None
    line = process.stderr.readline()
    found = re.search(r"http://\S+/mcp", line)
    if found is None:
        process.kill()
        raise SystemExit(f"the server did not start: {line!r}")
    return process, found.group(0)


class Connection:
    """A minimal keep-alive HTTP/1.1 client: one request at a time, `Content-Length` answers.

    The load generator shares the machine with the server, so it is kept as cheap
    as possible (a full client such as httpx costs more CPU per request than the
    server does); correctness is checked on every answer all the same.
    """

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader
        self.writer: asyncio.StreamWriter

    async def open(self) -> None:
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)

    async def request(
        self, method: str, body: bytes, headers: dict[str, str]
    ) -> tuple[int, dict[str, str], bytes]:
        lines = [f"{method} /mcp HTTP/1.1", f"host: {self.host}:{self.port}"]
        lines += [f"{name}: {value}" for name, value in headers.items()]
        lines.append(f"content-length: {len(body)}")
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        head = await self.reader.readuntil(b"\r\n\r\n")
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        status = int(status_line.split(" ", 2)[1])
        found = {}
        for line in header_lines:
            if ":" in line:
                name, _, value = line.partition(":")
                found[name.strip().lower()] = value.strip()
        length = int(found.get("content-length", "0"))
        payload = await self.reader.readexactly(length) if length else b""
        return status, found, payload

    async def close(self) -> None:
        self.writer.close()
        await self.writer.wait_closed()


def check(run: Run, status: int, payload: bytes, request_id: int, call: Call = NOTES) -> None:
    if status != 200:
        run.fail(f"HTTP {status}: {payload[:200]!r}")
        return
    body = orjson.loads(payload)
    result = body.get("result")
    if body.get("id") != request_id or not isinstance(result, dict):
        run.fail(f"unexpected response: {payload[:200]!r}")
    elif result.get("isError") or result.get("structuredContent") != call.expected:
        run.fail(f"unexpected result: {payload[:200]!r}")


async def client_loop(url: str, run: Run, deadline: float, index: int, call: Call = NOTES) -> None:
    parts = urlsplit(url)
    assert parts.hostname is not None and parts.port is not None
    connection = Connection(parts.hostname, parts.port)
    await connection.open()
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    if run.era == "legacy":
        init = {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": LEGACY,
                "capabilities": {},
                "clientInfo": {"name": f"load-{index}", "version": "1"},
            },
        }
        _, found, _ = await connection.request("POST", orjson.dumps(init), headers)
        headers = {
            **headers,
            "mcp-session-id": found["mcp-session-id"],
            "mcp-protocol-version": LEGACY,
        }
        note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        await connection.request("POST", orjson.dumps(note), headers)
        params: dict[str, Any] = {"name": call.tool, "arguments": call.arguments}
    else:
        headers = {
            **headers,
            "mcp-protocol-version": MODERN,
            "mcp-method": "tools/call",
            "mcp-name": call.tool,
        }
        params = {"name": call.tool, "arguments": call.arguments, "_meta": META}
    request_id = 0
    while time.perf_counter() < deadline:
        request_id += 1
        body = orjson.dumps(
            {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}
        )
        started = time.perf_counter()
        try:
            status, _, payload = await connection.request("POST", body, headers)
        except (OSError, asyncio.IncompleteReadError, ValueError) as exc:
            run.fail(f"{type(exc).__name__}: {exc}")
            await connection.close()
            await connection.open()
            continue
        run.latencies.append(time.perf_counter() - started)
        check(run, status, payload, request_id, call)
    if run.era == "legacy":
        await connection.request("DELETE", b"", {"mcp-session-id": headers["mcp-session-id"]})
    await connection.close()


async def measure(url: str, era: str, clients: int, seconds: float, call: Call = NOTES) -> Run:
    run = Run(era, clients)
    started = time.perf_counter()
    deadline = started + seconds
    await asyncio.gather(*(client_loop(url, run, deadline, i, call) for i in range(clients)))
    run.seconds = time.perf_counter() - started
    return run


def table(runs: list[Run]) -> str:
    rows = [
        "| era | clients | duration | requests | errors | throughput | p50 | p99 | max |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for run in runs:
        rows.append(
            f"| {run.era} | {run.clients} | {run.seconds:.1f} s | {len(run.latencies)} "
            f"| {run.errors} | {run.throughput:,.0f} req/s | {run.percentile(50) * 1000:.1f} ms "
            f"| {run.percentile(99) * 1000:.1f} ms | {max(run.latencies, default=0) * 1000:.1f} ms |"
        )
    return "\n".join(rows)


def section(runs: list[Run], seconds: float) -> str:
    import starlette
    import uvicorn

    machine = (
        f"{os.cpu_count()} CPUs, Python {platform.python_version()}, uvicorn "
        f"{uvicorn.__version__} ({_http_impl()}), starlette {starlette.__version__}"
    )
    return f"""{START}
## Streamable HTTP under load

`python benchmarks/http_load.py --write` ({time.strftime("%Y-%m-%d")}, {machine}):
`toolgen serve specs/notes --mock --http 127.0.0.1:0` (one process), {runs[0].clients}
concurrent keep-alive clients (one connection each; a minimal asyncio HTTP/1.1
client, all in one process on the same 2 cores as the server) calling `tools/call get_note` back to back for
{seconds:g} s per era: input and output validated, `structuredContent` plus text
fallback. An error is any non-200 status, JSON-RPC error, `isError` result,
wrong id or wrong `structuredContent`. Latency is per request, as the client sees it.

{table(runs)}
{END}"""


def _http_impl() -> str:
    try:
        import httptools  # noqa: F401
    except ImportError:
        return "h11"
    return "httptools"


def write_section(text: str, start: str = START, end: str = END) -> None:
    """Replace the section between `start` and `end` of RESULTS.md (or append it); the rest
    is untouched."""
    old = RESULTS.read_text(encoding="utf-8") if RESULTS.exists() else ""
    if start in old and end in old:
        head, rest = old.split(start, 1)
        tail = rest.split(end, 1)[1]
        new = head + text + tail
    else:
        new = (old.rstrip("\n") + "\n\n" if old else "") + text + "\n"
    RESULTS.write_text(new, encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--era", choices=["modern", "legacy", "both"], default="both")
    parser.add_argument("--write", action="store_true", help="update benchmarks/RESULTS.md")
    args = parser.parse_args()
    eras = ["modern", "legacy"] if args.era == "both" else [args.era]
    process, url = start_server()
    try:
        runs = [asyncio.run(measure(url, era, args.clients, args.seconds)) for era in eras]
    finally:
        process.terminate()
        process.wait(10)
    print(table(runs))
    for run in runs:
        if run.errors:
            print(f"{run.era}: first error: {run.first_error}", file=sys.stderr)
    if args.write:
        write_section(section(runs, args.seconds))
    return 1 if any(run.errors for run in runs) else 0


if __name__ == "__main__":
    sys.exit(main())
