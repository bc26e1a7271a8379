"""Servers sharing a Redis store: what two instances serve against one, and `tasks/get`
latency through Redis.

    python benchmarks/store_bench.py [--rounds 5] [--seconds 5] [--connections 50]

Needs `redis-server` and `wrk` (Debian packages). Starts a Redis server on a free
loopback port (nothing saved), then per round, in alternating order:

- one instance: `toolgen serve specs/notes --mock --http 127.0.0.1:0 --store URL`, one
  wrk process with all the connections on it;
- two instances: the same command twice, one wrk process with half the connections on
  each (as a load balancer would spread them);

each running stateless 2026-07-28 `tools/call get_note` back to back (the store is not
on their path; wrk checks every answer for the expected `structuredContent`). wrk is a
C load generator, so it takes less of the shared cores than a Python one would; it still
runs on the same cores as the servers, so the figures are a floor. The servers' CPU time
per request (all instances together) tells whether a second instance adds work per
request, whatever the cores left to it.

Then `tasks/get` latency: two instances of `toolgen serve specs/conformance` on the
store, a task created on the first, and `--poll-clients` clients (http_load's minimal
asyncio client) polling `tasks/get` on the second (whose answer reads the record in
Redis and asks whether its owner still runs).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from typing import Any
from urllib.parse import urlsplit

import orjson
from driver import cpu_seconds
from http_load import ARGUMENTS, EXPECTED, META, TOOL, Connection, Run, start_server
from stats import Stat

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODERN = "2026-07-28"
TASKS = {"extensions": {"io.modelcontextprotocol/tasks": {}}}
WARM_UP = 1


def redis_server() -> tuple[subprocess.Popen[bytes], str]:
    binary = shutil.which("redis-server")
    if binary is None:
        raise SystemExit(
            "store_bench: redis-server is not installed (apt-get install redis-server)"
        )
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    process = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 20
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as probe:
                probe.sendall(b"PING\r\n")
                if probe.recv(16).startswith(b"+PONG"):
                    break
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise SystemExit("store_bench: redis-server did not start")
        time.sleep(0.05)
    return process, f"redis://127.0.0.1:{port}/0"


WRK_SCRIPT = """\
wrk.method = "POST"
wrk.body = [==[{body}]==]
{headers}
failed = 0
response = function(status, headers, body)
  if status ~= 200 or not string.find(body, [==[{expected}]==], 1, true) then
    failed = failed + 1
  end
end
local threads = {{}}
setup = function(thread) table.insert(threads, thread) end
done = function(summary, latency, requests)
  local bad = summary.errors.connect + summary.errors.read + summary.errors.write
    + summary.errors.status + summary.errors.timeout
  for _, thread in ipairs(threads) do bad = bad + thread:get("failed") end
  io.write(string.format("requests %d failed %d\\n", summary.requests, bad))
end
"""


def wrk_script() -> str:
    """wrk's Lua script: http_load's stateless `tools/call`, each answer checked for the
    expected `structuredContent`."""
    params = {"name": TOOL, "arguments": ARGUMENTS, "_meta": META}
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}
    expected = b'"structuredContent":' + orjson.dumps(EXPECTED)
    lines = [f'wrk.headers["{k}"] = "{v}"' for k, v in headers("tools/call", TOOL).items()]
    return WRK_SCRIPT.format(
        body=orjson.dumps(message).decode(),
        headers="\n".join(lines),
        expected=expected.decode(),
    )


def spread(urls: list[str], connections: int, seconds: float, script: str) -> tuple[int, float]:
    """Requests answered by `urls` when one wrk process per URL (one thread, `connections`
    spread over them, as a load balancer would) loads them for `seconds`, and the wrk
    processes' CPU seconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    share = str(connections // len(urls))
    command = ["wrk", "-t1", "-c", share, "-d", f"{seconds}s", "-s", script]
    loads = [subprocess.Popen([*command, url], stdout=subprocess.PIPE, text=True) for url in urls]
    requests = 0
    for load in loads:
        out, _ = load.communicate()
        found = re.search(r"requests (\d+) failed (\d+)", out)
        if load.returncode or found is None or int(found.group(2)):
            raise SystemExit(f"store_bench: wrk failed (exit {load.returncode}): {out[-500:]}")
        requests += int(found.group(1))
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    used = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return requests, used


def instances(count: int, store: str, connections: int, seconds: float, script: str
              ) -> tuple[float, float, float]:  # fmt: skip
    """Requests per second of `count` instances, their CPU seconds per request, and the
    load generator's."""
    servers = [start_server("--store", store) for _ in range(count)]
    try:
        urls = [url for _, url in servers]
        spread(urls, connections, WARM_UP, script)
        before = sum(cpu_seconds(process.pid) for process, _ in servers)
        requests, generator = spread(urls, connections, seconds, script)
        used = sum(cpu_seconds(process.pid) for process, _ in servers) - before
        return requests / seconds, used / requests, generator / requests
    finally:
        for process, _ in servers:
            process.terminate()
            process.wait(30)


def conformance_server(store: str) -> tuple[subprocess.Popen[str], str]:
    command = [
        sys.executable, "-m", "toolgen", "serve", "specs/conformance", "--handlers",
        "examples.conformance_handlers:HANDLERS", "--http", "127.0.0.1:0", "--store", store,
    ]  # fmt: skip
    process = subprocess.Popen(command, cwd=ROOT, stderr=subprocess.PIPE, text=True)
    assert process.stderr is not None
    line = process.stderr.readline()
    return process, line.split(" at ", 1)[1].split()[0]


def headers(method: str, name: str) -> dict[str, str]:
    return {
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": MODERN,
        "mcp-method": method,
        "mcp-name": name,
    }


def body(method: str, request_id: int, **params: Any) -> bytes:
    meta = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": TASKS,
    }
    message = {"jsonrpc": "2.0", "id": request_id, "method": method,
               "params": {**params, "_meta": meta}}  # fmt: skip
    return orjson.dumps(message)


async def poll(url: str, task_id: str, run: Run, deadline: float) -> None:
    parts = urlsplit(url)
    assert parts.hostname is not None and parts.port is not None
    connection = Connection(parts.hostname, parts.port)
    await connection.open()
    request_id = 0
    while time.perf_counter() < deadline:
        request_id += 1
        started = time.perf_counter()
        status, _, payload = await connection.request(
            "POST", body("tasks/get", request_id, taskId=task_id), headers("tasks/get", task_id)
        )
        run.latencies.append(time.perf_counter() - started)
        if status != 200 or orjson.loads(payload)["result"]["status"] != "working":
            run.fail(f"HTTP {status}: {payload[:200]!r}")
    await connection.close()


async def tasks_get(urls: list[str], clients: int, seconds: float) -> Run:
    first, second = urls
    parts = urlsplit(first)
    assert parts.hostname is not None and parts.port is not None
    creator = Connection(parts.hostname, parts.port)
    await creator.open()
    call = body("tools/call", 1, name="slow_compute", arguments={"seconds": 600})
    _, _, payload = await creator.request("POST", call, headers("tools/call", "slow_compute"))
    await creator.close()
    found = orjson.loads(payload)
    if "taskId" not in found.get("result", {}):
        raise SystemExit(f"store_bench: no task: {payload[:300]!r}")
    task_id = found["result"]["taskId"]
    run = Run("modern", clients)
    await asyncio.gather(*(poll(second, task_id, Run("modern", 1), time.perf_counter() + WARM_UP)
                           for _ in range(clients)))  # fmt: skip
    started = time.perf_counter()
    deadline = started + seconds
    await asyncio.gather(*(poll(second, task_id, run, deadline) for _ in range(clients)))
    run.seconds = time.perf_counter() - started
    return run


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--connections", type=int, default=50)
    parser.add_argument("--poll-clients", type=int, default=10)
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("store_bench: wrk is not installed (apt-get install wrk)")
    redis, store = redis_server()
    load = os.getloadavg()[0]
    scratch = tempfile.TemporaryDirectory()
    script = os.path.join(scratch.name, "call.lua")
    with open(script, "w") as file:
        file.write(wrk_script())
    try:
        one: list[float] = []
        two: list[float] = []
        cpu: dict[int, list[float]] = {1: [], 2: []}
        driver: list[float] = []
        for index in range(args.rounds):
            order = [(1, one), (2, two)] if index % 2 == 0 else [(2, two), (1, one)]
            for count, into in order:
                throughput, per_request, drive = instances(
                    count, store, args.connections, args.seconds, script
                )
                into.append(throughput)
                cpu[count].append(per_request)
                driver.append(drive)
                print(
                    f"round {index + 1}: {count} instance(s): {throughput:,.0f} req/s, "
                    f"{per_request * 1e6:.0f} us CPU per request",
                    file=sys.stderr,
                )
        servers = [conformance_server(store) for _ in range(2)]
        try:
            run = asyncio.run(
                tasks_get([url for _, url in servers], args.poll_clients, args.seconds)
            )
        finally:
            for process, _ in servers:
                process.terminate()
                process.wait(30)
    finally:
        redis.terminate()
        redis.wait(30)
        scratch.cleanup()
    print(f"load average {load:.2f} before, {os.getloadavg()[0]:.2f} after")
    single, double = Stat.of(one), Stat.of(two)
    ratios = Stat.of([b / a for a, b in zip(one, two, strict=True)])
    cpu_one, cpu_two = Stat.of(cpu[1]), Stat.of(cpu[2])
    if single is None or double is None or ratios is None or cpu_one is None or cpu_two is None:
        print(tasks_line(run, args))  # --rounds 0: tasks/get only
        return 1 if run.errors else 0
    print("| servers on one Redis store | stateless req/s, median (min-max) | vs one "
          "| server CPU per request, median | vs one |")  # fmt: skip
    print("| --- | ---: | ---: | ---: | ---: |")
    print(f"| one instance | {single.median:,.0f} ({single.lo:,.0f}-{single.hi:,.0f}) | 1.00x "
          f"| {cpu_one.median * 1e6:.0f} us | 1.00x |")  # fmt: skip
    print(f"| two instances | {double.median:,.0f} ({double.lo:,.0f}-{double.hi:,.0f}) "
          f"| {double.median / single.median:.2f}x (per round {ratios.median:.2f}x, "
          f"{ratios.lo:.2f}-{ratios.hi:.2f}) | {cpu_two.median * 1e6:.0f} us "
          f"| {cpu_two.median / cpu_one.median:.2f}x |")  # fmt: skip
    generator = Stat.of(driver)
    assert generator is not None
    print(f"\nThe load generator (wrk, on the same {os.cpu_count()} cores) takes "
          f"{generator.median * 1e6:.0f} us of CPU per request.")  # fmt: skip
    print()
    print(tasks_line(run, args))
    return 1 if run.errors else 0


def tasks_line(run: Run, args: argparse.Namespace) -> str:
    return (
        f"tasks/get through Redis ({args.poll_clients} clients, {args.seconds:g} s, "
        f"{len(run.latencies)} requests, {run.errors} errors): "
        f"p50 {run.percentile(50) * 1000:.2f} ms, p99 {run.percentile(99) * 1000:.2f} ms, "
        f"{run.throughput:,.0f} req/s"
    )


if __name__ == "__main__":
    sys.exit(main())
