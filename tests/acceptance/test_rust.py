"""The Rust target end to end, with cargo and the official Rust SDK (rmcp).

The crates `toolgen build --target rust` prints (every shared vector set and a real server's
imported spec set) build clippy- and rustfmt-clean in one workspace with the tests' binaries
(`targets_support.RustRow`, whose vectors also hold every printed server's listing to the
build's); mistakes in code using the printed types do not compile; a notes server written on
the printed crate passes `toolgen verify --fail-on should`, and is called tool by tool by the
Python SDK's client and by the crate's own `Client`, which never calls a tool the spec calls
safe that the server hints may destroy.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from conftest import SPECS, UNSAFE_LISTINGS, toolset_of
from rust_support import DEBUG, SOURCES, TIMES, WORKSPACE, cargo, require
from targets_support import ROWS, SETS, answered, verify_report

from toolgen import load_toolset
from toolgen.build.rust.crate import render_rust
from toolgen.build.target import Rendering
from toolgen.client.drift import compare
from toolgen.spec.protocol import list_tools_result, structured_value

MODERN = "2026-07-28"
LEGACY = "2025-11-25"
GUARD = 120.0
"""Seconds before a hung server or client fails: a guard, not a timing assertion."""
NOTES = load_toolset(SPECS / "notes")


@pytest.fixture(scope="module")
def binaries(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The workspace built (once per run, shared with the vectors' table)."""
    require()
    failed = ROWS["rust"].build(tmp_path_factory.mktemp("rust"))
    assert not failed, failed
    print(f"cargo times this run: {TIMES}")
    return DEBUG


def server(binaries: Path) -> list[str]:
    return [str(binaries / "notes_server")]


def run(argv: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, timeout=GUARD, check=False)


CRATES = ["memory", *(load_toolset(specs).server.package for specs in SETS.values())]
"""The printed crates of the workspace."""


def test_the_workspace_is_clippy_clean_and_the_printed_crates_rustfmt_clean(binaries: Path) -> None:
    clippy = cargo("clippy", "--locked", "--workspace", "--all-targets", "--", "-D", "warnings", timed="clippy")  # fmt: skip
    assert clippy.returncode == 0, clippy.stderr[-6000:]
    formatted = cargo("fmt", "--check", *(f"-p={crate}" for crate in CRATES))
    assert formatted.returncode == 0, formatted.stdout[-6000:]
    assert CRATES[0] == "memory" and (WORKSPACE / "memory" / "src" / "lib.rs").is_file()


MISTAKES = [
    ("wrong_field_type", "E0308"),
    ("missing_field", "E0063"),
    ("wrong_variant", "E0599"),
    ("wrong_result", "E0271"),
]
"""A feature of the compile-fail crate (the one mistake it makes) and the error it must cause."""


@pytest.mark.parametrize(("feature", "code"), MISTAKES)
def test_code_using_the_printed_types_wrongly_does_not_compile(
    binaries: Path, feature: str, code: str
) -> None:
    source = (SOURCES / "compile_fail" / "src" / "lib.rs").read_text().splitlines()
    [line] = [n for n, text in enumerate(source, 1) if text.endswith(f"// {feature}")] or [
        n + (-1 if "above" in text else 1)
        for n, text in enumerate(source, 1)
        if text.strip().startswith(f"// {feature}: the line")
    ]
    done = cargo("check", "--locked", "-p", "compile_fail", "--features", feature, "--message-format=short")  # fmt: skip
    assert done.returncode != 0
    errors = re.findall(r"^compile_fail/src/lib\.rs:(\d+):\d+: error\[(E\d+)\]", done.stderr, re.M)
    assert errors and all(found == (str(line), code) for found in errors), done.stderr[-3000:]


def test_the_compile_fail_crate_compiles_without_its_mistakes(binaries: Path) -> None:
    done = cargo("check", "--locked", "-p", "compile_fail")
    assert done.returncode == 0, done.stderr[-3000:]


LENGTHS = [1, 10, 20, 30, 40, 41, 42, 43, 50, 55, 56, 60, 62, 63, 64, 66]
"""Lengths of names whose crates are checked, on both sides of each of rustfmt's thresholds.
Past 66 (a type name of 84 characters in a tuple) rustfmt writes `pub  Option<` with two
spaces, which the printer does not copy."""


@pytest.mark.parametrize("length", LENGTHS)
def test_printed_crates_are_rustfmt_clean_whatever_the_length_of_names(
    tmp_path: Path, length: int
) -> None:
    """Each construct whose layout depends on a name's length, with names of growing length
    (rustfmt breaks lines at 100 columns and some constructs earlier)."""
    require()
    word = ("abcdefghij" * 7)[:length]
    item = {"type": "object", "properties": {word: {"type": "string"}, "n": {"type": "integer"}},
            "required": [word], "additionalProperties": False}  # fmt: skip
    schema = {
        "type": "object",
        "properties": {
            word: {"type": "array", "items": item},
            "x" + word: {"type": ["string", "null"], "description": "a " + word},
            "pair": {"type": "array", "prefixItems": [{"type": "string"}, item], "minItems": 1},
            "union": {"anyOf": [{"type": "integer"}, item]},
            "kind": {"enum": [word, word + "-x"]},
            "tagged": {
                "oneOf": [
                    {
                        "type": "object",
                        "properties": {word: {"const": "a" + word}},
                        "required": [word],
                        "additionalProperties": False,
                    },
                    {
                        "type": "object",
                        "properties": {word: {"const": "b" + word}, "n": {"type": "integer"}},
                        "required": [word],
                        "additionalProperties": False,
                    },
                ]
            },
        },
        "additionalProperties": False,
    }
    toolset = toolset_of((f"get_{word}", schema, schema), (word, schema, None))
    for path, text in render_rust(Rendering(toolset, "x")):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    lib = tmp_path / "src" / "lib.rs"
    done = subprocess.run(["rustfmt", "--check", "--edition", "2024", str(lib)],
                          capture_output=True, text=True, check=False)  # fmt: skip
    assert done.returncode == 0, done.stdout[-4000:]


def test_the_server_passes_toolgen_verify_failing_on_should(binaries: Path) -> None:
    done = run(
        [sys.executable, "-m", "toolgen", "verify", str(SPECS / "notes"),
         "--server", str(binaries / "notes_server"), "--fail-on", "should",
         "--allow-destructive", "--format", "json"]
    )  # fmt: skip
    report = verify_report(done)
    assert {tool for tool, _ in answered(report)} == {tool.name for tool in NOTES.tools}


@pytest.mark.parametrize("mode", ["legacy", MODERN])
def test_the_python_sdk_client_calls_every_tool_and_sees_refusals(
    binaries: Path, mode: str
) -> None:
    from mcp.shared.exceptions import MCPError

    from toolgen.client.connect import list_all_tools, open_session

    async def main() -> None:
        with anyio.fail_after(GUARD):
            async with open_session(command=server(binaries), mode=mode) as session:
                revision = session.protocol_version
                assert revision == (MODERN if mode == MODERN else LEGACY)
                expected = list_tools_result(NOTES, revision)["tools"]
                assert compare(expected, await list_all_tools(session)) == []
                created = await session.call_tool("create_note", {"title": "Groceries", "tags": ["home"]})  # fmt: skip
                assert not created.is_error, created.content
                note = {"id": "n_00000001", "title": "Groceries", "tags": ["home"]}
                assert created.structured_content == note
                assert json.loads(created.content[0].text) == note
                tool = next(t for t in NOTES.tools if t.name == "list_notes")
                listed = await session.call_tool("list_notes", {})
                assert listed.structured_content == structured_value(tool, [note], revision)
                for tool in NOTES.tools:
                    arguments = next((e.input for e in tool.examples if e.has_input), {})
                    if tool.name in {"get_note", "delete_note"}:
                        arguments = {"id": note["id"]}
                    result = await session.call_tool(tool.name, arguments)
                    assert not result.is_error, (tool.name, result.content)
                    assert "structured_content" in result.model_fields_set, tool.name
                refused = await session.call_tool("create_note", {"title": "", "colour": 1})
                assert refused.is_error
                text = refused.content[0].text
                assert text.startswith("Invalid arguments for tool 'create_note': ")
                assert "title: " in text and "colour" in text  # each field named
                failed = await session.call_tool("get_note", {"id": "n_0000dead"})
                assert failed.is_error and failed.content[0].text == "no note n_0000dead"
                with pytest.raises(MCPError) as unknown:
                    await session.call_tool("no_such_tool", {})
                assert unknown.value.error.code == -32602

    anyio.run(main)


def test_the_generated_client_calls_every_tool_with_typed_results(binaries: Path) -> None:
    done = run([str(binaries / "notes_client"), "every", *server(binaries)])
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout)
    note = {"id": "n_00000001", "title": "Groceries", "body": "milk", "tags": ["home", "home-garden"]}  # fmt: skip
    assert report["revision"] == LEGACY
    assert report["drift"] == 0
    assert report["create_note"] == note
    assert report["get_note"] == note
    assert report["list_notes"] == [note]  # wrapped at 2025-11-25, unwrapped by the client
    assert report["count_notes"] == 1
    assert report["tag_tree"] == {"tag": "home", "children": [{"tag": "home-garden"}]}
    assert report["delete_note"] == {"deleted": True}
    assert report["get_deleted"] == {"isError": "no note n_00000001"}


@pytest.mark.parametrize(("hints", "refused"), UNSAFE_LISTINGS)
def test_the_generated_client_does_not_call_a_tool_the_spec_calls_safe_that_may_destroy(
    binaries: Path, hints: list[Any], refused: bool
) -> None:
    stand_in = [sys.executable, str(WORKSPACE / "stand_in_server.py"),
                str(WORKSPACE / "notes" / "tools" / f"{LEGACY}.json"), json.dumps(hints)]  # fmt: skip
    done = run([str(binaries / "notes_client"), "count", *stand_in])
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout)
    if refused:  # by the safety drift, or by a listing rmcp cannot read at all
        assert report["error"] is not None
        assert ["count_notes", "safety"] in report["drift"] or report["error"] == "other"
    else:  # (the annotations differ from the spec's: drift, but not about safety)
        assert report["error"] is None
        assert ["count_notes", "safety"] not in report["drift"]
