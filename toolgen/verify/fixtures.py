"""A fixtures file: real values for the tools under test, and pinned stateful sequences.

```yaml
values:                          # for every tool with such a property (dotted path)
  repo_path: [/srv/test-repo]    # always a list: these values, and no others
tools:
  git_log:                       # a tool name, or an fnmatch pattern (`git_*`)
    values: {max_count: [1, 5]}
    arguments:                   # argument sets called as they are, before anything else
      - {repo_path: /srv/test-repo, max_count: 2}
    timeout: 30                  # seconds to wait for this tool's answers
sequences:
  - name: entity round trip
    steps:
      - call: create_entities
        arguments: {entities: [{name: e1, entityType: test, observations: [x]}]}
      - call: open_nodes
        arguments: {names: ["${1.entities.0.name}"]}   # a value step 1 returned
        expect: {output: {entities: [{name: e1}]}}
      - call: delete_entities
        arguments: {entityNames: [e1]}
      - call: open_nodes
        arguments: {names: [e1]}
        expect: {output: {entities: []}}               # or {error: true}
```

A fixture value replaces what verify would generate for that property in every
phase (boundary and generated inputs are built around it). Read with toolgen's
YAML reader and checked against the spec set before any server starts: every
mistake is reported at `file:line:col` (unknown keys, a pattern or property no
tool has, a value or argument set the schema refuses, a reference to a later step).
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from toolgen.schema.validation import SchemaValidator, describe
from toolgen.spec.errors import Diagnostic, ErrorCode, SpecError
from toolgen.spec.ir import ToolSet
from toolgen.spec.positions import JsonPath, SourceFile
from toolgen.spec.source import read_source
from toolgen.verify.inputs import property_schema

NO_OUTPUT: Final[Any] = object()
REFERENCE: Final = re.compile(r"^\$\{(\d+)((?:\.[^.}]+)*)\}$")
"""A whole string `${N.path}`: the value at `path` in what step N returned (1-based)."""
_TOP: Final = ("values", "tools", "sequences")
_TOOL: Final = ("values", "arguments", "timeout")
_STEP: Final = ("call", "arguments", "expect")


@dataclass(frozen=True, slots=True)
class ToolFixtures:
    """What the fixtures file gives one tool."""

    values: Mapping[str, list[Any]] = field(default_factory=dict)
    """Property path -> the values to use."""
    arguments: tuple[Any, ...] = ()
    timeout: float | None = None


@dataclass(frozen=True, slots=True)
class Step:
    """One step of a pinned sequence."""

    tool: str
    arguments: Any
    """May hold `${N.path}` references to what earlier steps returned."""
    error: bool = False
    """The step must fail (an `isError` result or a JSON-RPC error)."""
    output: Any = NO_OUTPUT
    """What `structuredContent` must match (objects: by their listed keys)."""


@dataclass(frozen=True, slots=True)
class Pinned:
    name: str
    steps: tuple[Step, ...]
    where: str


@dataclass(frozen=True, slots=True)
class Fixtures:
    tools: Mapping[str, ToolFixtures] = field(default_factory=dict)
    sequences: tuple[Pinned, ...] = ()

    def of(self, tool: str) -> ToolFixtures:
        return self.tools.get(tool) or ToolFixtures()


def load_fixtures(path: Path, toolset: ToolSet) -> Fixtures:
    """The fixtures in `path`, checked against `toolset`; `SpecError` with positions."""
    return _Reader(read_source(path), toolset).read()


class _Reader:
    def __init__(self, source: SourceFile, toolset: ToolSet) -> None:
        self.source = source
        self.toolset = toolset
        self.names = [tool.name for tool in toolset.tools]
        self.problems: list[Diagnostic] = list(source.problems)

    def read(self) -> Fixtures:
        data = self.source.data
        if not isinstance(data, dict):
            self._problem((), "expected a mapping with `values`, `tools` or `sequences`")
            raise SpecError(self.problems)
        self._keys(data, (), _TOP)
        values: dict[str, dict[str, list[Any]]] = {name: {} for name in self.names}
        arguments: dict[str, list[Any]] = {name: [] for name in self.names}
        timeouts: dict[str, float] = {}
        for prop, given in self._mapping(data, ("values",)).items():
            users = [n for n in self.names if self._schema_of(n, prop) is not None]
            if not users:
                self._problem(("values", prop), f"no tool has a property {prop!r}", key=True)
            for name in users:
                if self._values(name, prop, given, ("values", prop)):
                    values[name][prop] = given
        for pattern, entry in self._mapping(data, ("tools",)).items():
            where: JsonPath = ("tools", pattern)
            matched = [n for n in self.names if fnmatch.fnmatchcase(n, pattern)]
            if not matched:
                self._problem(where, f"{pattern!r} matches no tool of the spec set", key=True)
                continue
            if not isinstance(entry, dict):
                self._problem(where, "expected a mapping with `values`, `arguments` or `timeout`")
                continue
            self._keys(entry, where, _TOOL)
            for name in matched:
                self._tool(name, entry, where, values[name], arguments[name], timeouts)
        sequences = self._sequences(data.get("sequences"))
        if self.problems:
            raise SpecError(self.problems)
        tools = {
            name: ToolFixtures(values[name], tuple(arguments[name]), timeouts.get(name))
            for name in self.names
            if values[name] or arguments[name] or name in timeouts
        }
        return Fixtures(tools, sequences)

    def _tool(
        self,
        name: str,
        entry: dict[str, Any],
        where: JsonPath,
        values: dict[str, list[Any]],
        arguments: list[Any],
        timeouts: dict[str, float],
    ) -> None:
        for prop, given in self._mapping(entry, (*where, "values")).items():
            if self._schema_of(name, prop) is None:
                self._problem(
                    (*where, "values", prop), f"{name} has no property {prop!r}", key=True
                )
            elif self._values(name, prop, given, (*where, "values", prop)):
                values[prop] = given
        sets = entry.get("arguments", [])
        if not isinstance(sets, list):
            self._problem((*where, "arguments"), "expected a list of argument objects")
            sets = []
        validator = SchemaValidator(self.toolset.tool(name).input_schema)
        for index, value in enumerate(sets):
            issues = validator.issues(value)
            if issues:
                self._problem(
                    (*where, "arguments", index), f"not a valid input of {name}: {describe(issues)}"
                )
            else:
                arguments.append(value)
        timeout = entry.get("timeout")
        if timeout is not None:
            if isinstance(timeout, int | float) and not isinstance(timeout, bool) and timeout > 0:
                timeouts[name] = float(timeout)
            else:
                self._problem((*where, "timeout"), "expected a number of seconds above 0")

    def _values(self, tool: str, prop: str, given: Any, where: JsonPath) -> bool:
        """Whether `given` is a non-empty list of values the property's schema accepts."""
        if not isinstance(given, list) or not given:
            self._problem(where, "expected a non-empty list of values", ErrorCode.WRONG_TYPE)
            return False
        validator = SchemaValidator(self._schema_of(tool, prop) or {})
        for index, value in enumerate(given):
            issues = validator.issues(value)
            if issues:
                self._problem((*where, index), f"not a valid {prop} of {tool}: {describe(issues)}")
                return False
        return True

    def _schema_of(self, tool: str, prop: str) -> dict[str, Any] | None:
        return property_schema(self.toolset.tool(tool).input_schema, prop)

    def _sequences(self, data: Any) -> tuple[Pinned, ...]:
        if data is None:
            return ()
        if not isinstance(data, list):
            self._problem(("sequences",), "expected a list of sequences", ErrorCode.WRONG_TYPE)
            return ()
        out = []
        for index, entry in enumerate(data):
            where: JsonPath = ("sequences", index)
            if not isinstance(entry, dict) or not isinstance(entry.get("steps"), list):
                self._problem(where, "expected a mapping with `name` and a list of `steps`")
                continue
            self._keys(entry, where, ("name", "steps"))
            name = entry.get("name")
            if not isinstance(name, str) or not name.strip():
                self._problem(
                    where, "`name` is required (a non-empty string)", ErrorCode.MISSING_KEY
                )
                continue
            steps = [self._step(s, (*where, "steps", i), i) for i, s in enumerate(entry["steps"])]
            if steps and all(s is not None for s in steps):
                located = str(self.source.locate(where))
                out.append(Pinned(name, tuple(s for s in steps if s is not None), located))
        return tuple(out)

    def _step(self, entry: Any, where: JsonPath, index: int) -> Step | None:
        if not isinstance(entry, dict) or not isinstance(entry.get("call"), str):
            self._problem(where, "expected a mapping with `call: TOOL`", ErrorCode.MISSING_KEY)
            return None
        self._keys(entry, where, _STEP)
        tool = entry["call"]
        if tool not in self.names:
            self._problem((*where, "call"), f"{tool!r} is not a tool of the spec set")
            return None
        arguments = entry.get("arguments", {})
        for path, number in _references(arguments, ()):
            if not 1 <= number <= index:
                self._problem(
                    (*where, "arguments", *path),
                    f"${{{number}...}} names no earlier step (steps count from 1)",
                )
                return None
        expect = entry.get("expect", {})
        if not isinstance(expect, dict):
            self._problem((*where, "expect"), "expected `{error: true}` or `{output: VALUE}`")
            return None
        self._keys(expect, (*where, "expect"), ("error", "output"))
        error = expect.get("error", False)
        if not isinstance(error, bool):
            self._problem(
                (*where, "expect", "error"), "expected true or false", ErrorCode.WRONG_TYPE
            )
            return None
        return Step(tool, arguments, error, expect.get("output", NO_OUTPUT))

    # -- helpers ---------------------------------------------------------------------------

    def _mapping(self, data: dict[str, Any], where: JsonPath) -> dict[str, Any]:
        value = data.get(str(where[-1]), {})
        if isinstance(value, dict):
            return value
        self._problem(where, "expected a mapping", ErrorCode.WRONG_TYPE)
        return {}

    def _keys(self, data: dict[str, Any], where: JsonPath, allowed: tuple[str, ...]) -> None:
        for key in data:
            if key not in allowed:
                self._problem(
                    (*where, key),
                    f"unknown key {key!r}; expected one of: {', '.join(allowed)}",
                    ErrorCode.UNKNOWN_KEY,
                    key=True,
                )

    def _problem(
        self,
        where: JsonPath,
        message: str,
        code: str = ErrorCode.INVALID_VALUE,
        *,
        key: bool = False,
    ) -> None:
        self.problems.append(Diagnostic(code, message, self.source.locate(where, key=key)))


def _references(value: Any, path: JsonPath) -> list[tuple[JsonPath, int]]:
    """(path, step number) of every `${N...}` string inside `value`."""
    if isinstance(value, str):
        match = REFERENCE.match(value)
        return [(path, int(match.group(1)))] if match else []
    if isinstance(value, dict):
        return [r for k, v in value.items() for r in _references(v, (*path, k))]
    if isinstance(value, list):
        return [r for i, v in enumerate(value) for r in _references(v, (*path, i))]
    return []


def resolve(value: Any, outputs: Mapping[int, Any]) -> Any:
    """`value` with every `${N.path}` replaced by what step N returned (`KeyError` with the
    reference when that step returned no such value)."""
    if isinstance(value, str):
        match = REFERENCE.match(value)
        if match is None:
            return value
        found = outputs.get(int(match.group(1)))
        for key in match.group(2).split(".")[1:]:
            if isinstance(found, list) and key.isdigit() and int(key) < len(found):
                found = found[int(key)]
            elif isinstance(found, dict) and key in found:
                found = found[key]
            else:
                raise KeyError(value)
        return found
    if isinstance(value, dict):
        return {k: resolve(v, outputs) for k, v in value.items()}
    if isinstance(value, list):
        return [resolve(v, outputs) for v in value]
    return value
