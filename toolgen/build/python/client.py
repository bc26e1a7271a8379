"""Emit `client.py`: a typed async client for the spec set (`toolgen.client.ToolClient`).

One method per tool, named as its handler method (`core.naming.handler_name`),
taking the input's properties as keyword-only arguments and returning the
Output model (object outputs), the value itself (other outputs: an `int`, a
`list[Note]`), or the SDK's `CallToolResult` (no output schema).

Argument and return types are read from the model plan (`modelplan.build_plan`),
whose combined schema names every generated class, so the client refers to the
same classes as `models.py`. Inputs are typed for callers: a reference to a
scalar def is its scalar type (`tag: str`, validated by the Input model at run
time), a reference to an object class is that model. Returned values are typed as
pydantic builds them (a def's class where the model holds one). What a type cannot
say precisely (`allOf`, tuples) is `Any`, never a wrong type. Every
spec string reaches the template as a Python literal (`py`) or a checked
identifier; names from the spec never become code.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from toolgen.build.common import header_text
from toolgen.build.python.modelplan import DEFS, ModelPlan, build_plan
from toolgen.build.python.server import tool_methods
from toolgen.build.templating import py_literal, render
from toolgen.spec.ir import Tool, ToolSet
from toolgen.spec.naming import handler_name

CLIENT_FILE = "client.py"
MODELS = "_models"
TYPING = "_typing"
CLIENT = "_client"
MCP_TYPES = "_mcp_types"
BUILTINS: Final = frozenset({"str", "int", "float", "bool", "list", "dict", "object"})
"""The builtins the generated annotations name (a method or argument so named would hide them)."""
RESERVED_ARGUMENTS: Final = frozenset(
    {"self", "arguments", "value", MODELS, TYPING, CLIENT, MCP_TYPES} | BUILTINS
)
"""Names a keyword argument must not take: they are used inside the methods."""
RESERVED_METHODS: Final = frozenset(
    {"session", "drift", "drift_policy", "check_drift", "toolset", "stdio", "http"}
    | {"SERVER", "TOOLS_FILE", "_SERVER", "_TOOLS_FILE", MODELS, TYPING, CLIENT, MCP_TYPES}
    | BUILTINS
)
"""What a tool's method must not hide (such a method gets a `_tool` suffix): `ToolClient`'s
public members and the names the class body reads. `ToolClient` keeps nothing else on the
class: its calls are module functions, so no tool name reaches them."""
_SCALARS: Final = {"string": "str", "integer": "int", "number": "float", "boolean": "bool"}
_ANY = f"{TYPING}.Any"


def render_client(
    toolset: ToolSet, *, source_note: str, plan: ModelPlan | None = None
) -> list[tuple[str, str]]:
    """`client.py` of the generated package."""
    plan = plan or build_plan(toolset)
    types = TypeNames(plan.schema.get("$defs", {}))
    methods = client_methods(toolset.tools)
    tools = [
        _tool_context(tool, methods[tool.name], plan.tool_classes[tool.name], types)
        for tool in toolset.tools
    ]
    text = render(
        "client.py.jinja",
        header=header_text(source_note),
        server=toolset.server,
        package=toolset.server.package,
        tools=tools,
        needs_mcp_types=any(tool["kind"] == "result" for tool in tools),
        example=tools[0] if tools else None,
        names={"models": MODELS, "typing": TYPING, "client": CLIENT, "mcp_types": MCP_TYPES},
    )
    return [(CLIENT_FILE, text)]


def client_methods(tools: tuple[Tool, ...]) -> dict[str, str]:
    """Tool name → client method: the handler's name, suffixed `_tool` while it is reserved
    or another tool's method already has it."""
    handlers = tool_methods(tools)
    taken = set(RESERVED_METHODS) | set(handlers.values())
    methods = {}
    for tool in tools:
        method = handlers[tool.name]
        if method in RESERVED_METHODS:
            while method in taken:
                method += "_tool"
            taken.add(method)
        methods[tool.name] = method
    return methods


def _tool_context(
    tool: Tool, method: str, classes: tuple[str, str | None], types: TypeNames
) -> dict[str, Any]:
    input_class, output_class = classes
    schema = types.defs.get(input_class, {})
    required = set(schema.get("required", []))
    taken: set[str] = set(RESERVED_ARGUMENTS)
    params = []
    for prop, prop_schema in (schema.get("properties") or {}).items():
        name = handler_name(prop)
        while name in taken:
            name += "_"
        taken.add(name)
        annotation = types.annotation(prop_schema, inputs=True)
        params.append(
            {
                "name": name,
                "json": py_literal(prop),
                "annotation": annotation,
                "optional_annotation": _or_omitted(annotation),
                "required": prop in required,
            }
        )
    if output_class is None:
        kind, returns = "result", f"{MCP_TYPES}.CallToolResult"
    elif tool.output_is_object:
        kind, returns = "model", f"{MODELS}.{output_class}"
    else:
        kind, returns = "value", types.annotation(types.defs.get(output_class, {}), inputs=False)
    return {
        "name": py_literal(tool.name),
        "method": method,
        "doc": (tool.description or tool.title or f"Call the {tool.name} tool.").strip(),
        "params": params,
        "input_class": input_class,
        "output_class": output_class,
        "kind": kind,
        "returns": returns,
        "returns_literal": py_literal(returns),
    }


class TypeNames:
    """Python type expressions for the schemas of one model plan."""

    def __init__(self, defs: Mapping[str, Any]) -> None:
        self.defs = defs

    @staticmethod
    def is_object(schema: Any) -> bool:
        return isinstance(schema, dict) and (
            schema.get("type") == "object" or "properties" in schema
        )

    def annotation(self, schema: Any, *, inputs: bool, seen: frozenset[str] = frozenset()) -> str:
        """The type of values `schema` describes (`inputs`: as a caller passes them)."""
        if not isinstance(schema, dict):
            return _ANY
        ref = schema.get("$ref")
        if isinstance(ref, str):
            return self._ref(ref, inputs=inputs, seen=seen)
        for keyword in ("anyOf", "oneOf"):
            if isinstance(schema.get(keyword), list):
                return _union(self.annotation(b, inputs=inputs, seen=seen) for b in schema[keyword])
        if "const" in schema:
            return _literal([schema["const"]])
        if isinstance(schema.get("enum"), list):
            return _literal(schema["enum"])
        kind = schema.get("type")
        if isinstance(kind, list):
            return _union(self._typed(schema, t, inputs=inputs, seen=seen) for t in kind)
        if isinstance(kind, str) and not schema.get("allOf"):
            return self._typed(schema, kind, inputs=inputs, seen=seen)
        return _ANY

    def _ref(self, ref: str, *, inputs: bool, seen: frozenset[str]) -> str:
        name = ref[len(DEFS) :] if ref.startswith(DEFS) else None
        target = self.defs.get(name) if name is not None else None
        if name is None or target is None:
            return _ANY
        if not inputs or self.is_object(target):
            return f"{MODELS}.{name}"  # the class pydantic builds (callers pass a model)
        if name in seen:
            return _ANY
        return self.annotation(target, inputs=True, seen=seen | {name})

    def _typed(
        self, schema: Mapping[str, Any], kind: str, *, inputs: bool, seen: frozenset[str]
    ) -> str:
        if kind == "null":
            return "None"
        if kind == "array":
            if schema.get("prefixItems") is not None:
                return f"list[{_ANY}]"
            return f"list[{self.annotation(schema.get('items', {}), inputs=inputs, seen=seen)}]"
        if kind == "object":
            values = schema.get("additionalProperties")
            value = self.annotation(values, inputs=inputs, seen=seen) if values else _ANY
            return f"dict[str, {value}]"
        return _SCALARS.get(kind, _ANY)


def _or_omitted(annotation: str) -> str:
    """`annotation | Omitted`, `None` kept last (ruff's RUF036)."""
    omitted = f"{MODELS}.Omitted"
    if annotation == "None":
        return f"{omitted} | None"
    if annotation.endswith(" | None"):
        return f"{annotation.removesuffix(' | None')} | {omitted} | None"
    return f"{annotation} | {omitted}"


def _union(parts: Any) -> str:
    unique = list(dict.fromkeys(parts))
    if _ANY in unique:
        return _ANY
    return " | ".join(unique)


def _literal(values: list[Any]) -> str:
    if not values or not all(isinstance(v, (str, int, bool)) or v is None for v in values):
        return _ANY
    return f"{TYPING}.Literal[{', '.join(py_literal(v) for v in values)}]"
