"""Run every benchmark in one go, side by side, and write the results table and chart.

    python benchmarks/run.py               # full run (~10 min on 2 cores): RESULTS.md, ratios.png
    python benchmarks/run.py --quick       # smoke mode: tiny sizes, 1 round, seconds
    python benchmarks/run.py --rounds 7 --only serve

Each round runs every measurement once, contenders in a rotated order, so
that noise from other work on the machine spreads over all of them; the
report gives medians over rounds with min-max, and ratios between medians.
See benchmarks/README.md for what is measured and how.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import sys
import time
from dataclasses import asdict, dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import build_bench  # noqa: E402
import driver  # noqa: E402
import make_specs  # noqa: E402
import raised  # noqa: E402
import report  # noqa: E402
import serve_bench  # noqa: E402
from stats import Stat, Target, percentile, ratio  # noqa: E402

PARTS = ("build", "lint", "load", "serve", *raised.PARTS)


@dataclass(frozen=True)
class Sizes:
    build_tools: int
    list_tools: int
    rounds: int
    serve: driver.ServeSizes
    raised: raised.RaisedSizes


FULL = Sizes(1000, 500, 5, driver.ServeSizes(), raised.FULL)
QUICK = Sizes(
    30,
    20,
    1,
    driver.ServeSizes(warmup=5, sequential=30, pipelined=30, lists=3, cold_starts=1),
    raised.QUICK,
)


def machine_info() -> dict[str, Any]:
    model = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    versions = {}
    for dist in (
        "toolgen",
        "mcp",
        "pydantic",
        "pydantic-core",
        "datamodel-code-generator",
        "jsonschema-rs",
        "orjson",
    ):
        try:
            versions[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            versions[dist] = "not installed"
    fastmcp = serve_bench.FASTMCP_VENV / "bin" / "python"
    if fastmcp.exists():
        import subprocess

        proc = subprocess.run(
            [
                str(fastmcp),
                "-c",
                "from importlib.metadata import version; print(version('fastmcp'))",
            ],
            capture_output=True,
            text=True,
        )
        versions["fastmcp"] = proc.stdout.strip() or "broken"
    return {
        "git": git_revision(),
        "cores": os.cpu_count(),
        "cpu": model,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "versions": versions,
        "loadavg_start": os.getloadavg(),
    }


def git_revision() -> str:
    """The commit measured, marked when toolgen/ has uncommitted changes (a shared tree)."""
    import subprocess

    def git(*args: str) -> str:
        proc = subprocess.run(["git", *args], cwd=HERE, capture_output=True, text=True)
        return proc.stdout.strip() if proc.returncode == 0 else ""

    commit = git("rev-parse", "--short", "HEAD") or "unknown"
    dirty = git("status", "--porcelain", "--", str(HERE.parent / "toolgen"))
    return commit + (" + uncommitted changes in toolgen/" if dirty else "")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smoke mode: tiny sizes, 1 round")
    parser.add_argument("--rounds", type=int, help="rounds (default 5; quick: 1)")
    parser.add_argument("--only", action="append", choices=PARTS, help="run only these parts")
    parser.add_argument("--contenders", help="comma-separated serving contender keys")
    parser.add_argument("--work", type=Path, help="scratch dir (default benchmarks/.work)")
    parser.add_argument("--out", type=Path, help="results table (default benchmarks/RESULTS.md)")
    parser.add_argument("--chart", type=Path, help="chart PNG (default benchmarks/ratios.png)")
    parser.add_argument(
        "--rerender",
        action="store_true",
        help="only rewrite the table and chart from the last run's results.json (e.g. after "
        "editing ANALYSIS.md)",
    )
    parser.add_argument(
        "--no-install", action="store_true", help="do not create the FastMCP venv (quick: implied)"
    )
    return parser.parse_args(argv)


class Collected:
    """Raw per-round measurements."""

    def __init__(self) -> None:
        self.build: list[dict[str, build_bench.ProcessTime]] = []
        self.lint: list[build_bench.ProcessTime] = []
        self.lint_cold: list[build_bench.ProcessTime] = []
        self.lint_edit: list[build_bench.ProcessTime] = []
        self.load: list[dict[str, Any]] = []
        self.serve: dict[str, list[driver.SessionResult]] = {}
        self.raised = raised.RaisedCollected()
        self.notes: list[str] = []


def serve_round(
    contenders: list[serve_bench.Contender],
    inputs: serve_bench.ServeInputs,
    sizes: Sizes,
    round_index: int,
    work: Path,
    collected: Collected,
) -> None:
    if not contenders:
        return
    shift = round_index % len(contenders)
    order = contenders[shift:] + contenders[:shift]
    expected = make_specs.bench_result(**make_specs.BENCH_ARGUMENTS)
    logs = work / "logs"
    logs.mkdir(exist_ok=True)
    for contender in order:
        with open(logs / f"{contender.key}.log", "ab") as log:
            try:
                result = driver.serve_session(
                    contender.argv(inputs, False),
                    contender.argv(inputs, True),
                    work,
                    make_specs.BENCH_TOOL_NAME,
                    make_specs.BENCH_ARGUMENTS,
                    expected,
                    sizes.serve,
                    small_tools=3,
                    large_tools=sizes.list_tools,
                    log=log,
                )
            except (driver.ServerGone, OSError, ValueError) as exc:
                result = driver.SessionResult(problems=[f"session failed: {exc}"])
        for problem in result.problems:
            note = f"{contender.label}: {problem} (log: {logs / (contender.key + '.log')})"
            if note not in collected.notes:
                collected.notes.append(note)
        collected.serve.setdefault(contender.key, []).append(result)


def serve_summary(sessions: list[driver.SessionResult]) -> dict[str, Stat | None]:
    ok = [s for s in sessions if s.latencies]

    def stat(fn: Any) -> Stat | None:
        values = [v for v in (fn(s) for s in ok) if v is not None]
        return Stat.of(values)

    return {
        "seq_cps": stat(lambda s: len(s.latencies) / s.sequential_seconds),
        "p50_us": stat(lambda s: percentile(s.latencies, 50) * 1e6),
        "p99_us": stat(lambda s: percentile(s.latencies, 99) * 1e6),
        "pipe_cps": stat(lambda s: s.pipelined_calls / s.pipelined_seconds),
        "cold_ms": stat(lambda s: percentile(s.cold_start, 50) * 1e3),
        "cold_large_ms": stat(
            lambda s: s.cold_start_large * 1e3 if s.cold_start_large is not None else None
        ),
        "rss_mib": stat(lambda s: s.peak_rss_kib / 1024 if s.peak_rss_kib else None),
        "rss_large_mib": stat(
            lambda s: s.peak_rss_large_kib / 1024 if s.peak_rss_large_kib else None
        ),
        "list_small_ms": stat(
            lambda s: percentile(s.list_small, 50) * 1e3 if s.list_small else None
        ),
        "list_large_ms": stat(
            lambda s: percentile(s.list_large, 50) * 1e3 if s.list_large else None
        ),
    }


LINT_SAMPLES = 3
"""Lint runs of each kind per round (first run, repeated, after an edit): a lint is a
fraction of a second, judged against absolute goals, and one slow moment of the shared
machine should not decide its median."""


def summarize(
    collected: Collected, contenders: list[serve_bench.Contender], sizes: Sizes
) -> dict[str, Any]:
    build: dict[str, Stat | None] = {}
    for key in ("toolgen_full", "dcg", "toolgen_noop", "toolgen_edit"):
        build[key] = Stat.of([r[key].wall for r in collected.build if key in r])
        build[key + "_cpu"] = Stat.of([r[key].cpu for r in collected.build if key in r])
        build[key + "_rss_mib"] = Stat.of(
            [r[key].rss_kib / 1024 for r in collected.build if key in r]
        )
    lint = {
        "wall": Stat.of([p.wall for p in collected.lint]),
        "cpu": Stat.of([p.cpu for p in collected.lint]),
        "cold_wall": Stat.of([p.wall for p in collected.lint_cold]),
        "cold_cpu": Stat.of([p.cpu for p in collected.lint_cold]),
        "edit_wall": Stat.of([p.wall for p in collected.lint_edit]),
        "edit_cpu": Stat.of([p.cpu for p in collected.lint_edit]),
    }
    load: dict[str, Any] = {
        k: Stat.of([float(r[k]) for r in collected.load])
        for k in ("import", "load", "validators", "total")
    }
    load["how"] = collected.load[0]["how"] if collected.load else None
    load["compiled"] = collected.load[0]["compiled"] if collected.load else None
    serve = {
        c.key: {"label": c.label, "toolgen": c.toolgen, **serve_summary(collected.serve[c.key])}
        for c in contenders
        if c.key in collected.serve
    }
    targets = build_targets(build, lint, serve, sizes)
    more = raised.summary(collected.raised)
    targets17 = raised.targets(more, build, lint, serve, sizes, sizes.raised)
    return {
        "build": build,
        "lint": lint,
        "load": load,
        "serve": serve,
        "targets": targets,
        "raised": more,
        "targets17": targets17,
    }


def build_targets(
    build: dict[str, Stat | None],
    lint: dict[str, Stat | None],
    serve: dict[str, dict[str, Any]],
    sizes: Sizes,
) -> list[Target]:
    n = sizes.build_tools
    full = build.get("toolgen_full")
    targets = [
        Target(
            f"full build ({n} tools) vs one DCG run", ratio(full, build.get("dcg")), 1.5, True, "x"
        ),
        Target(
            "no-op rebuild vs full build", ratio(build.get("toolgen_noop"), full), 0.05, True, "x"
        ),
        Target(
            f"lint of {n} tools (whole process)",
            lint["wall"].median if lint.get("wall") else None,
            1.5,
            True,
            "s",
        ),
    ]
    mcpserver = serve.get("mcpserver", {})
    handwritten = serve.get("handwritten", {})
    for row in serve.values():
        if not row["toolgen"]:
            continue
        label = row["label"]
        targets += [
            Target(
                "sequential calls/s vs MCPServer",
                ratio(row["seq_cps"], mcpserver.get("seq_cps")),
                5.0,
                False,
                "x",
                label,
            ),
            Target(
                "sequential calls/s vs hand-written",
                ratio(row["seq_cps"], handwritten.get("seq_cps")),
                0.8,
                False,
                "x",
                label,
            ),
            Target(
                "cold start vs MCPServer",
                ratio(row["cold_ms"], mcpserver.get("cold_ms")),
                0.4,
                True,
                "x",
                label,
            ),
            Target(
                "peak RSS vs MCPServer",
                ratio(row["rss_mib"], mcpserver.get("rss_mib")),
                0.5,
                True,
                "x",
                label,
            ),
            Target(
                f"tools/list of {sizes.list_tools} tools (p50)",
                row["list_large_ms"].median if row.get("list_large_ms") else None,
                2.0,
                True,
                "ms",
                label,
            ),
        ]
    return targets


def raised_round(
    parts: set[str],
    sizes: Sizes,
    paths: dict[str, Path],
    round_index: int,
    work: Path,
    got: raised.RaisedCollected,
    say: Any,
) -> None:
    """One round of issue 17's parts (those selected)."""
    mine = sizes.raised
    if "enum" in parts and round_index < 3:  # minutes each before issue 17's fix: 3 rounds
        say("huge-enum builds")
        raised.enum_round(mine, work, got)
    if "http" in parts:
        say("Streamable HTTP side by side")
        raised.http_round(
            mine, paths["serve_small"], paths["serve_small_defs"], round_index, work, got
        )
    if "diff" in parts:
        raised.diff_round(mine, work, round_index, got)
    if "import" in parts:
        raised.import_round(mine, work, round_index, got)
    if "verify" in parts:
        raised.verify_round(mine, got)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    base = QUICK if args.quick else FULL
    sizes = Sizes(
        base.build_tools, base.list_tools, args.rounds or base.rounds, base.serve, base.raised
    )
    parts = set(args.only or PARTS)
    work = (args.work or (HERE / ".work" / ("quick" if args.quick else "full"))).resolve()
    out = args.out or (work / "RESULTS.md" if args.quick else HERE / "RESULTS.md")
    chart = args.chart or (work / "ratios.png" if args.quick else HERE / "ratios.png")
    work.mkdir(parents=True, exist_ok=True)
    if args.rerender:
        return rerender(work, out, chart)
    started = time.perf_counter()
    collected = Collected()

    def say(text: str) -> None:
        print(f"[{time.perf_counter() - started:6.1f}s] {text}", file=sys.stderr, flush=True)

    build_bench.compile_bytecode()  # toolgen starts as it would from its wheel
    say(f"generating inputs under {work}")
    paths = make_specs.generate(work, sizes.build_tools, sizes.list_tools)
    inputs = serve_bench.ServeInputs(
        paths["serve_small"],
        paths["serve_large"],
        paths["serve_small_defs"],
        paths["serve_large_defs"],
        work / "stub-out",
    )
    if "lint" in parts:
        why = serve_bench._help_has(["lint"])
        if why:
            collected.notes.append(f"lint skipped: {why}")
            parts.discard("lint")
    contenders: list[serve_bench.Contender] = []
    if parts & {"serve", "http"}:
        if not (args.quick or args.no_install):
            why = serve_bench.install_fastmcp()
            if why:
                collected.notes.append(why)
        wanted = set(args.contenders.split(",")) if args.contenders else None
        for contender in serve_bench.CONTENDER_LIST:
            if wanted is not None and contender.key not in wanted:
                continue
            why = contender.check(inputs)
            if why:
                collected.notes.append(f"{contender.label} skipped: {why}")
                say(f"skip {contender.label}: {why}")
            else:
                contenders.append(contender)
    machine = machine_info()
    for round_index in range(sizes.rounds):
        say(f"round {round_index + 1}/{sizes.rounds}")
        if "build" in parts:
            try:
                collected.build.append(
                    build_bench.build_round(
                        paths["specs"], paths["combined"], work, round_index, round_index + 1
                    )
                )
            except RuntimeError as exc:
                collected.notes.append(f"build round {round_index + 1} failed: {exc}")
                say(f"build failed: {exc}")
        if "lint" in parts:
            try:
                for _ in range(LINT_SAMPLES):
                    cold = build_bench.lint_once(paths["specs"], work, cold=True)
                    collected.lint_cold.append(cold)
                build_bench.lint_once(paths["specs"], work)  # the warm caches hold these files
                for _ in range(LINT_SAMPLES):
                    collected.lint.append(build_bench.lint_once(paths["specs"], work))
                for _ in range(LINT_SAMPLES):
                    # a revision never linted before: the result cache outlives a run
                    make_specs.edit_one_tool(paths["specs"], time.time_ns())
                    collected.lint_edit.append(build_bench.lint_once(paths["specs"], work))
            except RuntimeError as exc:
                collected.notes.append(f"lint failed: {exc}")
        if "load" in parts:
            try:
                collected.load.append(build_bench.load_once(paths["specs"], work))
            except RuntimeError as exc:
                collected.notes.append(f"load failed: {exc}")
        if "serve" in parts:
            serve_round(contenders, inputs, sizes, round_index, work, collected)
        raised_round(parts, sizes, paths, round_index, work, collected.raised, say)
    machine["loadavg_end"] = os.getloadavg()
    collected.notes += collected.raised.notes
    summary = summarize(collected, contenders, sizes)
    meta = {
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "command": "python benchmarks/run.py " + " ".join(sys.argv[1:] if argv is None else argv),
        "quick": args.quick,
        "rounds": sizes.rounds,
        "sizes": asdict(sizes),
        "parts": sorted(parts),
        "elapsed_s": time.perf_counter() - started,
        "machine": machine,
    }
    notes = list(dict.fromkeys(collected.notes))
    chart_note = report.write_chart(summary, chart)
    if chart_note:
        notes.append(chart_note)
    out.parent.mkdir(parents=True, exist_ok=True)
    text = report.markdown(summary, meta, notes, chart, out)
    out.write_text(report.keeping_owned_sections(text, out), encoding="utf-8")
    (work / "results.json").write_text(
        json.dumps({"meta": meta, "notes": notes, "summary": summary}, default=_jsonable, indent=1)
    )
    say(f"wrote {out}" + ("" if chart_note else f" and {chart}"))
    return 0


def _revive(value: Any) -> Any:
    """Inverse of `_jsonable` for a results.json tree."""
    if isinstance(value, dict):
        if set(value) == {"median", "lo", "hi", "n"}:
            return Stat(**value)
        if {"name", "measured", "limit", "at_most"} <= set(value):
            return Target(**{k: v for k, v in value.items() if k != "met"})
        return {k: _revive(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_revive(v) for v in value]
    return value


def rerender(work: Path, out: Path, chart: Path) -> int:
    data = json.loads((work / "results.json").read_text())
    summary = _revive(data["summary"])
    notes = [n for n in data["notes"] if not n.startswith("chart not drawn")]
    chart_note = report.write_chart(summary, chart)
    text = report.markdown(
        summary, data["meta"], notes + ([chart_note] if chart_note else []), chart, out
    )
    out.write_text(report.keeping_owned_sections(text, out), encoding="utf-8")
    print(f"rewrote {out}", file=sys.stderr)
    return 0


def _jsonable(value: Any) -> Any:
    if isinstance(value, (Stat, Target)):
        data = asdict(value)
        if isinstance(value, Target):
            data["met"] = value.met
        return data
    raise TypeError(type(value).__name__)


if __name__ == "__main__":
    sys.exit(main())
