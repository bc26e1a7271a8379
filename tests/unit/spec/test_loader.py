"""The loader follows YAML 1.2, keeps positions, and groups spec sets as documented."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from toolgen import SpecError, load_toolset
from toolgen.spec.loader import spec_sets
from toolgen.spec.source import parse_source


def test_yaml_1_2_scalars_keep_yes_no_on_off_as_strings() -> None:
    source = parse_source(
        "a: [yes, no, on, off, y, n]\nb: true\nc: 0o17\nd: 1e3\ne: ~\n", Path("x.yaml")
    )
    assert source.data == {
        "a": ["yes", "no", "on", "off", "y", "n"],
        "b": True,
        "c": 15,
        "d": 1000.0,
        "e": None,
    }


def test_quoted_and_explicitly_tagged_scalars_stay_strings() -> None:
    source = parse_source("a: '123'\nb: !!str true\nc: \"null\"\n", Path("x.yaml"))
    assert source.data == {"a": "123", "b": "true", "c": "null"}


def test_positions_are_recorded_for_values_and_keys() -> None:
    source = parse_source("top:\n  - name: a\n    deep: {x: 1}\n", Path("x.yaml"))
    assert (
        source.locate(("top", 0, "deep", "x")).line,
        source.locate(("top", 0, "deep", "x")).column,
    ) == (3, 15)
    key = source.locate(("top", 0, "deep"), key=True)
    assert (key.line, key.column) == (3, 5)
    # a path below a scalar falls back to the nearest known ancestor
    assert source.locate(("top", 0, "deep", "x", "missing")).line == 3


@pytest.mark.parametrize(
    "text", ["a: &x [*x]\n", "a: .nan\n", "? [1]\n: 2\n", "a: !!python/object:os.system x\n"]
)
def test_yaml_that_is_not_json_data_is_rejected_with_a_position(text: str) -> None:
    with pytest.raises(SpecError) as caught:
        parse_source(text, Path("x.yaml"))
    assert all(d.location is not None for d in caught.value.diagnostics)


def test_extension_keys_are_kept_on_tools_and_server(write_specs: Any) -> None:
    root = write_specs({"main.yaml": "x-team: core\ntools:\n  - name: a\n    x-owner: ops\n"})
    toolset = load_toolset(root)
    assert toolset.tool("a").extensions == {"x-owner": "ops"}


def test_a_tool_without_input_takes_no_arguments(write_specs: Any) -> None:
    toolset = load_toolset(write_specs({"main.yaml": "tools:\n  - name: a\n"}))
    assert toolset.tool("a").input_schema == {"type": "object", "additionalProperties": False}


def test_both_hint_spellings_are_accepted(write_specs: Any) -> None:
    root = write_specs(
        {
            "main.yaml": "tools:\n  - name: a\n    annotations: {readOnlyHint: true, destructive: false}\n"
        }
    )
    assert load_toolset(root).tool("a").annotations.to_mcp() == {
        "readOnlyHint": True,
        "destructiveHint": False,
    }


def test_a_directory_of_spec_sets_is_split_by_subdirectory(tmp_path: Path) -> None:
    for name in ("one", "two"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "main.yaml").write_text(
            f"toolgen: 1\nserver: {{name: {name}, version: '1'}}\n"
        )
    (tmp_path / "two" / "more.yaml").write_text("toolgen: 1\ntools: []\n")
    sets = spec_sets([tmp_path])
    assert [s.root.name for s in sets] == ["one", "two"]
    assert [len(s.files) for s in sets] == [1, 2]


def test_a_directory_with_one_server_is_one_spec_set(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "main.yaml").write_text("toolgen: 1\nserver: {name: x, version: '1'}\n")
    (tmp_path / "b" / "defs.yaml").write_text("toolgen: 1\ndefs: {}\n")
    assert len(spec_sets([tmp_path])) == 1


def test_an_empty_directory_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(SpecError) as caught:
        load_toolset(tmp_path)
    assert caught.value.diagnostics[0].code == "no-specs"


def test_same_def_name_in_two_files_gets_distinct_bundled_names(write_specs: Any) -> None:
    root = write_specs(
        {
            "main.yaml": "defs: {Id: {type: string}}\ntools:\n  - name: a\n    input: {type: object, properties: {x: {$ref: '#/defs/Id'}, y: {$ref: 'other.yaml#/defs/Id'}}}\n",
            "other.yaml": "toolgen: 1\ndefs: {Id: {type: integer}}\n",
        }
    )
    schema = load_toolset(root).tool("a").input_schema
    assert sorted(schema["$defs"]) == ["MainId", "OtherId"]
    assert schema["$defs"]["OtherId"] == {"type": "integer"}
