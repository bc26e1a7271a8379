"""The Rust target's server, side by side with a hand-written rmcp server.

- generated: the crate `toolgen build --target rust` prints for `specs/notes`, served by
  `tests/rust/notes_server` (in-memory handlers): arguments and results checked against the
  spec's JSON Schemas, the build's listings;
- handwritten: the same tools written the way rmcp documents it (`contenders/rmcp_notes`:
  `#[tool]` methods, schemars types, `Json` results), no schema validation of its own.

Both are release builds of one cargo workspace (built in the user's cache, as the tests build
it), driven over stdio by the raw client every serving benchmark uses: sequential `get_note`
calls (after one `create_note` and a warm-up), calls/s with p50/p99, the server's CPU per call
and its peak RSS (VmHWM). The server runs pinned to one core and this driver to the other
(`taskset`); rounds alternate which contender goes first; figures are medians over rounds
(min-max) and ratios of medians.

    python benchmarks/rust_bench.py [--rounds 5] [--calls 5000]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from driver import StdioClient, call_line, sequential
from stats import percentile
from typescript_bench import side_by_side

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
import rust_support  # noqa: E402  (the tests' workspace: one layout for both)
from targets_support import ROWS  # noqa: E402

SERVERS = {"generated": "notes_server", "handwritten": "rmcp_notes"}
SERVER_CORE, DRIVER_CORE = "1", 0
NOTE = {"title": "Groceries", "body": "milk", "tags": ["home"]}


def build() -> Path:
    """Lay the tests' workspace out and build the two servers (release); the folder holding
    them."""
    with tempfile.TemporaryDirectory() as out:
        failed = ROWS["rust"].assemble(Path(out))
        assert not failed, failed
    done = rust_support.cargo(
        "build", "--release", "--locked", "-p", "notes_server", "-p", "rmcp_notes"
    )
    assert done.returncode == 0, done.stderr[-6000:]
    return rust_support.RELEASE


def serve_once(binary: Path, calls: int) -> tuple[float, list[float], float, int]:
    """Calls/s of one fresh server, the latencies (s), its CPU seconds per call and peak RSS
    (KiB)."""
    with StdioClient(["taskset", "-c", SERVER_CORE, str(binary)], ROOT) as client:
        client.initialize()
        created = client.request(call_line(1, "create_note", NOTE), 1)
        note = created["result"]["structuredContent"]
        assert note["title"] == NOTE["title"], created
        arguments = {"id": note["id"]}
        for request_id in range(2, 202):  # warm-up
            answer = client.request(call_line(request_id, "get_note", arguments), request_id)
            assert answer["result"]["structuredContent"] == note, answer
        lines = [call_line(1000 + i, "get_note", arguments) for i in range(calls)]
        seconds, latencies, per_call = sequential(client, lines, 1000)
        return calls / seconds, latencies, per_call, client.peak_rss_kib() or 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=5000)
    args = parser.parse_args()
    os.sched_setaffinity(0, {DRIVER_CORE})
    binaries = build()
    keys = list(SERVERS)
    rates: dict[str, list[float]] = {key: [] for key in keys}
    p50: dict[str, list[float]] = {key: [] for key in keys}
    p99: dict[str, list[float]] = {key: [] for key in keys}
    cpu: dict[str, list[float]] = {key: [] for key in keys}
    rss: dict[str, list[float]] = {key: [] for key in keys}
    for index in range(args.rounds):
        for key in keys if index % 2 == 0 else list(reversed(keys)):
            rate, latencies, per_call, peak = serve_once(binaries / SERVERS[key], args.calls)
            rates[key].append(rate)
            p50[key].append(percentile(latencies, 50) * 1e6)
            p99[key].append(percentile(latencies, 99) * 1e6)
            cpu[key].append(per_call * 1e6)
            rss[key].append(peak / 1024)
    side_by_side(
        "| Rust stdio server, sequential `tools/call` | median (min-max) |",
        [
            ("calls/s", rates, "calls/s", "calls/s (goal >= 0.9x)"),
            ("p50", p50, "µs", None),
            ("p99", p99, "µs", None),
            ("server CPU per call", cpu, "µs", "CPU per call"),
            ("peak RSS", rss, "MiB", "peak RSS"),
        ],
    )


if __name__ == "__main__":
    main()
