"""Emit the TypeScript module of a spec set: `index.ts`, `runtime.ts` and `package.json`.

`index.ts` holds everything particular to the spec set: the types of every tool's input
and output and of its defs (`types.declarations`), the `Handlers` interface and
`registerTools` for an SDK `McpServer`, the typed `Client`, and the spec's JSON Schemas and
`tools/list` results as typed constants (made by `toolgen.spec.protocol`, the function
the Python build and runtime use). `runtime.ts` is the same text in every module.

Names come from the naming service (`toolgen.build.naming`): type names are those of the
type model, the same in every target (`<Tool>Input`, `<Tool>Output`, each def's, each named
inline type's); a tool's method (in `Handlers` and `Client`) is its name in camelCase
(`cancel_order` → `cancelOrder`, `3d` → `tool3d`), with `Tool` appended where it would be a
member of every object or of the client (`toString` → `toStringTool`).

Every spec string reaches the output as a JSON string literal or inside a doc comment
(`types.ts_string`, `types.doc_comment`): no spec text becomes code.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Final

import orjson

from toolgen.build.common import server_block
from toolgen.build.naming import LANGUAGES
from toolgen.build.target import Rendering
from toolgen.build.templating import render
from toolgen.build.typescript.types import JSON_VALUE, declarations, doc_comment, ts_string
from toolgen.schema.jsonequal import same
from toolgen.schema.walk import walk_schemas
from toolgen.spec.errors import Diagnostic, ErrorCode, Location, SpecError
from toolgen.spec.ir import Tool, ToolSet
from toolgen.spec.protocol import SUPPORTED_REVISIONS

TESTED_WITH: Final = {
    "node": "22",
    "typescript": "5.9.3",
    "@modelcontextprotocol/server": "2.4.0",
    "@modelcontextprotocol/client": "2.4.0",
    "ajv": "8.20.0",
    "zod": "4.6.7",
}
"""What the generated modules are tested with (`tests/ts_support/package.json` pins the same)."""

_UNSAFE_JSON = re.compile("[\u2028\u2029\ud800-\udfff]")


RUNTIME: Final = Path(__file__).with_name("runtime.ts")
"""The runtime every module carries (the same text in each)."""


def render_typescript(job: Rendering) -> list[tuple[str, str]]:
    """The files of the spec set's TypeScript module, relative to `OUT/<package>/`."""
    check_names(job.toolset)
    header = f"// {job.header}\n"
    runtime = RUNTIME.read_text(encoding="utf-8")
    return [
        ("index.ts", Module(job).text()),
        ("runtime.ts", header + runtime),
        ("package.json", package_json(job.toolset, job.header)),
    ]


def check_names(toolset: ToolSet) -> None:
    """Refuse, where it is written, a name the TypeScript SDK cannot carry: `__proto__`, as a
    tool's name (the SDK keeps tools in a plain object, where that name is its prototype) or
    as a property's (its JSON parsing of requests and results drops that key). A tool named
    like another member of every object (`toString`, `constructor`, ...) is carried: the
    runtime registers it under another name and renames it."""
    problems = [
        Diagnostic(ErrorCode.INVALID_NAME, _PROTO_TOOL, tool.origin.locate("name"))
        for tool in toolset.tools
        if tool.name == "__proto__"
    ]
    written = [(d.origin, d.schema) for d in toolset.defs]
    for tool in toolset.tools:
        written += [(o, o.value()) for o in (tool.input_origin, tool.output_origin) if o]
    for origin, schema in written:
        for path, sub in walk_schemas(schema):
            properties = sub.get("properties") if isinstance(sub, dict) else None
            if isinstance(properties, dict) and "__proto__" in properties:
                where = origin.locate(*path, "properties", "__proto__", key=True)
                problems.append(Diagnostic(ErrorCode.INVALID_NAME, _PROTO_PROPERTY, where))
    if problems:
        raise SpecError(sorted(problems, key=lambda d: d.location or _NOWHERE))


_PROTO_TOOL: Final = (
    "a tool cannot be called `__proto__` in the TypeScript target: the SDK keeps tools in a "
    "plain object, where that name is its prototype; rename the tool"
)
_PROTO_PROPERTY: Final = (
    "a property cannot be called `__proto__` in the TypeScript target: the SDK's JSON parsing "
    "drops that key from arguments and results; rename the property"
)
_NOWHERE: Final = Location("", 0, 0)


def package_json(toolset: ToolSet, header: str) -> str:
    """An npm `package.json` for the module: ESM, the SDK packages and AJV (the validator the
    SDK bundles, which the runtime configures itself) as peer dependencies."""
    document = {
        "//": header,
        "name": toolset.server.package.replace("_", "-"),
        "private": True,
        "type": "module",
        "peerDependencies": {
            name: f"^{TESTED_WITH[name]}"
            for name in ("@modelcontextprotocol/client", "@modelcontextprotocol/server", "ajv")
        },
        "toolgen": {"testedWith": TESTED_WITH},
    }
    return json.dumps(document, indent=2) + "\n"


class Module:
    """The text of `index.ts` for one spec set (`index.ts.jinja`, beside this module)."""

    def __init__(self, job: Rendering) -> None:
        self.toolset = job.toolset
        self.header = job.header
        self.model = job.model
        self.stems = {name: types.stem for name, types in job.model.tools.items()}
        names = [tool.name for tool in job.toolset.tools]
        self.methods = LANGUAGES["typescript"].identifiers(names, "method")
        self.listings = job.listings
        self.listed = _listed_schemas(job.toolset, self.listings.values())

    def text(self) -> str:
        tools = self.toolset.tools
        types = declarations(self.model)
        unstructured = any(tool.output_schema is None for tool in tools)
        json_value = re.search(rf"\b{JSON_VALUE}\b", types) is not None
        own_types = ["Drift", "DriftPolicy", *(["JsonObject"] if self.listed else [])]
        own_types += ["JsonValue"] if json_value else []
        own_types += ["Listings", *(["ToolContent"] if unstructured else []), "ToolSchemas"]
        return render(
            "typescript/index.ts.jinja",
            header=f"// {self.header}",
            server_name=_doc_text(self.toolset.server.name),
            server_block=_json(server_block(self.toolset.server)),
            sdk_types=[*(["CallToolResult"] if unstructured else []), *_SDK_TYPES],
            own_types=own_types,
            types=types,
            tools=[self._tool(tool) for tool in tools],
            tool_names=" | ".join(ts_string(tool.name) for tool in tools) or "never",
            listed=[
                (
                    ts_string(name),
                    "; ".join(f"readonly {key}: JsonObject" for key in schemas),
                    [(key, _json(value, "    ")) for key, value in schemas.items()],
                )
                for name, schemas in self.listed.items()
            ],
            listings=[(ts_string(rev), self._listing(rev)) for rev in SUPPORTED_REVISIONS],
        )

    def _tool(self, tool: Tool) -> dict[str, Any]:
        """What the template writes of one tool: every spec text in it escaped already."""
        stem = self.stems[tool.name]
        schema = tool.input_schema
        structured = tool.output_schema is not None
        return {
            "name": ts_string(tool.name),
            "method": self.methods[tool.name],
            "doc": doc_comment(_tool_doc(tool), "  "),
            "input": f"{stem}Input",
            "returns": f"{stem}Output" if structured else "ToolContent",
            "result": f"{stem}Output" if structured else "CallToolResult",
            "structured": structured,
            "optional": not schema.get("required") and not any(k in schema for k in _REQUIRING),
            "input_schema": _json(tool.input_schema, "    "),
            "output_schema": _json(tool.output_schema, "    ") if structured else "",
        }

    def _listing(self, revision: str) -> str:
        result = self.listings[revision]
        lines = ["{\n    tools: ["]
        for tool, definition in zip(self.toolset.tools, result["tools"], strict=True):
            fields = []
            for key, value in definition.items():
                text = _json(value, "        ")
                if key in _SCHEMA_KEYS:
                    schema = _SCHEMA_KEYS[key]
                    name = ts_string(tool.name)
                    if same(value, self.listed.get(tool.name, {}).get(schema)):
                        text = f"LISTED_SCHEMAS[{name}].{schema}"
                    elif same(
                        value, tool.input_schema if schema == "input" else tool.output_schema
                    ):
                        text = f"SCHEMAS[{name}].{schema}" + ("!" if schema == "output" else "")
                fields.append(f"        {ts_string(key)}: {text},\n")
            lines.append("\n      {\n" + "".join(fields) + "      },")
        lines.append("\n    ],\n" if result["tools"] else "],\n")
        for key, value in result.items():
            if key != "tools":
                lines.append(f"    {ts_string(key)}: {_json(value, '    ')},\n")
        return "".join(lines) + "  }"


_SCHEMA_KEYS: Final = {"inputSchema": "input", "outputSchema": "output"}
_SDK_TYPES: Final = ("McpServer", "RegisteredTool", "ServerContext")
_REQUIRING: Final = ("$ref", "allOf", "anyOf", "oneOf", "if", "dependentRequired")
"""Keywords that may require a member: an input with any of them is never optional."""


def _listed_schemas(
    toolset: ToolSet, listings: Iterable[Mapping[str, Any]]
) -> dict[str, dict[str, Any]]:
    """Tool name → the first schemas its listings send that differ from its own (`input`,
    `output`), so that each is written once and every revision that sends it refers to it."""
    listed: dict[str, dict[str, Any]] = {}
    for listing in listings:
        for tool, definition in zip(toolset.tools, listing["tools"], strict=True):
            own = {"input": tool.input_schema, "output": tool.output_schema}
            for key, schema in _SCHEMA_KEYS.items():
                value = definition.get(key)
                if value is not None and not same(value, own[schema]):
                    listed.setdefault(tool.name, {}).setdefault(schema, value)
    return listed


def _tool_doc(tool: Tool) -> list[str]:
    return [(tool.description or tool.title or "").strip(), f"Tool `{tool.name}`."]


def _doc_text(text: str) -> str:
    return text.replace("*/", "*\\/")


def _json(value: Any, indent: str = "") -> str:
    """`value` as a TypeScript expression (JSON, laid out with 2-space indents from `indent`);
    a key `__proto__` is written computed, so that it stays an own property. orjson writes it;
    what orjson refuses (lone surrogates, integers beyond 64 bits) goes the slow way."""
    try:
        text = orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()
    except TypeError:
        return _json_slow(value, indent)
    if '"__proto__"' in text:
        return _json_slow(value, indent)
    text = _UNSAFE_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    return text.replace("\n", "\n" + indent)


def _json_slow(value: Any, indent: str) -> str:
    inner = indent + "  "
    if isinstance(value, dict) and value:
        items = [
            f"{inner}{'[' + ts_string(k) + ']' if k == '__proto__' else ts_string(k)}: {_json_slow(v, inner)}"
            for k, v in value.items()
        ]
        return "{\n" + ",\n".join(items) + f"\n{indent}}}"
    if isinstance(value, list) and value:
        return "[\n" + ",\n".join(f"{inner}{_json_slow(v, inner)}" for v in value) + f"\n{indent}]"
    return ts_string(value) if isinstance(value, str) else json.dumps(value)
