"""The rule registry: every lint rule, with a stable code, a name and its docs.

A rule is a plain function decorated with `@rule(...)`. Its docstring is its
documentation: a one-line summary, then `What it does:`, `Why:` and
`Example:` sections (`toolgen lint --explain CODE` prints it; the rules
table of `docs/lint.md` and `docs/lint-rules.md` are generated from it).

Codes are stable and never reused: `TG0xx` suppressions, `TG1xx`
annotations, `TG2xx` names, `TG3xx` schemas, `TG4xx` descriptions, `TG5xx`
portability to model APIs (opt-in, selected by `--target`). A rule
that is removed moves to `RETIRED`, so its code stays taken.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal

from toolgen.lint.model import Category, Hit
from toolgen.report.findings import Severity

Scope = Literal["tool", "node", "set", "engine"]
"""What a check is called with: each tool; each schema node (tools' raw schemas and
defs); the whole spec set once; or nothing (the engine itself reports it)."""

CODE_PATTERN = re.compile(r"^TG[0-9]{3}$")
NAME_PATTERN = re.compile(r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$")
DOC_SECTIONS = ("What it does:", "Why:", "Example:")

BOOLEAN = "<boolean>"
"""Trigger of node rules that look at `true`/`false` schemas."""
TYPE_LIST = "<type list>"
"""Trigger of node rules that look at `type` written as a list."""
ARRAY = "<array>"
"""Trigger of node rules that look at array schemas (`type: array`, or a list with it)."""
SCHEMA = "<schema>"
"""Trigger of node rules that look at every schema object."""


RETIRED: dict[str, str] = {}
"""Codes of removed rules (code -> last name). They are never given to a new rule."""


@dataclass(frozen=True, slots=True)
class Rule:
    code: str
    name: str
    category: Category
    severity: Severity
    scope: Scope
    check: Callable[..., Iterable[Hit]] | None
    doc: str
    default: bool = True
    """Whether the rule runs without being selected by code or name (else opt-in)."""
    keys: frozenset[str] = frozenset()
    """Node rules: the keywords that make a schema worth checking, or `BOOLEAN`,
    `TYPE_LIST`, `ARRAY`; the engine calls the check only for such schemas."""
    when: Callable[[tuple[Any, ...]], bool] | None = None
    """Node rules: a test of a schema's keys (as a tuple) that holds for every schema the
    check finds something in; the engine asks it once per tuple of keys, and calls the check
    only where it holds (for a rule that looks at every schema, such as TG315)."""

    @property
    def summary(self) -> str:
        return self.doc.split("\n", 1)[0].strip()


_RULES: dict[str, Rule] = {}


def rule(
    code: str,
    name: str,
    category: Category,
    severity: Severity,
    *,
    scope: Scope = "tool",
    default: bool = True,
    keys: Iterable[str] = (),
    when: Callable[[tuple[Any, ...]], bool] | None = None,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register the decorated function as the check of a rule."""

    def register(func: Callable[..., Any]) -> Callable[..., Any]:
        assert CODE_PATTERN.match(code), code
        assert NAME_PATTERN.match(name), name
        assert code not in RETIRED, f"{code} is retired and cannot be reused"
        assert code not in _RULES, f"duplicate rule code {code}"
        assert (scope == "node") == bool(keys), f"{code}: node rules, and only they, need keys"
        assert when is None or scope == "node", f"{code}: only node rules take `when`"
        assert all(r.name != name for r in _RULES.values()), f"duplicate rule name {name}"
        _RULES[code] = Rule(
            code=code,
            name=name,
            category=category,
            severity=severity,
            scope=scope,
            check=None if scope == "engine" else func,
            doc=inspect.cleandoc(func.__doc__ or ""),
            default=default,
            keys=frozenset(keys),
            when=when,
        )
        return func

    return register


def all_rules() -> tuple[Rule, ...]:
    """Every registered rule, by code (`toolgen.lint` imports every rule module)."""
    return tuple(sorted(_RULES.values(), key=lambda r: r.code))


def find_rule(code_or_name: str) -> Rule | None:
    """The rule with this code (any case) or name."""
    wanted = code_or_name.strip()
    for candidate in all_rules():
        if candidate.code == wanted.upper() or candidate.name == wanted.lower():
            return candidate
    return None
