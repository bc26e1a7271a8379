"""How `toolgen serve --http --workers N` throughput scales: 1 worker against 2, side by side.

    python benchmarks/http_workers.py                 # 5 rounds x (1, 2 workers), 8 s each
    python benchmarks/http_workers.py --write         # ... and update the http-workers
                                                      #     section of benchmarks/RESULTS.md

Each round starts `toolgen serve specs/notes --mock --http 127.0.0.1:0
--workers N --store URL` (a `redis-server` this script starts) for every N (the order alternates between rounds, so drift in the
shared machine's load hits both alike), warms it up, and runs the load of
`http_load.py` (the same minimal keep-alive client, the same checked
`tools/call get_note`) for the stateless 2026-07-28 era or a legacy session per
client. Reported: the median throughput per N over the rounds (min-max), the
median p50 latency, and the ratio of medians against one worker. The load
generator is one Python process on the same cores as the server, so the
figures are a floor for what the workers can do, not a ceiling.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import sys
import time
from dataclasses import dataclass, field

from http_load import Run, measure, start_server, write_section
from stats import Stat
from store_bench import redis_server

START = "<!-- http-workers:start -->"
END = "<!-- http-workers:end -->"
WARM_UP = 1.0


@dataclass
class Series:
    """The runs of one worker count."""

    workers: int
    runs: list[Run] = field(default_factory=list)

    def throughput(self) -> Stat:
        found = Stat.of([run.throughput for run in self.runs])
        assert found is not None
        return found

    def p50_ms(self) -> float:
        found = Stat.of([run.percentile(50) * 1000 for run in self.runs])
        assert found is not None
        return found.median

    @property
    def errors(self) -> int:
        return sum(run.errors for run in self.runs)


def one_run(workers: int, era: str, clients: int, seconds: float, store: str) -> Run:
    process, url = start_server("--workers", str(workers), "--store", store)
    try:
        asyncio.run(measure(url, era, clients, WARM_UP))
        return asyncio.run(measure(url, era, clients, seconds))
    finally:
        process.terminate()
        process.wait(30)


def table(series: list[Series]) -> str:
    """Medians per worker count; ratios against the first count, both of the medians and
    the median of the ratios within each round (the pairs ran back to back)."""
    base = series[0]
    rows = [
        "| workers | rounds | throughput, median (min-max) | ratio of medians | "
        "per-round ratio, median (min-max) | p50 latency | errors |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for one in series:
        stat = one.throughput()
        paired = Stat.of(
            [
                run.throughput / first.throughput
                for run, first in zip(one.runs, base.runs, strict=True)
            ]
        )
        assert paired is not None
        rows.append(
            f"| {one.workers} | {stat.n} | {stat.median:,.0f} req/s ({stat.lo:,.0f}-{stat.hi:,.0f}) "
            f"| {stat.median / base.throughput().median:.2f}x "
            f"| {paired.median:.2f}x ({paired.lo:.2f}-{paired.hi:.2f}) "
            f"| {one.p50_ms():.1f} ms | {one.errors} |"
        )
    return "\n".join(rows)


def section(text: str, args: argparse.Namespace, load: tuple[float, float]) -> str:
    machine = f"{os.cpu_count()} CPUs, Python {platform.python_version()}"
    return f"""{START}
## Several worker processes (issue 16)

`python benchmarks/http_workers.py --era {args.era} --rounds {args.rounds} --seconds {args.seconds:g} --write`
({time.strftime("%Y-%m-%d")}, {machine}; load average {load[0]:.2f} before, {load[1]:.2f} after):
`toolgen serve specs/notes --mock --http 127.0.0.1:0 --workers N`, {args.clients}
keep-alive clients of `http_load.py` calling `tools/call get_note` back to back
({args.era} era), {args.seconds:g} s per run after a {WARM_UP:g} s warm-up, worker counts
alternating within each round. The load generator is one Python process sharing the
same cores (and a machine shared with other work), so this is a floor.

{text}
{END}"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--era", choices=["modern", "legacy"], default="modern")
    parser.add_argument("--write", action="store_true", help="update benchmarks/RESULTS.md")
    args = parser.parse_args()
    series = [Series(count) for count in args.workers]
    before = os.getloadavg()[0]
    redis, store = redis_server()
    try:
        for index in range(args.rounds):
            order = series if index % 2 == 0 else series[::-1]
            for one in order:
                one.runs.append(one_run(one.workers, args.era, args.clients, args.seconds, store))
                print(
                    f"round {index + 1}: {one.workers} worker(s): "
                    f"{one.runs[-1].throughput:,.0f} req/s",
                    file=sys.stderr,
                )
    finally:
        redis.terminate()
        redis.wait(30)
    text = table(series)
    print(text)
    for one in series:
        for run in one.runs:
            if run.errors:
                print(f"{one.workers} workers: first error: {run.first_error}", file=sys.stderr)
    if args.write:
        write_section(section(text, args, (before, os.getloadavg()[0])), START, END)
    return 1 if any(one.errors for one in series) else 0


if __name__ == "__main__":
    sys.exit(main())
