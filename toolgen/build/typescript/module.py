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
        ("index.ts", header + Module(job).text()),
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
    """The text of `index.ts` for one spec set."""

    def __init__(self, job: Rendering) -> None:
        self.toolset = job.toolset
        self.model = job.model
        self.stems = {name: types.stem for name, types in job.model.tools.items()}
        names = [tool.name for tool in job.toolset.tools]
        self.methods = LANGUAGES["typescript"].identifiers(names, "method")
        self.listings = job.listings
        self.listed = _listed_schemas(job.toolset, self.listings.values())

    def text(self) -> str:
        server = self.toolset.server
        types = self._types()
        unstructured = any(tool.output_schema is None for tool in self.toolset.tools)
        sdk_types = ["CallToolResult"] if unstructured else []
        json_value = re.search(rf"\b{JSON_VALUE}\b", types) is not None
        own_types = ["Drift", "DriftPolicy", *(["JsonValue"] if json_value else [])]
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
        rule = (
            "// -- types ---------------------------------------------------------------------\n\n"
        )
        return rule + declarations(self.model)

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
            "  checkDrift(): Promise<Drift[]> {\n    return this.#tools.checkDrift();\n  }\n\n",
            "  /** Close the connection (the SDK client's). */\n",
            "  close(): Promise<void> {\n    return this.#tools.sdk.close();\n  }\n",
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
