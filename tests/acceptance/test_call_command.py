"""`toolgen call`: one tool of a live server from the shell, destructive tools only when
allowed (the MCP annotation defaults decide what may destroy data)."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import ROOT, SPECS

from toolgen.cli import cli
from toolgen.client.call import CallError, check_callable, may_destroy
from toolgen.extras import install_hint

SERVER = (
    f"{sys.executable} -m toolgen serve {SPECS / 'notes'} "
    f"--handlers {ROOT / 'examples' / 'notes_handlers.py'}:NotesHandlers"
)


def invoke(*args: str) -> subprocess.CompletedProcess[str]:
    """`toolgen call` as a process (the SDK's stdio client needs real file descriptors)."""
    argv = [sys.executable, "-m", "toolgen", "call", *args, "--server", SERVER]
    return subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)


@pytest.mark.parametrize(
    ("annotations", "destroys"),
    [
        (None, True),  # MCP defaults: not read-only, destructive
        ({}, True),
        ({"readOnlyHint": True}, False),
        ({"readOnlyHint": False}, True),
        ({"destructiveHint": False}, False),
        ({"readOnlyHint": False, "destructiveHint": True}, True),
        ({"readOnlyHint": True, "destructiveHint": True}, False),  # hints apply to writers only
        # hints that are not JSON booleans read as the MCP default
        ({"readOnlyHint": "true"}, True),
        ({"destructiveHint": "false"}, True),
        ({"readOnlyHint": 1}, True),
        ({"destructiveHint": 0}, True),
        ({"destructiveHint": None}, True),
        ("read-only", True),
    ],
)
def test_what_may_destroy_data_follows_the_mcp_defaults(
    annotations: dict[str, Any] | None, destroys: bool
) -> None:
    assert may_destroy(annotations) is destroys


LISTED_TWICE = [
    # (the entries of one name, in listing order): each is refused without consent
    [{"destructiveHint": True}, {"readOnlyHint": True}],
    [{"readOnlyHint": True}, {"destructiveHint": True}],
    [{"readOnlyHint": True}, {"readOnlyHint": "true"}],
    [{"destructiveHint": False}, None],
]


@pytest.mark.parametrize("entries", LISTED_TWICE)
def test_a_name_listed_twice_is_refused_when_any_entry_may_destroy(
    entries: list[dict[str, Any] | None],
) -> None:
    listed = [{"name": "purge", "annotations": hints} for hints in entries]
    with pytest.raises(CallError, match="listed 2 times"):
        check_callable("purge", listed, allow_destructive=False)
    check_callable("purge", listed, allow_destructive=True)


def test_a_destructive_tool_is_refused_unless_allowed() -> None:
    listed = [{"name": "purge", "annotations": {"destructiveHint": True}}]
    with pytest.raises(CallError, match="--allow-destructive"):
        check_callable("purge", listed, allow_destructive=False)
    check_callable("purge", listed, allow_destructive=True)


def test_a_call_prints_the_structured_result_as_json() -> None:
    result = invoke("create_note", '{"title": "Milk", "tags": ["shop"]}')
    assert result.returncode == 0, result.stderr
    note = json.loads(result.stdout)
    assert (note["title"], note["tags"]) == ("Milk", ["shop"])


def test_a_destructive_tool_is_not_called_without_the_flag() -> None:
    refused = invoke("delete_note", '{"id": "n_00000000"}')
    assert refused.returncode == 2
    assert "may destroy data" in refused.stderr
    assert refused.stdout == ""
    allowed = invoke("delete_note", '{"id": "n_00000000"}', "--allow-destructive")
    assert allowed.returncode == 0, allowed.stderr
    assert json.loads(allowed.stdout) == {"deleted": False}


@pytest.mark.parametrize(
    ("args", "code", "stderr"),
    [
        (["get_note", '{"id": "n_00000000"}'], 1, "There is no note n_00000000"),
        (["nope"], 2, "it has: count_notes, create_note"),
        (["count_notes", "[1"], 2, "not JSON"),
        (["count_notes", "[1]"], 2, "expected a JSON object"),
    ],
)
def test_a_failed_or_refused_call_exits_non_zero_saying_why(
    args: list[str], code: int, stderr: str
) -> None:
    result = invoke(*args)
    assert result.returncode == code
    assert stderr in result.stderr


def test_call_needs_exactly_one_server() -> None:
    result = CliRunner().invoke(cli, ["call", "count_notes"])
    assert result.exit_code == 2
    assert "exactly one of --server" in result.stderr


def test_a_server_command_with_an_unclosed_quote_is_a_usage_error() -> None:
    result = CliRunner().invoke(cli, ["call", "count_notes", "--server", "python 'x"])
    assert result.exit_code == 2
    assert "Invalid value for --server: No closing quotation" in result.stderr
    assert "internal error" not in result.stderr


def test_a_call_over_http_sends_the_given_headers() -> None:
    from http_support import http_server

    import toolgen
    from examples.notes_handlers import NotesHandlers
    from toolgen.serve.http import SecurityPolicy

    policy = SecurityPolicy(token="s3cret")
    with http_server(toolgen.load(SPECS / "notes"), NotesHandlers(), policy) as url:
        call = [sys.executable, "-m", "toolgen", "call", "count_notes", "--url", url]
        runs = [
            subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
            for argv in ([*call, "-H", "Authorization: Bearer s3cret"], call)
        ]
    assert (runs[0].returncode, runs[0].stdout.strip()) == (0, "0"), runs[0].stderr
    assert runs[1].returncode == 2
    assert "Unauthorized" in runs[1].stderr


def test_without_the_mcp_extra_call_is_a_usage_error_naming_the_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A default install has no MCP SDK: that is the user's install, not a bug in toolgen."""
    monkeypatch.setitem(sys.modules, "mcp", None)  # `import mcp` raises ImportError
    result = CliRunner().invoke(cli, ["call", "count_notes", "--server", "true"])
    assert result.exit_code == 2
    assert install_hint("mcp") in result.stderr  # how this toolgen was installed: a clone here
    assert "internal error" not in result.stderr
