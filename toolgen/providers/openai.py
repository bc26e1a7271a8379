"""The OpenAI views: function tools in strict mode, for Chat Completions
(`{"type": "function", "function": {...}}`) and for the Responses API (the same
fields flat: `FunctionToolParam`).

Strict mode (Structured Outputs) accepts a subset of JSON Schema: every object
closed (`additionalProperties: false`) with all its properties required; types
string, number, integer, boolean, object, array, null; `enum`, `const`, `anyOf`
(not at the root), `$ref` into `$defs` (recursion allowed); `pattern` and a few
`format`s on strings; ranges and `multipleOf` on numbers; `minItems`/`maxItems`
on arrays; at most 5,000 properties, 10 levels of nesting and 1,000 enum values.

The conversion keeps every value the tool accepts: optional properties become
required and nullable (the call mapping removes the `null`s), keywords strict
mode lacks are removed and written into the description (the server still
enforces them), `oneOf` becomes `anyOf`, `allOf` is merged, refs are inlined
(but recursive ones). A tool stays `strict: false`, with its schema as
written, only when strict mode would refuse values the tool accepts: a
free-form object or map, a value of any type, an array without `items`, or a
schema past the limits. The loss report says which and where.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from toolgen.providers.model import Losses, ToolView
from toolgen.providers.schemaops import (
    ANNOTATIONS,
    implied_types,
    merge_all_of,
    phrase,
    schema_size,
    tuple_as_list,
    types_of,
    with_notes,
)
from toolgen.schema.pointer import join, resolve_pointer

STRING_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
)
KEEP_BY_TYPE: dict[str, frozenset[str]] = {
    "string": frozenset({"pattern", "format"}),
    "number": frozenset(
        {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"}
    ),
    "integer": frozenset(
        {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"}
    ),
    "array": frozenset({"minItems", "maxItems"}),
}
MAX_PROPERTIES = 5000
MAX_DEPTH = 10
MAX_ENUM_VALUES = 1000
_HANDLED = frozenset(
    {"type", "enum", "const", "anyOf", "oneOf", "allOf", "$ref", "$defs", "definitions",
     "properties", "required", "additionalProperties", "items", "prefixItems"}
)  # fmt: skip


def openai_tool(tool: Mapping[str, Any], name: str) -> ToolView:
    """One MCP tool definition as an OpenAI function tool (strict when it can be)."""
    schema = tool.get("inputSchema") or {"type": "object"}
    converter = _Strict(schema)
    parameters = converter.root()
    losses = converter.losses
    if name != tool["name"]:
        losses.add("", "name", "renamed", f"{tool['name']!r} → {name!r}")
    strict = not losses.blockers
    if not strict:
        parameters = {k: v for k, v in schema.items() if k not in ("$schema", "$id")}
    function: dict[str, Any] = {"name": name}
    if isinstance(tool.get("description"), str):
        function["description"] = tool["description"]
    function["parameters"] = parameters
    function["strict"] = strict
    kept = (
        tuple(losses.items) if strict else tuple(x for x in losses.items if x.action == "renamed")
    )
    return ToolView(
        mcp_name=tool["name"],
        name=name,
        definition={"type": "function", "function": function},
        losses=kept,
        blockers=tuple(losses.blockers),
        strict=strict,
        input_schema=schema,
    )


def responses_tool(tool: Mapping[str, Any], name: str) -> ToolView:
    """One MCP tool definition as a Responses API function tool: `openai_tool`'s
    conversion, its fields flat (`type`, `name`, `description`, `parameters`, `strict`)."""
    chat = openai_tool(tool, name)
    return replace(chat, definition={"type": "function", **chat.definition["function"]})


class _Strict:
    """Converts one input schema to strict mode, noting what it loses and what blocks it."""

    def __init__(self, root: Mapping[str, Any]) -> None:
        self.source = root
        self.losses = Losses()
        self.defs: dict[str, Any] = {}
        self.def_names: dict[str, str] = {}
        self.stack: list[str] = []

    def root(self) -> dict[str, Any]:
        out = self.convert(self.source, "")
        if "anyOf" in out:
            self.losses.block("", "a root `anyOf` is not allowed")
        if self.defs:
            out["$defs"] = self.defs
        props, depth, enums = schema_size(out)
        for count, limit, what in (
            (props, MAX_PROPERTIES, "properties"),
            (depth, MAX_DEPTH, "levels of nesting"),
            (enums, MAX_ENUM_VALUES, "enum values"),
        ):
            if count > limit:
                self.losses.block("", f"{count} {what}; strict mode allows {limit}")
        return out

    # -- one schema -----------------------------------------------------------

    def convert(self, schema: Any, path: str) -> dict[str, Any]:
        if isinstance(schema, bool):
            self.losses.block(path, f"`{str(schema).lower()}` schema: strict mode needs a type")
            return {}
        if not isinstance(schema, dict):
            return {}
        if "allOf" in schema:
            schema = merge_all_of(schema, self.source, path, self.losses)
        if isinstance(schema.get("$ref"), str):
            return self.reference(schema, path)
        out: dict[str, Any] = {}
        notes: list[str] = []
        if isinstance(schema.get("description"), str):
            out["description"] = schema["description"]
        kinds = implied_types(schema)
        branches = schema.get("anyOf", schema.get("oneOf"))
        if not kinds and not isinstance(branches, list):
            self.losses.block(path, "the value may be of any type; strict mode needs a type")
            return out
        if kinds:
            out["type"] = kinds[0] if len(kinds) == 1 else kinds
        for key in ("enum", "const"):
            if key in schema:
                out[key] = schema[key]
        if isinstance(branches, list):
            self.alternatives(schema, branches, path, out, notes)
        if "object" in kinds:
            self.object(schema, path, out, notes)
        if "array" in kinds:
            self.array(schema, path, out, notes)
        keep = frozenset().union(*(KEEP_BY_TYPE.get(k, frozenset()) for k in kinds))
        for key, value in schema.items():
            if key in _HANDLED or key.startswith("x-"):
                continue
            if key in keep and not (key == "format" and value not in STRING_FORMATS):
                out[key] = value
            elif key == "default" and value is not None:
                notes.append(phrase(key, value))
            elif key == "deprecated" and value is True:
                notes.append("deprecated")
            elif key in ANNOTATIONS:
                continue
            else:
                notes.append(phrase(key, value))
                self.losses.add(
                    join(path, key), key, "described", "strict mode does not support it"
                )
        return with_notes(out, notes)

    def reference(self, schema: Mapping[str, Any], path: str) -> dict[str, Any]:
        ref = schema["$ref"]
        target = resolve_pointer(self.source, ref)
        if not isinstance(target, (dict, bool)):
            self.losses.block(path, f"$ref {ref!r} does not resolve inside the schema")
            return {}
        siblings = {k: v for k, v in schema.items() if k != "$ref"}
        if ref in self.stack:  # recursion: keep the reference, convert the target once
            if siblings.keys() - ANNOTATIONS:
                self.losses.add(path, "$ref", "dropped", "keywords beside a recursive $ref")
            return {"$ref": self.recursive_def(ref, target)}
        self.stack.append(ref)
        merged = {**target, **siblings} if isinstance(target, dict) else target
        try:
            return self.convert(merged, path)
        finally:
            self.stack.pop()

    def recursive_def(self, ref: str, target: Any) -> str:
        if ref == "#":
            return "#"
        if ref not in self.def_names:
            base = ref.rsplit("/", 1)[-1] or "def"
            name = base
            while name in self.defs:
                name += "_"
            self.def_names[ref] = name
            self.defs[name] = {}
            self.stack.append(ref)
            self.defs[name] = self.convert(target, join("/$defs", name))
            self.stack.pop()
        return f"#/$defs/{self.def_names[ref]}"

    # -- keywords -------------------------------------------------------------

    def alternatives(
        self,
        schema: Mapping[str, Any],
        branches: list[Any],
        path: str,
        out: dict[str, Any],
        notes: list[str],
    ) -> None:
        keyword = "anyOf" if "anyOf" in schema else "oneOf"
        typed = [b for b in branches if isinstance(b, dict) and (implied_types(b) or "$ref" in b)]
        if len(typed) < len(branches):  # e.g. anyOf: [{required: [a]}, {required: [b]}]
            notes.append(phrase(keyword, branches))
            self.losses.add(join(path, keyword), keyword, "described", "branches without a type")
            return
        if "type" in out:  # type beside anyOf: the branches refine it
            converted = [self.convert({**{"type": schema["type"]}, **b}, join(path, keyword, i))
                         if "type" in schema and "type" not in b and "$ref" not in b
                         else self.convert(b, join(path, keyword, i))
                         for i, b in enumerate(branches)]  # fmt: skip
            del out["type"]
        else:
            converted = [self.convert(b, join(path, keyword, i)) for i, b in enumerate(branches)]
        out["anyOf"] = converted
        if keyword == "oneOf":
            exclusive = all(
                _disjoint(a, b) for i, a in enumerate(converted) for b in converted[i + 1 :]
            )
            detail = "branches cannot overlap" if exclusive else "exactly one branch may match"
            if not exclusive:
                notes.append("exactly one of the alternatives may match")
            self.losses.add(join(path, keyword), keyword, "rewritten", f"oneOf → anyOf ({detail})")

    def object(
        self, schema: Mapping[str, Any], path: str, out: dict[str, Any], notes: list[str]
    ) -> None:
        props: dict[str, Any] = schema.get("properties") or {}
        if not isinstance(props, dict):
            props = {}
        required = [r for r in schema.get("required", []) if isinstance(r, str)]
        extra = schema.get("additionalProperties", True)
        if isinstance(schema.get("patternProperties"), dict) and schema["patternProperties"]:
            self.losses.block(
                path, "`patternProperties`: strict objects accept declared properties only"
            )
        if extra not in (True, False):
            self.losses.block(
                path, "`additionalProperties` with a schema (a map): strict objects are closed"
            )
        elif (
            not props
            and extra is True
            and path
            and schema.get("unevaluatedProperties") is not False
        ):
            self.losses.block(path, "a free-form object: strict mode needs its properties declared")
        elif extra is True and schema.get("unevaluatedProperties") is not False:
            self.losses.add(
                path,
                "additionalProperties",
                "closed",
                "undeclared properties are no longer accepted",
            )
        converted: dict[str, Any] = {}
        for name, sub in props.items():
            here = join(path, "properties", name)
            value = self.convert(sub, here)
            if name not in required:
                value = self.nullable(value, sub, here)
            converted[name] = value
        missing = [r for r in required if r not in props]
        if missing:
            notes.append("also requires " + ", ".join(missing))
        out["properties"] = converted
        out["required"] = list(converted)
        out["additionalProperties"] = False

    def nullable(self, value: dict[str, Any], original: Any, path: str) -> dict[str, Any]:
        if isinstance(original, dict) and "null" in types_of(original):
            self.losses.add(
                path, "required", "nullable", "optional and nullable: null now means 'left out'"
            )
        else:
            self.losses.add(path, "required", "nullable", "optional: now required and nullable")
        if not value:
            return value
        if "$ref" in value:
            return {"anyOf": [value, {"type": "null"}]}
        out = dict(value)
        if "anyOf" in out:
            if not any(b.get("type") == "null" for b in out["anyOf"]):
                out["anyOf"] = [*out["anyOf"], {"type": "null"}]
            return out
        kind = out.get("type")
        if isinstance(kind, str) and kind != "null":
            out["type"] = [kind, "null"]
        elif isinstance(kind, list) and "null" not in kind:
            out["type"] = [*kind, "null"]
        if "const" in out:
            out["enum"] = [out.pop("const"), None]
        elif isinstance(out.get("enum"), list) and None not in out["enum"]:
            out["enum"] = [*out["enum"], None]
        return out

    def array(
        self, schema: Mapping[str, Any], path: str, out: dict[str, Any], notes: list[str]
    ) -> None:
        items = schema.get("items")
        prefix = schema.get("prefixItems")
        if isinstance(prefix, list) and prefix:
            out["items"] = tuple_as_list(prefix, path, self.convert, notes, self.losses)
        elif isinstance(items, dict):
            out["items"] = self.convert(items, join(path, "items"))
        else:
            self.losses.block(path, "an array without `items`: strict mode needs the item schema")


def _values(schema: Mapping[str, Any]) -> list[Any] | None:
    if "const" in schema:
        return [schema["const"]]
    enum = schema.get("enum")
    return list(enum) if isinstance(enum, list) else None


def _disjoint(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Whether no value can match both converted branches (decided conservatively)."""
    ta, tb = set(types_of(a)), set(types_of(b))
    for kinds in (ta, tb):
        if "integer" in kinds:
            kinds.add("number")
        if "number" in kinds:
            kinds.add("integer")
    if ta and tb and not ta & tb:
        return True
    va, vb = _values(a), _values(b)
    if va is not None and vb is not None:
        return not any(x == y and type(x) is type(y) for x in va for y in vb)
    pa, pb = a.get("properties"), b.get("properties")
    if isinstance(pa, dict) and isinstance(pb, dict):
        closed = a.get("additionalProperties") is False and b.get("additionalProperties") is False
        if closed and set(pa) != set(pb):
            return True
        return any(
            name in pb and _disjoint(sub, pb[name])
            for name, sub in pa.items()
            if isinstance(sub, dict) and _values(sub) is not None
        )
    return False
