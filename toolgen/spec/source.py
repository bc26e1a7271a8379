"""Read YAML (or JSON) into plain Python values plus a map of source positions.

PyYAML's C parser composes the node graph fast and keeps line/column marks;
we build the values ourselves so that scalars follow YAML 1.2 (core schema:
`yes`/`on` stay strings), duplicate keys are errors, and every value's
position is recorded under its path (`("tools", 0, "name")`). That path is
the one location mechanism of toolgen: later stages report problems by path
and `SourceFile.locate` turns a path into `file:line:col`.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from toolgen.spec import limits, yamlevents
from toolgen.spec.errors import Diagnostic, ErrorCode, Location, SpecError
from toolgen.spec.positions import JsonPath, Position, SourceFile, display_path
from toolgen.spec.yamlerrors import syntax_error

_BaseLoader: type[Any] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_PLAIN = "!plain"  # our marker tag for untagged plain scalars

_NULL = re.compile(r"^(?:~|null|Null|NULL|)$")
_BOOL = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
_INT10 = re.compile(r"^[-+]?[0-9]+$")
_INT8 = re.compile(r"^0o[0-7]+$")
_INT16 = re.compile(r"^0x[0-9a-fA-F]+$")
_FLOAT = re.compile(r"^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$")
_SPECIAL_FLOAT = re.compile(r"^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$")

_NON_STRING_STARTS = frozenset("0123456789+-.~nNtTfF")
_MAYBE_NOT_STRING = re.compile(
    "|".join(
        [p.pattern for p in (_NULL, _INT10, _INT8, _INT16, _FLOAT, _SPECIAL_FLOAT)]
        + [f"^{word}\\Z" for word in _BOOL]
    )
)
"""Matches every plain scalar that might not read as a string (one test for most words),
and nothing else: the booleans are the exact words, as `_BOOL` holds them."""
_STR = "tag:yaml.org,2002:str"
_COLLECTION_TAGS = frozenset({"tag:yaml.org,2002:seq", "tag:yaml.org,2002:map"})
"""Tags a list or mapping may carry (implicit or `!!seq`/`!!map`); any other is refused."""
_TAGGED: dict[str, type] = {
    _STR: str,
    "tag:yaml.org,2002:int": int,
    "tag:yaml.org,2002:float": float,
    "tag:yaml.org,2002:bool": bool,
    "tag:yaml.org,2002:null": type(None),
}


class _Loader(_BaseLoader):  # type: ignore[misc]
    """Composes nodes only; marks untagged plain scalars so we resolve them (YAML 1.2)."""

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        # PyYAML's resolver, for a loader without path resolvers, inlined: it runs per node.
        if kind is yaml.ScalarNode:
            return _PLAIN if implicit[0] else self.DEFAULT_SCALAR_TAG
        if kind is yaml.SequenceNode:
            return self.DEFAULT_SEQUENCE_TAG
        return self.DEFAULT_MAPPING_TAG

    def descend_resolver(self, current_node: Any, current_index: Any) -> None:
        """No path resolvers: nothing to track (PyYAML calls this per node)."""

    def ascend_resolver(self) -> None:
        """No path resolvers: nothing to track (PyYAML calls this per node)."""


def read_text(path: Path, encoding: str = "utf-8") -> tuple[str, str]:
    """(text, display path) of a spec or definitions file; `SpecError` when unreadable."""
    display = display_path(path)
    try:
        with path.open("rb") as file:
            raw = file.read(limits.MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise SpecError(
            [Diagnostic(ErrorCode.IO, f"cannot read file: {exc}", Location(display, 1, 1))]
        ) from None
    if len(raw) > limits.MAX_FILE_BYTES:
        raise SpecError([limits.too_large(Location(display, 1, 1))])
    return limits.decode(raw, display, encoding), display


def read_source(path: Path) -> SourceFile:
    """Parse one YAML or JSON file; raise `SpecError` with a position on any problem."""
    text, display = read_text(path)
    return parse_source(text, path, display)


def parse_source(text: str, path: Path, display: str | None = None) -> SourceFile:
    """Parse YAML text that came from `path` into a `SourceFile`."""
    display = display if display is not None else display_path(path)
    too_many = limits.count_problem(text, display)  # values are built only within the limit
    if too_many is not None:
        raise SpecError([too_many])
    fast = _read_plain_yaml(text, display)  # it gives up before nesting too deep
    if fast is not None:
        return SourceFile(path, display, *fast)
    return parse_composed(text, path, display)


def parse_composed(text: str, path: Path, display: str) -> SourceFile:
    """Parse YAML text through PyYAML's node graph: the reader of every file the fast
    event reader gives up on, with every problem located (and the reference that reader's
    tests compare it with)."""
    too_deep = limits.depth_problem(text, display)  # before the composer's recursion
    if too_deep is not None:
        raise SpecError([too_deep])
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
    except yaml.MarkedYAMLError as exc:
        raise SpecError([syntax_error(exc, text, display)]) from None
    except yaml.YAMLError as exc:
        located = limits.reader_error(exc, text, display)
        raise SpecError(
            [
                located
                or Diagnostic(
                    ErrorCode.YAML_SYNTAX, f"invalid YAML: {exc}", Location(display, 1, 1)
                )
            ]
        ) from None
    finally:
        loader.dispose()
    if node is not None:
        _check_expansion(node, display)
    builder = _Builder(display, text)
    data = builder.build(node, ()) if node is not None else None
    if builder.errors:
        raise SpecError(builder.errors)
    return SourceFile(
        path, display, data, builder.positions, builder.key_positions, tuple(builder.skipped)
    )


def _values(node: yaml.Node) -> list[yaml.Node]:
    """The nodes a node holds as values (a mapping's keys are not values)."""
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [value for _, value in node.value]
    return []


def _check_expansion(root: yaml.Node, display: str) -> None:
    """`SpecError` when aliases expand the node graph past `limits.MAX_VALUES` values, before
    anything is built: each node's expanded count is computed once (a node inside itself
    counts once; the builder reports it). The error is at the smallest value past the limit."""
    sizes: dict[int, int] = {}
    active: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, counted = stack.pop()
        if counted:
            active.discard(id(node))
            sizes[id(node)] = 1 + sum(sizes.get(id(child), 1) for child in _values(node))
        elif id(node) not in sizes and id(node) not in active:
            active.add(id(node))
            stack.append((node, True))
            stack.extend((child, False) for child in _values(node))
    if sizes[id(root)] <= limits.MAX_VALUES:
        return
    node, seen = root, {id(root)}
    while True:
        past = [c for c in _values(node) if sizes[id(c)] > limits.MAX_VALUES and id(c) not in seen]
        if not past:
            break
        node = past[0]
        seen.add(id(node))
    mark = node.start_mark
    where = Location(display, mark.line + 1, mark.column + 1)
    raise SpecError([limits.expands_too_far(sizes[id(node)], where)])


def _read_plain_yaml(
    text: str, display: str
) -> tuple[Any, dict[JsonPath, Position], dict[JsonPath, Position]] | None:
    """(data, positions, key positions) of a file in plain YAML with no problem, read from
    the parser's events (`yamlevents`); None when the thorough reader below must read it."""
    builder = _Builder(display, text)
    loader = _BaseLoader(text)
    try:
        read = yamlevents.read(loader.get_event, builder.plain)
    except (yamlevents.GiveUp, yaml.YAMLError):
        return None
    finally:
        loader.dispose()
    return None if builder.errors else read


class _Builder:
    """Turns a composed node graph into JSON-like values, recording positions."""

    def __init__(self, display: str, text: str) -> None:
        self.display = display
        self.text = text
        self.positions: dict[JsonPath, Position] = {}
        self.key_positions: dict[JsonPath, Position] = {}
        self.errors: list[Diagnostic] = []
        self.skipped: list[Diagnostic] = []  # keys left out: the rest of the file still reads
        self._active: set[int] = set()

    def _error(self, code: ErrorCode, message: str, node: yaml.Node) -> None:
        self._error_at(code, message, node.start_mark)

    def _error_at(self, code: ErrorCode, message: str, mark: Any) -> None:
        self.errors.append(
            Diagnostic(code, message, Location(self.display, mark.line + 1, mark.column + 1))
        )

    def build(self, node: yaml.Node, path: JsonPath) -> Any:
        self.positions[path] = (node.start_mark.line + 1, node.start_mark.column + 1)
        if isinstance(node, yaml.ScalarNode):
            return self._scalar(node)
        if node.tag not in _COLLECTION_TAGS:
            self._error(ErrorCode.YAML_UNSUPPORTED, f"unsupported YAML tag {node.tag!r}", node)
            return None
        if len(path) >= limits.MAX_DEPTH:
            mark = node.start_mark
            self.errors.append(
                limits.too_deep(Location(self.display, mark.line + 1, mark.column + 1))
            )
            return None
        if id(node) in self._active:
            self._error(
                ErrorCode.YAML_UNSUPPORTED, "recursive alias: the value contains itself", node
            )
            return None
        self._active.add(id(node))
        try:
            if isinstance(node, yaml.SequenceNode):
                return [self.build(item, (*path, i)) for i, item in enumerate(node.value)]
            return self._mapping(node, path)
        finally:
            self._active.discard(id(node))

    def _mapping(self, node: yaml.Node, path: JsonPath) -> dict[str, Any]:
        result: dict[str, Any] = {}
        before: yaml.Node | None = None  # the value before this entry
        for key_node, value_node in node.value:
            if (
                isinstance(node, yaml.MappingNode)
                and node.flow_style
                and _no_colon(key_node, value_node)
            ):
                self.skipped.append(self._comma_split(key_node, before))
                continue
            before = value_node
            key = self._scalar(key_node) if isinstance(key_node, yaml.ScalarNode) else None
            if not isinstance(key, str):
                self._error(
                    ErrorCode.YAML_UNSUPPORTED,
                    "mapping keys must be strings (quote the key)",
                    key_node,
                )
                continue
            child = (*path, key)
            if key in result:
                self.skipped.append(self._duplicate(key, key_node, self.key_positions[child]))
                continue
            self.key_positions[child] = (
                key_node.start_mark.line + 1,
                key_node.start_mark.column + 1,
            )
            result[key] = self.build(value_node, child)
        return result

    def _comma_split(self, key_node: yaml.Node, before: yaml.Node | None) -> Diagnostic:
        """An entry of a `{...}` mapping with no `:`: most often the rest of the value before
        it, split off at an unquoted comma (`description: Dates, e.g. ...`)."""
        mark = key_node.start_mark
        whole = self.text[
            before.start_mark.index if before else mark.index : key_node.end_mark.index
        ]
        return Diagnostic(
            ErrorCode.YAML_SYNTAX,
            f"{key_node.value!r} has no value: in a `{{...}}` mapping an unquoted `, ` ends a "
            f"string; quote the whole string: {json.dumps(whole, ensure_ascii=False)}",
            Location(self.display, mark.line + 1, mark.column + 1),
        )

    def _duplicate(self, key: str, node: yaml.Node, first: Position) -> Diagnostic:
        mark = node.start_mark
        hint = (
            "; if it belongs inside the block above it, indent it further"
            if mark.column + 1 == first[1]
            else ""
        )
        return Diagnostic(
            ErrorCode.DUPLICATE_KEY,
            f"duplicate key {key!r} (first defined at line {first[0]}); keys must be unique{hint}",
            Location(self.display, mark.line + 1, mark.column + 1),
        )

    def _scalar(self, node: yaml.Node) -> Any:
        value: str = node.value
        if node.tag == _PLAIN:
            return self.plain(value, node.start_mark)
        kind = _TAGGED.get(node.tag)
        if kind is str:
            return value
        if kind is None:
            self._error(ErrorCode.YAML_UNSUPPORTED, f"unsupported YAML tag {node.tag!r}", node)
            return None
        resolved = self.plain(value, node.start_mark)
        if not isinstance(resolved, kind) or (kind is int and isinstance(resolved, bool)):
            self._error(
                ErrorCode.YAML_UNSUPPORTED, f"{value!r} is not a valid {kind.__name__}", node
            )
        return resolved

    def _integer(self, digits: str, base: int, mark: Any) -> int | None:
        """An integer literal, or None after a `limit` error when it is too long for JSON tools."""
        number = limits.parse_int(digits, base)
        if number is None:
            where = Location(self.display, mark.line + 1, mark.column + 1)
            self.errors.append(limits.int_too_long(where))
        return number

    def plain(self, value: str, mark: Any) -> Any:
        """YAML 1.2 core schema resolution of a plain scalar that starts at `mark`."""
        if _plainly_string(value):
            return value  # fast path: most scalars are words
        if _NULL.match(value):
            return None
        if value in _BOOL:
            return _BOOL[value]
        if _INT10.match(value):
            return self._integer(value, 10, mark)
        if _INT8.match(value):
            return self._integer(value[2:], 8, mark)
        if _INT16.match(value):
            return self._integer(value[2:], 16, mark)
        if _FLOAT.match(value):
            number = float(value)
            if math.isfinite(number):
                return number
        if _SPECIAL_FLOAT.match(value) or (_FLOAT.match(value)):
            self._error_at(
                ErrorCode.YAML_UNSUPPORTED, f"{value!r} is not representable in JSON", mark
            )
            return None
        return value


def _no_colon(key: yaml.Node, value: yaml.Node) -> bool:
    """Whether a mapping entry is a plain key with no `:` (YAML reads it as `key: null`)."""
    return (
        isinstance(value, yaml.ScalarNode)
        and value.tag == _PLAIN
        and value.value == ""
        and value.start_mark.index == key.end_mark.index
    )


def reads_as_string(text: str) -> bool:
    """Whether `text`, written as a plain (unquoted) YAML scalar, reads back as that string.

    The YAML 1.2 core schema of `_Builder.plain`: writers quote a string when not
    (`"1e3"`, `"0o17"`, `"null"` would read as numbers or null).
    """
    return _plainly_string(text)


def walk(value: Any, path: JsonPath = ()) -> Iterator[tuple[JsonPath, Any]]:
    """Every (path, value) pair below and including `value`, depth first."""
    yield path, value
    if isinstance(value, dict):
        for key, child in value.items():
            yield from walk(child, (*path, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from walk(child, (*path, index))


def _plainly_string(text: str) -> bool:
    """Whether a plain scalar is a string by its first character or by one pattern; the
    others (null, booleans, numbers and look-alikes) need the full YAML 1.2 resolution."""
    return (bool(text) and text[0] not in _NON_STRING_STARTS) or not _MAYBE_NOT_STRING.match(text)
