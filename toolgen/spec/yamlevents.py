"""The fast way to read a clean YAML file: values and positions straight from libyaml's
events, without composing a node graph first.

Composing nodes and then walking them cost about half of a spec parse. Most spec
files use plain YAML only (no anchors, aliases or tags) and have no problem, and
for those this reader gives exactly what `toolgen.spec.source` gives (the same
values, positions and key positions, recorded in the same order). Anything
else gives up (`GiveUp`), and the caller reads the file the thorough way, which
reports problems with all their detail: a syntax error, an anchor, an alias, a
tag, a key that is not a string, a duplicate key, a `{...}` entry with no `:`, a value too deep, a scalar that
does not resolve cleanly.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from yaml.events import (
    DocumentEndEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
    StreamStartEvent,
)

from toolgen.spec import limits
from toolgen.spec.positions import JsonPath, Position

Resolve = Callable[[str, Any], Any]
"""Resolves a plain scalar (its text, its start mark) the way the thorough reader does."""


class GiveUp(Exception):
    """The file needs the thorough reader."""


class EventReader:
    """Builds one document's values from a parser's events, recording positions."""

    def __init__(self, next_event: Callable[[], Any], resolve: Resolve) -> None:
        self.next_event = next_event
        self.resolve = resolve
        self.positions: dict[JsonPath, Position] = {}
        self.key_positions: dict[JsonPath, Position] = {}

    def document(self) -> Any:
        """The one document of the stream; `GiveUp` for none, several, or anything unusual."""
        if type(self.next_event()) is not StreamStartEvent:
            raise GiveUp
        if type(self.next_event()) is not DocumentStartEvent:
            raise GiveUp
        data = self.value(self.next_event(), ())
        if type(self.next_event()) is not DocumentEndEvent:
            raise GiveUp
        if type(self.next_event()) is not StreamEndEvent:
            raise GiveUp
        return data

    def value(self, event: Any, path: JsonPath) -> Any:
        """The value that starts with `event`, at `path`."""
        if event.anchor is not None or event.tag is not None:
            raise GiveUp
        mark = event.start_mark
        self.positions[path] = (mark.line + 1, mark.column + 1)
        kind = type(event)
        if kind is ScalarEvent:
            return self.resolve(event.value, mark) if event.implicit[0] else event.value
        if len(path) >= limits.MAX_DEPTH:
            raise GiveUp
        if kind is MappingStartEvent:
            return self.mapping(path, bool(event.flow_style))
        if kind is SequenceStartEvent:
            return self.sequence(path)
        raise GiveUp  # an alias

    def mapping(self, path: JsonPath, flow: bool) -> dict[str, Any]:
        result: dict[str, Any] = {}
        next_event = self.next_event
        while True:
            event = next_event()
            if type(event) is MappingEndEvent:
                return result
            key = self.key(event)
            if key in result:
                raise GiveUp
            child = (*path, key)
            mark = event.start_mark
            self.key_positions[child] = (mark.line + 1, mark.column + 1)
            value = next_event()
            if flow and value.start_mark.index == event.end_mark.index:
                raise GiveUp  # a key with no `:`, most often split off at an unquoted comma
            result[key] = self.value(value, child)

    def key(self, event: Any) -> str:
        """A mapping key: a string scalar, or `GiveUp`."""
        if type(event) is not ScalarEvent or event.anchor is not None or event.tag is not None:
            raise GiveUp
        key = self.resolve(event.value, event.start_mark) if event.implicit[0] else event.value
        if type(key) is not str:
            raise GiveUp
        return key

    def sequence(self, path: JsonPath) -> list[Any]:
        result: list[Any] = []
        next_event = self.next_event
        while True:
            event = next_event()
            if type(event) is SequenceEndEvent:
                return result
            result.append(self.value(event, (*path, len(result))))


def read(
    next_event: Callable[[], Any], resolve: Resolve
) -> tuple[Any, dict[JsonPath, Position], dict[JsonPath, Position]]:
    """(data, positions, key positions) of the one document `next_event` yields; `GiveUp`
    (or the parser's own `yaml.YAMLError`) when the thorough reader must read it."""
    reader = EventReader(next_event, resolve)
    data = reader.document()
    return data, reader.positions, reader.key_positions
