"""Lint's results per spec set, in toolgen's cache (`toolgen.cache`): linting the same files
again with the same configuration and the same toolgen reads the findings back instead of
loading and checking every tool again (as ruff and mypy keep results of unchanged input).

The key hashes everything a spec set's findings depend on, so an entry is never stale, only
unused: toolgen itself (`toolgen.cache` adds it to every key); the configuration as the
rules see it (the selected rules with their severities, `per-tool-ignores` and every rule
option; not `fail-on`, which judges findings after they are made); and the spec set: its
root (which names a set without a `server` block), and for every file, in order, its
resolved path (which relative `$ref`s follow), the name findings show for it (relative to
the working directory) and its bytes. Lint reads nothing else: `$ref`s never leave the
spec set. A spec set that does not load is never stored (it is loaded again and its errors
reported). Entries are `marshal`led plain data: loading one never runs code, and one that
does not read back is a miss.
"""

from __future__ import annotations

import marshal
from dataclasses import dataclass, fields

from toolgen import cache
from toolgen.lint.config import LintConfig
from toolgen.report.findings import Finding, Severity
from toolgen.spec.errors import Location
from toolgen.spec.loader import SpecSetFiles
from toolgen.spec.positions import display_path

KIND = "lint"
"""The cache's folder for lint results."""

_Row = tuple[str, str | None, str, str, str, str | None, str | None, int, int]


@dataclass(frozen=True)
class Result:
    """What linting one spec set gave: its number of tools and its findings."""

    tools: int
    findings: list[Finding]


def key(spec_set: SpecSetFiles, config: LintConfig) -> str | None:
    """The cache key of linting `spec_set` with `config`; None when a file cannot be read
    (the load reports that)."""
    parts: list[str | bytes] = [config_fingerprint(config), str(spec_set.root)]
    for path in spec_set.files:
        try:
            parts += [str(path), display_path(path), path.read_bytes()]
        except OSError:
            return None
    return cache.make_key(KIND, *parts)


def lookup(entry: str | None) -> Result | None:
    """The result stored under `entry`; None on a miss."""
    data = cache.load(KIND, entry) if entry is not None else None
    if data is None:
        return None
    try:
        tools, rows = marshal.loads(data)
        return Result(int(tools), [_finding(row) for row in rows])
    except (EOFError, ValueError, TypeError, KeyError):
        return None


def remember(entry: str | None, result: Result) -> None:
    """Store `result` under `entry`."""
    if entry is not None:
        rows = [_row(f) for f in result.findings]
        cache.store(KIND, entry, marshal.dumps((result.tools, rows)))


def config_fingerprint(config: LintConfig) -> str:
    """The configuration as the rules see it (two configurations with the same fingerprint
    give the same findings)."""
    rules = tuple((r.code, str(config.severity_of(r))) for r in config.rules())
    ignores = sorted((pattern, tuple(codes)) for pattern, codes in config.per_tool_ignores.items())
    options = tuple(
        (f.name, sorted(value) if isinstance(value, frozenset) else value)
        for f in fields(config.options)
        for value in (getattr(config.options, f.name),)
    )
    return repr((rules, ignores, options))


def _row(finding: Finding) -> _Row:
    loc = finding.location
    return (
        finding.code,
        finding.rule,
        finding.category,
        finding.severity.value,
        finding.message,
        finding.tool,
        loc.file if loc else None,
        loc.line if loc else 0,
        loc.column if loc else 0,
    )


def _finding(row: _Row) -> Finding:
    code, rule, category, severity, message, tool, file, line, column = row
    where = Location(file, line, column) if file is not None else None
    return Finding(code, rule, category, Severity(severity), message, tool, where)
