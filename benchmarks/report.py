"""Render a benchmark summary as a markdown table (RESULTS.md) and a chart of the ratios."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from stats import Stat, Target, ratio

ANALYSIS = Path(__file__).resolve().parent / "ANALYSIS.md"
"""Hand-written findings (profiles, why a target is missed), appended to the report."""


def fmt(value: float | None, digits: int = 2) -> str:
    if value is None:
        return "n/a"
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    if abs(value) >= 100:
        return f"{value:.0f}"
    return f"{value:.{digits}f}"


def cell(stat: Stat | None, digits: int = 2) -> str:
    """`median (min-max)`."""
    if stat is None:
        return "n/a"
    if stat.n == 1:
        return fmt(stat.median, digits)
    return f"{fmt(stat.median, digits)} ({fmt(stat.lo, digits)}-{fmt(stat.hi, digits)})"


def ratio_cell(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}x"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return [*lines, ""]


def _target_rows(targets: list[Target]) -> list[list[str]]:
    rows = []
    for t in targets:
        limit = f"{'≤' if t.at_most else '≥'} {t.limit:g}{t.unit}"
        measured = "n/a" if t.measured is None else f"{t.measured:.3g}{t.unit}"
        if t.met is None:
            verdict = "not measured"
        elif t.met:
            verdict = "met"
        elif t.cost is None:
            verdict = "**missed**"
        else:
            verdict = f"**missed** ({t.cost:.1f}x off)"
        rows.append([t.name, t.contender or "toolgen", measured, limit, verdict])
    return rows


def markdown(
    summary: dict[str, Any], meta: dict[str, Any], notes: list[str], chart: Path, out: Path
) -> str:
    m = meta["machine"]
    sizes = meta["sizes"]
    lines = [
        "# Benchmark results",
        "",
        f"`{meta['command'].strip()}` on {meta['date']}: {meta['rounds']} round(s), "
        f"{meta['elapsed_s']:.0f} s. Medians over rounds, `(min-max)` after them; ratios are "
        "between medians. Contenders alternate within each round. The machine is shared: load "
        f"average {m['loadavg_start'][0]:.2f} at the start, {m['loadavg_end'][0]:.2f} at the end.",
        "",
    ]
    if meta["quick"]:
        lines += ["**Smoke mode (`--quick`): tiny sizes, the numbers mean nothing.**", ""]
    lines += ["## Machine", ""]
    versions = ", ".join(f"{k} {v}" for k, v in m["versions"].items())
    lines += _table(
        ["cores", "CPU", "Python", "platform"],
        [[str(m["cores"]), m["cpu"], m["python"], m["platform"]]],
    )
    lines += [f"Packages: {versions}. toolgen source: {m.get('git', 'unknown')}.", ""]
    lines += ["## Targets (issue 5)", ""]
    lines += _table(
        ["target", "contender", "measured", "limit", "verdict"], _target_rows(summary["targets"])
    )
    if summary.get("targets17"):
        lines += ["## Targets (issue 17)", ""]
        lines += _table(
            ["target", "contender", "measured", "limit", "verdict"],
            _target_rows(summary["targets17"]),
        )
    if chart.exists():
        rel = os.path.relpath(chart, out.parent)
        lines += [f"![Ratios against the targets and against MCPServer]({rel})", ""]
    lines += _build_section(summary, sizes)
    lines += _raised_section(summary, sizes)
    lines += _serve_section(summary, sizes)
    lines += _http_section(summary, sizes)
    if notes:
        lines += ["## Notes", ""] + [f"- {n}" for n in notes] + [""]
    if ANALYSIS.exists() and not meta["quick"]:
        lines += [ANALYSIS.read_text(encoding="utf-8").rstrip(), ""]
    return "\n".join(lines)


def _build_section(summary: dict[str, Any], sizes: dict[str, Any]) -> list[str]:
    build = summary["build"]
    lines: list[str] = []
    if build.get("toolgen_full") or build.get("dcg"):
        n = sizes["build_tools"]
        full = build.get("toolgen_full")
        rows = [
            [
                "`toolgen build` (fresh output dir)",
                "toolgen_full",
                ratio_cell(ratio(full, build.get("dcg"))) + " of DCG",
            ],
            ["one `datamodel-codegen --formatters builtin` run", "dcg", ""],
            [
                "`toolgen build`, nothing changed",
                "toolgen_noop",
                ratio_cell(ratio(build.get("toolgen_noop"), full)) + " of full",
            ],
            [
                "`toolgen build` after editing one tool",
                "toolgen_edit",
                ratio_cell(ratio(build.get("toolgen_edit"), full)) + " of full",
            ],
        ]
        lines += [f"## Build ({n} tools: same input and output schemas for both)", ""]
        lines += _table(
            ["step", "wall s", "CPU s (user+sys)", "peak RSS MiB", "ratio"],
            [
                [
                    label,
                    cell(build.get(k)),
                    cell(build.get(k + "_cpu")),
                    cell(build.get(k + "_rss_mib"), 0),
                    r,
                ]
                for label, k, r in rows
            ],
        )
    lint = summary["lint"]
    if lint.get("wall"):
        lines += [
            f"## Lint ({sizes['build_tools']} tools, whole process)",
            "",
            "Three runs of each kind per round.",
            "",
        ]
        rows = [
            [
                "repeated, nothing changed (findings from the lint result cache)",
                cell(lint["wall"]),
                cell(lint["cpu"]),
            ]
        ]
        if lint.get("edit_wall"):
            rows.append(
                [
                    "one file edited since the last lint",
                    cell(lint["edit_wall"]),
                    cell(lint["edit_cpu"]),
                ]
            )
        if lint.get("cold_wall"):
            rows.append(
                ["first run (cache empty)", cell(lint["cold_wall"]), cell(lint["cold_cpu"])]
            )
        lines += _table(["run", "wall s", "CPU s"], rows)
    load = summary["load"]
    if load.get("total"):
        lines += [f"## Runtime load ({sizes['build_tools']} tools, in process)", ""]
        lines += _table(
            [
                "import toolgen s",
                "toolgen.load s",
                f"compile {load['compiled']} validators s",
                "load + validators s",
            ],
            [
                [
                    cell(load["import"], 3),
                    cell(load["load"], 3),
                    cell(load["validators"], 3),
                    cell(load["total"], 3),
                ]
            ],
        )
        lines += [f"Validators compiled with: {load['how']}.", ""]
    return lines


def _raised_section(summary: dict[str, Any], sizes: dict[str, Any]) -> list[str]:
    """Huge-enum builds, and the diff, import and verify figures."""
    more = summary.get("raised") or {}
    lines: list[str] = []
    if more.get("enum"):
        lines += ["## Builds of huge enums (one tool, fresh output directory)", ""]
        rows = []
        for key, row in more["enum"].items():
            stopped = (
                f"{row['capped']} of {row['runs']} at {row['cap']:g} s" if row["capped"] else ""
            )
            rows.append(
                [
                    key,
                    f"{row['values']:,}" if row.get("values") else "?",
                    f"{row['spec_mib']:.1f}",
                    cell(row["wall"]),
                    cell(row["cpu"]),
                    cell(row["rss_mib"], 0),
                    "yes" if row["progress"] else "no",
                    stopped,
                ]
            )
        lines += _table(
            [
                "case",
                "enum values",
                "spec MiB",
                "wall s",
                "CPU s",
                "peak RSS MiB",
                "progress shown",
                "stopped",
            ],
            rows,
        )
    rows = []
    raised_sizes = sizes.get("raised", {})
    for name, row in (more.get("diff") or {}).items():
        label = f"`toolgen diff`, {raised_sizes.get('diff_tools', '?')} tools: {name}"
        rows.append([label, cell(row["wall"]), cell(row["cpu"])])
    imp = more.get("import") or {}
    if imp.get("wall"):
        label = f"`toolgen import` of {raised_sizes.get('import_tools', '?')} real tools"
        rows.append([label, cell(imp["wall"]), cell(imp["cpu"])])
    if rows:
        lines += ["## Diff and import (whole process)", ""]
        lines += _table(["command", "wall s", "CPU s"], rows)
    if more.get("verify"):
        lines += [
            "## Verify's call path",
            "",
            f"{raised_sizes.get('verify_calls', '?')} `tools/call`s against `toolgen serve "
            f"specs/notes --mock` over stdio, each judged as `toolgen verify` does: "
            f"**{cell(more['verify'], 0)} calls/s**.",
            "",
        ]
    return lines


def _http_section(summary: dict[str, Any], sizes: dict[str, Any]) -> list[str]:
    more = summary.get("raised") or {}
    http = more.get("http") or {}
    if not http:
        return []
    r = sizes.get("raised", {})
    base = http.get("mcpserver_http", {})
    lines = [
        "## Streamable HTTP, side by side",
        "",
        f"Each server serves the 3-tool set on 127.0.0.1 in its fastest stateless "
        f"configuration (toolgen: `serve --mock --http`; the SDK's MCPServer and FastMCP: "
        f"`stateless_http=True, json_response=True`). One load client "
        f"(`http_load.py`), {r.get('http_clients', '?')} keep-alive connections calling "
        f"`tools/call get_issue` back to back (2026-07-28 requests) for "
        f"{r.get('http_seconds', '?')} s after a {r.get('http_warmup', '?')} s warm-up, every "
        "answer checked. The client runs on the same 2 cores as the server.",
        "",
    ]
    rows = [
        [
            row["label"],
            cell(row.get("rps"), 0),
            cell(row.get("p50_ms")),
            cell(row.get("p99_ms")),
            cell(row.get("errors"), 0),
            ratio_cell(ratio(row.get("rps"), base.get("rps"))),
            ratio_cell(ratio(row.get("p99_ms"), base.get("p99_ms"))),
        ]
        for row in http.values()
    ]
    lines += _table(
        [
            "server",
            "req/s",
            "p50 ms",
            "p99 ms",
            "errors",
            "req/s vs MCPServer",
            "p99 vs MCPServer",
        ],
        rows,
    )
    return lines


SERVE_COLUMNS = [
    ("seq_cps", "sequential calls/s", 0),
    ("p50_us", "p50 µs", 0),
    ("p99_us", "p99 µs", 0),
    ("pipe_cps", "pipelined calls/s", 0),
    ("cold_ms", "cold start ms", 0),
    ("cold_large_ms", "cold start ms ({large} tools)", 0),
    ("rss_mib", "peak RSS MiB", 1),
    ("rss_large_mib", "peak RSS MiB ({large} tools)", 1),
    ("list_small_ms", "tools/list 3 ms", 3),
    ("list_large_ms", "tools/list {large} ms", 2),
]


def _serve_section(summary: dict[str, Any], sizes: dict[str, Any]) -> list[str]:
    serve = summary["serve"]
    if not serve:
        return []
    large = sizes["list_tools"]
    s = sizes["serve"]
    lines = [
        "## Serving over stdio",
        "",
        f"Per round and contender: {s['cold_starts']} cold start(s) (spawn to `initialize` "
        f"response), {s['warmup']} warm-up calls, {s['sequential']} sequential `tools/call` of "
        f"`get_issue`, {s['pipelined']} pipelined calls, {s['lists']} complete `tools/list` "
        f"fetches with 3 and with {large} tools (all pages). Cold start is measured with 3 tools, and "
        f"once per round with {large}. Peak RSS is the server's VmHWM.",
        "",
    ]
    header = ["contender"] + [title.format(large=large) for _, title, _ in SERVE_COLUMNS]
    rows = [
        [row["label"]] + [cell(row.get(key), digits) for key, _, digits in SERVE_COLUMNS]
        for row in serve.values()
    ]
    lines += _table(header, rows)
    for base_key, base_label in (
        ("mcpserver", "SDK MCPServer"),
        ("handwritten", "the hand-written loop"),
    ):
        base = serve.get(base_key)
        if not base:
            continue
        lines += [
            f"Ratios to {base_label} (calls/s: higher is better; the rest: lower is better):",
            "",
        ]
        ratio_rows = [
            [row["label"]]
            + [
                ratio_cell(ratio(row.get(k), base.get(k)))
                for k in (
                    "seq_cps",
                    "pipe_cps",
                    "cold_ms",
                    "cold_large_ms",
                    "rss_mib",
                    "list_large_ms",
                )
            ]
            for row in serve.values()
        ]
        lines += _table(
            [
                "contender",
                "sequential calls/s",
                "pipelined calls/s",
                "cold start",
                f"cold start ({large} tools)",
                "peak RSS",
                f"tools/list {large}",
            ],
            ratio_rows,
        )
    return lines


def write_chart(summary: dict[str, Any], path: Path) -> str | None:
    """Draw the ratios; return a note instead when matplotlib is not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "chart not drawn: matplotlib is not installed (pip install -e '.[bench]')"
    targets = [t for t in summary.get("targets17") or summary["targets"] if t.cost is not None]
    serve = summary["serve"]
    base = serve.get("mcpserver")
    panels = 1 + (1 if base else 0)
    fig, axes = plt.subplots(
        panels,
        1,
        figsize=(12, 0.3 * (len(targets) + 3.5 * len(serve)) + 2.5),
        squeeze=False,
        gridspec_kw={"height_ratios": [max(len(targets), 1), max(3 * len(serve), 1)][:panels]},
    )
    ax = axes[0][0]
    labels = [f"{t.name}" + (f"  [{t.contender}]" if t.contender else "") for t in targets]
    costs = [t.cost or 0 for t in targets]
    colors = ["#2e7d32" if t.met else "#c62828" for t in targets]
    ax.barh(range(len(targets)), costs, color=colors)
    ax.set_yticks(range(len(targets)), labels, fontsize=8)
    ax.invert_yaxis()
    ax.axvline(1.0, color="black", linewidth=1)
    for i, t in enumerate(targets):
        ax.text(
            costs[i],
            i,
            f" {t.measured:.3g}{t.unit} (limit {t.limit:g}{t.unit})",
            va="center",
            fontsize=7,
        )
    _pad(ax, costs)
    ax.set_title(
        "Issue 17's targets: measured ÷ limit (left of the line = met; green met, red missed)",
        fontsize=10,
    )
    if base:
        ax = axes[1][0]
        metrics = [
            ("seq_cps", "sequential calls/s", "#1565c0"),
            ("cold_ms", "cold start", "#ef6c00"),
            ("rss_mib", "peak RSS", "#6a1b9a"),
        ]
        names = [row["label"] for row in serve.values()]
        height = 0.27
        for j, (key, title, color) in enumerate(metrics):
            values = [ratio(row.get(key), base.get(key)) or 0 for row in serve.values()]
            ys = [i + (j - 1) * height for i in range(len(names))]
            ax.barh(ys, values, height=height, color=color, label=title)
            for y, v in zip(ys, values, strict=True):
                if v:
                    ax.text(v, y, f" {v:.2f}x", va="center", fontsize=7)
        _pad(
            ax,
            [
                v
                for row in serve.values()
                for v in (ratio(row.get(k), base.get(k)) for k, _, _ in metrics)
                if v
            ],
        )
        ax.set_yticks(range(len(names)), names, fontsize=8)
        ax.invert_yaxis()
        ax.axvline(1.0, color="black", linewidth=1)
        ax.legend(fontsize=8, loc="lower right")
        ax.set_title("Serving over stdio, relative to the SDK's MCPServer (= 1x)", fontsize=10)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return None


def _pad(ax: Any, values: list[float]) -> None:
    """Log-scale x limits with room for the value labels right of the bars."""
    positive = [v for v in values if v > 0] or [1.0]
    ax.set_xscale("log")
    ax.set_xlim(min(min(positive), 1.0) / 1.5, max(max(positive), 1.0) * 4)
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    ax.xaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))

    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}x"))
    ax.xaxis.set_minor_formatter(NullFormatter())


_OWNED_SECTION = re.compile(r"<!-- ([a-z-]+):start -->.*?<!-- \1:end -->", re.S)


def keeping_owned_sections(text: str, path: Path) -> str:
    """`text` plus the marked sections that other tools own in the existing file
    (`<!-- http-load:start -->` ... `<!-- http-load:end -->`), so a rewrite keeps them."""
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    kept = [m.group(0) for m in _OWNED_SECTION.finditer(old) if m.group(0) not in text]
    return text.rstrip("\n") + "\n\n" + "\n\n".join(kept) + "\n" if kept else text
