"""The generated server imports its models on a tool's first call, not when it starts,
and still hands every tool's handler its typed input model."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conftest import ROOT, SPECS

GENERATED = ROOT / "generated"

CALL_EVERY_TOOL = r"""
import asyncio, json, sys
sys.path.insert(0, sys.argv[1])
from notes import server
from toolgen.runtime import Connection, Engine

started_with_models = "notes.models" in sys.modules
seen = {}

def handler(name):
    def method(self, args):  # no annotation: the generated method's `args: <Tool>Input` counts
        seen[name] = type(args).__name__
        return {}
    method.__name__ = name
    return method

methods = {name: handler(name) for name in server.Handlers.__abstractmethods__}
Handlers = type("Handlers", (server.Handlers,), methods)
toolset = server.load()
engine = Engine(toolset, Handlers())
meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}
from toolgen import load_toolset  # the spec's examples: valid arguments for every tool
examples = {t.name: [e.input for e in t.examples if e.has_input] for t in load_toolset(sys.argv[2]).tools}
for tool in toolset.tools:
    ids = {"id": "n_0000abcd"} if "id" in tool.input_schema.get("properties", {}) else {}
    example = (examples.get(tool.name) or [ids])[0]  # delete_note has no example
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
               "params": {"name": tool.name, "arguments": example, "_meta": meta}}
    asyncio.run(engine.handle(message, Connection()))
print(json.dumps({"started_with_models": started_with_models, "seen": seen,
                  "tools": [t.name for t in toolset.tools]}))
"""


def _run(code: str, *args: str) -> str:
    proc = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_importing_the_generated_server_does_not_import_its_models() -> None:
    code = (
        "import sys; sys.path.insert(0, sys.argv[1])\n"
        "import notes.server\n"
        "print('notes.models' in sys.modules, 'pydantic' in sys.modules)\n"
    )
    assert _run(code, str(GENERATED)).split() == ["False", "False"]


def test_every_tool_gets_its_typed_input_model_once_called() -> None:
    result = json.loads(
        _run(CALL_EVERY_TOOL, str(GENERATED), str(SPECS / "notes")).strip().splitlines()[-1]
    )
    assert result["started_with_models"] is False
    expected = {
        name: "".join(part.capitalize() for part in name.split("_")) + "Input"
        for name in result["tools"]
    }
    assert result["seen"] == expected


def test_the_models_are_still_importable_from_the_server_module() -> None:
    code = (
        "import sys; sys.path.insert(0, sys.argv[1])\n"
        "from notes.server import CreateNoteInput\n"
        "import notes.models\n"
        "print(CreateNoteInput is notes.models.CreateNoteInput)\n"
        "import notes.server\n"
        "try:\n"
        "    notes.server.NoSuchName\n"
        "except AttributeError as exc:\n"
        "    print(exc)\n"
    )
    lines = _run(code, str(GENERATED)).splitlines()
    assert lines == ["True", "module 'notes.server' has no attribute 'NoSuchName'"]


def test_a_generated_server_without_models_module_fails_the_call_not_silently(
    tmp_path: Path,
) -> None:
    package = tmp_path / "notes"
    subprocess.run(["cp", "-r", str(GENERATED / "notes"), str(package)], check=True)
    (package / "models.py").write_text("raise ImportError('broken models')\n", encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-c", CALL_EVERY_TOOL, str(tmp_path), str(SPECS / "notes")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["seen"] == {}, "a handler got arguments although the models do not import"


CALL_ONE_TOOL = r"""
import asyncio, json, sys
sys.path.insert(0, sys.argv[1])
from notes import models, server
from toolgen.runtime import Connection, Engine

def handler(name):
    def method(self, args):  # no annotation: the generated method's `args: <Tool>Input` counts
        return {}
    method.__name__ = name
    return method

methods = {name: handler(name) for name in server.Handlers.__abstractmethods__}
Handlers = type("Handlers", (server.Handlers,), methods)
engine = Engine(server.load(), Handlers())
built_on_import = sorted(
    name for name, value in vars(models).items()
    if name.endswith("Input") and isinstance(value, type) and value.__pydantic_complete__
)
message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
           "params": {"name": "get_note", "arguments": {"id": "n_0000abcd"},
                      "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}}
asyncio.run(engine.handle(message, Connection()))
built = sorted(
    name for name, value in vars(models).items()
    if name.endswith("Input") and isinstance(value, type) and value.__pydantic_complete__
)
print(json.dumps({"on_import": built_on_import, "after_call": built}))
"""


def test_a_first_call_builds_the_validator_of_the_called_tools_model_only() -> None:
    # `defer_build`: importing `models` builds no tool's validator; a call builds its own
    # tool's (and the other tools' pydantic-core validators are never built, nor held)
    result = json.loads(_run(CALL_ONE_TOOL, str(GENERATED)).strip().splitlines()[-1])
    assert result == {"on_import": [], "after_call": ["GetNoteInput"]}
