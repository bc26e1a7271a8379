"""Handlers for `specs/conformance/`: the fixture tools of the official MCP conformance suite.

    toolgen serve specs/conformance --handlers examples.conformance_handlers:HANDLERS \
        --http 127.0.0.1:8000

Each handler returns what the suite's scenario for it expects (texts are the
ones its scenario descriptions give). The media are made here, not stored:
a 1x1 red PNG and a short silent WAV clip.
"""

from __future__ import annotations

import asyncio
import base64
import io
import json
import struct
import wave
import zlib
from collections.abc import Callable
from typing import Any

from toolgen.serve.context import current_call
from toolgen.serve.handlers import starts_task
from toolgen.serve.results import Content, ProtocolError, ToolError

STEP_SECONDS = 0.05
"""The pause between the notifications of the logging and progress tools."""


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def red_pixel_png() -> bytes:
    """A valid 1x1 PNG, one opaque red pixel (RGB, 8 bits per channel)."""
    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00\xff\x00\x00")  # filter type 0, then R G B
    return (
        b"\x89PNG\r\n\x1a\n"
        + _png_chunk(b"IHDR", header)
        + _png_chunk(b"IDAT", pixels)
        + _png_chunk(b"IEND", b"")
    )


def silent_wav(milliseconds: int = 100, rate: int = 8000) -> bytes:
    """A short mono 8-bit PCM WAV file of silence."""
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as clip:
        clip.setnchannels(1)
        clip.setsampwidth(1)
        clip.setframerate(rate)
        clip.writeframes(b"\x80" * (rate * milliseconds // 1000))  # 8-bit PCM silence is 128
    return buffer.getvalue()


PNG_BASE64 = base64.b64encode(red_pixel_png()).decode("ascii")
WAV_BASE64 = base64.b64encode(silent_wav()).decode("ascii")


def test_simple_text() -> str:
    return "This is a simple text response for testing."


def test_image_content() -> Content:
    return Content({"type": "image", "data": PNG_BASE64, "mimeType": "image/png"})


def test_audio_content() -> Content:
    return Content({"type": "audio", "data": WAV_BASE64, "mimeType": "audio/wav"})


def test_embedded_resource() -> Content:
    return Content(
        {
            "type": "resource",
            "resource": {
                "uri": "test://embedded-resource",
                "mimeType": "text/plain",
                "text": "This is an embedded resource content.",
            },
        }
    )


def test_multiple_content_types() -> Content:
    return Content(
        {"type": "text", "text": "Multiple content types test:"},
        {"type": "image", "data": PNG_BASE64, "mimeType": "image/png"},
        {
            "type": "resource",
            "resource": {
                "uri": "test://mixed-content-resource",
                "mimeType": "application/json",
                "text": '{"test":"data","value":123}',
            },
        },
    )


async def test_tool_with_logging() -> str:
    call = current_call()
    call.log("info", "Tool execution started")
    await asyncio.sleep(STEP_SECONDS)
    call.log("info", "Tool processing data")
    await asyncio.sleep(STEP_SECONDS)
    call.log("info", "Tool execution completed")
    return "Tool with logging executed successfully"


async def test_tool_with_progress() -> str:
    call = current_call()
    call.progress(0, 100)
    await asyncio.sleep(STEP_SECONDS)
    call.progress(50, 100)
    await asyncio.sleep(STEP_SECONDS)
    call.progress(100, 100)
    return "Tool with progress executed successfully"


def test_error_handling() -> None:
    raise ToolError("This tool intentionally returns an error for testing")


async def test_sampling(arguments: dict[str, Any]) -> str:
    message = {"role": "user", "content": {"type": "text", "text": arguments["prompt"]}}
    result = await current_call().sample([message], max_tokens=100)
    content = result.get("content") if isinstance(result, dict) else None
    text = content.get("text") if isinstance(content, dict) else None
    return f"LLM response: {text if text is not None else json.dumps(content)}"


async def test_elicitation(arguments: dict[str, Any]) -> str:
    schema = {
        "type": "object",
        "properties": {
            "username": {"type": "string", "description": "User's response"},
            "email": {"type": "string", "description": "User's email address"},
        },
        "required": ["username", "email"],
    }
    result = await current_call().elicit(arguments["message"], schema)
    return f"User response: {_answer(result)}"


SEP1034_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "description": "Your name", "default": "John Doe"},
        "age": {"type": "integer", "description": "Your age", "default": 30},
        "score": {"type": "number", "description": "Your score", "default": 95.5},
        "status": {
            "type": "string",
            "description": "Your status",
            "enum": ["active", "inactive", "pending"],
            "default": "active",
        },
        "verified": {"type": "boolean", "description": "Verified?", "default": True},
    },
}

SEP1330_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
        "titledSingle": {
            "type": "string",
            "oneOf": [
                {"const": "value1", "title": "First Option"},
                {"const": "value2", "title": "Second Option"},
                {"const": "value3", "title": "Third Option"},
            ],
        },
        "legacyEnum": {
            "type": "string",
            "enum": ["opt1", "opt2", "opt3"],
            "enumNames": ["Option One", "Option Two", "Option Three"],
        },
        "untitledMulti": {
            "type": "array",
            "items": {"type": "string", "enum": ["option1", "option2", "option3"]},
        },
        "titledMulti": {
            "type": "array",
            "items": {
                "anyOf": [
                    {"const": "value1", "title": "First Choice"},
                    {"const": "value2", "title": "Second Choice"},
                    {"const": "value3", "title": "Third Choice"},
                ]
            },
        },
    },
}


async def test_elicitation_sep1034_defaults() -> str:
    result = await current_call().elicit("Please review and update the form fields", SEP1034_SCHEMA)
    return f"Elicitation completed: {_answer(result)}"


async def test_elicitation_sep1330_enums() -> str:
    result = await current_call().elicit("Please choose your options", SEP1330_SCHEMA)
    return f"Elicitation completed: {_answer(result)}"


def _answer(result: Any) -> str:
    if not isinstance(result, dict):
        return json.dumps(result)
    return f"action={result.get('action')}, content={json.dumps(result.get('content'))}"


def test_logging_tool() -> str:
    current_call().log("info", "test_logging_tool ran")
    return "Logged one message (if the request asked for log messages)"


def test_param_header(arguments: dict[str, Any]) -> str:
    return f"Region: {arguments['region']}"


def json_schema_2020_12_tool(arguments: dict[str, Any]) -> str:
    return f"Received: {json.dumps(arguments, sort_keys=True)}"


# -- 2026-07-28: input through InputRequiredResult (SEP-2322) --------------------------

NAME_SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


def _question(text: str) -> list[dict[str, Any]]:
    return [{"role": "user", "content": {"type": "text", "text": text}}]


def _sampled_text(result: Any) -> str:
    content = result.get("content") if isinstance(result, dict) else None
    return str(content.get("text", "")) if isinstance(content, dict) else ""


async def test_input_required_result_elicitation() -> str:
    answer = await current_call().elicit("What is your name?", NAME_SCHEMA, key="user_name")
    name = (answer.get("content") or {}).get("name", "stranger")
    return f"Hello, {name}!"


async def test_input_required_result_sampling() -> str:
    question = _question("What is the capital of France?")
    result = await current_call().sample(question, max_tokens=100, key="capital_question")
    return f"The model said: {_sampled_text(result)}"


async def test_input_required_result_list_roots() -> str:
    result = await current_call().list_roots(key="client_roots")
    uris = [root.get("uri", "") for root in result.get("roots", []) if isinstance(root, dict)]
    return f"Roots: {', '.join(uris) or 'none'}"


async def test_input_required_result_request_state() -> str:
    schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
    await current_call().elicit("Please confirm", schema, key="confirm")
    return "state-ok: the request state came back intact"


async def test_input_required_result_multiple_inputs() -> str:
    call = current_call()
    name, greeting, roots = await asyncio.gather(
        call.elicit("What is your name?", NAME_SCHEMA, key="user_name"),
        call.sample(_question("Generate a greeting"), max_tokens=50, key="greeting"),
        call.list_roots(key="client_roots"),
    )
    who = (name.get("content") or {}).get("name", "stranger")
    return f"{_sampled_text(greeting)} {who} ({len(roots.get('roots', []))} roots)"


async def test_input_required_result_multi_round() -> str:
    call = current_call()
    first = await call.elicit("Step 1: What is your name?", NAME_SCHEMA, key="step1")
    color_schema = {
        "type": "object",
        "properties": {"color": {"type": "string"}},
        "required": ["color"],
    }
    second = await call.elicit("Step 2: What is your favorite color?", color_schema, key="step2")
    name = (first.get("content") or {}).get("name", "?")
    color = (second.get("content") or {}).get("color", "?")
    return f"{name} likes {color}"


async def test_input_required_result_tampered_state() -> str:
    schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
    await current_call().elicit("Please confirm", schema, key="confirm")
    return "confirmed"


async def test_input_required_result_capabilities() -> str:
    """Asks only for what the client declared it can answer."""
    call = current_call()
    asked = []
    if call.supports("elicitation"):
        asked.append(call.elicit("What is your name?", NAME_SCHEMA, key="user_name"))
    if call.supports("sampling"):
        asked.append(call.sample(_question("Say hello"), max_tokens=20, key="hello"))
    answers = await asyncio.gather(*asked)
    return f"{len(answers)} answers"


async def test_streaming_elicitation() -> str:
    answer = await current_call().elicit("What is your name?", NAME_SCHEMA, key="user_name")
    return f"Hello, {(answer.get('content') or {}).get('name', 'stranger')}!"


def test_missing_capability() -> str:
    """Never runs without the sampling capability (the spec declares that it needs it)."""
    return "the client declared sampling"


# -- 2026-07-28: the tasks extension (io.modelcontextprotocol/tasks) --------------------

CONFIRM_SCHEMA = {
    "type": "object",
    "properties": {"confirm": {"type": "boolean"}},
    "required": ["confirm"],
}


def greet(arguments: dict[str, Any]) -> str:
    return f"Hello, {arguments['name']}!"


async def slow_compute(arguments: dict[str, Any]) -> str:
    """Cancelling the task cancels this sleep: the task ends `cancelled`."""
    await asyncio.sleep(arguments["seconds"])
    return f"Computed {arguments.get('label', 'result')} after {arguments['seconds']:g} s"


async def failing_job() -> None:
    await asyncio.sleep(1)
    raise ToolError("failing_job failed on purpose (a tool error: the task still completes)")


async def protocol_error_job() -> None:
    raise ProtocolError("protocol_error_job broke on purpose (an internal error)", code=-32603)


def _accepted(answer: Any) -> dict[str, Any]:
    accepted = isinstance(answer, dict) and answer.get("action") == "accept"
    content = answer.get("content") if accepted else None
    return content if isinstance(content, dict) else {}


async def confirm_delete(arguments: dict[str, Any]) -> str:
    question = f"Delete {arguments['filename']}?"
    answer = _accepted(await current_call().elicit(question, CONFIRM_SCHEMA, key="confirm"))
    decision = "confirmed" if answer.get("confirm") else "declined"
    return f"Deletion of {arguments['filename']} {decision} (nothing was deleted)"


async def multi_input() -> str:
    call = current_call()
    name, confirmed = await asyncio.gather(
        call.elicit("What is your name?", NAME_SCHEMA, key="name"),
        call.elicit("Proceed?", CONFIRM_SCHEMA, key="confirm"),
    )
    who = _accepted(name).get("name", "?")
    return f"{who} answered; proceed: {bool(_accepted(confirmed).get('confirm'))}"


@starts_task
async def test_tool_with_task() -> str:
    """Asks before its task starts (InputRequiredResult), then runs as the task."""
    call = current_call()
    answer = await call.elicit("What is your name?", NAME_SCHEMA, key="user_name")
    call.start_task()
    await asyncio.sleep(0.2)
    return f"Hello, {_accepted(answer).get('name', 'stranger')}!"


HANDLERS: dict[str, Callable[..., Any]] = {
    "test_simple_text": test_simple_text,
    "test_image_content": test_image_content,
    "test_audio_content": test_audio_content,
    "test_embedded_resource": test_embedded_resource,
    "test_multiple_content_types": test_multiple_content_types,
    "test_tool_with_logging": test_tool_with_logging,
    "test_tool_with_progress": test_tool_with_progress,
    "test_error_handling": test_error_handling,
    "test_sampling": test_sampling,
    "test_elicitation": test_elicitation,
    "test_elicitation_sep1034_defaults": test_elicitation_sep1034_defaults,
    "test_elicitation_sep1330_enums": test_elicitation_sep1330_enums,
    "test_logging_tool": test_logging_tool,
    "test_param_header": test_param_header,
    "json_schema_2020_12_tool": json_schema_2020_12_tool,
    "test_input_required_result_elicitation": test_input_required_result_elicitation,
    "test_input_required_result_sampling": test_input_required_result_sampling,
    "test_input_required_result_list_roots": test_input_required_result_list_roots,
    "test_input_required_result_request_state": test_input_required_result_request_state,
    "test_input_required_result_multiple_inputs": test_input_required_result_multiple_inputs,
    "test_input_required_result_multi_round": test_input_required_result_multi_round,
    "test_input_required_result_tampered_state": test_input_required_result_tampered_state,
    "test_input_required_result_capabilities": test_input_required_result_capabilities,
    "test_streaming_elicitation": test_streaming_elicitation,
    "test_missing_capability": test_missing_capability,
    "greet": greet,
    "slow_compute": slow_compute,
    "failing_job": failing_job,
    "protocol_error_job": protocol_error_job,
    "confirm_delete": confirm_delete,
    "multi_input": multi_input,
    "test_tool_with_task": test_tool_with_task,
}
"""Tool name → handler, for `toolgen serve --handlers examples.conformance_handlers:HANDLERS`."""
