"""Provider views: names, OpenAI strict conversion, Anthropic roots, Gemini's subset
(validated with `google-genai`), the loss report, and `toolgen tools --format`."""

from __future__ import annotations

import copy
import json
import math
import re
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import ROOT
from google.genai import types as gemini_types
from hypothesis import given, settings
from hypothesis import strategies as st
from openai.lib._pydantic import _ensure_strict_json_schema
from openai.types.chat import ChatCompletionFunctionToolParam
from openai.types.responses import FunctionTool, FunctionToolParam
from pydantic import TypeAdapter
from views_support import corpus_tools, gemini_subset_problems, openai_strict_problems

from toolgen.cli import cli
from toolgen.providers import toolset_view, view
from toolgen.providers.model import PROVIDERS, Provider, approx_tokens
from toolgen.providers.names import (
    ANTHROPIC_NAMES,
    GEMINI_NAMES,
    OPENAI_NAMES,
    map_names,
)
from toolgen.spec.pipeline import load_spec_set

SPEC_SETS = ["specs/notes", "specs/shop", "specs/conformance"]
PROVIDER_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def spec_tools() -> list[dict[str, Any]]:
    from toolgen.spec.protocol import LATEST_REVISION, tool_definition

    return [
        tool_definition(t, LATEST_REVISION)
        for spec in SPEC_SETS
        for t in load_spec_set(ROOT / spec).tools
    ]


ALL_TOOLS = spec_tools() + corpus_tools()


def tool(schema: dict[str, Any], name: str = "t") -> dict[str, Any]:
    return {"name": name, "description": "A tool.", "inputSchema": schema}


# -- names -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "names",
    [
        ["github.get_issue", "github_get_issue"],
        ["a.b", "a:b", "a b"],
        ["x" * 100, "x" * 101],
        ["ns.tool-1", "ns.tool_1", "ns-tool.1"],
    ],
)
def test_mapped_names_are_accepted_unique_and_independent_of_order(names: list[str]) -> None:
    for rule in (OPENAI_NAMES, ANTHROPIC_NAMES, GEMINI_NAMES):
        mapping = map_names(names, rule)
        assert set(mapping) == set(names)
        assert len(set(mapping.values())) == len(names)
        assert all(rule.accepts(v) for v in mapping.values())
        assert map_names(list(reversed(names)), rule) == mapping


def test_a_valid_name_is_kept_and_a_dotted_one_is_mapped_readably() -> None:
    mapping = map_names(["get_issue", "github.list_repos"], OPENAI_NAMES)
    assert mapping == {"get_issue": "get_issue", "github.list_repos": "github_list_repos"}


def test_a_name_starting_with_a_digit_is_kept_for_openai_but_not_for_gemini() -> None:
    assert map_names(["1password_get"], OPENAI_NAMES) == {"1password_get": "1password_get"}
    assert map_names(["1password_get"], GEMINI_NAMES) == {"1password_get": "_1password_get"}


def test_every_view_keeps_the_mcp_name_of_each_tool() -> None:
    tools = [tool({"type": "object"}, "files.read"), tool({"type": "object"}, "files_read")]
    for provider in ("openai", "anthropic", "gemini"):
        doc = view(provider, tools).document()
        assert sorted(doc["mcpNames"].values()) == ["files.read", "files_read"]
        assert all(PROVIDER_NAME.match(n) for n in doc["mcpNames"])


# -- OpenAI strict ------------------------------------------------------------------

STRICT_CASES: list[tuple[str, dict[str, Any], bool, set[tuple[str, str]]]] = [
    (
        "optional properties become required and nullable",
        {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
         "required": ["a"], "additionalProperties": False},
        True,
        {("/properties/b", "nullable")},
    ),
    (
        "an open object is closed",
        {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
        True,
        {("", "closed")},
    ),
    (
        "unsupported keywords move into the description",
        {"type": "object", "properties": {"a": {"type": "string", "minLength": 2, "format": "uri"}},
         "required": ["a"], "additionalProperties": False},
        True,
        {("/properties/a/minLength", "described"), ("/properties/a/format", "described")},
    ),
    (
        "oneOf of different types becomes anyOf",
        {"type": "object", "properties": {"v": {"oneOf": [{"type": "string"}, {"type": "integer"}]}},
         "required": ["v"], "additionalProperties": False},
        True,
        {("/properties/v/oneOf", "rewritten")},
    ),
    (
        "allOf is merged",
        {"type": "object", "allOf": [{"properties": {"a": {"type": "string"}}, "required": ["a"]}],
         "additionalProperties": False},
        True,
        {("", "rewritten")},
    ),
    (
        "a map stays not strict",
        {"type": "object", "properties": {"m": {"type": "object", "additionalProperties": {"type": "string"}}},
         "required": ["m"], "additionalProperties": False},
        False,
        set(),
    ),
    (
        "a value of any type stays not strict",
        {"type": "object", "properties": {"v": {"description": "anything"}}, "required": ["v"],
         "additionalProperties": False},
        False,
        set(),
    ),
    (
        "an array without items stays not strict",
        {"type": "object", "properties": {"v": {"type": "array"}}, "required": ["v"],
         "additionalProperties": False},
        False,
        set(),
    ),
    (
        "a recursive def keeps its reference",
        {"type": "object", "properties": {"node": {"$ref": "#/$defs/Node"}}, "required": ["node"],
         "additionalProperties": False,
         "$defs": {"Node": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}}},
                            "required": ["kids"], "additionalProperties": False}}},
        True,
        set(),
    ),
]  # fmt: skip


@pytest.mark.parametrize(
    ("schema", "strict", "losses"),
    [c[1:] for c in STRICT_CASES],
    ids=[c[0] for c in STRICT_CASES],
)
def test_openai_strict_conversion(
    schema: dict[str, Any], strict: bool, losses: set[tuple[str, str]]
) -> None:
    (converted,) = view("openai", [tool(schema)]).tools
    assert converted.strict is strict
    assert converted.definition["function"]["strict"] is strict
    if strict:
        assert openai_strict_problems(converted.definition["function"]["parameters"]) == []
        assert losses <= {(loss.path, loss.action) for loss in converted.losses}
    else:
        assert converted.blockers
        assert converted.definition["function"]["parameters"] == schema


def test_a_constraint_moved_into_the_description_is_still_said() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string", "description": "Name.",
              "maxLength": 8}}, "required": ["a"]}  # fmt: skip
    (converted,) = view("openai", [tool(schema)]).tools
    prop = converted.definition["function"]["parameters"]["properties"]["a"]
    assert prop["description"] == "Name.\nAt most 8 characters."
    assert "maxLength" not in prop


@pytest.mark.parametrize("tool_def", ALL_TOOLS, ids=[t["name"] for t in ALL_TOOLS])
def test_every_openai_tool_is_strict_valid_or_says_why_not(tool_def: dict[str, Any]) -> None:
    (converted,) = view("openai", [tool_def]).tools
    TypeAdapter(ChatCompletionFunctionToolParam).validate_python(converted.definition)
    assert PROVIDER_NAME.match(converted.definition["function"]["name"])
    if converted.strict:
        assert openai_strict_problems(converted.definition["function"]["parameters"]) == []
    else:
        assert converted.blockers


@pytest.mark.parametrize("tool_def", ALL_TOOLS, ids=[t["name"] for t in ALL_TOOLS])
def test_every_responses_tool_is_a_flat_function_tool_the_sdks_strict_helper_keeps(
    tool_def: dict[str, Any],
) -> None:
    """The Responses view is the Chat Completions conversion, flat; a strict one is already
    what the `openai` package's own strict-schema helper makes of it."""
    (converted,) = view("openai-responses", [tool_def]).tools
    definition = converted.definition
    TypeAdapter(FunctionToolParam).validate_python(definition, strict=True)
    assert FunctionTool.model_validate(definition).model_dump(exclude_none=True) == definition
    (chat,) = view("openai", [tool_def]).tools
    assert definition == {"type": "function", **chat.definition["function"]}
    assert list(definition) == [
        "type",
        "name",
        *(["description"] if "description" in definition else []),
        "parameters",
        "strict",
    ]
    if converted.strict:
        parameters = copy.deepcopy(definition["parameters"])
        assert (
            _ensure_strict_json_schema(parameters, path=(), root=parameters)
            == definition["parameters"]
        )


# -- Anthropic ------------------------------------------------------------------------


def test_anthropic_folds_root_alternatives_into_one_object() -> None:
    schema = {
        "type": "object",
        "properties": {"owner": {"type": "string"}},
        "oneOf": [
            {"properties": {"id": {"type": "integer"}}, "required": ["id"]},
            {"properties": {"slug": {"type": "string"}}, "required": ["slug"]},
        ],
        "required": ["owner"],
    }
    (converted,) = view("anthropic", [tool(schema)]).tools
    out = converted.definition["input_schema"]
    assert "oneOf" not in out
    assert set(out["properties"]) == {"owner", "id", "slug"}
    assert out["required"] == ["owner"]
    assert "exactly one of these sets of arguments: id | slug" in out["description"]
    assert [(loss.path, loss.action) for loss in converted.losses] == [("/oneOf", "described")]


@pytest.mark.parametrize("tool_def", ALL_TOOLS, ids=[t["name"] for t in ALL_TOOLS])
def test_every_anthropic_tool_has_an_object_root_without_combinators(
    tool_def: dict[str, Any],
) -> None:
    (converted,) = view("anthropic", [tool_def]).tools
    definition = converted.definition
    assert set(definition) <= {"name", "description", "input_schema"}
    assert PROVIDER_NAME.match(definition["name"])
    root = definition["input_schema"]
    assert root["type"] == "object"
    assert not {"oneOf", "anyOf", "allOf"} & root.keys()


# -- Gemini ------------------------------------------------------------------------------


@pytest.mark.parametrize("tool_def", ALL_TOOLS, ids=[t["name"] for t in ALL_TOOLS])
def test_every_gemini_declaration_validates_with_google_genai(tool_def: dict[str, Any]) -> None:
    payload = view("gemini", [tool_def]).payload()
    parsed = gemini_types.Tool.model_validate(payload[0])
    (declaration,) = parsed.function_declarations or []
    assert declaration.name == payload[0]["functionDeclarations"][0]["name"]
    parameters = payload[0]["functionDeclarations"][0].get("parameters")
    if parameters is not None:
        assert gemini_subset_problems(parameters) == []
        assert declaration.parameters is not None
        assert declaration.parameters.additional_properties is None
        assert declaration.parameters.defs is None


def test_gemini_inlines_refs_and_turns_null_unions_and_consts_into_its_forms() -> None:
    schema = {
        "type": "object",
        "properties": {
            "when": {"anyOf": [{"$ref": "#/$defs/Day"}, {"type": "null"}]},
            "kind": {"const": "daily"},
            "n": {"type": ["integer", "null"], "exclusiveMinimum": 0},
        },
        "$defs": {"Day": {"type": "string", "format": "date"}},
    }
    (converted,) = view("gemini", [tool(schema)]).tools
    props = converted.definition["parameters"]["properties"]
    assert props["when"] == {"type": "string", "format": "date", "nullable": True}
    assert props["kind"] == {"type": "string", "enum": ["daily"]}
    assert props["n"] == {"type": "integer", "nullable": True, "description": "Greater than 0."}
    gemini_types.FunctionDeclaration.model_validate(converted.definition)


def test_gemini_cuts_recursion_after_a_bounded_depth() -> None:
    schema = {
        "type": "object",
        "properties": {"tree": {"$ref": "#/$defs/Node"}},
        "$defs": {"Node": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}},
    }  # fmt: skip
    (converted,) = view("gemini", [tool(schema)]).tools
    text = json.dumps(converted.definition)
    assert text.count('"kids"') == 2
    assert any(loss.action == "dropped" and loss.keyword == "$ref" for loss in converted.losses)
    gemini_types.FunctionDeclaration.model_validate(converted.definition)


ALLOF_CYCLES = {
    "a def that includes itself": {"A": {"allOf": [{"$ref": "#/$defs/A"}]}},
    "two defs that include each other": {
        "A": {"allOf": [{"$ref": "#/$defs/B"}], "description": "a"},
        "B": {"allOf": [{"$ref": "#/$defs/A"}, {"type": "string", "minLength": 1}]},
    },
}


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("defs", ALLOF_CYCLES.values(), ids=list(ALLOF_CYCLES))
def test_a_ref_cycle_through_allof_converts_without_a_crash(
    provider: Provider, defs: dict[str, Any]
) -> None:
    """A view that merges the `allOf` drops the ref back and says so; one that cannot keeps
    the cycle as written, in `$defs`."""
    schema = {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}, "$defs": defs}
    (converted,) = view(provider, [tool(schema)]).tools
    dropped = any(loss.keyword == "$ref" and loss.action == "dropped" for loss in converted.losses)
    text = json.dumps(converted.definition)
    assert dropped or '"$defs"' in text


# -- report and command line -----------------------------------------------------------


def test_the_loss_report_names_each_loss_and_sizes_in_tokens() -> None:
    ts = load_spec_set(ROOT / "specs/shop")
    report = toolset_view(ts, "openai").report()
    first = report["tools"][0]
    assert first["mcpName"] == "search_products" and first["strict"] is True
    assert first["tokens"] > 0 and report["tokens"] >= first["tokens"]
    assert {"path": "/properties/query/minLength", "keyword": "minLength", "action": "described",
            "detail": "strict mode does not support it"} in first["losses"]  # fmt: skip


def test_the_docs_state_the_corpus_figures_as_measured() -> None:
    tools = corpus_tools()
    strict = sum(view("openai", [t]).tools[0].strict for t in tools)
    lossy = sum(bool(converted.losses) for converted in view("gemini", tools).tools)
    folded = [c for c in view("anthropic", tools).tools if c.losses]
    text = " ".join((ROOT / "docs" / "providers.md").read_text(encoding="utf-8").split())
    percent = round(100 * strict / len(tools))
    assert f"Of {len(tools)} real tools published by" in text
    assert (
        f"{strict} ({percent}%) convert to OpenAI strict mode; the other {len(tools) - strict}"
        in text
    )
    assert f"({lossy} tools lose a constraint on the way" in text
    assert folded == [] and "no Anthropic root needed folding" in text


@pytest.mark.parametrize("provider", ["openai", "openai-responses", "anthropic", "gemini"])
def test_tools_command_prints_a_provider_view(provider: str) -> None:
    result = CliRunner().invoke(cli, ["tools", str(ROOT / "specs/notes"), "--format", provider])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert doc["provider"] == provider
    assert set(doc["mcpNames"].values()) == {
        t.name for t in load_spec_set(ROOT / "specs/notes").tools
    }


def test_tools_explain_prints_the_loss_report() -> None:
    result = CliRunner().invoke(
        cli, ["tools", str(ROOT / "specs/shop"), "--format", "openai", "--explain"]
    )
    assert result.exit_code == 0, result.output
    assert result.output.startswith("openai: 4 tools, ~")
    assert "/properties/query/minLength: minLength described" in result.output


def test_tools_explain_without_a_provider_is_a_usage_error() -> None:
    result = CliRunner().invoke(cli, ["tools", str(ROOT / "specs/shop"), "--explain"])
    assert result.exit_code == 2
    assert "--explain needs a provider --format" in result.output


@pytest.mark.parametrize("provider", ["openai", "openai-responses", "anthropic", "gemini"])
def test_build_writes_each_provider_view_under_tools(provider: str) -> None:
    written = json.loads((ROOT / "generated" / "notes" / "tools" / f"{provider}.json").read_text())
    expected = toolset_view(load_spec_set(ROOT / "specs/notes"), provider)  # type: ignore[arg-type]
    assert {k: written[k] for k in ("provider", "tools", "mcpNames")} == expected.document()
    assert written["report"] == expected.report()
    if provider == "gemini":
        gemini_types.Tool.model_validate(written["tools"][0])


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(JSON_VALUES)
def test_a_views_token_estimate_is_a_quarter_of_its_compact_json_length(value: Any) -> None:
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    assert approx_tokens(value) == math.ceil(len(text) / 4)


def test_the_token_estimate_counts_what_orjson_refuses_as_json_spells_it() -> None:
    for value in ["\ud800 lone surrogate", {"n": 2**70}, {"x": 1e-05}]:
        text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
        assert approx_tokens(value) == math.ceil(len(text) / 4)
