"""Tool and property names that are also the generated code's own names (its imports, its
base classes' internals, the builtins its annotations name) neither break nor hijack the
generated package: it builds, imports, type-checks, and each call reaches its own handler."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

from toolgen import load_toolset
from toolgen.build.python.client import RESERVED_METHODS
from toolgen.build.python.server import render_server
from toolgen.client import ToolClient
from toolgen.spec.errors import ErrorCode, SpecError

CLIENT_METHODS = {
    "search": "search",
    "SearchInput": "SearchInput",  # the Python name of `search`'s input model
    "abc": "abc",
    "models": "models",
    "builtins": "builtins",
    "Returns": "Returns",
    "T": "T",
    "load": "load",
    "serve": "serve",
    "_call_model": "_call_model",
    "_value": "_value",
    "_revision": "_revision",
    "_client": "_client_tool",
    "_models": "_models_tool",
    "_typing": "_typing_tool",
    "SERVER": "SERVER_tool",
    "TOOLS_FILE": "TOOLS_FILE_tool",
    "session": "session_tool",
    "str": "str_tool_tool",  # `str_tool` is taken by the next tool
    "str_tool": "str_tool",
    "dict": "dict_tool",
}
"""Tool name → its method on the generated `Client` (the handler method is the tool name)."""
PROPERTIES = ["q", "_client", "str", "arguments", "value", "self", "models"]


def _spec() -> str:
    properties = {name: {"type": "string"} for name in PROPERTIES}
    tools = [
        {
            "name": name,
            "description": "d",
            "input": {"type": "object", "properties": properties, "required": ["q"]},
            "output": {"type": "object", "properties": {"r": {"type": "string"}}},
        }
        for name in CLIENT_METHODS
    ]
    tools.append({"name": "text", "input": {"type": "object"}})  # a `str` result
    server = {"name": "demo", "version": "1.0.0"}
    return json.dumps({"toolgen": 1, "server": server, "tools": tools})


MODULES = ["demo/client.py", "demo/server.py", "demo_handlers.py"]
HANDLERS = """\
from demo.server import Handlers


class App(Handlers):
{methods}
    def text(self, args):
        return "text"
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hostile")
    (root / "specs").mkdir()
    (root / "specs" / "main.yaml").write_text(_spec(), encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "toolgen", "build", "specs", "-o", "out", "-q"],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    methods = "".join(
        f"    def {name}(self, args):\n        return {{'r': {name!r} + args.q}}\n\n"
        for name in CLIENT_METHODS
    )
    (root / "out" / "app.py").write_text(HANDLERS.format(methods=methods), encoding="utf-8")
    return root / "out"


@pytest.mark.parametrize("module", ["demo.server", "demo.client", "demo_handlers"])
def test_every_generated_module_imports(built: Path, module: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", f"import {module}"],
        cwd=built,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr


def test_the_generated_modules_type_check_strictly(built: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", *MODULES],
        cwd=built,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout


def test_each_client_method_reaches_its_own_handler(built: Path) -> None:
    sys.path.insert(0, str(built))
    try:
        from demo.client import Client  # type: ignore[import-not-found]

        async def main() -> dict[str, Any]:
            with anyio.fail_after(60):  # a guard against a hang, not a timing assertion
                argv = [sys.executable, "-m", "demo.server", "app:App"]
                async with Client.stdio(argv, cwd=built, drift="error") as client:
                    out = {}
                    for tool, method in CLIENT_METHODS.items():
                        out[tool] = (await getattr(client, method)(q="!", str_="s")).r
                    out["text"] = (await client.text()).content[0].text
                    return out

        results = anyio.run(main)
    finally:
        sys.path.remove(str(built))
        for name in [m for m in sys.modules if m == "demo" or m.startswith("demo.")]:
            del sys.modules[name]
    assert results == {**{tool: tool + "!" for tool in CLIENT_METHODS}, "text": "text"}


def test_a_tool_named_as_the_abc_machinerys_attribute_is_a_located_error(
    write_specs: Callable[..., Path],
) -> None:
    root = write_specs({"main.yaml": "tools:\n  - name: search\n  - name: _abc_impl\n"})
    with pytest.raises(SpecError) as caught:
        render_server(load_toolset(root), source_note="specs")
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.code == ErrorCode.INVALID_NAME
    assert (diagnostic.location.line, diagnostic.location.column) == (5, 11)


def test_the_client_base_keeps_only_reserved_public_names_on_the_class() -> None:
    """A tool method can hide nothing `ToolClient` relies on: its public members are reserved
    (such methods get a suffix) and it has no other non-special attributes."""
    own = {name for name in dir(ToolClient) if not name.startswith("__")}
    assert own <= RESERVED_METHODS
    client = ToolClient.__new__(ToolClient)
    ToolClient.__init__(client, session=None)  # type: ignore[arg-type]
    assert set(vars(client)) <= RESERVED_METHODS
