"""Published tool definitions (tools/list JSON, Tool JSON files) read into the IR with positions."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import CORPUS

from toolgen.spec.errors import SpecError
from toolgen.spec.published import is_published, load_published, read_published, server_name

TOOL = {
    "name": "get_user",
    "title": "Get a user",
    "description": "Return a user.",
    "inputSchema": {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {"id": {"type": "string"}},
    },
    "annotations": {"readOnlyHint": True, "openWorldHint": False, "title": "User"},
    "x-team": "identity",
}


def write(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("shape", "tool_path"),
    [
        ({"tools": [TOOL]}, ("tools", 0)),
        ({"jsonrpc": "2.0", "id": 1, "result": {"tools": [TOOL]}}, ("result", "tools", 0)),
        ([TOOL], (0,)),
        (TOOL, ()),
    ],
    ids=["tools-list", "json-rpc-response", "list", "one-tool"],
)
def test_every_file_shape_gives_the_tool_at_its_path(
    shape: object, tool_path: tuple[object, ...], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    toolset = load_published(write(tmp_path / "tools.json", shape))
    (tool,) = toolset.tools
    assert tool.origin.path == tool_path
    assert tool.name == "get_user"
    assert tool.title == "Get a user"
    assert tool.annotations.read_only is True
    assert tool.annotations.open_world is False
    assert tool.annotations.destructive is None
    assert tool.annotations.title == "User"
    assert tool.input_schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert tool.input_schema["properties"] == {"id": {"type": "string"}}
    assert tool.extensions == {"x-team": "identity"}
    assert tool.input_origin is not None
    assert tool.input_origin.path == (*tool_path, "inputSchema")
    assert tool.origin.locate("name").file == "tools.json"
    assert toolset.server.name == "tools"


def test_positions_point_into_the_json_text(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_text(
        '{"tools": [\n  {"name": "a", "inputSchema": {"type": "object"}},\n'
        '  {"name": "b",\n   "inputSchema": {"type": "object"}}\n]}\n',
        encoding="utf-8",
    )
    toolset = load_published(path)
    b = toolset.tool("b")
    assert (b.origin.locate("name").line, b.origin.locate("name").column) == (3, 12)
    assert b.input_origin is not None
    where = b.input_origin.locate("type")
    assert (where.line, where.column) == (4, 28)


def test_a_directory_of_tool_files_is_one_server(tmp_path: Path) -> None:
    folder = tmp_path / "My Server!"
    folder.mkdir()
    write(folder / "b.json", {**TOOL, "name": "b"})
    write(folder / "a.json", {**TOOL, "name": "a"})
    (folder / "README.md").write_text("not a tool", encoding="utf-8")
    toolset = load_published(folder)
    assert [t.name for t in toolset.tools] == ["a", "b"]
    assert toolset.server.name == "my-server"
    assert len(toolset.sources) == 2


def test_of_built_packages_only_the_latest_tools_list_is_read(tmp_path: Path) -> None:
    """Their schemas, provider views and reports are not read as tools; other files are."""
    from conftest import GENERATED, SPECS

    from toolgen import load_toolset

    shutil.copytree(GENERATED / "notes", tmp_path / "out" / "notes")
    write(tmp_path / "out" / "extra.json", {**TOOL, "name": "extra"})
    result = read_published(tmp_path / "out")
    assert result.problems == ()
    names = [tool.name for tool in result.toolset.tools]
    assert names == ["extra", *(tool.name for tool in load_toolset(SPECS / "notes").tools)]


def test_the_corpus_reads_without_problems() -> None:
    published = read_published(CORPUS)
    assert published.problems == ()
    assert len(published.toolset.tools) == 117
    assert published.toolset.server.name == "github-mcp-server"


def test_declared_toolgen_wrapping_is_undone(tmp_path: Path) -> None:
    tool = {
        "name": "count",
        "inputSchema": {"type": "object"},
        "outputSchema": {
            "type": "object",
            "properties": {"result": {"type": "integer"}},
            "required": ["result"],
        },
        "_meta": {"dev.toolgen/wrappedOutput": "result"},
    }
    (parsed,) = load_published(write(tmp_path / "t.json", [tool])).tools
    assert parsed.output_schema == {"type": "integer"}
    assert parsed.output_origin is not None
    assert parsed.output_origin.path == (0, "outputSchema", "properties", "result")


def test_json_surrogate_pair_escapes_are_read_as_one_character(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_text(
        '[{"name": "wave", "description": "Say hi \\ud83d\\udc4b", '
        '"inputSchema": {"type": "object"}}]',
        encoding="utf-8",
    )
    (tool,) = load_published(path).tools
    assert tool.description == "Say hi \U0001f44b"


@pytest.mark.parametrize(
    ("tools", "expected"),
    [
        ([{"inputSchema": {"type": "object"}}], ("missing-key", 1, 2)),
        ([{"name": "a"}], ("missing-key", 1, 11)),
        ([{"name": 5, "inputSchema": {"type": "object"}}], ("wrong-type", 1, 11)),
        ([{"name": "a", "inputSchema": {"type": "string"}}], ("input-not-object", 1, 40)),
        ([{"name": "a", "inputSchema": {"type": 7}}], ("invalid-schema", 1, 40)),
        (
            [{"name": "a", "inputSchema": {}, "annotations": {"readOnlyHint": "yes"}}],
            ("wrong-type", 1, 67),
        ),
        (
            [{"name": "a", "inputSchema": {"type": "object"}}] * 2,
            ("duplicate-tool", 1, 61),
        ),
    ],
    ids=["no-name", "no-input", "name-type", "input-not-object", "bad-schema", "hint", "dup"],
)
def test_bad_definitions_are_reported_with_code_and_position(
    tools: list[object], expected: tuple[str, int, int], tmp_path: Path
) -> None:
    path = tmp_path / "t.json"
    path.write_text(json.dumps(tools), encoding="utf-8")
    with pytest.raises(SpecError) as caught:
        load_published(path)
    got = [
        (d.code, d.location.line, d.location.column) for d in caught.value.diagnostics if d.location
    ]
    assert expected in got, [str(d) for d in caught.value.diagnostics]


def test_unknown_schema_dialect_is_checked_as_2020_12_without_fetching(tmp_path: Path) -> None:
    tool = {"name": "a", "inputSchema": {"$schema": "http://127.0.0.1:9/nope", "type": "object"}}
    (parsed,) = load_published(write(tmp_path / "t.json", [tool])).tools
    assert parsed.input_schema == {"$schema": "http://127.0.0.1:9/nope", "type": "object"}


def test_a_tool_with_problems_is_left_out_but_the_others_are_read(tmp_path: Path) -> None:
    path = write(
        tmp_path / "t.json", [{"name": "bad"}, {"name": "good", "inputSchema": {"type": "object"}}]
    )
    published = read_published(path)
    assert [t.name for t in published.toolset.tools] == ["good"]
    assert [d.code for d in published.problems] == ["missing-key"]


def test_invalid_json_and_missing_paths_raise(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"tools": [', encoding="utf-8")
    with pytest.raises(SpecError) as caught:
        read_published(bad)
    assert caught.value.diagnostics[0].code == "yaml-syntax"
    with pytest.raises(SpecError) as missing:
        read_published(tmp_path / "nope.json")
    assert missing.value.diagnostics[0].code == "io"


def test_published_paths_are_told_apart_from_spec_sets(tmp_path: Path) -> None:
    (tmp_path / "pub").mkdir()
    (tmp_path / "pub" / "a.json").write_text("{}", encoding="utf-8")
    (tmp_path / "pub" / "README.md").write_text("", encoding="utf-8")
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "a.yaml").write_text("", encoding="utf-8")
    (tmp_path / "specs" / "b.json").write_text("{}", encoding="utf-8")
    assert is_published(tmp_path / "pub")
    assert is_published(tmp_path / "pub" / "a.json")
    assert not is_published(tmp_path / "specs")
    assert not is_published(tmp_path / "specs" / "a.yaml")
    assert not is_published(tmp_path / "missing")


def test_server_names_are_valid_server_names() -> None:
    assert server_name([Path("tools-list.json")]) == "tools-list"
    assert server_name([Path("2024 Export.json")]) == "server-2024-export"
    assert server_name([Path("a.json"), Path("b.json")]) == "published"


def test_a_server_without_tools_is_read_and_an_empty_directory_is_an_error(tmp_path: Path) -> None:
    assert load_published(write(tmp_path / "t.json", {"tools": []})).tools == ()
    (tmp_path / "empty").mkdir()
    with pytest.raises(SpecError) as caught:
        read_published(tmp_path / "empty")
    assert [d.code for d in caught.value.diagnostics] == ["no-specs"]


def test_a_declared_dialect_is_kept_and_linted_not_refused(tmp_path: Path) -> None:
    draft7 = {
        "name": "echo",
        "inputSchema": {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {"text": {"type": "string"}},
        },
    }
    published = read_published(write(tmp_path / "t.json", [draft7]))
    assert published.problems == ()
    (tool,) = published.toolset.tools
    assert tool.input_schema["$schema"] == "http://json-schema.org/draft-07/schema#"


def test_a_dangling_ref_is_reported_at_the_ref(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_text(
        '{"name": "a", "inputSchema": {"type": "object",\n'
        ' "properties": {"x": {"$ref": "#/definitions/Items"}}}}\n',
        encoding="utf-8",
    )
    published = read_published(path)
    (problem,) = published.problems
    assert problem.code == "unresolved-ref"
    assert problem.location is not None
    assert (problem.location.line, problem.location.column) == (2, 31)


def test_an_empty_input_schema_is_reported_and_read_as_an_object(tmp_path: Path) -> None:
    published = read_published(write(tmp_path / "t.json", [{"name": "a", "inputSchema": {}}]))
    assert [p.code for p in published.problems] == ["input-not-object"]
    assert published.toolset.tool("a").input_schema == {"type": "object"}


def test_icons_execution_and_meta_are_read_without_a_declared_wrapping(tmp_path: Path) -> None:
    tool = {
        "name": "a",
        "inputSchema": {"type": "object"},
        "icons": [{"src": "https://example.com/a.png"}],
        "execution": {"taskSupport": "required"},
        "_meta": {"com.example/x": 1, "dev.toolgen/wrappedOutput": "result"},
    }
    (read,) = load_published(write(tmp_path / "t.json", [tool])).tools
    assert read.icons == ({"src": "https://example.com/a.png"},)
    assert read.execution == {"taskSupport": "required"}
    assert read.meta == {"com.example/x": 1}


def test_a_def_is_shared_only_by_a_schema_equal_as_json_true_is_not_1() -> None:
    from toolgen.importer.refs import DefRegistry

    registry = DefRegistry({"Flag": {"const": 1}})
    assert registry.fits("Flag", {"const": 1.0})
    assert not registry.fits("Flag", {"const": True})
    assert registry.fits("Other", {"const": True})
