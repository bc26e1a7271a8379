"""The server stub emitter and its templates: safe literals, names, a scaffold that runs."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import ROOT, SPECS

from toolgen import load_toolset
from toolgen.build.python.server import render_handlers_scaffold, render_server, scaffold_path
from toolgen.build.run import render_package
from toolgen.build.templating import docstring, identifier, py_literal, template_dir
from toolgen.spec.errors import ErrorCode, SpecError

HOSTILE = [
    'a """ b',
    "a ''' b",
    "back\\slash",
    "new\nline",
    "{{ jinja }} {% block %}",
    "nul \x00 and \u2028 separator",
    '"; __import__("os").system("echo PWNED") #',
]


@pytest.mark.parametrize("text", HOSTILE)
def test_spec_strings_become_python_literals_that_read_back_unchanged(text: str) -> None:
    assert ast.literal_eval(py_literal(text)) == text
    assert ast.literal_eval(py_literal({"k": [text, 1, None, True]})) == {
        "k": [text, 1, None, True]
    }
    assert ast.literal_eval(docstring(text)) == text


@pytest.mark.parametrize("name", ["a b", "1x", "class", "x-y", "é", "", "a.b"])
def test_identifier_filter_refuses_anything_but_plain_identifiers(name: str) -> None:
    with pytest.raises(ValueError):
        identifier(name)


def test_templates_are_found_in_the_repository() -> None:
    assert (template_dir() / "python" / "server.py.jinja").is_file()


def test_tools_that_share_a_method_name_are_an_input_error(
    write_specs: Callable[..., Path],
) -> None:
    root = write_specs(
        {
            "main.yaml": "tools:\n"
            "  - name: get.item\n"
            "    description: One.\n"
            "  - name: get-item\n"
            "    description: Two.\n"
        }
    )
    with pytest.raises(SpecError) as caught:
        render_server(load_toolset(root), source_note="specs")
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.code == ErrorCode.INVALID_NAME
    assert (diagnostic.location.line, diagnostic.location.column) == (6, 11)  # 2nd name


def test_the_scaffold_implements_every_tool_and_answers_not_implemented(tmp_path: Path) -> None:
    toolset = load_toolset(SPECS / "notes")
    package = tmp_path / "notes"
    for rel, text in render_package(toolset, source_note="specs/notes").items():
        (package / rel).parent.mkdir(parents=True, exist_ok=True)
        (package / rel).write_text(text, encoding="utf-8")
    scaffold = tmp_path / scaffold_path("notes")
    scaffold.write_text(render_handlers_scaffold(toolset), encoding="utf-8")
    code = (
        "import asyncio, notes_handlers as h\n"
        "from toolgen.runtime import Engine, Connection\n"
        "from notes.server import load\n"
        "engine = Engine(load(), h.NotesHandlers())\n"
        "c = Connection()\n"
        "m = {'jsonrpc': '2.0', 'id': 1, 'method': 'tools/call', 'params': {'name': 'count_notes',"
        " '_meta': {'io.modelcontextprotocol/protocolVersion': '2026-07-28'}}}\n"
        "r = asyncio.run(engine.handle(m, c))['result']\n"
        "print(r['isError'], r['content'][0]['text'])\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == "True count_notes is not implemented yet\n"


def test_generated_server_refuses_handlers_that_miss_a_tool() -> None:
    code = (
        "import sys; sys.path.insert(0, 'generated')\n"
        "from notes.server import Handlers\n"
        "class Partial(Handlers):\n"
        "    def create_note(self, args): return {}\n"
        "Partial()\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 1
    assert "abstract" in result.stderr


def test_toolgen_serve_runs_the_scaffold_by_file_path_without_pythonpath(tmp_path: Path) -> None:
    out = tmp_path / "out"
    build = subprocess.run(
        [sys.executable, "-m", "toolgen", "build", str(SPECS / "notes"), "-o", str(out), "-q"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert build.returncode == 0, build.stderr
    handlers = f"{out / 'notes_handlers.py'}:NotesHandlers"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    serve = subprocess.run(
        [sys.executable, "-m", "toolgen", "serve", str(SPECS / "notes"), "--handlers", handlers],
        input="",
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=60,
        check=False,
    )
    assert serve.returncode == 0, serve.stderr
    assert "No module named" not in serve.stderr
