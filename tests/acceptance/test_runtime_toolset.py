"""The runtime library without a transport: validation, results, defaults, mock data."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
from conftest import CORPUS, ROOT, SPECS
from pydantic import BaseModel

import toolgen
from toolgen.runtime import ResultSchemaError, RuntimeToolSet
from toolgen.schema.sample import from_pattern, sample
from toolgen.serve.definitions import DEFINITIONS_REVISION, toolset_from_definitions
from toolgen.serve.handlers import bind
from toolgen.serve.mock import mock_value
from toolgen.spec.ir import ToolSet
from toolgen.spec.naming import handler_name
from toolgen.spec.protocol import SUPPORTED_REVISIONS, WRAP_KEY, tool_definition

NOTES = toolgen.load(SPECS / "notes")
SHOP = toolgen.load(SPECS / "shop")
CORPUS_FILES = sorted(CORPUS.glob("*.json"))


def test_load_returns_the_runtime_view_and_load_toolset_the_ir() -> None:
    assert isinstance(NOTES, RuntimeToolSet)
    assert isinstance(NOTES.toolset, ToolSet)
    assert isinstance(toolgen.load_toolset(SPECS / "notes"), ToolSet)
    assert [t.name for t in NOTES] == [t.name for t in NOTES.toolset.tools]
    assert "create_note" in NOTES
    assert NOTES.tool("get_note").name == "get_note"


def test_the_runtime_imports_neither_jinja2_nor_the_model_generator() -> None:
    code = (
        "import sys, toolgen\n"
        "from toolgen.serve import engine, stdio, mock, definitions\n"
        "tools = toolgen.load('specs/notes')\n"
        "tools.validate_input('create_note', {'title': 'x'})\n"
        "assert 'jinja2' not in sys.modules, 'jinja2'\n"
        "assert not any(m.startswith('datamodel_code_generator') for m in sys.modules)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


# -- validation -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"title": "Groceries"}, []),
        ({}, [((), "required")]),
        ({"title": ""}, [(("title",), "minLength")]),
        ({"title": "x", "tags": ["ok", "Not-OK"]}, [(("tags", 1), "pattern")]),
        ({"title": "x", "colour": "red"}, [((), "additionalProperties")]),
        ({"title": 5, "body": []}, [(("title",), "type"), (("body",), "type")]),
    ],
)
def test_validate_input_names_the_field_and_the_problem(
    arguments: dict[str, Any], expected: list[tuple[tuple[Any, ...], str]]
) -> None:
    issues = NOTES.validate_input("create_note", arguments)
    assert [(i.path, i.keyword) for i in issues] == expected


def test_issue_text_locates_the_field_like_python() -> None:
    (issue,) = NOTES.validate_input("create_note", {"title": "x", "tags": ["ok", "BAD"]})
    assert issue.location == "tags[1]"
    assert str(issue).startswith("tags[1]: ")


def test_validate_output_checks_the_unwrapped_value() -> None:
    assert NOTES.validate_output("count_notes", 3) == []
    (issue,) = NOTES.validate_output("count_notes", -1)
    assert issue.keyword == "minimum"
    assert NOTES.validate_output("count_notes", {WRAP_KEY: 3})[0].keyword == "type"


def test_unknown_tool_is_a_key_error() -> None:
    with pytest.raises(KeyError):
        NOTES.validate_input("nope", {})


# -- results ----------------------------------------------------------------------------


STRUCTURED_REVISIONS = [r for r in SUPPORTED_REVISIONS if r >= "2025-06-18"]


@pytest.mark.parametrize("revision", STRUCTURED_REVISIONS)
def test_call_result_has_structured_content_and_its_json_as_text(revision: str) -> None:
    note = {"id": "n_0000abcd", "title": "Groceries", "tags": ["home"]}
    result = NOTES.call_result("get_note", note, revision)
    assert result["structuredContent"] == note
    assert [block["type"] for block in result["content"]] == ["text"]
    assert json.loads(result["content"][0]["text"]) == note
    assert result["isError"] is False


def test_2025_03_26_results_carry_the_json_as_text_only() -> None:
    result = NOTES.call_result("count_notes", 3, "2025-03-26")
    assert "structuredContent" not in result
    assert json.loads(result["content"][0]["text"]) == 3


@pytest.mark.parametrize("revision", STRUCTURED_REVISIONS)
def test_non_object_results_are_wrapped_only_before_2026(revision: str) -> None:
    result = NOTES.call_result("count_notes", 3, revision)
    expected: Any = 3 if revision >= "2026-07-28" else {WRAP_KEY: 3}
    assert result["structuredContent"] == expected
    assert json.loads(result["content"][0]["text"]) == expected


@pytest.mark.parametrize("revision", SUPPORTED_REVISIONS)
def test_the_text_of_a_string_result_is_the_string_itself(revision: str) -> None:
    result = SHOP.call_result("cancel_order", "already_shipped", revision)
    assert result["content"] == [{"type": "text", "text": "already_shipped"}]
    if revision >= "2026-07-28":
        assert result["structuredContent"] == "already_shipped"
    elif revision >= "2025-06-18":
        assert result["structuredContent"] == {WRAP_KEY: "already_shipped"}


def test_a_result_that_violates_the_output_schema_raises() -> None:
    with pytest.raises(ResultSchemaError) as caught:
        NOTES.call_result("delete_note", {"deleted": "yes"}, "2025-11-25")
    assert [(i.path, i.keyword) for i in caught.value.issues] == [(("deleted",), "type")]


class NoteModel(BaseModel):
    id: str
    title: str
    body: str | None = None
    tags: list[str] | None = None


@dataclass
class NoteData:
    id: str
    title: str


def test_models_are_dumped_and_absent_optional_nulls_dropped() -> None:
    result = NOTES.call_result("get_note", NoteModel(id="n_0000abcd", title="T"), "2025-11-25")
    assert result["structuredContent"] == {"id": "n_0000abcd", "title": "T"}
    assert json.loads(result["content"][0]["text"]) == {"id": "n_0000abcd", "title": "T"}


def test_nested_models_and_dataclasses_inside_plain_data_are_converted() -> None:
    value = [NoteModel(id="n_0000abcd", title="A", tags=["x"]), NoteData("n_0000abce", "B")]
    result = NOTES.call_result("list_notes", value, "2026-07-28")
    assert result["structuredContent"] == [
        {"id": "n_0000abcd", "title": "A", "tags": ["x"]},
        {"id": "n_0000abce", "title": "B"},
    ]


def test_required_nulls_are_kept() -> None:
    order = SHOP.tool("place_order").examples[0].output
    assert order["note"] is None
    result = SHOP.call_result("place_order", order, "2025-11-25")
    assert result["structuredContent"]["note"] is None


@pytest.mark.parametrize("value", [2.0, 1e3, -0.0])
def test_a_float_under_an_id_key_of_a_result_stays_the_number_it_is(
    write_specs: Any, value: float
) -> None:
    spec = (
        "tools:\n  - name: pick\n    output:\n      type: object\n"
        "      properties: {id: {type: number}, params: {type: object}}\n"
    )
    tools = toolgen.load(write_specs({"main.yaml": spec}))
    result = {"id": value, "params": {"requestId": value}}
    structured = tools.call_result("pick", result, "2025-11-25")["structuredContent"]
    assert structured == result
    assert type(structured["id"]) is float and type(structured["params"]["requestId"]) is float


def test_tools_without_output_schema_answer_text() -> None:
    tools = toolgen.load(ROOT / "tests" / "runtime_support" / "spec")
    assert tools.call_result("hello", "Hi", "2025-11-25") == {
        "content": [{"type": "text", "text": "Hi"}],
        "isError": False,
    }
    assert tools.call_result("hello", {"a": 1}, "2025-11-25")["content"][0]["text"] == '{"a":1}'
    assert tools.call_result("hello", None, "2025-11-25") == {"content": [], "isError": False}


def test_tools_list_result_per_revision_matches_the_protocol_module() -> None:
    for revision in SUPPORTED_REVISIONS:
        assert NOTES.definitions(revision) == [
            tool_definition(t, revision) for t in NOTES.toolset.tools
        ]


# -- defaults ---------------------------------------------------------------------------


def test_defaults_are_filled_in_nested_objects_and_array_items() -> None:
    arguments = {
        "lines": [{"sku": "KIT-0042"}, {"sku": "KIT-0043", "quantity": 3}],
        "ship_to": {"name": "A", "street": "B", "city": "C", "postcode": "123", "country": "GB"},
        "payment": {"method": "card"},
    }
    filled = SHOP.with_defaults("place_order", arguments)
    assert [line["quantity"] for line in filled["lines"]] == [1, 3]
    assert "quantity" not in arguments["lines"][0]  # the caller's value is not touched
    assert SHOP.with_defaults("search_products", {"query": "kettle"})["in_stock_only"] is True


def test_default_values_are_copied_per_call() -> None:
    first = NOTES.with_defaults("create_note", {"title": "a"})
    first["tags"].append("changed")
    assert NOTES.with_defaults("create_note", {"title": "b"})["tags"] == []


# -- mock data --------------------------------------------------------------------------


def _corpus_schemas() -> list[tuple[str, Any]]:
    return [(path.stem, json.loads(path.read_text())["inputSchema"]) for path in CORPUS_FILES]


@pytest.mark.parametrize(("name", "schema"), _corpus_schemas())
def test_sample_data_is_valid_for_every_real_input_schema(name: str, schema: Any) -> None:
    value = sample(schema)
    assert jsonschema_rs.Draft202012Validator(schema).is_valid(value), (name, value)


@pytest.mark.parametrize(
    "tools", [NOTES, SHOP, toolgen.load(ROOT / "tests" / "runtime_support" / "spec")]
)
def test_mock_values_are_valid_for_every_tool(tools: RuntimeToolSet) -> None:
    for tool in tools:
        assert tools.validate_output(tool.name, mock_value(tool)) == [], tool.name
        assert tools.validate_input(tool.name, sample(tool.input_schema)) == [], tool.name


def test_mock_without_example_generates_from_the_output_schema() -> None:
    order = mock_value(SHOP.tool("get_order"))  # get_order has no example
    assert SHOP.validate_output("get_order", order) == []


@pytest.mark.parametrize(
    "pattern",
    [r"^n_[0-9a-f]{8}$", r"^[A-Z]{3}-[0-9]{4}$", r"^(ab|cd)+\d{2,}x?$", r"^[^abc]\w\s.$", r"^o_"],
)
def test_strings_generated_from_patterns_match_them(pattern: str) -> None:
    import re

    text = from_pattern(pattern)
    assert text is not None
    assert re.search(pattern, text)


# -- handler binding and generated-server definitions ------------------------------------


@pytest.mark.parametrize(
    ("tool", "method"),
    [
        ("create_note", "create_note"),
        ("get-item", "get_item"),
        ("ns.do-thing", "ns_do_thing"),
        ("2fa", "_2fa"),
        ("class", "class_"),
        ("__init__", "tool__init__"),
    ],
)
def test_handler_names_are_safe_python_identifiers(tool: str, method: str) -> None:
    assert handler_name(tool) == method


class Args(BaseModel):
    x: int


def test_binding_reads_how_a_handler_wants_its_arguments() -> None:
    def no_args() -> int:
        return 1

    def plain(arguments: dict[str, Any]) -> int:
        return 1

    def typed(arguments: Args) -> int:
        return 1

    async def asynchronous(arguments: dict[str, Any]) -> int:
        return 1

    assert (bind(no_args).takes_arguments, bind(no_args).is_async) == (False, False)
    assert bind(plain).input_model is None
    assert bind(typed).input_model is Args
    assert bind(typed).call_args({"x": 2}) == (Args(x=2),)
    assert bind(asynchronous).is_async


def test_definitions_rebuild_the_same_tools_for_every_revision() -> None:
    for tools in (NOTES, SHOP):
        rebuilt = toolset_from_definitions(
            {"name": tools.server.name, "version": tools.server.version},
            tools.definitions(DEFINITIONS_REVISION),
            path=Path("tools.json"),
        )
        for revision in SUPPORTED_REVISIONS:
            assert [tool_definition(t, revision) for t in rebuilt.tools] == tools.definitions(
                revision
            )
