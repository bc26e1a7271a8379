"""From paths to findings: find what each path is, load it, lint it.

A `.json` file, or a directory of `.json` files (and no spec files), holds
published tool definitions (`toolgen.spec.published`); anything else is a spec set
(or a directory of spec sets, as `toolgen build` reads it). Input that does
not load is reported as findings too (its spec error codes, severity error),
and the run remembers it: the command exits 2 then.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from toolgen.lint import resultcache
from toolgen.lint.config import LintConfig
from toolgen.lint.engine import lint_toolset, spec_error_findings
from toolgen.report.findings import Finding
from toolgen.spec import collector
from toolgen.spec.errors import SpecError
from toolgen.spec.ir import ToolSet
from toolgen.spec.loader import SpecSetFiles, is_published, spec_sets

SourceKind = Literal["auto", "spec", "published"]
DEFAULT_PATH = Path("specs")


@dataclass
class LintRun:
    """What a lint run found, over every spec set or published server it read."""

    findings: list[Finding] = field(default_factory=list)
    load_failed: bool = False
    servers: int = 0
    tools: int = 0

    def add(self, toolset: ToolSet, config: LintConfig) -> None:
        self.record(len(toolset.tools), lint_toolset(toolset, config))

    def record(self, tools: int, findings: list[Finding]) -> None:
        """One more server linted: its number of tools and its findings."""
        self.servers += 1
        self.tools += tools
        self.findings.extend(findings)

    def failed_to_load(self, exc: SpecError) -> None:
        self.load_failed = True
        self.findings.extend(spec_error_findings(exc.diagnostics))


def lint_paths(paths: Sequence[Path], config: LintConfig, kind: SourceKind = "auto") -> LintRun:
    """Lint every spec set and published server named by `paths` (default: specs/)."""
    paths = list(paths) or [DEFAULT_PATH]
    run = LintRun()
    published = [p for p in paths if kind == "published" or (kind == "auto" and is_published(p))]
    specs = [p for p in paths if p not in published]
    with collector.paused():
        for path in published:
            _lint_published(path, config, run)
        if specs:
            _lint_specs(specs, config, run)
    run.findings.sort(key=Finding.sort_key)
    return run


def _lint_published(path: Path, config: LintConfig, run: LintRun) -> None:
    from toolgen.spec.published import read_published  # the load path: see `_lint_spec_set`

    try:
        result = read_published(path)
    except SpecError as exc:
        run.failed_to_load(exc)
        return
    if result.problems:
        run.failed_to_load(SpecError(result.problems))
    run.add(result.toolset, config)


def _lint_specs(paths: list[Path], config: LintConfig, run: LintRun) -> None:
    try:
        sets = spec_sets(paths)
    except SpecError as exc:
        run.failed_to_load(exc)
        return
    for spec_set in sets:
        _lint_spec_set(spec_set, config, run)


def _lint_spec_set(spec_set: SpecSetFiles, config: LintConfig, run: LintRun) -> None:
    """Lint one spec set: its findings from the result cache when this very input was linted
    before (`resultcache`), else load it and check it."""
    key = resultcache.key(spec_set, config)
    known = resultcache.lookup(key)
    if known is not None:
        run.record(known.tools, known.findings)
        return
    # The load path (YAML, the spec model, the resolver) loads only now: a lint answered
    # from the cache spends a third of its time less without it.
    from toolgen.spec.pipeline import load_set

    try:
        toolset = load_set(spec_set)
    except SpecError as exc:
        run.failed_to_load(exc)
        return
    findings = lint_toolset(toolset, config)
    run.record(len(toolset.tools), findings)
    resultcache.remember(key, resultcache.Result(len(toolset.tools), findings))
