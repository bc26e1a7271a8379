"""The generated notes server with real (SQLite) handlers, end to end with the official SDK.

`generated/notes/server.py` (the stub) + `examples/notes_handlers.py` must be
a working MCP server in both eras; the SDK checks every structured result
against the tool's output schema. The same handlers also run under
`toolgen serve specs/notes --handlers ...` (the YAML specs, no generated code).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT
from mcp import ClientSession
from runtime_support.calls import run_sdk_scenario

HANDLERS = ROOT / "examples" / "notes_handlers.py"
ERAS = ["legacy", "modern"]


def stub_command(db: Path) -> list[str]:
    return [str(HANDLERS), "--db", str(db)]


def serve_command(db: Path) -> list[str]:
    return ["-m", "toolgen", "serve", "specs/notes", "--handlers", f"{HANDLERS}:NotesHandlers"]


async def scenario(session: ClientSession, era: str) -> dict[str, Any]:
    """Create, read, list, count, tree and delete notes; return what each step answered."""

    def unwrap(result: Any) -> Any:
        value = result.structured_content
        return value["result"] if era == "legacy" and isinstance(value, dict) else value

    listing = await session.list_tools()
    created = await session.call_tool(
        "create_note", {"title": "Groceries", "body": "milk", "tags": ["home", "home-garden"]}
    )
    other = await session.call_tool("create_note", {"title": "Plan", "tags": ["work"]})
    note_id = created.structured_content["id"]
    got = await session.call_tool("get_note", {"id": note_id})
    home = await session.call_tool("list_notes", {"tag": "home"})
    everything = await session.call_tool("list_notes", {})
    count = await session.call_tool("count_notes", {})
    tree = await session.call_tool("tag_tree", {})
    deleted = await session.call_tool("delete_note", {"id": note_id})
    again = await session.call_tool("delete_note", {"id": note_id})
    missing = await session.call_tool("get_note", {"id": note_id})
    return {
        "tools": [tool.name for tool in listing.tools],
        "created": created.structured_content,
        "other": other.structured_content,
        "got": got.structured_content,
        "home": [n["id"] for n in unwrap(home)],
        "everything": [n["title"] for n in unwrap(everything)],
        "count": unwrap(count),
        "tree": tree.structured_content,
        "deleted": (deleted.structured_content, again.structured_content),
        "missing": (missing.is_error, missing.content[0].text),
        "errors": [r.is_error for r in (created, other, got, home, everything, count, tree)],
    }


def run(era: str, args: list[str]) -> dict[str, Any]:
    return run_sdk_scenario(era, args, scenario, ROOT)


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("command", [stub_command, serve_command], ids=["stub", "serve"])
def test_notes_server_keeps_notes_in_sqlite(era: str, command: Any, tmp_path: Path) -> None:
    answers = run(era, command(tmp_path / "notes.sqlite3"))
    assert answers["tools"] == [
        "create_note",
        "get_note",
        "list_notes",
        "count_notes",
        "delete_note",
        "tag_tree",
    ]
    assert answers["errors"] == [False] * 7
    created = answers["created"]
    assert re.fullmatch(r"n_[0-9a-f]{8}", created["id"])
    assert created == {
        "id": created["id"],
        "title": "Groceries",
        "body": "milk",
        "tags": ["home", "home-garden"],
    }
    assert answers["got"] == created
    assert answers["home"] == [created["id"]]
    assert answers["everything"] == ["Plan", "Groceries"]  # newest first
    assert answers["count"] == 2
    assert answers["tree"] == {
        "tag": "all",
        "children": [{"tag": "home", "children": [{"tag": "home-garden"}]}, {"tag": "work"}],
    }
    assert answers["deleted"] == ({"deleted": True}, {"deleted": False})
    is_error, message = answers["missing"]
    assert is_error
    assert created["id"] in message


def test_notes_persist_in_the_database_file(tmp_path: Path) -> None:
    db = tmp_path / "notes.sqlite3"
    run("legacy", stub_command(db))
    answers = run("modern", stub_command(db))
    assert answers["count"] == 3  # one note left by the first run, two more now
