"""Issue 17's measurements in the one run: huge-enum builds, Streamable HTTP side by side,
`toolgen diff`, `toolgen import` and `toolgen verify`'s call path; and its targets.

`run.py` calls one `*_round` function per part and round, then `summary` and
`targets` once; the numbers land in RESULTS.md next to issue 5's.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import build_bench
import diff_bench
import enum_bench
import http_bench
import import_bench
from stats import Stat, Target, percentile, ratio

PARTS = ("enum", "http", "diff", "import", "verify")


@dataclass(frozen=True)
class RaisedSizes:
    enum_values: tuple[tuple[str, int], ...]
    """(case key, enum values) of the huge-enum builds."""
    http_clients: int
    http_seconds: float
    http_warmup: float
    diff_tools: int
    import_tools: int
    verify_calls: int


FULL = RaisedSizes((("enum128k", 128_000), ("enum580k", 580_000)), 50, 5.0, 1.0, 1000, 500, 1000)
QUICK = RaisedSizes((("enum128k", 2_000), ("enum580k", 5_000)), 8, 1.0, 0.2, 100, 20, 50)


@dataclass
class RaisedCollected:
    """Raw per-round measurements of issue 17's parts."""

    enum: dict[str, list[enum_bench.EnumBuild]] = field(default_factory=dict)
    enum_values: dict[str, int] = field(default_factory=dict)
    http: dict[str, list[dict[str, float]]] = field(default_factory=dict)
    diff: dict[str, list[build_bench.ProcessTime]] = field(default_factory=dict)
    imports: list[build_bench.ProcessTime] = field(default_factory=list)
    verify: list[float] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def enum_round(sizes: RaisedSizes, work: Path, got: RaisedCollected) -> None:
    root = work / "enum"
    root.mkdir(parents=True, exist_ok=True)
    for key, values in sizes.enum_values:
        got.enum_values[key] = values
        specs = root / key
        if not (specs / "pick.yaml").is_file() or f"enum_{values}" not in _head(specs):
            enum_bench.write_enum_spec(specs, values)
        try:
            got.enum.setdefault(key, []).append(enum_bench.build_once(key, specs, root))
        except RuntimeError as exc:
            got.notes.append(f"{key} build failed: {exc}")


def _head(specs: Path) -> str:
    with open(specs / "pick.yaml", encoding="utf-8") as file:
        return file.read(200)


def http_round(
    sizes: RaisedSizes,
    specs: Path,
    defs: Path,
    round_index: int,
    work: Path,
    got: RaisedCollected,
) -> None:
    contenders = [c for c in http_bench.CONTENDERS if _http_available(c, got)]
    if not contenders:
        return
    shift = round_index % len(contenders)
    logs = work / "logs"
    logs.mkdir(exist_ok=True)
    for contender in contenders[shift:] + contenders[:shift]:
        with open(logs / f"{contender.key}.log", "ab") as log:
            try:
                run = http_bench.measure(
                    contender,
                    specs,
                    defs,
                    sizes.http_clients,
                    sizes.http_seconds,
                    sizes.http_warmup,
                    log,
                )
            except (RuntimeError, OSError) as exc:
                got.notes.append(f"{contender.label}: {exc} (log: {log.name})")
                continue
        if run.errors:
            got.notes.append(f"{contender.label}: {run.errors} errors, first: {run.first_error}")
        got.http.setdefault(contender.key, []).append(
            {
                "rps": run.throughput,
                "p50_ms": percentile(run.latencies, 50) * 1e3 if run.latencies else 0.0,
                "p99_ms": percentile(run.latencies, 99) * 1e3 if run.latencies else 0.0,
                "errors": float(run.errors),
                "requests": float(len(run.latencies)),
            }
        )


def _http_available(contender: http_bench.HttpContender, got: RaisedCollected) -> bool:
    if contender.key != "fastmcp_http":
        return True
    if (http_bench.serve_bench.FASTMCP_VENV / "bin" / "python").exists():
        return True
    note = "FastMCP over HTTP skipped: no FastMCP venv (a full run creates it)"
    if note not in got.notes:
        got.notes.append(note)
    return False


def diff_round(sizes: RaisedSizes, work: Path, round_index: int, got: RaisedCollected) -> None:
    scenarios = diff_bench.inputs(work / f"diff{sizes.diff_tools}", sizes.diff_tools)
    names = [diff_bench.PULL_REQUEST, diff_bench.EVERY_FILE]
    for name in names if round_index % 2 == 0 else names[::-1]:
        label = f"{name}, first run"
        try:
            run = diff_bench.diff(*scenarios[name], cold=True)
        except RuntimeError as exc:
            got.notes.append(f"diff ({label}) failed: {exc}")
            continue
        got.diff.setdefault(label, []).append(run)


def import_round(sizes: RaisedSizes, work: Path, round_index: int, got: RaisedCollected) -> None:
    root = work / "import"
    root.mkdir(parents=True, exist_ok=True)
    source = root / f"tools{sizes.import_tools}.json"
    if not source.is_file():
        import json

        published = import_bench.published(sizes.import_tools)
        source.write_text(json.dumps(published, indent=2), encoding="utf-8")
    out = root / "out"
    shutil.rmtree(out, ignore_errors=True)
    argv = build_bench.toolgen_argv("import", str(source), "-o", str(out))
    try:
        got.imports.append(build_bench.run_timed(argv, root))
    except RuntimeError as exc:
        got.notes.append(f"import failed: {exc}")


def verify_round(sizes: RaisedSizes, got: RaisedCollected) -> None:
    import verify_bench  # imports toolgen.verify: only when this part runs

    try:
        got.verify += verify_bench.call_path_rate(1, sizes.verify_calls)
    except Exception as exc:  # a broken verify is a note, never a crashed run
        got.notes.append(f"verify call path failed: {type(exc).__name__}: {exc}")


def summary(got: RaisedCollected) -> dict[str, Any]:
    from toolgen.build.progress import EVERY as progress_after  # builds shorter say nothing

    enum: dict[str, Any] = {}
    for key, runs in got.enum.items():
        done = [r for r in runs if r.wall is not None]
        enum[key] = {
            "values": got.enum_values.get(key),
            "spec_mib": runs[0].spec_bytes / 2**20,
            "wall": Stat.of([r.wall for r in done if r.wall is not None]),
            "cpu": Stat.of([r.cpu for r in done if r.cpu is not None]),
            "rss_mib": Stat.of([r.rss_kib / 1024 for r in done if r.rss_kib is not None]),
            "capped": len(runs) - len(done),
            "cap": enum_bench.CAPS[key],
            "progress": all(r.progress or (r.wall or 0) < progress_after for r in runs),
            "runs": len(runs),
        }
    http = {
        key: {
            "label": next(c.label for c in http_bench.CONTENDERS if c.key == key),
            **{m: Stat.of([r[m] for r in runs]) for m in ("rps", "p50_ms", "p99_ms", "errors")},
        }
        for key, runs in got.http.items()
    }
    diff = {
        name: {"wall": Stat.of([r.wall for r in runs]), "cpu": Stat.of([r.cpu for r in runs])}
        for name, runs in got.diff.items()
    }
    imports = {
        "wall": Stat.of([r.wall for r in got.imports]),
        "cpu": Stat.of([r.cpu for r in got.imports]),
    }
    return {
        "enum": enum,
        "http": http,
        "diff": diff,
        "import": imports,
        "verify": Stat.of(got.verify),
    }


def targets(
    raised: dict[str, Any],
    build: dict[str, Stat | None],
    lint: dict[str, Stat | None],
    serve: dict[str, dict[str, Any]],
    sizes: Any,
    mine: RaisedSizes,
) -> list[Target]:
    """Issue 17's goals, judged on this run's medians."""
    n = sizes.build_tools
    stub = serve.get("toolgen_stub", {})
    handlers = serve.get("toolgen_handlers", {})
    handwritten = serve.get("handwritten", {})
    mcpserver = serve.get("mcpserver", {})
    out = [
        Target(
            f"full build ({n} tools) vs one DCG run",
            ratio(build.get("toolgen_full"), build.get("dcg")),
            1.0,
            True,
            "x",
        )
    ]
    for key, values in mine.enum_values:
        row = raised["enum"].get(key)
        limit = enum_bench.LIMITS[key]
        measured = None
        if row is not None:  # a build stopped at the cap counts as the cap (a lower bound)
            measured = row["cap"] if row["capped"] or not row["wall"] else row["wall"].median
        name = f"build of one tool with a {values:,}-value enum"
        if row is not None and row["capped"]:
            name += f" ({row['capped']} of {row['runs']} stopped at {row['cap']:g} s)"
        out.append(Target(name, measured, limit, True, "s"))
        if row is not None:
            shown = 1.0 if row["progress"] else 0.0
            name = f"progress shown while it runs ({values:,}-value enum; builds over 2 s)"
            out.append(Target(name, shown, 1.0, False, ""))
    large = sizes.list_tools
    out += [
        Target(
            f"cold start to initialize ({large} tools) vs hand-written",
            ratio(stub.get("cold_large_ms"), handwritten.get("cold_large_ms")),
            1.5,
            True,
            "x",
            "toolgen generated stub",
        ),
        Target(
            "sequential calls/s vs hand-written",
            ratio(stub.get("seq_cps"), handwritten.get("seq_cps")),
            0.8,
            False,
            "x",
            "toolgen generated stub",
        ),
        Target(
            "sequential calls/s vs hand-written",
            ratio(handlers.get("seq_cps"), handwritten.get("seq_cps")),
            0.8,
            False,
            "x",
            "toolgen serve --handlers",
        ),
        Target(
            "peak RSS vs MCPServer",
            ratio(stub.get("rss_mib"), mcpserver.get("rss_mib")),
            0.5,
            True,
            "x",
            "toolgen generated stub",
        ),
    ]
    http = raised["http"]
    mine_http = http.get("toolgen_http", {})
    for key in ("mcpserver_http", "fastmcp_http"):
        other = http.get(key)
        if other is None:
            continue
        out += [
            Target(
                f"HTTP req/s vs {other['label']}",
                ratio(mine_http.get("rps"), other.get("rps")),
                5.0,
                False,
                "x",
                "toolgen serve --http",
            ),
            Target(
                f"HTTP p99 vs {other['label']}",
                ratio(mine_http.get("p99_ms"), other.get("p99_ms")),
                0.3,
                True,
                "x",
                "toolgen serve --http",
            ),
        ]
    for key, how, goal in (
        ("wall", "repeated: findings cached", 0.3),
        ("cold_wall", "first run, cache empty", 1.0),
    ):
        stat = lint.get(key)
        out.append(
            Target(
                f"lint of {n} tools (whole process, {how})",
                stat.median if stat else None,
                goal,
                True,
                "s",
            )
        )
    for name, row in raised["diff"].items():
        out.append(
            Target(
                f"diff of {mine.diff_tools} tools, {name}",
                row["wall"].median if row["wall"] else None,
                1.5,
                True,
                "s",
            )
        )
    imp = raised["import"]
    out.append(
        Target(
            f"import of {mine.import_tools} tools (whole process)",
            imp["wall"].median if imp.get("wall") else None,
            2.0,
            True,
            "s",
        )
    )
    verify = raised["verify"]
    out.append(
        Target(
            "verify calls/s against serve --mock",
            verify.median if verify else None,
            500.0,
            False,
            "",
        )
    )
    return out


def http_rows(raised: dict[str, Any]) -> list[dict[str, Any]]:
    """The HTTP table's rows, with ratios to the SDK's MCPServer."""
    http = raised["http"]
    base = http.get("mcpserver_http", {})
    return [
        {
            **row,
            "rps_ratio": ratio(row.get("rps"), base.get("rps")),
            "p99_ratio": ratio(row.get("p99_ms"), base.get("p99_ms")),
        }
        for row in http.values()
    ]
