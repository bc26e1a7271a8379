"""What running a call as a task costs (the tasks extension), in process, side by side.

    python benchmarks/tasks_bench.py [--calls 1000] [--repeats 5]

The same handler (`slow_compute` with `seconds: 0`, specs/conformance) is called
through the engine two ways, one request at a time:

- plain: `tools/call` from a client without the extension (the result at once);
- task: `tools/call` with the extension (`CreateTaskResult`), then `tasks/get`
  until the task is `completed` (the result inlined).

Prints the median microseconds per call of each way over the repeats and their
ratio, then the memory one parked task holds (tasks waiting in `input_required`
on `confirm_delete`, measured with tracemalloc).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import toolgen  # noqa: E402
from examples.conformance_handlers import HANDLERS  # noqa: E402
from toolgen.serve.connection import Connection  # noqa: E402
from toolgen.serve.engine import Engine  # noqa: E402
from toolgen.serve.tasks import TASKS_EXTENSION, TaskStore  # noqa: E402

WITH = {"extensions": {TASKS_EXTENSION: {}}, "elicitation": {}}


def message(request_id: int, method: str, capabilities: Any, **params: Any) -> dict[str, Any]:
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    }
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": method,
        "params": {**params, "_meta": meta},
    }


async def plain(engine: Engine, calls: int) -> float:
    connection = Connection()
    start = time.perf_counter()
    for i in range(calls):
        call = message(i, "tools/call", {}, name="slow_compute", arguments={"seconds": 0})
        reply = await engine.handle(call, connection)
        assert reply is not None and reply["result"]["resultType"] == "complete"
    return (time.perf_counter() - start) / calls * 1e6


async def as_tasks(engine: Engine, calls: int) -> float:
    connection = Connection()
    start = time.perf_counter()
    for i in range(calls):
        call = message(i, "tools/call", WITH, name="slow_compute", arguments={"seconds": 0})
        created = await engine.handle(call, connection)
        assert created is not None
        task_id = created["result"]["taskId"]
        while True:
            got = await engine.handle(message(i, "tasks/get", WITH, taskId=task_id), connection)
            assert got is not None
            if got["result"]["status"] == "completed":
                break
            await asyncio.sleep(0)
    return (time.perf_counter() - start) / calls * 1e6


async def parked_bytes(engine: Engine, tasks: int) -> float:
    connection = Connection()
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    for i in range(tasks):
        call = message(i, "tools/call", WITH, name="confirm_delete", arguments={"filename": "f"})
        await engine.handle(call, connection)
    for _ in range(5):
        await asyncio.sleep(0)
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    grown = sum(stat.size_diff for stat in after.compare_to(before, "filename"))
    return grown / tasks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=5)
    options = parser.parse_args()
    tools = toolgen.load(ROOT / "specs" / "conformance")

    async def run() -> tuple[list[float], list[float], float]:
        engine = Engine(tools, HANDLERS)
        engine.task_store = TaskStore(limit=options.calls * options.repeats + 100)
        await plain(engine, 50)  # warm-up
        await as_tasks(engine, 50)
        plains, tasks = [], []
        for _ in range(options.repeats):
            plains.append(await plain(engine, options.calls))
            tasks.append(await as_tasks(engine, options.calls))
        parked = Engine(tools, HANDLERS)
        parked.task_store = TaskStore(limit=options.calls)
        return plains, tasks, await parked_bytes(parked, options.calls)

    plains, tasks, per_task = asyncio.run(run())
    a, b = statistics.median(plains), statistics.median(tasks)
    print(f"plain call:          {a:8.1f} µs per call (median of {options.repeats})")
    print(f"task + tasks/get:    {b:8.1f} µs per call (median of {options.repeats})")
    print(f"ratio task / plain:  {b / a:8.2f}")
    print(
        f"one parked task:     {per_task / 1024:8.1f} KiB ({options.calls} tasks waiting on input)"
    )


if __name__ == "__main__":
    main()
