"""Render a diff `Report`: text, json, sarif, github, markdown.

The machine formats are `toolgen.report`'s, as lint writes them, with what a change adds
(breaking or not, a JSON pointer): the same JSON field names, SARIF 2.1.0 with the change
codes as rules, the same GitHub workflow commands. Markdown is a pull request comment:
breaking changes in a table, the rest folded away.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from toolgen.diff.codes import CODES, Code
from toolgen.diff.model import Change, Report, ServerDiff
from toolgen.report import formats
from toolgen.report.findings import Severity
from toolgen.version import DOCS_URL

FORMATS = ("text", "json", "sarif", "github", "markdown")
DOCS = f"{DOCS_URL}diff-changes/"
"""The published page of the change codes (a pull request comment links there)."""
_SHORT = 19  # "sha256:" + 12 hex digits


def label(change: Change) -> str:
    """How a change is called in text: breaking, possibly-breaking, or (not breaking) its
    severity: error (a versioning mistake), warning, note."""
    if change.breaking:
        return "breaking" if change.severity is Severity.ERROR else "possibly-breaking"
    return "note" if change.severity is Severity.INFO else str(change.severity)


def render(report: Report, name: str) -> str:
    """The report in format `name`."""
    renderers: dict[str, Callable[[Report], str]] = {
        "text": render_text,
        "json": render_json,
        "sarif": render_sarif,
        "github": render_github,
        "markdown": render_markdown,
    }
    return renderers[name](report)


# -- text ----------------------------------------------------------------------


def render_text(report: Report) -> str:
    """`path:line:col: CODE label message [tool]`, one line per change."""
    return "".join(formats.line(c, label(c)) + "\n" for c in report.changes)


def summary(report: Report) -> str:
    """Counts, then one line per server: which tools changed, and the set digests."""
    changes = report.changes
    counts = Counter(label(c) for c in changes)
    parts = [
        f"{counts[k]} {k}"
        for k in ("breaking", "possibly-breaking", "error", "warning", "note")
        if counts[k]
    ]
    head = f"{len(changes)} change{'s' if len(changes) != 1 else ''}"
    head += f" ({', '.join(parts)})" if parts else ""
    if report.ignored:
        head += f"; {report.ignored} ignored by configuration"
    return "\n".join([head + ".", *(_server_line(s) for s in report.servers)]) + "\n"


def _server_line(server: ServerDiff) -> str:
    tools = (
        f"{len(server.changed_tools())} changed, {len(server.added_tools())} added, "
        f"{len(server.removed_tools())} removed, {server.unchanged_tools()} unchanged"
    )
    digests = f"{server.old_digest[:_SHORT]} → {server.new_digest[:_SHORT]}"
    return f"{server.name}: tools {tools}; set digest {digests}"


# -- json ----------------------------------------------------------------------


def as_dict(change: Change) -> dict[str, Any]:
    return {**formats.as_dict(change), "breaking": change.breaking, "path": change.path}


def _server_dict(server: ServerDiff) -> dict[str, Any]:
    return {
        "name": server.name,
        "version": {"old": server.old_version, "new": server.new_version},
        "digest": {"old": server.old_digest, "new": server.new_digest},
        "tools": {
            "changed": server.changed_tools(),
            "added": server.added_tools(),
            "removed": server.removed_tools(),
            "unchanged": server.unchanged_tools(),
            "digests": {
                name: {"old": server.old_digests.get(name), "new": server.new_digests.get(name)}
                for name in [
                    *server.changed_tools(),
                    *server.added_tools(),
                    *server.removed_tools(),
                ]
            },
        },
    }


def render_json(report: Report) -> str:
    changes = report.changes
    summary_ = {
        "changes": len(changes),
        "breaking": sum(1 for c in changes if c.breaking),
        "non_breaking": sum(1 for c in changes if not c.breaking),
        "severity": {s.value: sum(1 for c in changes if c.severity is s) for s in Severity},
        "category": dict(sorted(Counter(c.category for c in changes).items())),
        "ignored": report.ignored,
        "servers": [_server_dict(s) for s in report.servers],
    }
    return formats.dumps({"changes": [as_dict(c) for c in changes], "summary": summary_})


# -- sarif ---------------------------------------------------------------------


def _descriptor(code: Code) -> dict[str, Any]:
    doc = f"{code.summary}\n\nWhy: {code.why}\n\nExample: {code.example}"
    return {
        "id": code.code,
        "name": code.name,
        "shortDescription": {"text": code.summary},
        "fullDescription": {"text": doc},
        "help": {"text": doc, "markdown": doc},
        "properties": {
            "category": code.category.value,
            "breaking": code.breaking,
            "tags": [code.category.value],
        },
    }


def render_sarif(report: Report) -> str:
    index = {code.code: i for i, code in enumerate(CODES)}
    results = [
        formats.sarif_result(
            c, index[c.code], {"breaking": c.breaking, "path": c.path, "tool": c.tool}
        )
        for c in report.changes
    ]
    rules = [_descriptor(c) for c in CODES]
    return formats.dumps(formats.sarif_document("toolgen diff", rules, results, successful=True))


# -- github --------------------------------------------------------------------


def render_github(report: Report) -> str:
    """Workflow commands, as `toolgen lint --format github` writes them."""
    return "".join(formats.github_command(c) + "\n" for c in report.changes)


# -- markdown ------------------------------------------------------------------


def render_markdown(report: Report) -> str:
    """A pull request comment: a headline, one line per server, breaking changes first."""
    changes = report.changes
    breaking = [c for c in changes if c.breaking]
    shown = [c for c in changes if c.breaking or c.severity is Severity.ERROR]
    others = [c for c in changes if c not in shown]
    if breaking:
        head = (
            f"## toolgen diff: {len(breaking)} breaking change{'s' if len(breaking) != 1 else ''}"
        )
    elif changes:
        head = "## toolgen diff: no breaking changes"
    else:
        head = "## toolgen diff: no changes"
    out = [head, ""]
    for server in report.servers:
        out.append(f"- {_server_markdown(server)}")
    out.append("")
    if shown:
        out += _table(shown)
    if others:
        out += [
            f"<details><summary>{len(others)} non-breaking change{'s' if len(others) != 1 else ''}</summary>",
            "",
            *_table(others),
            "</details>",
            "",
        ]
    if report.ignored:
        out.append(
            f"{report.ignored} change{'s' if report.ignored != 1 else ''} ignored by configuration.\n"
        )
    return "\n".join(out)


def _server_markdown(server: ServerDiff) -> str:
    version = ""
    if server.old_version is not None:
        version = f" {server.old_version} → {server.new_version}"
    changed = len(server.changed_tools())
    return (
        f"**{server.name}**{version}: {changed} tool{'s' if changed != 1 else ''} changed, "
        f"{len(server.added_tools())} added, {len(server.removed_tools())} removed; "
        f"digest `{server.old_digest[:_SHORT]}` → `{server.new_digest[:_SHORT]}`"
    )


def _table(changes: list[Change]) -> list[str]:
    rows = ["| | change | tool | what | where |", "| --- | --- | --- | --- | --- |"]
    for c in changes:
        anchor = f"{DOCS}#{c.code.lower()}-{c.rule}"
        where = f"`{c.location}`" if c.location else ""
        tool = f"`{c.tool}`" if c.tool else ""
        rows.append(
            f"| {label(c)} | [{c.code}]({anchor}) `{c.rule}` | {tool} | {_cell(c.message)} | {where} |"
        )
    return [*rows, ""]


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
