"""The Go target, side by side: the server of the package `toolgen build --target go` writes for
specs/notes (`ServeStdio` on the official Go SDK, with the handlers of the tests'
`go_support/notes_server`) vs a hand-written server
on the same SDK: `mcp.AddTool` with the schemas the SDK infers from hand-written types, and
its stdio transport (`contenders/go/handwritten`, the same handlers for its own types).

Sequential `tools/call` over stdio, driven by the raw client every serving benchmark uses:
calls/s with p50/p99, the server's CPU per call and its peak RSS (VmHWM), for `get_note` (an
object in, a note with a pattern-checked id out) and `list_notes` (defaults, an array out).
Each server is pinned to one core with taskset, the driver to the other. Rounds alternate
which contender goes first; figures are medians over rounds (min-max) and ratios of medians
(goal: calls/s >= 0.9x).

    python benchmarks/go_bench.py [--rounds 5] [--calls 2000]

Needs Go 1.25 or later; modules come from the Go module proxy into the per-user caches.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path
from typing import Any

from make_specs import WORK
from stats import Stat, percentile
from typescript_bench import serve_once

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from golang_support import SUPPORT, Workspace, go  # noqa: E402 (the tests' Go workspace)

SERVERS = {"generated": "notes_server", "handwritten": "handwritten"}
"""Contender → its program (the generated package's is the tests' notes server)."""
NOTE = {"id": "n_0000abcd", "title": "Groceries", "body": "milk", "tags": ["home"]}
CALLS: dict[str, tuple[dict[str, Any], Any]] = {
    "get_note": ({"id": "n_0000abcd"}, NOTE),
    "list_notes": ({"tag": "home"}, [NOTE]),
}
"""Tool → (arguments, the structured result expected)."""
SERVER_CORE, DRIVER_CORE = 1, 0


def prepare() -> Workspace:
    """Both contenders built in one Go workspace with the notes package."""
    root = WORK / "go"
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    contenders = Path(__file__).parent / "contenders" / "go"
    workspace = Workspace(root / "workspace", support=SUPPORT, contenders=contenders)
    assert workspace.add(ROOT / "specs" / "notes") == "notes", workspace.failed
    done = workspace.build()
    if done.returncode != 0:
        raise SystemExit(done.stderr)
    return workspace


def show(label: str, values: list[float], unit: str) -> Stat:
    stat = Stat.of(values)
    assert stat is not None
    print(f"| {label} | {stat.median:.3g} {unit} ({stat.lo:.3g}-{stat.hi:.3g}, n={stat.n}) |")
    return stat


def bench(workspace: Workspace, rounds: int, calls: int) -> None:
    taskset = shutil.which("taskset")
    os.sched_setaffinity(0, {DRIVER_CORE})
    for tool in CALLS:
        measures: dict[str, dict[str, list[float]]] = {
            key: {"rate": [], "p50": [], "p99": [], "cpu": [], "rss": []} for key in SERVERS
        }
        for index in range(rounds):
            order = list(SERVERS) if index % 2 == 0 else list(reversed(SERVERS))
            for key in order:
                argv = workspace.command(SERVERS[key])
                if taskset is not None:
                    argv = [taskset, "-c", str(SERVER_CORE), *argv]
                arguments, expected = CALLS[tool]
                rate, latencies, per_call, rss = serve_once(
                    argv, workspace.root, calls, tool, arguments, expected
                )
                found = measures[key]
                found["rate"].append(rate)
                found["p50"].append(percentile(latencies, 50) * 1e6)
                found["p99"].append(percentile(latencies, 99) * 1e6)
                found["cpu"].append(per_call * 1e6)
                found["rss"].append((rss or 0) / 1024)
        print(f"\n| Go stdio server, `tools/call {tool}` | median (min-max) |\n| --- | --- |")
        for key in SERVERS:
            show(f"{key}: sequential calls/s", measures[key]["rate"], "calls/s")
            show(f"{key}: p50", measures[key]["p50"], "µs")
            show(f"{key}: p99", measures[key]["p99"], "µs")
            show(f"{key}: server CPU per call", measures[key]["cpu"], "µs")
            show(f"{key}: peak RSS", measures[key]["rss"], "MiB")
        for label, name, goal in (
            ("calls/s", "rate", " (goal >= 0.9x)"),
            ("p50 latency", "p50", ""),
            ("CPU per call", "cpu", ""),
            ("peak RSS", "rss", ""),
        ):
            generated = Stat.of(measures["generated"][name])
            handwritten = Stat.of(measures["handwritten"][name])
            assert generated is not None and handwritten is not None
            print(
                f"| generated / hand-written {label} | {generated.median / handwritten.median:.2f}x{goal} |"
            )
    if taskset is None:
        print("\n(taskset not found: the servers were not pinned)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=2000)
    args = parser.parse_args()
    if go() is None:
        raise SystemExit("Go 1.25 or later is not installed")
    bench(prepare(), args.rounds, args.calls)


if __name__ == "__main__":
    main()
