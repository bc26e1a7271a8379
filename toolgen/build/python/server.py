"""Emit `server.py` (the typed handler interface + `serve`) and the user's handler scaffold.

Both are rendered from jinja2 templates (`server.py.jinja`,
`handlers.py.jinja`, beside it). Class names come from the models emitter
(`model_class_names`), method names from the runtime (`handler_name`), so the
stub, the models and the runtime's handler binding cannot disagree. Every
spec string reaches the templates only through the `py` filter (a Python
literal) or as a checked identifier.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from toolgen.build.common import header_text
from toolgen.build.python.modelplan import ModelPlan, model_class_names
from toolgen.build.python.package import scaffold_path
from toolgen.build.templating import render
from toolgen.spec.errors import Diagnostic, ErrorCode, SpecError
from toolgen.spec.ir import Tool, ToolSet
from toolgen.spec.naming import handler_name

SERVER_FILE = "server.py"
_SERVER_NAME = re.compile(r"^[a-z][a-z0-9_-]{0,63}$")


def render_server(
    toolset: ToolSet,
    *,
    source_note: str,
    plan: ModelPlan | None = None,
    methods: Mapping[str, str] | None = None,
) -> list[tuple[str, str]]:
    """`server.py` of the generated package: `Handlers` (one abstract method per tool) and
    `serve(handlers)`, which runs the toolgen runtime over stdio."""
    context = _context(toolset, plan, methods)
    text = render("python/server.py.jinja", header=header_text(source_note), **context)
    return [(SERVER_FILE, text)]


def render_handlers_scaffold(
    toolset: ToolSet, plan: ModelPlan | None = None, methods: Mapping[str, str] | None = None
) -> str:
    """The text of the user's handler module (`scaffold_path`): a `Handlers` subclass whose
    methods raise `ToolError("not implemented")` until the user fills them in."""
    context = _context(toolset, plan, methods)
    package = context["package"]
    return render(
        "python/handlers.py.jinja",
        import_path=package,
        filename=scaffold_path(package),
        class_name=_class_name(package) + "Handlers",
        **context,
    )


def _context(
    toolset: ToolSet, plan: ModelPlan | None = None, methods: Mapping[str, str] | None = None
) -> dict[str, Any]:
    server = toolset.server
    if not _SERVER_NAME.fullmatch(server.name):  # the spec model guarantees it; checked again
        raise ValueError(f"invalid server name {server.name!r}")
    names = model_class_names(toolset, plan)
    methods = methods or tool_methods(toolset.tools)
    _check_abc_names(toolset.tools, methods)
    tools = []
    imports: set[str] = set()
    for tool in toolset.tools:
        input_class, output_class = names[tool.name]
        imports.add(input_class)
        if output_class is not None:
            imports.add(output_class)
        tools.append(
            {
                "method": methods[tool.name],
                "input_class": input_class,
                "output_class": output_class,
                "doc": _doc(tool),
                "todo": f"{tool.name} is not implemented yet",
            }
        )
    return {
        "server": server,
        "package": server.package,
        "tools": tools,
        "model_imports": sorted(imports, key=lambda name: (name.lower(), name)),  # as isort
        "example_method": tools[0]["method"] if tools else "some_tool",
        "names": class_body_names(set(methods.values()), server.package),
    }


def class_body_names(methods: set[str], package: str) -> dict[str, str]:
    """The names the `Handlers` class bodies read (decorator, annotations), each kept apart from
    every method name: a method defined earlier in a class body hides a module name there, for
    Python (decorators) and for type checkers (annotations). `str` goes through `builtins` then."""
    names = {
        "abc": _free("abc", methods),
        "returns": _free("Returns", methods),
        "models": _free("models", methods),
        "str": "str",
        "builtins": "",
    }
    if "str" in methods:
        names["builtins"] = _free("builtins", methods)
        names["str"] = names["builtins"] + ".str"
    names["import_abc"] = _import("abc", names["abc"])
    names["import_builtins"] = _import("builtins", names["builtins"])
    names["import_models"] = _import("models", names["models"], package)
    names["import_models_here"] = _import("models", names["models"], ".")
    return names


def _import(module: str, alias: str, package: str = "") -> str:
    line = f"from {package} import {module}" if package else f"import {module}"
    return line if alias in (module, "") else f"{line} as {alias}"


def _free(name: str, taken: set[str]) -> str:
    while name in taken:
        name += "_"
    return name


_ABC_OWNED = frozenset({"_abc_impl"})
"""Class attributes Python's `abc` machinery sets on every `Handlers` subclass, over any method."""


def _check_abc_names(tools: tuple[Tool, ...], methods: Mapping[str, str]) -> None:
    problems = [
        Diagnostic(
            ErrorCode.INVALID_NAME,
            f"tool {tool.name!r} becomes the Python method {methods[tool.name]!r}, which Python's "
            "abc module sets on every Handlers class; rename the tool",
            tool.origin.locate("name"),
        )
        for tool in tools
        if methods[tool.name] in _ABC_OWNED
    ]
    if problems:
        raise SpecError(problems)


def tool_methods(tools: tuple[Tool, ...]) -> dict[str, str]:
    """Tool name → handler method; two tools sharing a method name are an input error."""
    taken: dict[str, Tool] = {}
    problems = []
    for tool in tools:
        method = handler_name(tool.name)
        other = taken.setdefault(method, tool)
        if other is not tool:
            problems.append(
                Diagnostic(
                    ErrorCode.INVALID_NAME,
                    f"tools {other.name!r} and {tool.name!r} both become the Python method "
                    f"{method!r} in the generated server; rename one of them",
                    tool.origin.locate("name"),
                )
            )
    if problems:
        raise SpecError(problems)
    return {tool.name: handler_name(tool.name) for tool in tools}


def _doc(tool: Tool) -> str:
    text = tool.description or tool.title or f"The {tool.name} tool."
    return text.strip()


def _class_name(package: str) -> str:
    return "".join(part.capitalize() for part in package.split("_") if part) or "Server"
