"""Run the selected rules over a `ToolSet`; apply suppressions and configuration.

Order: every check reports hits; suppressions written in the spec silence
some (and are themselves checked: TG001-TG003); `per-tool-ignores` from the
configuration silence more; severities are resolved last.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from fnmatch import fnmatchcase
from typing import Any

from toolgen.lint import suppress
from toolgen.lint.config import LintConfig
from toolgen.lint.context import Context
from toolgen.lint.model import Hit
from toolgen.lint.registry import ARRAY, BOOLEAN, SCHEMA, TYPE_LIST, Rule
from toolgen.report.findings import SPEC_CATEGORY, Finding, Severity
from toolgen.spec.errors import Diagnostic
from toolgen.spec.ir import ToolSet


def lint_toolset(toolset: ToolSet, config: LintConfig | None = None) -> list[Finding]:
    """Every finding of the selected rules about `toolset`, sorted by place."""
    config = config or LintConfig()
    rules = config.rules()
    ctx = Context(toolset, config.options)
    dispatch = _NodeDispatch([r for r in rules if r.scope == "node"])
    tool_rules = [(r.code, r.check) for r in rules if r.scope == "tool" and r.check]
    hits: list[tuple[str, Hit]] = []
    for tool in toolset.tools:
        name = tool.name
        for code, tool_check in tool_rules:  # each check iterated here: most find nothing
            for hit in tool_check(tool, ctx):
                hits.append((code, _owned(hit, name)))
        for node in ctx.nodes(tool) if dispatch else ():
            for code, node_check in dispatch.rules_for(node.schema):
                for hit in node_check(node, ctx):
                    hits.append((code, _owned(hit, name)))
    for node in ctx.def_nodes if dispatch else ():
        for code, check in dispatch.rules_for(node.schema):
            hits.extend((code, hit) for hit in check(node, ctx))
    for r in rules:
        if r.scope == "set" and r.check:
            hits.extend((r.code, hit) for hit in r.check(ctx))

    suppressions, problems = suppress.collect(toolset)
    kept = suppress.apply(hits, suppressions)
    selected = {r.code for r in rules}
    problems += list(suppress.problems_after(suppressions, selected))
    kept += [(p.code, p.hit) for p in problems if p.code in selected]
    if config.per_tool_ignores:
        kept = [(code, hit) for code, hit in kept if not _ignored(config, code, hit.tool)]
    return _findings(kept, rules, config)


def _findings(
    kept: list[tuple[str, Hit]], rules: tuple[Rule, ...], config: LintConfig
) -> list[Finding]:
    """The kept hits as findings, sorted by place (`Finding.sort_key`; hits that tie keep
    their order). Each rule's name, category and severity are looked up once."""
    about = {r.code: (r.name, r.category.value, config.severity_of(r)) for r in rules}
    findings = [
        Finding(code, *about[code], hit.message, hit.tool, hit.location) for code, hit in kept
    ]
    findings.sort(key=Finding.sort_key)
    return findings


class _NodeDispatch:
    """Calls node rules only for schemas with their trigger keys (most schemas have none)."""

    def __init__(self, rules: list[Rule]) -> None:
        self.by_key: dict[str, list[Rule]] = {}
        for r in rules:
            assert r.check is not None
            for key in r.keys:
                self.by_key.setdefault(key, []).append(r)
        self.keys = frozenset(self.by_key)
        self._chosen: dict[
            tuple[tuple[Any, ...], frozenset[str]], list[tuple[str, Callable[..., Iterable[Hit]]]]
        ] = {}

    def __bool__(self) -> bool:
        return bool(self.by_key)

    def rules_for(self, schema: Any) -> list[tuple[str, Callable[..., Iterable[Hit]]]]:
        """The checks of the rules triggered by `schema`'s keys and type. This runs for every
        schema of every tool: the checks are looked up by the schema's keys as they come
        (a tuple is quicker to make than a set of them), and a few tuples occur."""
        if isinstance(schema, dict):
            kind = schema.get("type")
            if isinstance(kind, list):
                key = (tuple(schema), _LIST_ARRAY if "array" in kind else _LIST)
            else:
                key = (tuple(schema), _ARRAY if kind == "array" else _PLAIN)
        elif isinstance(schema, bool):
            key = _BOOLEAN_KEY
        else:
            return []
        chosen = self._chosen.get(key)
        if chosen is None:
            fired = self.keys.intersection(key[0]) | key[1]
            picked = {
                r.code: r.check
                for k in fired
                for r in self.by_key.get(k, ())
                if r.check is not None and (r.when is None or r.when(key[0]))
            }
            chosen = self._chosen[key] = list(picked.items())
        return chosen


_PLAIN = frozenset({SCHEMA})
_ARRAY = frozenset({ARRAY, SCHEMA})
_LIST = frozenset({TYPE_LIST, SCHEMA})
_LIST_ARRAY = frozenset({TYPE_LIST, ARRAY, SCHEMA})
_BOOLEAN_KEY: tuple[tuple[Any, ...], frozenset[str]] = ((), frozenset({BOOLEAN}))
"""Triggers besides a schema's keys: its type, or its being a boolean."""


def _owned(hit: Hit, tool: str) -> Hit:
    return hit if hit.tool is not None else Hit(hit.message, hit.location, tool)


def _ignored(config: LintConfig, code: str, tool: str | None) -> bool:
    if tool is None:
        return False
    return any(
        code in codes and fnmatchcase(tool, pattern)
        for pattern, codes in config.per_tool_ignores.items()
    )


def spec_error_findings(diagnostics: tuple[Diagnostic, ...]) -> list[Finding]:
    """Spec errors (the input did not load) as findings: their own code, severity error."""
    return [
        Finding(
            code=str(d.code),
            rule=None,
            category=SPEC_CATEGORY,
            severity=Severity.ERROR,
            message=d.message,
            tool=None,
            location=d.location,
        )
        for d in diagnostics
    ]
