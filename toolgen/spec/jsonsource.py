"""Read JSON into a `SourceFile`: plain values plus the position of every value and key.

JSON is YAML 1.2, so `toolgen.spec.source` can read it, but a YAML parser pays
for generality: a 3 MB `tools/list` dump takes over a second there. This
reader does JSON only, with the stdlib's C string scanner, about four times
faster, and gives the same `SourceFile` (same paths, 1-based lines, columns in
code points, duplicate keys rejected), so findings locate the same way.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable
from json import JSONDecodeError, decoder
from pathlib import Path
from typing import Any

from toolgen.spec import limits
from toolgen.spec.errors import Diagnostic, ErrorCode, Location, SpecError
from toolgen.spec.positions import JsonPath, Position, SourceFile, display_path
from toolgen.spec.source import read_text

scanstring: Callable[[str, int, bool], tuple[str, int]] = decoder.scanstring  # type: ignore[attr-defined]  # typeshed omits it
"""The stdlib's JSON string scanner (C): decodes escapes, surrogate pairs included."""

_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_LITERALS = {"true": True, "false": False, "null": None}
_LITERAL_START = {"t": "true", "f": "false", "n": "null"}


class _Problem(Exception):
    """A problem at character `offset`: its code and message (`parse_json` locates it)."""

    def __init__(self, message: str, offset: int, code: ErrorCode = ErrorCode.YAML_SYNTAX) -> None:
        super().__init__(f"invalid JSON: {message}" if code is ErrorCode.YAML_SYNTAX else message)
        self.code = code
        self.offset = offset

    @classmethod
    def of(cls, diagnostic: Diagnostic, offset: int) -> _Problem:
        """A documented limit passed at `offset` (see `toolgen.spec.limits`)."""
        return cls(diagnostic.message, offset, ErrorCode(diagnostic.code))


def _skip(text: str, i: int) -> int:
    """The offset of the first non-whitespace character at or after `i`."""
    match = _WS.match(text, i)
    assert match is not None  # the pattern matches the empty string
    return match.end()


def read_json(path: Path) -> SourceFile:
    """Parse one JSON file; raise `SpecError` with a position on any problem."""
    text, display = read_text(path, encoding="utf-8-sig")
    return parse_json(text, path, display)


def parse_json(text: str, path: Path, display: str | None = None) -> SourceFile:
    """Parse JSON text that came from `path` into a `SourceFile`."""
    display = display if display is not None else display_path(path)
    parser = _Parser(text)
    try:
        data, end = parser.value(_skip(text, 0), ())
        end = _skip(text, end)
        if end != len(text):
            raise _Problem("extra data after the JSON value", end)
    except _Problem as exc:
        line, column = parser.position(min(exc.offset, len(text)))
        diagnostic = Diagnostic(exc.code, str(exc), Location(display, line, column))
        raise SpecError([diagnostic]) from None
    return SourceFile(path, display, data, parser.positions, parser.key_positions)


class _Parser:
    """Recursive descent over the text; records positions as it goes."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.line_starts = [0, *(m.end() for m in re.finditer("\n", text))]
        self.positions: dict[JsonPath, Position] = {}
        self.key_positions: dict[JsonPath, Position] = {}

    def position(self, offset: int) -> Position:
        line = bisect_right(self.line_starts, offset)
        return line, offset - self.line_starts[line - 1] + 1

    def value(self, i: int, path: JsonPath) -> tuple[Any, int]:
        text = self.text
        self.positions[path] = self.position(i)
        if len(self.positions) > limits.MAX_VALUES:  # one position per value
            raise _Problem.of(limits.too_many_values(Location("", 0, 0)), i)
        char = text[i : i + 1]
        if char == '"':
            return self.string(i)
        if char in "{[" and len(path) >= limits.MAX_DEPTH:
            raise _Problem.of(limits.too_deep(Location("", 0, 0)), i)
        if char == "{":
            return self.object(i, path)
        if char == "[":
            return self.array(i, path)
        literal = _LITERAL_START.get(char)
        if literal is not None and text.startswith(literal, i):
            return _LITERALS[literal], i + len(literal)
        match = _NUMBER.match(text, i)
        if match is None or not match.group():
            raise _Problem("expected a value" if char else "unexpected end of input", i)
        number = match.group()
        value: Any = float(number) if match.group(1) or match.group(2) else None
        if value is None:
            value = limits.parse_int(number, 10)
            if value is None:
                raise _Problem.of(limits.int_too_long(Location("", 0, 0)), i)
        if value in (float("inf"), float("-inf")):
            raise _Problem(f"{number} is not representable", i)
        return value, match.end()

    def string(self, i: int) -> tuple[str, int]:
        try:
            return scanstring(self.text, i + 1, True)
        except JSONDecodeError as exc:
            raise _Problem(exc.msg, exc.pos) from None

    def object(self, i: int, path: JsonPath) -> tuple[dict[str, Any], int]:
        text = self.text
        result: dict[str, Any] = {}
        i = _skip(text, i + 1)
        if text[i : i + 1] == "}":
            return result, i + 1
        while True:
            if text[i : i + 1] != '"':
                raise _Problem("expected a key in double quotes", i)
            key, after = self.string(i)
            child = (*path, key)
            if key in result:
                first = self.key_positions[child]
                message = f"duplicate key {key!r} (first defined at line {first[0]})"
                raise _Problem(f"{message}; keys must be unique", i, ErrorCode.DUPLICATE_KEY)
            self.key_positions[child] = self.position(i)
            i = _skip(text, after)
            if text[i : i + 1] != ":":
                raise _Problem("expected ':' after a key", i)
            i = _skip(text, i + 1)
            result[key], i = self.value(i, child)
            i = _skip(text, i)
            char = text[i : i + 1]
            if char == ",":
                i = _skip(text, i + 1)
            elif char == "}":
                return result, i + 1
            else:
                raise _Problem("expected ',' or '}'", i)

    def array(self, i: int, path: JsonPath) -> tuple[list[Any], int]:
        text = self.text
        result: list[Any] = []
        i = _skip(text, i + 1)
        if text[i : i + 1] == "]":
            return result, i + 1
        while True:
            item, i = self.value(i, (*path, len(result)))
            result.append(item)
            i = _skip(text, i)
            char = text[i : i + 1]
            if char == ",":
                i = _skip(text, i + 1)
            elif char == "]":
                return result, i + 1
            else:
                raise _Problem("expected ',' or ']'", i)
