"""Limits on what a spec or definitions file may hold, and the checks that need the raw text.

Every limit is a located error (`file:line:col`, code `limit`) documented in
docs/security.md, never a crash: without them, a 500-level nesting
overflows Python's stack, a 100,000-level one crashes the YAML parser's C
composer (and takes minutes first: libyaml is quadratic in flow depth), an
integer of 4,301 digits trips Python's int-string limit, and a few hundred bytes
of aliases expand to billions of values. Size and values are checked before a
document is built, so a refusal costs about what the file's text does.

Text problems are located where they are: invalid UTF-8 at the first bad byte,
characters YAML forbids (NUL, other control characters) at that character.
"""

from __future__ import annotations

import re
from typing import Final

import yaml

from toolgen.spec.errors import Diagnostic, ErrorCode, Location, SpecError
from toolgen.spec.positions import Position

MAX_DEPTH: Final = 100
"""Deepest nesting of lists and mappings in a file (a schema nested this deep is unreadable)."""
MAX_FILE_BYTES: Final = 16 * 1024 * 1024
"""The largest spec, definitions or fixtures file read (a `tools/list` of hundreds of tools
is a few MB)."""
MAX_VALUES: Final = 1_000_000
"""Most values (scalars, lists and mappings; keys aside) one file may hold, written out or
expanded through aliases: what a file at this limit costs to read bounds what any costs."""
MAX_INT_DIGITS: Final = 4300
"""Longest integer literal, in digits: Python's own int-string limit."""
COMPOSE_SAFE_DEPTH: Final = 1000
"""Depth up to which the YAML composer is safe and fast; a file that may nest deeper is
measured by a streaming pass that stops at `MAX_DEPTH` first."""

_INDENT = re.compile(r"^ +", re.MULTILINE)


def too_deep(where: Location) -> Diagnostic:
    return Diagnostic(
        ErrorCode.LIMIT,
        f"values nest more than {MAX_DEPTH} levels deep (lists and mappings); flatten the "
        "structure or move parts into defs",
        where,
    )


_MAX_INT_BITS: Final = int(MAX_INT_DIGITS * 3.3219280948873626)  # log2(10)


def parse_int(digits: str, base: int) -> int | None:
    """The integer `digits` (optionally signed) in `base`; None when it is longer than
    `MAX_INT_DIGITS` decimal digits (Python could not even print it)."""
    if base == 10 and len(digits.lstrip("+-")) > MAX_INT_DIGITS:
        return None
    try:
        number = int(digits, base)
    except ValueError:  # leading zeros past Python's int-string limit
        return None
    return None if number.bit_length() > _MAX_INT_BITS else number


def int_too_long(where: Location) -> Diagnostic:
    return Diagnostic(
        ErrorCode.LIMIT,
        f"integer literal longer than {MAX_INT_DIGITS} digits; write it as a string",
        where,
    )


def too_large(where: Location) -> Diagnostic:
    return Diagnostic(
        ErrorCode.LIMIT,
        f"the file is larger than {MAX_FILE_BYTES:,} bytes, the most read of one file; split "
        "it into several",
        where,
    )


def too_many_values(where: Location) -> Diagnostic:
    return Diagnostic(
        ErrorCode.LIMIT,
        f"the file holds more than {MAX_VALUES:,} values; split it into several files",
        where,
    )


def expands_too_far(count: int, where: Location) -> Diagnostic:
    return Diagnostic(
        ErrorCode.LIMIT,
        f"aliases expand this value to {count:,} values, more than the {MAX_VALUES:,} a file "
        "may hold",
        where,
    )


def text_position(text: str, offset: int) -> Position:
    """1-based (line, column in code points) of character `offset` in `text`."""
    line_start = text.rfind("\n", 0, offset) + 1
    return text.count("\n", 0, offset) + 1, offset - line_start + 1


def decode(raw: bytes, display: str, encoding: str = "utf-8") -> str:
    """`raw` as text; `SpecError` at the line and column of the first byte that is not UTF-8."""
    try:
        return raw.decode(encoding)
    except UnicodeDecodeError as exc:
        before = raw[: exc.start].decode("utf-8", "replace")
        line, column = text_position(before, len(before))
        raise SpecError(
            [
                Diagnostic(
                    ErrorCode.ENCODING,
                    f"byte 0x{raw[exc.start]:02x} is not valid UTF-8 ({exc.reason}); "
                    "spec and definitions files must be UTF-8",
                    Location(display, line, column),
                )
            ]
        ) from None


def reader_error(exc: yaml.YAMLError, text: str, display: str) -> Diagnostic | None:
    """A located diagnostic for a character YAML forbids (PyYAML reports a byte offset)."""
    position = getattr(exc, "position", None)
    if not isinstance(position, int):
        return None
    before = text.encode("utf-8")[:position].decode("utf-8", "replace")
    line, column = text_position(before, len(before))
    character = getattr(exc, "character", None)
    what = f"character U+{ord(character):04X}" if isinstance(character, str) else "a character"
    if isinstance(character, int):
        what = f"character U+{character:04X}"
    return Diagnostic(
        ErrorCode.YAML_SYNTAX,
        f"invalid YAML: {what} is not allowed in YAML (control characters and NUL must be "
        'escaped inside a double-quoted string, e.g. "\\u0000")',
        Location(display, line, column),
    )


_NODE_EVENTS: Final = (
    yaml.ScalarEvent,
    yaml.AliasEvent,
    yaml.SequenceStartEvent,
    yaml.MappingStartEvent,
)


def count_problem(text: str, display: str) -> Diagnostic | None:
    """A `limit` diagnostic at the value past `MAX_VALUES` of `text` (aliases count once), read
    from the parser's events without building anything.

    Every value but the first comes after one of `:-,[{?` (a mapping value, a block or flow
    item, a key without a value), so only a text with more of those is counted; a syntax
    error stops the count (the reader reports it)."""
    if 1 + sum(text.count(mark) for mark in ":-,[{?") <= MAX_VALUES:
        return None
    loader = yaml.CSafeLoader(text) if hasattr(yaml, "CSafeLoader") else yaml.SafeLoader(text)
    keys: list[bool | None] = []
    """Per open collection: a mapping whose next node is a key (True) or a value (False), or
    a sequence (None)."""
    count = 0
    try:
        while loader.check_event():
            event = loader.get_event()
            if isinstance(event, _NODE_EVENTS):
                key = keys[-1] if keys else None
                if key is not None:
                    keys[-1] = not key
                if key is not True:
                    count += 1
                    if count > MAX_VALUES:
                        mark = event.start_mark
                        line, column = (mark.line + 1, mark.column + 1) if mark else (1, 1)
                        return too_many_values(Location(display, line, column))
                if isinstance(event, yaml.SequenceStartEvent):
                    keys.append(None)
                elif isinstance(event, yaml.MappingStartEvent):
                    keys.append(True)
            elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
                keys.pop()
    except yaml.YAMLError:
        return None
    finally:
        loader.dispose()
    return None


def depth_problem(text: str, display: str) -> Diagnostic | None:
    """A `limit` diagnostic when `text` nests deeper than `MAX_DEPTH`, checked before the
    composer runs only when it could nest deeper than it handles safely.

    The bound (flow brackets plus twice the deepest indentation) is cheap and never
    below the real depth; only a file over it pays for a streaming pass over its
    events, which stops at the first value past `MAX_DEPTH`. Anything shallower is
    left to the builder, which locates depth problems as it goes.
    """
    indent = max((len(m) for m in _INDENT.findall(text)), default=0)
    if text.count("[") + text.count("{") + 2 * indent + 1 <= COMPOSE_SAFE_DEPTH:
        return None
    loader = yaml.CSafeLoader(text) if hasattr(yaml, "CSafeLoader") else yaml.SafeLoader(text)
    depth = 0
    try:
        while loader.check_event():
            event = loader.get_event()
            if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
                depth += 1
                if depth > MAX_DEPTH:
                    mark = event.start_mark
                    line, column = (mark.line + 1, mark.column + 1) if mark else (1, 1)
                    return too_deep(Location(display, line, column))
            elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
                depth -= 1
    except yaml.YAMLError:
        return None  # the composer reports syntax errors, with their position
    finally:
        loader.dispose()
    return None
