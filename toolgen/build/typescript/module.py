"""Emit the TypeScript module of a spec set: `index.ts`, `runtime.ts` and `package.json`.

`index.ts` holds everything particular to the spec set: the types of every tool's input
and output and of its defs (`types.TypeWriter`), the `Handlers` interface and
`registerTools` for an SDK `McpServer`, the typed `Client`, and the spec's JSON Schemas and
`tools/list` results as typed constants (made by `toolgen.spec.protocol`, the function
the Python build and runtime use). `runtime.ts` is the same text in every module.

Names (type names are the Python models' class names, `modelnames`):

- `<Tool>Input` / `<Tool>Output`, `<Tool>` being the tool's CamelCase stem; each def
  its class name (`Note`, `note_id` → `NoteId`, `Def` appended when taken).
- A tool's method (in `Handlers` and `Client`) is its stem with the first letter in
  lower case: `cancel_order` → `cancelOrder`, `ns.do-thing` → `nsDoThing`, `3d` →
  `tool3d`; when two tools give one stem the later one spells its separators out
  (`get-x` → `getDashX`) or gets a hash. A method that would be a member of every object
  (`toString`, `constructor`, ...) or of the client (`sdk`, `drift`, `checkDrift`) gets
  `Tool` appended (`toStringTool`).

Every spec string reaches the output as a JSON string literal or inside a doc comment
(`types.ts_string`, `types.doc_comment`): no spec text becomes code.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any, Final

import orjson

from toolgen.build.common import header_text
from toolgen.build.python.modelnames import RESERVED, Names, def_classes, tool_bases
from toolgen.build.python.modelplan import all_defs
from toolgen.build.python.package import server_block
from toolgen.build.templating import template_dir
from toolgen.build.typescript.types import (
    JSON_VALUE,
    TypeWriter,
    doc_comment,
    schema_doc,
    ts_string,
)
from toolgen.schema.jsonequal import same
from toolgen.spec.errors import Diagnostic, ErrorCode, SpecError
from toolgen.spec.ir import Tool, ToolSet
from toolgen.spec.protocol import SUPPORTED_REVISIONS, list_tools_result

TESTED_WITH: Final = {
    "node": "22",
    "typescript": "5.9.3",
    "@modelcontextprotocol/server": "2.4.0",
    "@modelcontextprotocol/client": "2.4.0",
    "ajv": "8.20.0",
    "zod": "4.6.7",
}
"""What the generated modules are tested with (`tests/ts_support/package.json` pins the same)."""

TS_RESERVED: Final = frozenset(
    {
        "Client", "ClientOptions", "CallToolResult", "Drift", "DriftError", "DriftPolicy",
        "Handlers", "JsonObject", "JsonValue", "Listings", "LISTED_SCHEMAS", "LISTINGS",
        "McpServer", "Promise", "Readonly", "Record", "RegisteredTool", "RegisteredTools",
        "SCHEMAS", "SdkClient", "SERVER", "ServerContext", "SpecTools", "ToolCallError",
        "ToolClient", "ToolContent", "ToolError", "ToolName", "ToolResultError", "ToolSchemas",
    }
)  # fmt: skip
"""Names `index.ts` declares or uses: never the name of a tool's or a def's type."""
MEMBERS: Final = frozenset(
    {
        "constructor", "hasOwnProperty", "isPrototypeOf", "propertyIsEnumerable",
        "toLocaleString", "toString", "valueOf", "then", "sdk", "drift", "checkDrift",
    }
)  # fmt: skip
"""Members of every object, of the generated `Client` and `then` (an object with a `then`
method is awaited as a promise would be): never a tool's method."""

_UNSAFE_JSON = re.compile("[\u2028\u2029\ud800-\udfff]")


def render_typescript(toolset: ToolSet, *, source_note: str) -> list[tuple[str, str]]:
    """The files of the spec set's TypeScript module, relative to `OUT/<package>/`."""
    check_tool_names(toolset)
    header = f"// {header_text(source_note)}\n"
    runtime = (template_dir() / "typescript" / "runtime.ts").read_text(encoding="utf-8")
    return [
        ("index.ts", header + Module(toolset).text()),
        ("runtime.ts", header + runtime),
        ("package.json", package_json(toolset, source_note)),
    ]


def check_tool_names(toolset: ToolSet) -> None:
    """Refuse, at its name, a tool the TypeScript SDK cannot hold. Its registry of tools is a
    plain object: a name every object has (`toString`, `constructor`, ...) is carried (the
    runtime registers such a tool under another name and renames it), but `__proto__` would
    replace the registry's prototype instead of adding a tool."""
    problems = [
        Diagnostic(
            ErrorCode.INVALID_NAME,
            "a tool cannot be called `__proto__` in the TypeScript target: the SDK keeps tools in "
            "a plain object, where that name is its prototype; rename the tool",
            tool.origin.locate("name"),
        )
        for tool in toolset.tools
        if tool.name == "__proto__"
    ]
    if problems:
        raise SpecError(problems)


def package_json(toolset: ToolSet, source_note: str) -> str:
    """An npm `package.json` for the module: ESM, the SDK packages and AJV (the validator the
    SDK bundles, which the runtime configures itself) as peer dependencies."""
    document = {
        "//": header_text(source_note),
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
    """The text of `index.ts` for one spec set."""

    def __init__(self, toolset: ToolSet) -> None:
        self.toolset = toolset
        names = Names(taken=set(RESERVED) | TS_RESERVED)
        self.stems = tool_bases([tool.name for tool in toolset.tools], names)
        self.defs = all_defs(toolset)
        self.def_types = def_classes(self.defs, names)
        self.methods = _methods(toolset.tools, self.stems)
        self.listings = {rev: list_tools_result(toolset, rev) for rev in SUPPORTED_REVISIONS}
        self.listed = _listed_schemas(toolset, self.listings.values())

    def text(self) -> str:
        server = self.toolset.server
        types = self._types()
        unstructured = any(tool.output_schema is None for tool in self.toolset.tools)
        sdk_types = ["CallToolResult"] if unstructured else []
        own_types = ["Drift", "DriftPolicy", *(["JsonValue"] if JSON_VALUE in types else [])]
        own_types += ["Listings", *(["ToolContent"] if unstructured else []), "ToolSchemas"]
        parts = [
            f"/**\n * The MCP tools of server {_doc_text(server.name)}, for the official TypeScript SDK.\n"
            " *\n"
            " * Generated by toolgen: the types of every tool's input and output, a `Handlers`\n"
            " * interface and `registerTools` for an SDK `McpServer`, `serveStdio`, a typed\n"
            " * `Client`, and the spec's JSON Schemas and `tools/list` results.\n */\n",
            'import type { Client as SdkClient } from "@modelcontextprotocol/client";\n',
            f"import type {{ {', '.join([*sdk_types, 'McpServer', 'RegisteredTool', 'ServerContext'])} }} "
            'from "@modelcontextprotocol/server";\n',
            'import { SpecTools, ToolClient } from "./runtime.js";\n',
            f'import type {{ {", ".join(own_types)} }} from "./runtime.js";\n\n',
            "export { DriftError, serveStdio, ToolCallError, ToolError, ToolResultError } "
            'from "./runtime.js";\n',
            'export type { Drift, DriftPolicy, JsonObject, JsonValue, ToolContent } from "./runtime.js";\n\n',
            "/** The spec's `server` block: identity and instructions. */\n",
            f"export const SERVER = {_json(server_block(server))} as const;\n\n",
            types,
            self._handlers(),
            self._client(),
            self._constants(),
        ]
        return "".join(parts)

    # -- types --------------------------------------------------------------------------------

    def _types(self) -> str:
        out = [
            "// -- types ---------------------------------------------------------------------\n\n"
        ]
        writer = TypeWriter(self.def_types)
        for name, schema in self.defs.items():
            type_name = self.def_types[name]
            out.append(self._alias(type_name, schema, schema_doc(schema), writer, skip=name))
        for tool in self.toolset.tools:
            stem = self.stems[tool.name]
            parts = [("Input", tool.input_schema), ("Output", tool.output_schema)]
            for part, schema in parts:
                if schema is None:
                    continue
                body = {k: v for k, v in schema.items() if k != "$defs"}
                lines = [f"The {part.lower()} of tool {tool.name}.", *schema_doc(body)]
                out.append(
                    self._alias(stem + part, body, lines, TypeWriter(self.def_types, stem + part))
                )
        return "".join(out)

    def _alias(
        self, name: str, schema: Any, doc: list[str], writer: TypeWriter, skip: str | None = None
    ) -> str:
        """`export type NAME = ...;` (the def's own name when `schema` is exactly a def)."""
        for def_name, body in self.defs.items():
            if def_name != skip and isinstance(schema, dict) and same(schema, body):
                return (
                    doc_comment(doc, "") + f"export type {name} = {self.def_types[def_name]};\n\n"
                )
        return doc_comment(doc, "") + f"export type {name} = {writer.write(schema)};\n\n"

    # -- server -------------------------------------------------------------------------------

    def _handlers(self) -> str:
        out = [
            "// -- server --------------------------------------------------------------------\n\n",
            "/** One method per tool: it takes the tool's input (already checked against its\n"
            " * schema) and the SDK's request context, and returns the tool's output (checked\n"
            " * before it is sent). Throw `ToolError` to answer the model with `isError`. */\n",
            "export interface Handlers {\n",
        ]
        for tool in self.toolset.tools:
            method = self.methods[tool.name]
            stem = self.stems[tool.name]
            returns = f"{stem}Output" if tool.output_schema is not None else "ToolContent"
            out.append(doc_comment(_tool_doc(tool), "  "))
            out.append(
                f"  {method}(input: {stem}Input, context: ServerContext): {returns} | Promise<{returns}>;\n"
            )
        out.append("}\n\n")
        out.append(
            "/** The SDK's handle of each tool `registerTools` registered (to disable, enable,\n"
            " * remove or update it), by its method name. */\n"
            "export type RegisteredTools = Readonly<Record<keyof Handlers, RegisteredTool>>;\n\n"
            "/** Register every tool on `server` (the SDK's `McpServer`) with its handler, through\n"
            " * the SDK's `registerTool`. Its `tools/list` then answers the spec's definitions for\n"
            " * the revision asked for, followed by any tool registered beside them. */\n"
        )
        tools = self.toolset.tools
        used = "handlers" if tools else "_handlers"
        out.append(
            f"export function registerTools(server: McpServer, {used}: Handlers): RegisteredTools {{\n"
            "  const spec = new SpecTools(server, SCHEMAS, LISTINGS);\n"
            "  const tools: RegisteredTools = {"
        )
        for tool in tools:
            method = self.methods[tool.name]
            out.append(
                f"\n    {method}: spec.register({ts_string(tool.name)}, "
                f"(input: {self.stems[tool.name]}Input, context) => handlers.{method}(input, context)),"
            )
        out.append("\n  };\n" if tools else "};\n")
        out.append("  spec.listTools();\n  return tools;\n}\n\n")
        return "".join(out)

    # -- client -------------------------------------------------------------------------------

    def _client(self) -> str:
        out = [
            "// -- client --------------------------------------------------------------------\n\n",
            "/** Options of `Client`: what the first call does when the server's tools differ\n"
            " * from the spec (default: warn). */\n",
            "export interface ClientOptions {\n  readonly drift?: DriftPolicy;\n}\n\n",
            "/** A typed client: wraps a connected SDK `Client`, one method per tool. A result\n"
            " * with `isError` throws `ToolCallError`; one that does not match the tool's output\n"
            " * schema throws `ToolResultError`. */\n",
            "export class Client {\n",
            "  readonly #tools: ToolClient;\n\n",
            "  constructor(sdk: SdkClient, options: ClientOptions = {}) {\n",
            "    this.#tools = new ToolClient(sdk, SCHEMAS, LISTINGS, options.drift);\n  }\n\n",
            "  /** The SDK client this one calls through. */\n",
            "  get sdk(): SdkClient {\n    return this.#tools.sdk;\n  }\n\n",
            "  /** How the server's tools differ from the spec (undefined until checked). */\n",
            "  get drift(): readonly Drift[] | undefined {\n    return this.#tools.drift;\n  }\n\n",
            "  /** Compare the server's `tools/list` with the spec now (the first call does). */\n",
            "  checkDrift(): Promise<Drift[]> {\n    return this.#tools.checkDrift();\n  }\n",
        ]
        for tool in self.toolset.tools:
            out.append("\n" + doc_comment(_tool_doc(tool), "  "))
            out.append(self._client_method(tool))
        out.append("}\n\n")
        return "".join(out)

    def _client_method(self, tool: Tool) -> str:
        method = self.methods[tool.name]
        stem = self.stems[tool.name]
        name = ts_string(tool.name)
        schema = tool.input_schema
        optional = not schema.get("required") and not any(
            k in schema for k in ("$ref", "allOf", "anyOf", "oneOf", "if", "dependentRequired")
        )
        param = f"input{'?' if optional else ''}: {stem}Input"
        given = "input ?? {}" if optional else "input"
        if tool.output_schema is None:
            return (
                f"  {method}({param}): Promise<CallToolResult> {{\n"
                f"    return this.#tools.result({name}, {given});\n  }}\n"
            )
        return (
            f"  {method}({param}): Promise<{stem}Output> {{\n"
            f"    return this.#tools.value<{stem}Output>({name}, {given});\n  }}\n"
        )

    # -- constants ----------------------------------------------------------------------------

    def _constants(self) -> str:
        tools = self.toolset.tools
        names = " | ".join(ts_string(tool.name) for tool in tools) or "never"
        out = [
            "// -- the spec ------------------------------------------------------------------\n\n",
            f"/** The names of the tools. */\nexport type ToolName = {names};\n\n",
            "/** Each tool's JSON Schemas (the build's `schemas/`, without `$schema` and `$id`). */\n",
            "export const SCHEMAS: Readonly<Record<ToolName, ToolSchemas>> = {\n",
        ]
        for tool in tools:
            out.append(
                f"  {ts_string(tool.name)}: {{\n    input: {_json(tool.input_schema, '    ')},\n"
            )
            if tool.output_schema is not None:
                out.append(f"    output: {_json(tool.output_schema, '    ')},\n")
            out.append("  },\n")
        out.append("};\n\n")
        if self.listed:
            out.append(
                "/** Schemas as the listings send them where they differ from `SCHEMAS` (each\n"
                " * `$ref` inlined, or the output wrapped), written once for every revision. */\n"
                "const LISTED_SCHEMAS = {\n"
            )
            for name, schemas in self.listed.items():
                out.append(f"  {ts_string(name)}: {{\n")
                out += [f"    {key}: {_json(value, '    ')},\n" for key, value in schemas.items()]
                out.append("  },\n")
            out.append("};\n\n")
        out.append(
            "/** The `tools/list` result of each protocol revision (the build's\n"
            " * `tools/<revision>.json`), as `registerTools` serves it and `Client` expects it. */\n"
            "export const LISTINGS: Listings = {\n"
        )
        for revision in SUPPORTED_REVISIONS:
            out.append(f"  {ts_string(revision)}: {self._listing(revision)},\n")
        out.append("};\n")
        return "".join(out)

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


def _methods(tools: tuple[Tool, ...], stems: Mapping[str, str]) -> dict[str, str]:
    """Tool name → its method name (see the module docstring): unique, never a member name."""
    taken: set[str] = set(MEMBERS)
    methods = {}
    for tool in tools:
        stem = stems[tool.name]
        method = stem[:1].lower() + stem[1:]
        while method in taken:
            method += "Tool"
        taken.add(method)
        methods[tool.name] = method
    return methods


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
