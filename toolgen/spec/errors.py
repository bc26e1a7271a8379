"""Diagnostics shared by every stage: a code, a message and a `file:line:col`.

Every error toolgen reports about a user's input is a `Diagnostic`. Stages
collect them and raise one `SpecError` holding all of them, so a user sees
every problem of a run at once, and the CLI prints them without a traceback.
Tests assert on `code` and `location`, never on message text.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum


class ErrorCode(StrEnum):
    """Stable codes of input errors. Never reuse or rename one."""

    IO = "io"  # a file or directory cannot be read
    YAML_SYNTAX = "yaml-syntax"
    YAML_UNSUPPORTED = "yaml-unsupported"  # tags, aliases cycles, non-string keys, NaN
    DUPLICATE_KEY = "duplicate-key"
    VERSION = "version"  # missing or unknown `toolgen:` format version
    UNKNOWN_KEY = "unknown-key"
    MISSING_KEY = "missing-key"
    WRONG_TYPE = "wrong-type"
    YAML11_BOOLEAN = "yaml11-boolean"  # `yes`/`no`/`on`/`off` where a boolean is expected
    INVALID_NAME = "invalid-name"
    INVALID_VALUE = "invalid-value"
    DUPLICATE_TOOL = "duplicate-tool"
    DUPLICATE_DEF = "duplicate-def"
    DUPLICATE_HINT = "duplicate-hint"
    DUPLICATE_SERVER = "duplicate-server"
    MISSING_SERVER = "missing-server"  # retired: a spec set may have no `server` block
    INPUT_NOT_OBJECT = "input-not-object"
    UNRESOLVED_REF = "unresolved-ref"
    NETWORK_REF = "network-ref"
    INVALID_SCHEMA = "invalid-schema"
    INVALID_EXAMPLE = "invalid-example"
    NO_SPECS = "no-specs"
    ENCODING = "encoding"  # a file that is not UTF-8
    EDITED_OUTPUT = "edited-output"  # a generated file someone edited (build --force replaces it)
    LIMIT = "limit"  # past a documented limit (nesting depth, integer size, ...)
    SHADOWED_PACKAGE = "shadowed-package"  # the generated package would hide another module
    SEVERAL_SPEC_SETS = "several-spec-sets"  # one spec set was expected (serve, tools, load)
    MISSPELT_KEYWORD = "misspelt-keyword"  # a schema key one typo from a JSON Schema keyword


@dataclass(frozen=True, slots=True, order=True)
class Location:
    """A 1-based position in a file, as editors and compilers print it."""

    file: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One problem in the input: what is wrong and where."""

    code: str
    message: str
    location: Location | None = None

    def __str__(self) -> str:
        where = f"{self.location}: " if self.location else ""
        return f"{where}error[{self.code}]: {self.message}"


class SpecError(Exception):
    """The input cannot be compiled; carries every diagnostic found."""

    def __init__(self, diagnostics: Iterable[Diagnostic]) -> None:
        self.diagnostics: tuple[Diagnostic, ...] = tuple(sorted(diagnostics, key=_sort_key))
        super().__init__("\n".join(str(d) for d in self.diagnostics))


def _sort_key(d: Diagnostic) -> tuple[str, int, int, str]:
    loc = d.location
    return (loc.file, loc.line, loc.column, d.code) if loc else ("", 0, 0, d.code)


def raise_if_any(diagnostics: Sequence[Diagnostic]) -> None:
    """Raise a `SpecError` when a stage found problems."""
    if diagnostics:
        raise SpecError(diagnostics)
