"""Call mapping: provider tool call → MCP tools/call → provider tool-result message,
and the agent loop of `examples/agent_loop.py` against the real notes server."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import anyio
import jsonschema
import pytest
from conftest import ROOT
from google.genai import types as gemini_types
from mcp.types import CallToolResult
from openai.types.chat import ChatCompletionMessageParam, ChatCompletionToolMessageParam
from openai.types.responses import ResponseFunctionToolCall, ResponseInputItemParam
from pydantic import TypeAdapter
from test_views import ALL_TOOLS

from toolgen.providers import view
from toolgen.providers.calls import (
    CallMappingError,
    McpCall,
    mcp_call,
    result_message,
    result_messages,
    strip_nulls,
)
from toolgen.schema.sample import sample


def with_nulls(value: Any, schema: Any) -> Any:
    """What OpenAI strict mode sends for `value`: every property of each object, `null`
    for those left out."""
    if isinstance(value, dict) and isinstance(schema, dict):
        branches = schema.get("anyOf", [schema])
        chosen = next(
            (
                b
                for b in branches
                if isinstance(b.get("properties"), dict) and set(value) <= set(b["properties"])
            ),
            schema,
        )
        props = chosen.get("properties", {})
        return {name: with_nulls(value.get(name), sub) for name, sub in props.items()} | {
            k: v for k, v in value.items() if k not in props
        }
    if (
        isinstance(value, list)
        and isinstance(schema, dict)
        and isinstance(schema.get("items"), dict)
    ):
        return [with_nulls(v, schema["items"]) for v in value]
    return value


def sampled_arguments(tool: dict[str, Any]) -> dict[str, Any] | None:
    schema = tool["inputSchema"]
    args = sample(schema)
    if not isinstance(args, dict) or not jsonschema.Draft202012Validator(schema).is_valid(args):
        return None
    return args


@pytest.mark.parametrize("tool_def", ALL_TOOLS, ids=[t["name"] for t in ALL_TOOLS])
def test_a_strict_openai_call_maps_back_to_the_arguments_the_tool_declares(
    tool_def: dict[str, Any],
) -> None:
    (converted,) = (v := view("openai", [tool_def])).tools
    args = sampled_arguments(tool_def)
    if args is None or not converted.strict:
        pytest.skip("no schema-valid sample, or the tool is not strict")
    parameters = converted.definition["function"]["parameters"]
    sent = with_nulls(args, parameters)
    jsonschema.Draft202012Validator(parameters).validate(sent)  # what the model may send
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": converted.name, "arguments": json.dumps(sent)},
    }
    mapped = mcp_call(v, call)
    assert mapped == McpCall(tool_def["name"], args, converted.name, "call_1")


@pytest.mark.parametrize("tool_def", ALL_TOOLS, ids=[t["name"] for t in ALL_TOOLS])
def test_a_responses_function_call_maps_back_to_the_arguments_the_tool_declares(
    tool_def: dict[str, Any],
) -> None:
    (converted,) = (v := view("openai-responses", [tool_def])).tools
    args = sampled_arguments(tool_def)
    if args is None or not converted.strict:
        pytest.skip("no schema-valid sample, or the tool is not strict")
    sent = with_nulls(args, converted.definition["parameters"])
    item = ResponseFunctionToolCall(
        type="function_call", id="fc_1", call_id="call_1", name=converted.name,
        arguments=json.dumps(sent),
    )  # fmt: skip
    assert mcp_call(v, item) == McpCall(tool_def["name"], args, converted.name, "call_1")
    assert mcp_call(v, item.model_dump()) == mcp_call(v, item)


@pytest.mark.parametrize("tool_def", ALL_TOOLS, ids=[t["name"] for t in ALL_TOOLS])
def test_anthropic_and_gemini_calls_map_back_to_the_mcp_call(tool_def: dict[str, Any]) -> None:
    args = sampled_arguments(tool_def)
    if args is None:
        pytest.skip("no schema-valid sample")
    anthropic = view("anthropic", [tool_def])
    name = anthropic.tools[0].name
    use = {"type": "tool_use", "id": "toolu_1", "name": name, "input": args}
    assert mcp_call(anthropic, use) == McpCall(tool_def["name"], args, name, "toolu_1")
    gemini = view("gemini", [tool_def])
    name = gemini.tools[0].name
    part = gemini_types.Part.model_validate(
        {"functionCall": {"id": "fc_1", "name": name, "args": args}}
    )
    assert mcp_call(gemini, part) == McpCall(tool_def["name"], args, name, "fc_1")


def test_a_null_is_kept_where_the_tool_requires_the_property() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"type": ["string", "null"]}, "b": {"type": "string"}},
        "required": ["a"],
    }
    assert strip_nulls({"a": None, "b": None}, schema, schema) == {"a": None}


def test_nulls_are_removed_inside_arrays_and_referenced_defs() -> None:
    schema = {
        "type": "object",
        "properties": {"items": {"type": "array", "items": {"$ref": "#/$defs/Line"}}},
        "$defs": {
            "Line": {"type": "object", "properties": {"sku": {}, "qty": {}}, "required": ["sku"]}
        },
    }
    value = {"items": [{"sku": "A", "qty": None}]}
    assert strip_nulls(value, schema, schema) == {"items": [{"sku": "A"}]}


def test_a_dotted_mcp_name_is_restored() -> None:
    tools = [
        {
            "name": "files.read",
            "inputSchema": {"type": "object", "properties": {"p": {"type": "string"}}},
        }
    ]
    v = view("openai", tools)
    call = {
        "id": "c",
        "type": "function",
        "function": {"name": "files_read", "arguments": '{"p": null}'},
    }
    assert mcp_call(v, call).params() == {"name": "files.read", "arguments": {}}


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            {"id": "c", "type": "function", "function": {"name": "nope", "arguments": "{}"}},
            "not a tool",
        ),
        (
            {"id": "c", "type": "function", "function": {"name": "t", "arguments": "{oops"}},
            "not JSON",
        ),
        (
            {"id": "c", "type": "function", "function": {"name": "t", "arguments": "[1]"}},
            "not a JSON object",
        ),
    ],
)
def test_a_call_that_cannot_be_mapped_is_a_clear_error(call: dict[str, Any], message: str) -> None:
    v = view("openai", [{"name": "t", "inputSchema": {"type": "object"}}])
    with pytest.raises(CallMappingError, match=message):
        mcp_call(v, call)


RESULT = {"content": [{"type": "text", "text": '{"id": 1}'}], "structuredContent": {"id": 1}}
ERROR = {"content": [{"type": "text", "text": "no such note"}], "isError": True}


def test_result_messages_have_each_providers_shape() -> None:
    tools = [{"name": "get.note", "inputSchema": {"type": "object"}}]
    openai_msg = result_message(
        view("openai", tools), McpCall("get.note", {}, "get_note", "call_9"), RESULT
    )
    TypeAdapter(ChatCompletionToolMessageParam).validate_python(openai_msg)
    assert openai_msg == {"role": "tool", "tool_call_id": "call_9", "content": '{"id": 1}'}
    anthropic_msg = result_message(
        view("anthropic", tools), McpCall("get.note", {}, "get_note", "toolu_9"), ERROR
    )
    assert anthropic_msg == {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "toolu_9", "is_error": True,
                     "content": [{"type": "text", "text": "no such note"}]}],
    }  # fmt: skip
    responses_item = result_message(
        view("openai-responses", tools), McpCall("get.note", {}, "get_note", "call_9"), ERROR
    )
    TypeAdapter(ResponseInputItemParam).validate_python(responses_item)
    assert responses_item == {
        "type": "function_call_output", "call_id": "call_9", "output": "no such note"
    }  # fmt: skip
    gemini_msg = result_message(
        view("gemini", tools), McpCall("get.note", {}, "get_note", None), RESULT
    )
    content = gemini_types.Content.model_validate(gemini_msg)
    assert content.parts and content.parts[0].function_response is not None
    assert content.parts[0].function_response.response == {"output": {"id": 1}}


@pytest.mark.parametrize("provider", ["openai", "openai-responses", "anthropic", "gemini"])
@pytest.mark.parametrize("result", [RESULT, ERROR])
def test_result_messages_take_sdk_results_and_plain_dicts_alike(
    provider: str, result: dict[str, Any]
) -> None:
    tools = [{"name": "get.note", "inputSchema": {"type": "object"}}]
    call = McpCall("get.note", {}, "get_note", "call_9")
    sdk_result = CallToolResult.model_validate(result)
    v = view(provider, tools)  # type: ignore[arg-type]
    assert result_messages(v, [(call, sdk_result)]) == result_messages(v, [(call, result)])
    assert result_message(v, call, sdk_result) == result_message(v, call, result)


def _load_example() -> Any:
    spec = importlib.util.spec_from_file_location("agent_loop", ROOT / "examples" / "agent_loop.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["agent_loop"] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("provider", ["openai", "openai-responses", "anthropic", "gemini"])
def test_the_agent_loop_example_runs_against_the_notes_server(
    provider: str, tmp_path: Path
) -> None:
    example = _load_example()
    messages = anyio.run(example.run, provider, example.scripted_model, tmp_path / "notes.sqlite3")
    assert len(messages) == 6  # prompt, call, result, call, result, answer
    if provider == "openai":
        for message in messages:
            TypeAdapter(ChatCompletionMessageParam).validate_python(message)
        listed = json.loads(messages[4]["content"])
    elif provider == "openai-responses":
        for message in messages:
            TypeAdapter(ResponseInputItemParam).validate_python(message)
        assert [m.get("type") for m in messages[1:5]] == [
            "function_call",
            "function_call_output",
        ] * 2
        assert messages[2]["call_id"] == messages[1]["call_id"]
        listed = json.loads(messages[4]["output"])
    elif provider == "gemini":
        for message in messages:
            gemini_types.Content.model_validate(message)
        listed = messages[4]["parts"][0]["functionResponse"]["response"]["output"]
    else:
        block = messages[4]["content"][0]
        assert block["type"] == "tool_result" and "is_error" not in block
        listed = json.loads(block["content"][0]["text"])
    notes = listed["result"] if isinstance(listed, dict) and "result" in listed else listed
    assert [n["title"] for n in notes] == ["Groceries"]


NULL_CLEARS = {
    "name": "set_due",
    "inputSchema": {
        "type": "object",
        "properties": {
            "id": {"type": "string"},
            "due": {"type": ["string", "null"], "description": "The due date; null clears it."},
        },
        "required": ["id", "due"],
    },
}
"""A field `null` clears, written as the README says: required and nullable."""


@pytest.mark.parametrize(
    ("provider", "call"),
    [
        ("openai", {"id": "c", "type": "function", "function": {"name": "set_due", "arguments": '{"id": "n1", "due": null}'}}),
        ("openai-responses", {"type": "function_call", "call_id": "c", "name": "set_due", "arguments": '{"id": "n1", "due": null}'}),
        ("anthropic", {"type": "tool_use", "id": "c", "name": "set_due", "input": {"id": "n1", "due": None}}),
        ("gemini", {"functionCall": {"id": "c", "name": "set_due", "args": {"id": "n1", "due": None}}}),
    ],
)  # fmt: skip
def test_a_null_that_clears_a_required_field_reaches_the_server_in_every_view(
    provider: str, call: dict[str, Any]
) -> None:
    v = view(provider, [NULL_CLEARS])  # type: ignore[arg-type]
    text = json.dumps(v.tools[0].definition)
    assert '"null"' in text or '"nullable": true' in text  # the view lets the model send null
    assert mcp_call(v, call).arguments == {"id": "n1", "due": None}
