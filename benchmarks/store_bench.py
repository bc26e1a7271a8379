"""Servers sharing a Redis store: what two instances serve against one, and `tasks/get`
latency through Redis.

    python benchmarks/store_bench.py [--rounds 5] [--seconds 5] [--clients 50]

Starts a `redis-server` on a free loopback port (nothing saved), then per round, in
alternating order:

- one instance: `toolgen serve specs/notes --mock --http 127.0.0.1:0 --store URL`, all
  clients of `http_load.py` on it;
- two instances: the same command twice, half the clients on each (as a load balancer
  would spread them);

each running stateless 2026-07-28 `tools/call get_note` back to back (the store is not
on their path). Then `tasks/get` latency: two instances of `toolgen serve
specs/conformance` on the store, a task created on the first, and `--clients` clients
polling `tasks/get` on the second (whose answer reads the record in Redis and asks
whether its owner still runs). The load generator is one Python process on the same
cores as the servers: the figures are a floor. The servers' CPU time per request (all
instances together) tells whether a second instance adds work per request, whatever the
cores left to it.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import socket
import subprocess
import sys
import time
from typing import Any
from urllib.parse import urlsplit

import orjson
from driver import cpu_seconds
from http_load import Connection, Run, measure, start_server
from stats import Stat

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODERN = "2026-07-28"
TASKS = {"extensions": {"io.modelcontextprotocol/tasks": {}}}
WARM_UP = 1.0


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


async def spread(urls: list[str], clients: int, seconds: float) -> float:
    """Requests per second of `clients` clients spread over `urls`."""
    share = clients // len(urls)
    runs = await asyncio.gather(*(measure(url, "modern", share, seconds) for url in urls))
    errors = sum(run.errors for run in runs)
    if errors:
        raise SystemExit(f"store_bench: {errors} errors, first: {runs[0].first_error}")
    return sum(run.throughput for run in runs)


def instances(count: int, store: str, clients: int, seconds: float) -> tuple[float, float, float]:
    """Requests per second of `count` instances, their CPU seconds per request, and the load
    generator's (this process)."""
    servers = [start_server("--store", store) for _ in range(count)]
    try:
        urls = [url for _, url in servers]
        asyncio.run(spread(urls, clients, WARM_UP))
        before = sum(cpu_seconds(process.pid) for process, _ in servers)
        started, mine = time.perf_counter(), time.process_time()
        throughput = asyncio.run(spread(urls, clients, seconds))
        requests = throughput * (time.perf_counter() - started)
        used = sum(cpu_seconds(process.pid) for process, _ in servers) - before
        return throughput, used / requests, (time.process_time() - mine) / requests
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
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--poll-clients", type=int, default=10)
    args = parser.parse_args()
    redis, store = redis_server()
    load = os.getloadavg()[0]
    try:
        one: list[float] = []
        two: list[float] = []
        cpu: dict[int, list[float]] = {1: [], 2: []}
        driver: list[float] = []
        for index in range(args.rounds):
            order = [(1, one), (2, two)] if index % 2 == 0 else [(2, two), (1, one)]
            for count, into in order:
                throughput, per_request, drive = instances(count, store, args.clients, args.seconds)
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
    print(f"\nThe load generator (this process, on the same {os.cpu_count()} cores) takes "
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
