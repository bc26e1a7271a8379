"""Older JSON Schema dialects → 2020-12, the only dialect a spec holds.

Published tools often declare draft-07 (what zod-to-json-schema emits) or
2019-09. Most such schemas mean the same in 2020-12; the keywords whose
meaning moved are rewritten so the schema accepts exactly the same values:

- tuple `items: [...]` → `prefixItems`, and `additionalItems` → `items`;
- `definitions` → `$defs` (with the refs that point into it);
- `dependencies` → `dependentRequired` (name lists) / `dependentSchemas`;
- draft-04 boolean `exclusiveMinimum`/`exclusiveMaximum` → numbers;
- draft-07 and earlier ignore everything beside a `$ref`: assertions there are dropped.

Every rewrite that changes the JSON is reported as a note, so an import can
explain why a schema reads differently from what the server published.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Final

from toolgen.schema.pointer import JsonPath
from toolgen.schema.walk import LISTED, MAPPED, SINGLE

DRAFT_2020_12: Final = "2020-12"
_DIALECTS: Final = (
    (re.compile(r"^https?://json-schema\.org/draft-0?4/schema#?$"), "draft-04"),
    (re.compile(r"^https?://json-schema\.org/draft-0?6/schema#?$"), "draft-06"),
    (re.compile(r"^https?://json-schema\.org/draft-0?7/schema#?$"), "draft-07"),
    (re.compile(r"^https?://json-schema\.org/draft/2019-09/schema#?$"), "2019-09"),
    (re.compile(r"^https?://json-schema\.org/draft/2020-12/schema#?$"), DRAFT_2020_12),
)
_OLD: Final = frozenset({"draft-04", "draft-06", "draft-07"})
_ANNOTATIONS: Final = frozenset(
    {
        "title",
        "description",
        "default",
        "examples",
        "$comment",
        "readOnly",
        "writeOnly",
        "deprecated",
        "definitions",
        "$defs",
        "$id",
        "$schema",
    }
)


def dialect_of(schema: Any) -> str | None:
    """The dialect a root schema declares with `$schema` ("draft-07", ...); None when unknown.

    A schema without `$schema` is 2020-12: MCP's default.
    """
    if not isinstance(schema, dict) or "$schema" not in schema:
        return DRAFT_2020_12
    declared = schema["$schema"]
    for pattern, name in _DIALECTS:
        if isinstance(declared, str) and pattern.match(declared):
            return name
    return None


@dataclass
class Conversion:
    """A schema converted to 2020-12 and what changed, as (path, note) pairs."""

    schema: Any
    notes: list[tuple[JsonPath, str]] = field(default_factory=list)


def to_2020_12(schema: Any, dialect: str) -> Conversion:
    """`schema` (a root written in `dialect`) rewritten to mean the same in 2020-12."""
    notes: list[tuple[JsonPath, str]] = []
    converted = _Converter(dialect, notes).schema(schema, ())
    if isinstance(converted, dict) and dialect != DRAFT_2020_12:
        converted.pop("$schema", None)
    return Conversion(converted, notes)


class _Converter:
    def __init__(self, dialect: str, notes: list[tuple[JsonPath, str]]) -> None:
        self.old = dialect in _OLD
        self.draft4 = dialect == "draft-04"
        self.tuples = True  # a tuple `items` is invalid 2020-12 too: the same rewrite repairs it
        self.notes = notes

    def note(self, path: JsonPath, text: str) -> None:
        self.notes.append((path, text))

    def schema(self, schema: Any, path: JsonPath) -> Any:
        if not isinstance(schema, dict):
            return schema
        out = dict(schema)
        if self.old and "$ref" in out:
            self._ref_siblings(out, path)
        if self.tuples:
            self._tuples(out, path)
        if self.old:
            self._definitions(out, path)
            self._dependencies(out, path)
        if self.draft4:
            self._exclusive(out, path)
        if self.old and isinstance(out.get("$ref"), str):
            out["$ref"] = re.sub(r"^#/definitions/", "#/$defs/", out["$ref"])
        return self._children(out, path)

    def _children(self, out: dict[str, Any], path: JsonPath) -> dict[str, Any]:
        for key, value in out.items():
            if key in SINGLE:
                out[key] = self.schema(value, (*path, key))
            elif key in MAPPED and isinstance(value, dict):
                out[key] = {n: self.schema(s, (*path, key, n)) for n, s in value.items()}
            elif key in LISTED and isinstance(value, list):
                out[key] = [self.schema(s, (*path, key, i)) for i, s in enumerate(value)]
        return out

    def _ref_siblings(self, out: dict[str, Any], path: JsonPath) -> None:
        dropped = sorted(k for k in out if k != "$ref" and k not in _ANNOTATIONS)
        for key in dropped:
            del out[key]
        if dropped:
            self.note(path, f"dropped {', '.join(dropped)} beside `$ref` (ignored before 2019-09)")

    def _tuples(self, out: dict[str, Any], path: JsonPath) -> None:
        items = out.get("items")
        if isinstance(items, list):
            rebuilt = {}
            for key, value in out.items():
                if key == "items":
                    rebuilt["prefixItems"] = value
                    if "additionalItems" in out:
                        rebuilt["items"] = out["additionalItems"]
                elif key != "additionalItems":
                    rebuilt[key] = value
            out.clear()
            out.update(rebuilt)
            self.note(
                path,
                "tuple `items` became `prefixItems`"
                + (" and `additionalItems` became `items`" if "items" in rebuilt else ""),
            )
        elif "additionalItems" in out:
            del out["additionalItems"]
            self.note(path, "dropped `additionalItems` (it has no effect without tuple `items`)")

    def _definitions(self, out: dict[str, Any], path: JsonPath) -> None:
        if isinstance(out.get("definitions"), dict) and "$defs" not in out:
            out["$defs"] = out.pop("definitions")
            self.note(path, "`definitions` became `$defs`")

    def _dependencies(self, out: dict[str, Any], path: JsonPath) -> None:
        deps = out.get("dependencies")
        if not isinstance(deps, dict):
            return
        del out["dependencies"]
        required = {k: v for k, v in deps.items() if isinstance(v, list)}
        schemas = {k: v for k, v in deps.items() if not isinstance(v, list)}
        if required:
            out["dependentRequired"] = required
        if schemas:
            out["dependentSchemas"] = schemas
        self.note(path, "`dependencies` became `dependentRequired`/`dependentSchemas`")

    def _exclusive(self, out: dict[str, Any], path: JsonPath) -> None:
        for bound, flag in (("minimum", "exclusiveMinimum"), ("maximum", "exclusiveMaximum")):
            value = out.get(flag)
            if isinstance(value, bool):
                del out[flag]
                if value and bound in out:
                    out[flag] = out.pop(bound)
                self.note(path, f"draft-04 boolean `{flag}` became a number")
