"""A cache of lint results per spec set: linting the same files again with the same
configuration and the same toolgen reads the findings back instead of loading and checking
1,000 tools again (as ruff and mypy keep results of unchanged input).

The key is a hash of everything a spec set's findings depend on, so an entry is
never stale, only unused:

- toolgen's own code and data that lint runs (`core`, `jsonschema`, `frontend`,
  `lint`: every file, rules and the spec format's schema included), its version,
  Python's version and Unicode database, and the versions of the libraries that
  read and check specs (PyYAML, jsonschema-rs, orjson: their installed files' sizes and
  modification times);
- the configuration as the rules see it: the selected rules with their
  severities, `per-tool-ignores` and every rule option (not `fail-on`, which
  judges findings after they are made);
- the spec set: its root (which names a set without a `server` block), and for
  every file, in order, its resolved path (which `$ref`s between files follow),
  the name findings show for it (relative to the working directory) and its
  bytes. Lint reads nothing else: `$ref`s never leave the spec set.

A spec set that does not load is never stored (it is loaded again and its
errors reported). Entries are `marshal`led plain data and live beside the parse
cache (`toolgen.spec.parsecache`: `$TOOLGEN_CACHE_DIR`, `off` turns both off),
under `lint/`; a missing, damaged or unreadable entry is a miss.
"""

from __future__ import annotations

import contextlib
import hashlib
import marshal
from dataclasses import dataclass, fields
from pathlib import Path

from toolgen.lint.config import LintConfig
from toolgen.lint.model import Finding, Severity
from toolgen.spec import parsecache
from toolgen.spec.errors import Location
from toolgen.spec.loader import SpecSetFiles
from toolgen.spec.parsecache import cache_root, store
from toolgen.spec.positions import display_path

FORMAT = f"toolgen-lint-1 marshal-{marshal.version}"
STAGES = ("spec", "schema", "lint")
"""The parts of toolgen a lint runs (the layout lets lint import nothing else)."""

_SEVERITIES = {s.value: s for s in Severity}
_Row = tuple[str, str | None, str, str, str, str | None, str | None, int, int]


@dataclass(frozen=True)
class Result:
    """What linting one spec set gave: its number of tools and its findings."""

    tools: int
    findings: list[Finding]


def key(spec_set: SpecSetFiles, config: LintConfig) -> str | None:
    """The cache key of linting `spec_set` with `config`; None when the cache is off or a
    file cannot be read (the ordinary load reports that)."""
    if cache_root() is None:
        return None
    digest = hashlib.sha256(f"{FORMAT}\n{code_fingerprint()}\n".encode())
    digest.update(config_fingerprint(config).encode())
    digest.update(f"\nroot {spec_set.root}\n".encode())
    for path in spec_set.files:
        try:
            data = path.read_bytes()
        except OSError:
            return None
        digest.update(f"file {path}\n{display_path(path)}\n{len(data)}\n".encode())
        digest.update(data)
    return digest.hexdigest()


def lookup(entry_key: str | None) -> Result | None:
    """The stored result under `entry_key`; None on a miss."""
    entry = _entry(entry_key)
    if entry is None:
        return None
    with contextlib.suppress(OSError, ValueError, EOFError, TypeError, KeyError, IndexError):
        stored = marshal.loads(entry.read_bytes())
        if isinstance(stored, tuple) and len(stored) == 3 and stored[0] == FORMAT:
            return Result(int(stored[1]), [_finding(row) for row in stored[2]])
    return None


def remember(entry_key: str | None, result: Result) -> None:
    """Store `result` under `entry_key` (nothing when the cache is off or unwritable)."""
    entry = _entry(entry_key)
    if entry is None:
        return
    with contextlib.suppress(ValueError):
        store(entry, marshal.dumps((FORMAT, result.tools, [_row(f) for f in result.findings])))


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


def code_fingerprint() -> str:
    """A hash of the code and data lint runs, and of what else can change its findings."""
    return parsecache.code_fingerprint(STAGES)


def _entry(entry_key: str | None) -> Path | None:
    root = cache_root()
    if entry_key is None or root is None:
        return None
    return root / "lint" / f"{entry_key}.bin"


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
    return Finding(
        code=code,
        rule=rule,
        category=category,
        severity=_SEVERITIES[severity],
        message=message,
        tool=tool,
        location=Location(file, line, column) if file is not None else None,
    )
