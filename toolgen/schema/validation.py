"""Compiled JSON Schema 2020-12 validators and readable validation issues.

Each schema is compiled once, on first use, with jsonschema-rs (the fastest correct
2020-12 validator we measured: see `benchmarks/validators.py`), the one engine that
decides validity. Validation first asks the cheap `is_valid`; only an invalid value
pays for collecting the issues, each of which names the field and the problem.
Network `$ref`s are never fetched (`offline=True`); the IR's schemas are
self-contained anyway.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

import jsonschema_rs

MAX_ISSUES: Final = 8
"""How many issues a message lists (the rest are counted, not shown)."""
MAX_MESSAGE: Final = 160
"""Longest issue text kept: validator messages quote the offending value, which can be huge."""

Path = tuple[str | int, ...]


@dataclass(frozen=True, slots=True)
class ValidationIssue:
    """One reason a value does not match its schema: where, which keyword, what is wrong."""

    path: Path
    keyword: str
    message: str

    @property
    def location(self) -> str:
        """The path as a Python-like accessor (`tags[0].name`), or `(root)`."""
        return format_path(self.path)

    def __str__(self) -> str:
        return f"{self.location}: {self.message}"


def format_path(path: Path) -> str:
    """`("tags", 0, "name")` → `tags[0].name`; the empty path is `(root)`."""
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else part
    return text or "(root)"


def describe(issues: list[ValidationIssue]) -> str:
    """All issues in one line, for an `isError` message a model can act on."""
    shown = "; ".join(str(issue) for issue in issues[:MAX_ISSUES])
    hidden = len(issues) - MAX_ISSUES
    return shown + (f"; and {hidden} more problem(s)" if hidden > 0 else "")


def invalid_arguments(tool: str, issues: list[ValidationIssue]) -> str:
    """The `isError` text for arguments that fail a tool's input schema (every transport)."""
    return f"Invalid arguments for tool {tool!r}: {describe(issues)}"


class SchemaValidator:
    """A schema, compiled on first use; `issues(value)` is empty when the value is valid."""

    __slots__ = ("_compiled", "schema")

    def __init__(self, schema: Mapping[str, Any]) -> None:
        self.schema = schema
        self._compiled: Any = None

    def _validator(self) -> Any:
        if self._compiled is None:
            self._compiled = jsonschema_rs.Draft202012Validator(dict(self.schema), offline=True)
        return self._compiled

    def is_valid(self, value: Any) -> bool:
        return bool((self._compiled or self._validator()).is_valid(value))

    def issues(self, value: Any) -> list[ValidationIssue]:
        """Every problem with `value`, in the validator's (deterministic) order; `[]` if valid."""
        validator = self._compiled or self._validator()
        if validator.is_valid(value):
            return []
        try:
            return [
                ValidationIssue(
                    path=tuple(error.instance_path),
                    keyword=_keyword(error.schema_path),
                    message=_shorten(_message(error, value)),
                )
                for error in validator.iter_errors(value)
            ]
        except ValueError:  # the validator's recursion limit: a value nested hundreds deep
            return [ValidationIssue((), "", "the value is nested too deeply to be checked")]


def _message(error: Any, value: Any) -> str:
    """The validator's message, but naming the unexpected properties where it does not.

    For `additionalProperties: false` beside no `properties`, jsonschema-rs reports a false
    schema and quotes a property's value ("False schema does not allow 1"): a reader needs
    the property's name.
    """
    false_schema = isinstance(error.kind, jsonschema_rs.ValidationErrorKind.FalseSchema)
    path = list(error.schema_path)
    if not false_schema or not path or path[-1] != "additionalProperties":
        return str(error.message)
    target = value
    for step in error.instance_path:
        target = target[step]
    if not isinstance(target, dict) or not target:
        return str(error.message)
    names = ", ".join(repr(name) for name in target)
    verb = "was" if len(target) == 1 else "were"
    return f"Additional properties are not allowed ({names} {verb} unexpected)"


def _keyword(schema_path: Any) -> str:
    for part in reversed(list(schema_path)):
        if isinstance(part, str):
            return part
    return ""


def _shorten(message: str) -> str:
    message = " ".join(message.split())
    if len(message) <= MAX_MESSAGE:
        return message
    half = MAX_MESSAGE // 2 - 2
    return f"{message[:half]} … {message[-half:]}"
