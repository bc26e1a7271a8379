"""End to end over Streamable HTTP with the official MCP Python SDK client, both eras.

The server is the real thing (uvicorn on a free loopback port) serving the
conformance fixture tools and the notes spec set in mock mode. The SDK
validates `structuredContent` against each tool's `outputSchema`, so every
successful structured call is checked by an implementation nobody on this
project wrote.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import mcp.types as types
import pytest
from conftest import SPECS
from http_support import http_server
from mcp import ClientSession
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPDeprecationWarning
from runtime_support.calls import arguments_for

import toolgen
from examples.conformance_handlers import HANDLERS, PNG_BASE64, WAV_BASE64
from toolgen.serve.mock import mock_handlers
from toolgen.spec.protocol import WRAP_KEY

CONFORMANCE = toolgen.load(SPECS / "conformance")
NOTES = toolgen.load(SPECS / "notes")
ERAS = ["legacy", "modern"]
GUARD = 60.0
"""Seconds before a hung test fails: a guard, not a timing assertion."""


@pytest.fixture(scope="module")
def conformance_url() -> Iterator[str]:
    with http_server(CONFORMANCE, HANDLERS) as url:
        yield url


@pytest.fixture(scope="module")
def notes_url() -> Iterator[str]:
    with http_server(NOTES, mock_handlers(NOTES)) as url:
        yield url


@asynccontextmanager
async def connect(url: str, era: str, **options: Any) -> AsyncIterator[ClientSession]:
    """A session over Streamable HTTP, opened with the era's handshake."""
    async with (
        streamable_http_client(url) as (read, write),
        ClientSession(read, write, **options) as session,
    ):
        if era == "legacy":
            await session.initialize()
        else:
            session.adopt(await session.discover())
        yield session


def run(url: str, era: str, body: Callable[[ClientSession], Any], **options: Any) -> Any:
    async def main() -> Any:
        with anyio.fail_after(GUARD):
            async with connect(url, era, **options) as session:
                return await body(session)

    return anyio.run(main)


@pytest.mark.parametrize("era", ERAS)
def test_sdk_negotiates_each_era_and_lists_every_tool(conformance_url: str, era: str) -> None:
    async def body(session: ClientSession) -> Any:
        return session.protocol_version, await session.list_tools()

    version, listing = run(conformance_url, era, body)
    assert version == ("2025-11-25" if era == "legacy" else "2026-07-28")
    assert [tool.name for tool in listing.tools] == [tool.name for tool in CONFORMANCE.tools]


def test_sdk_in_auto_mode_picks_the_stateless_era(conformance_url: str) -> None:
    async def main() -> Any:
        with anyio.fail_after(GUARD):
            async with Client(conformance_url) as client:
                result = await client.call_tool("test_simple_text", {})
                return client.session.protocol_version, result

    version, result = anyio.run(main)
    assert version == "2026-07-28"
    assert result.content[0].text == "This is a simple text response for testing."


@pytest.mark.parametrize("era", ERAS)
def test_sdk_receives_image_audio_and_embedded_resource_content(
    conformance_url: str, era: str
) -> None:
    async def body(session: ClientSession) -> Any:
        return {
            name: await session.call_tool(name, {})
            for name in ("test_image_content", "test_audio_content", "test_multiple_content_types")
        }

    results = run(conformance_url, era, body)
    image = results["test_image_content"].content[0]
    assert (image.type, image.mime_type, image.data) == ("image", "image/png", PNG_BASE64)
    audio = results["test_audio_content"].content[0]
    assert (audio.type, audio.mime_type, audio.data) == ("audio", "audio/wav", WAV_BASE64)
    mixed = results["test_multiple_content_types"].content
    assert [block.type for block in mixed] == ["text", "image", "resource"]
    assert mixed[2].resource.uri == "test://mixed-content-resource"


@pytest.mark.parametrize("era", ERAS)
def test_sdk_receives_progress_notifications_before_the_result(
    conformance_url: str, era: str
) -> None:
    seen: list[tuple[float, float | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total))

    async def body(session: ClientSession) -> Any:
        return await session.call_tool("test_tool_with_progress", {}, progress_callback=on_progress)

    result = run(conformance_url, era, body)
    assert not result.is_error
    assert seen == [(0, 100), (50, 100), (100, 100)]


@pytest.mark.parametrize("era", ERAS)
def test_sdk_receives_log_messages_at_the_level_it_asked_for(
    conformance_url: str, era: str
) -> None:
    messages: list[tuple[str, Any]] = []

    async def on_log(params: Any) -> None:
        messages.append((params.level, params.data))

    async def body(session: ClientSession) -> Any:
        if era == "legacy":
            with pytest.warns(MCPDeprecationWarning):  # the SDK flags the 2025 logging API
                await session.set_logging_level("debug")
        return await session.call_tool("test_tool_with_logging", {})

    options: dict[str, Any] = {"logging_callback": on_log}
    if era == "modern":
        options["log_level"] = "debug"
    result = run(conformance_url, era, body, **options)
    assert not result.is_error
    assert messages == [
        ("info", "Tool execution started"),
        ("info", "Tool processing data"),
        ("info", "Tool execution completed"),
    ]


def test_sdk_gets_no_log_messages_in_the_stateless_era_unless_it_opts_in(
    conformance_url: str,
) -> None:
    messages: list[Any] = []

    async def on_log(params: Any) -> None:
        messages.append(params)

    async def body(session: ClientSession) -> Any:
        return await session.call_tool("test_tool_with_logging", {})

    result = run(conformance_url, "modern", body, logging_callback=on_log)
    assert not result.is_error
    assert messages == []


@pytest.mark.parametrize("era", ERAS)
def test_sdk_sees_a_failing_tool_as_an_error_result(conformance_url: str, era: str) -> None:
    async def body(session: ClientSession) -> Any:
        return await session.call_tool("test_error_handling", {})

    result = run(conformance_url, era, body)
    assert result.is_error
    assert result.content[0].text == "This tool intentionally returns an error for testing"


@pytest.mark.parametrize("era", ERAS)
def test_sdk_accepts_the_structured_result_of_every_notes_tool(notes_url: str, era: str) -> None:
    async def body(session: ClientSession) -> Any:
        await session.list_tools()
        return {
            tool.name: await session.call_tool(tool.name, arguments_for(tool))
            for tool in NOTES.tools
        }

    results = run(notes_url, era, body)
    for tool in NOTES.tools:
        result = results[tool.name]
        assert not result.is_error, (tool.name, result)
        assert result.content[0].type == "text"
        examples = [e.output for e in tool.examples if e.has_output]
        if examples:
            expected = examples[0]
            if era == "legacy" and not tool.output_is_object:
                expected = {WRAP_KEY: expected}
            assert result.structured_content == expected


# -- requests from a handler to the client (2025 sessions) --------------------------------


async def answer_sampling(context: Any, params: types.CreateMessageRequestParams) -> Any:
    prompt = params.messages[0].content.text
    return types.CreateMessageResult(
        role="assistant",
        content=types.TextContent(type="text", text=f"echo: {prompt}"),
        model="test-model",
    )


async def answer_elicitation(context: Any, params: types.ElicitRequestParams) -> Any:
    assert set(params.requested_schema["required"]) == {"username", "email"}
    return types.ElicitResult(action="accept", content={"username": "ada", "email": "a@b.c"})


async def refuse_elicitation(context: Any, params: types.ElicitRequestParams) -> Any:
    return types.ErrorData(code=-32600, message="no user here")


def test_a_handler_can_ask_the_clients_model_during_a_call(conformance_url: str) -> None:
    async def body(session: ClientSession) -> Any:
        return await session.call_tool("test_sampling", {"prompt": "2 + 2?"})

    result = run(conformance_url, "legacy", body, sampling_callback=answer_sampling)
    assert not result.is_error
    assert result.content[0].text == "LLM response: echo: 2 + 2?"


def test_a_handler_can_ask_the_user_during_a_call(conformance_url: str) -> None:
    async def body(session: ClientSession) -> Any:
        return await session.call_tool("test_elicitation", {"message": "Who are you?"})

    result = run(conformance_url, "legacy", body, elicitation_callback=answer_elicitation)
    assert not result.is_error
    assert result.content[0].text == (
        'User response: action=accept, content={"username": "ada", "email": "a@b.c"}'
    )


def test_a_client_refusing_the_handlers_request_makes_the_call_an_error(
    conformance_url: str,
) -> None:
    async def body(session: ClientSession) -> Any:
        return await session.call_tool("test_elicitation", {"message": "Who are you?"})

    result = run(conformance_url, "legacy", body, elicitation_callback=refuse_elicitation)
    assert result.is_error


def test_a_client_without_the_capability_is_not_asked(conformance_url: str) -> None:
    async def body(session: ClientSession) -> Any:
        return await session.call_tool("test_sampling", {"prompt": "hello"})

    result = run(conformance_url, "legacy", body)  # no sampling callback: no capability
    assert result.is_error


def test_the_stateless_era_asks_through_input_required_result(conformance_url: str) -> None:
    """The same handler: over 2026-07-28 the question comes back as InputRequiredResult,
    which the SDK's `Client` answers with its callback and retries."""

    async def main() -> Any:
        with anyio.fail_after(GUARD):
            async with Client(
                conformance_url, mode="2026-07-28", sampling_callback=answer_sampling
            ) as client:
                return await client.call_tool("test_sampling", {"prompt": "hello"})

    result = anyio.run(main)
    assert not result.is_error
    assert result.content[0].text == "LLM response: echo: hello"
