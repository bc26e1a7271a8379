"""The Gemini view: function declarations in Gemini's OpenAPI subset.

Gemini's `Schema` (the `parameters` of a function declaration) is an OpenAPI
3.0 subset: one `type` per schema plus `nullable`; `enum` of strings only; no
`$ref`/`$defs`, `const`, `oneOf`, `allOf`, `not`, `additionalProperties`,
`exclusiveMinimum`/`exclusiveMaximum`, `multipleOf`, `uniqueItems`. The
conversion inlines refs (a recursive def is expanded `MAX_RECURSION` times,
then cut; no ref is expanded once `MAX_INLINED_SCHEMAS` schemas are), turns type lists into `anyOf` or `nullable`, `oneOf` into `anyOf`,
`const` into a one-value string `enum`, merges `allOf`, and writes what is left
over into descriptions. The tests validate the output with the `google-genai`
SDK's own models.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolgen.providers.model import Losses, ToolView
from toolgen.providers.schemaops import (
    ANNOTATIONS,
    compact,
    implied_types,
    merge_all_of,
    phrase,
    tuple_as_list,
    with_notes,
)
from toolgen.schema.limits import MAX_INLINED_SCHEMAS
from toolgen.schema.pointer import join, resolve_pointer

MAX_RECURSION = 2
"""How often one def may be expanded inside itself before the recursion is cut."""
KEEP_BY_TYPE: dict[str, frozenset[str]] = {
    "string": frozenset({"format", "minLength", "maxLength", "pattern"}),
    "number": frozenset({"format", "minimum", "maximum"}),
    "integer": frozenset({"format", "minimum", "maximum"}),
    "array": frozenset({"minItems", "maxItems"}),
    "object": frozenset({"minProperties", "maxProperties"}),
    "boolean": frozenset(),
    "null": frozenset(),
}
_HANDLED = frozenset(
    {"type", "enum", "const", "anyOf", "oneOf", "allOf", "$ref", "$defs", "definitions",
     "properties", "required", "items", "prefixItems", "title", "description", "default",
     "examples", "example", "nullable"}
)  # fmt: skip


def gemini_tool(tool: Mapping[str, Any], name: str) -> ToolView:
    """One MCP tool definition as a Gemini function declaration."""
    schema = tool.get("inputSchema") or {"type": "object"}
    converter = _Gemini(schema)
    parameters = converter.convert(schema, "")
    losses = converter.losses
    if name != tool["name"]:
        losses.add("", "name", "renamed", f"{tool['name']!r} → {name!r}")
    definition: dict[str, Any] = {"name": name}
    if isinstance(tool.get("description"), str):
        definition["description"] = tool["description"]
    if parameters.get("properties"):
        definition["parameters"] = parameters
    return ToolView(
        mcp_name=tool["name"],
        name=name,
        definition=definition,
        losses=tuple(losses.items),
        input_schema=tool.get("inputSchema") or {},
    )


class _Gemini:
    def __init__(self, root: Mapping[str, Any]) -> None:
        self.source = root
        self.losses = Losses()
        self.stack: list[str] = []
        self.converted = 0  # schemas converted so far: refs stop being expanded past the limit

    def convert(self, schema: Any, path: str) -> dict[str, Any]:
        self.converted += 1
        if isinstance(schema, bool):
            self.losses.add(
                path, "type", "dropped", f"a `{str(schema).lower()}` schema has no Gemini form"
            )
            return {}
        if not isinstance(schema, dict):
            return {}
        if "allOf" in schema:
            schema = merge_all_of(schema, self.source, path, self.losses)
        if isinstance(schema.get("$ref"), str):
            return self.reference(schema, path)
        notes: list[str] = []
        kinds = implied_types(schema)
        nullable = "null" in kinds or schema.get("nullable") is True
        kinds = [k for k in kinds if k != "null"]
        branches = schema.get("anyOf", schema.get("oneOf"))
        out: dict[str, Any] = {}
        if isinstance(branches, list):
            out, nullable = self.alternatives(schema, branches, path, nullable, notes)
        elif len(kinds) > 1:
            self.losses.add(join(path, "type"), "type", "rewritten", f"type list {kinds} → anyOf")
            out["anyOf"] = [
                self.typed({**schema, "type": k}, k, join(path, "type"), []) for k in kinds
            ]
        elif kinds:
            out = self.typed(schema, kinds[0], path, notes)
        else:
            self.losses.add(
                path, "type", "dropped", "the value may be of any type; Gemini needs one"
            )
        for key in ("title", "description"):
            if isinstance(schema.get(key), str):
                out.setdefault(key, schema[key])
        if "default" in schema and schema["default"] is not None:
            out["default"] = schema["default"]
        examples = schema.get("examples")
        if isinstance(examples, list) and examples:
            out["example"] = examples[0]
        elif "example" in schema:
            out["example"] = schema["example"]
        if nullable:
            out["nullable"] = True
        return with_notes(out, notes)

    def reference(self, schema: Mapping[str, Any], path: str) -> dict[str, Any]:
        ref = schema["$ref"]
        target = resolve_pointer(self.source, ref)
        if not isinstance(target, (dict, bool)):
            self.losses.add(
                path, "$ref", "dropped", f"$ref {ref!r} does not resolve inside the schema"
            )
            return {}
        if self.stack.count(ref) >= MAX_RECURSION:
            self.losses.add(
                path, "$ref", "dropped", f"recursion through {ref} cut after {MAX_RECURSION} levels"
            )
            text = "Nested further like its parent (not described: recursion limit)."
            return {"type": "object", "description": text, "nullable": True}
        if self.converted > MAX_INLINED_SCHEMAS:  # loops of defs that each refer twice onward
            self.losses.add(
                path,
                "$ref",
                "dropped",
                f"{ref} not expanded: {MAX_INLINED_SCHEMAS:,} schemas inlined",
            )
            text = "Not described: the schema is too large to inline."
            return {"type": "object", "description": text, "nullable": True}
        self.stack.append(ref)
        try:
            siblings = {k: v for k, v in schema.items() if k != "$ref"}
            merged = {**target, **siblings} if isinstance(target, dict) else target
            return self.convert(merged, path)
        finally:
            self.stack.pop()

    def alternatives(
        self,
        schema: Mapping[str, Any],
        branches: list[Any],
        path: str,
        nullable: bool,
        notes: list[str],
    ) -> tuple[dict[str, Any], bool]:
        keyword = "anyOf" if "anyOf" in schema else "oneOf"
        rest = [b for b in branches if not (isinstance(b, dict) and b.get("type") == "null")]
        if len(rest) < len(branches):
            nullable = True
            self.losses.add(join(path, keyword), keyword, "rewritten", "null branch → nullable")
        if keyword == "oneOf":
            self.losses.add(join(path, keyword), keyword, "rewritten", "oneOf → anyOf")
        base = {k: v for k, v in schema.items() if k not in ("anyOf", "oneOf")}
        if any(isinstance(b, dict) and not implied_types(b) and "$ref" not in b for b in rest):
            notes.append(phrase(keyword, rest))
            self.losses.add(join(path, keyword), keyword, "described", "branches without a type")
            kinds = [k for k in implied_types(base) if k != "null"]
            return (self.typed(base, kinds[0], path, notes) if kinds else {}), nullable
        converted = [self.convert(b, join(path, keyword, i)) for i, b in enumerate(rest)]
        if len(converted) == 1:
            return converted[0], nullable
        return {"anyOf": converted}, nullable

    def typed(
        self, schema: Mapping[str, Any], kind: str, path: str, notes: list[str]
    ) -> dict[str, Any]:
        """`schema` with the one type `kind`."""
        out: dict[str, Any] = {"type": kind}
        values = [schema["const"]] if "const" in schema else schema.get("enum")
        if isinstance(values, list):
            keyword = "const" if "const" in schema else "enum"
            strings = [v for v in values if isinstance(v, str)]
            if kind == "string" and strings:
                out["enum"] = strings
                if keyword == "const":
                    self.losses.add(
                        join(path, "const"), "const", "rewritten", "const → one-value enum"
                    )
            else:
                notes.append(phrase(keyword, values))
                self.losses.add(
                    join(path, keyword), keyword, "described", "Gemini enums hold strings only"
                )
        if kind == "object":
            self.object(schema, path, out, notes)
        elif kind == "array":
            self.array(schema, path, out, notes)
        keep = KEEP_BY_TYPE.get(kind, frozenset())
        for key, value in schema.items():
            if (
                key in _HANDLED
                or key.startswith("x-")
                or key in ("properties", "additionalProperties")
            ):
                continue
            if key in keep:
                out[key] = value
            elif key not in ANNOTATIONS and key != "patternProperties":
                notes.append(phrase(key, value))
                self.losses.add(
                    join(path, key), key, "described", "Gemini schemas do not support it"
                )
        return out

    def object(
        self, schema: Mapping[str, Any], path: str, out: dict[str, Any], notes: list[str]
    ) -> None:
        props: dict[str, Any] = schema.get("properties") or {}
        if not isinstance(props, dict):
            props = {}
        if props:
            out["properties"] = {
                name: self.convert(sub, join(path, "properties", name))
                for name, sub in props.items()
            }
        required = [r for r in schema.get("required", []) if isinstance(r, str) and r in props]
        if required:
            out["required"] = required
        extra = schema.get("additionalProperties")
        if extra is False:
            self.losses.add(join(path, "additionalProperties"), "additionalProperties", "dropped",
                            "Gemini cannot close an object; the server rejects undeclared properties")  # fmt: skip
        elif isinstance(extra, dict):
            notes.append("also takes other properties, each " + compact(extra, 120))
            self.losses.add(
                join(path, "additionalProperties"),
                "additionalProperties",
                "described",
                "a map's value schema",
            )
        for key in ("patternProperties",):
            if isinstance(schema.get(key), dict):
                notes.append(phrase(key, schema[key]))
                self.losses.add(
                    join(path, key), key, "described", "Gemini schemas do not support it"
                )
        if not props and path:  # a root without properties: a tool without arguments
            self.losses.add(
                path, "properties", "dropped", "a free-form object: Gemini does not check its keys"
            )

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
            out["items"] = {"type": "string"}
            notes.append("items of any type")
            self.losses.add(
                path,
                "items",
                "narrowed",
                "an array without `items`: Gemini needs one; strings assumed",
            )
