"""Emit `client.py`: a typed async client for the spec set (`toolgen.client.ToolClient`).

One method per tool, named as its handler method (`core.naming.handler_name`),
taking the input's properties as keyword-only arguments and returning the
Output model (object outputs), the value itself (other outputs: an `int`, a
`list[Note]`), or the SDK's `CallToolResult` (no output schema).

Argument and return types are printed from the spec set's type model
(`toolgen.build.typemodel`), whose names the model classes share, so the client refers to
the same classes as `models.py`. Inputs are typed for callers: a reference to a
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
from toolgen.build.python.modelplan import ModelPlan, build_plan
from toolgen.build.python.server import tool_methods
from toolgen.build.templating import py_literal, render
from toolgen.build.typemodel import (
    Array,
    Enum,
    Intersection,
    Literal,
    Map,
    Nullable,
    Record,
    Ref,
    Scalar,
    Type,
    TypeModel,
    Union,
    build_model,
)
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
_SCALARS: Final = {
    "string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "None"
}  # fmt: skip
_ANY = f"{TYPING}.Any"


def render_client(
    toolset: ToolSet,
    *,
    source_note: str,
    plan: ModelPlan | None = None,
    model: TypeModel | None = None,
    handlers: Mapping[str, str] | None = None,
) -> list[tuple[str, str]]:
    """`client.py` of the generated package (`handlers`: the tools' handler methods, when
    the caller has them)."""
    model = model or build_model(toolset)
    plan = plan or build_plan(toolset, model)
    types = TypeNames(model, frozenset(plan.class_names))
    methods = client_methods(toolset.tools, handlers)
    tools = [_tool_context(tool, methods[tool.name], types) for tool in toolset.tools]
    text = render(
        "python/client.py.jinja",
        header=header_text(source_note),
        server=toolset.server,
        package=toolset.server.package,
        tools=tools,
        needs_mcp_types=any(tool["kind"] == "result" for tool in tools),
        example=tools[0] if tools else None,
        names={"models": MODELS, "typing": TYPING, "client": CLIENT, "mcp_types": MCP_TYPES},
    )
    return [(CLIENT_FILE, text)]


def client_methods(
    tools: tuple[Tool, ...], handlers: Mapping[str, str] | None = None
) -> dict[str, str]:
    """Tool name → client method: the handler's name, suffixed `_tool` while it is reserved
    or another tool's method already has it."""
    handlers = handlers or tool_methods(tools)
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


def _tool_context(tool: Tool, method: str, types: TypeNames) -> dict[str, Any]:
    names = types.model.tools[tool.name]
    taken: set[str] = set(RESERVED_ARGUMENTS)
    params = []
    for member in types.model.members(Ref(names.input)):
        name = handler_name(member.json)
        while name in taken:
            name += "_"
        taken.add(name)
        annotation = types.annotation(member.type, inputs=True)
        params.append(
            {
                "name": name,
                "json": py_literal(member.json),
                "annotation": annotation,
                "optional_annotation": _or_omitted(annotation),
                "required": member.required,
            }
        )
    if names.output is None:
        kind, returns = "result", f"{MCP_TYPES}.CallToolResult"
    elif tool.output_is_object:
        kind, returns = "model", f"{MODELS}.{names.output}"
    else:
        kind = "value"
        returns = types.annotation(types.model.types[names.output].type, inputs=False)
    return {
        "name": py_literal(tool.name),
        "method": method,
        "doc": (tool.description or tool.title or f"Call the {tool.name} tool.").strip(),
        "params": params,
        "input_class": names.input,
        "output_class": names.output,
        "kind": kind,
        "returns": returns,
        "returns_literal": py_literal(returns),
    }


class TypeNames:
    """Python type expressions for the types of a spec set (`model`), naming the generated
    model classes (`classes`) where pydantic builds one."""

    def __init__(self, model: TypeModel, classes: frozenset[str]) -> None:
        self.model = model
        self.classes = classes

    def annotation(self, type_: Type, *, inputs: bool, seen: frozenset[str] = frozenset()) -> str:
        """The type of the values `type_` describes (`inputs`: as a caller passes them)."""
        match type_:
            case Ref(name):
                return self._ref(name, inputs=inputs, seen=seen)
            case Scalar(kind):
                return _SCALARS[kind]
            case Literal(value):
                return _literal([value])
            case Enum(values) if Enum(values).large:
                rest = [v for v in values if not isinstance(v, str)]
                return _union(["str", *([_literal(rest)] if rest else [])])
            case Enum(values):
                return _literal(list(values))
            case Array(items):
                return f"list[{self.annotation(items, inputs=inputs, seen=seen)}]"
            case Map(values):
                return f"dict[str, {self.annotation(values, inputs=inputs, seen=seen)}]"
            case Nullable(inner):
                return _union([self.annotation(inner, inputs=inputs, seen=seen), "None"])
            case Union(branches):
                return _union(self.annotation(b, inputs=inputs, seen=seen) for b in branches)
        return _ANY  # any JSON, a tuple, an intersection: what a type cannot say is Any

    def _ref(self, name: str, *, inputs: bool, seen: frozenset[str]) -> str:
        named = self.model.types[name].type
        is_class = name in self.classes and isinstance(named, (Record, Intersection))
        if is_class or (not inputs and name in self.classes):
            return f"{MODELS}.{name}"  # the class pydantic builds (callers pass a model)
        if name in seen:
            return _ANY
        return self.annotation(named, inputs=inputs, seen=seen | {name})


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
