"""`toolgen.sdk.add_tools` on the official SDK's `MCPServer`, its low-level `Server` and
FastMCP 4, each with its own tool, resource and prompt, called by the official SDK
client over stdio and over each server's own Streamable HTTP app, in both protocol eras."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT
from http_support import asgi_server
from mcp import ClientSession

import toolgen
from tests.runtime_support.calls import Scenario, run_sdk_http_scenario, run_sdk_scenario
from tests.sdk_support import servers
from toolgen.spec.protocol import is_modern

SERVER_SCRIPT = Path(servers.__file__)
KINDS = ["mcpserver", "lowlevel", "fastmcp"]
ERAS = ["legacy", "modern"]
TRANSPORTS = ["stdio", "http"]


def _dump(model: Any) -> dict[str, Any]:
    dumped: dict[str, Any] = model.model_dump(by_alias=True, mode="json", exclude_none=True)
    return dumped


async def _scenario(session: ClientSession, era: str) -> dict[str, Any]:
    listed = await session.list_tools()
    out: dict[str, Any] = {
        "version": session.protocol_version,
        "tools": [_dump(tool) for tool in listed.tools],
    }
    calls = {
        "echo": {"text": "ab", "times": 2},
        "count": {},
        "typed": {"first-name": "Ada"},
        "hello": {},
        "bad_args": {"text": ""},
        "refuse": {},
        "bad_output": {},
        "boom": {},
        servers.OWN_TOOL: {"word": "own"},
    }
    for name, arguments in calls.items():
        tool = "echo" if name == "bad_args" else name
        out[name] = _dump(await session.call_tool(tool, arguments))
    resource = await session.read_resource(servers.RESOURCE_URI)
    out["resource"] = _dump(resource)
    prompt = await session.get_prompt(servers.PROMPT)
    out["prompt"] = _dump(prompt)
    return out


def serve_and_run(
    kind: str, era: str, transport: str, scenario: Scenario, **session_options: Any
) -> dict[str, Any]:
    """Run `scenario` against the `kind` server with the demo tools: a stdio process, or
    the server's own Streamable HTTP app on 127.0.0.1 (uvicorn) in this process."""
    if transport == "stdio":
        args = [str(SERVER_SCRIPT), kind]
        return run_sdk_scenario(era, args, scenario, cwd=ROOT, **session_options)
    with asgi_server(servers.http_app(kind, servers.build(kind))) as base:
        return run_sdk_http_scenario(era, f"{base}/mcp", scenario, **session_options)


SERVED = [(k, e, t) for k in KINDS for e in ERAS for t in TRANSPORTS]


@pytest.fixture(scope="module", params=SERVED, ids=str)
def served(request: pytest.FixtureRequest) -> tuple[str, dict[str, Any]]:
    kind, era, transport = request.param
    return era, serve_and_run(kind, era, transport, _scenario)


def _text(result: dict[str, Any]) -> str:
    return "".join(block["text"] for block in result["content"] if block["type"] == "text")


def test_the_spec_tools_are_listed_exactly_beside_the_servers_own(served: Any) -> None:
    era, out = served
    assert is_modern(out["version"]) == (era == "modern")
    expected = toolgen.load(servers.DEMO_SPEC).definitions(out["version"])
    by_name = {tool["name"]: tool for tool in out["tools"]}
    assert [by_name[tool["name"]] for tool in expected] == expected
    assert set(by_name) == {tool["name"] for tool in expected} | {servers.OWN_TOOL}


def test_a_call_answers_structured_content_and_the_same_json_as_text(served: Any) -> None:
    _, out = served
    echo = out["echo"]
    assert echo["structuredContent"] == {"text": "abab", "times": 2}
    assert json.loads(_text(echo)) == echo["structuredContent"]
    assert not echo.get("isError")
    assert out["typed"]["structuredContent"] == {"greeting": "Hi Ada"}
    assert _text(out["hello"]) == "Hello!"


def test_a_non_object_result_is_wrapped_only_before_2026(served: Any) -> None:
    era, out = served
    expected: Any = 3 if era == "modern" else {"result": 3}
    assert out["count"]["structuredContent"] == expected
    assert json.loads(_text(out["count"])) == expected


def test_bad_arguments_answer_is_error_naming_the_field(served: Any) -> None:
    _, out = served
    result = out["bad_args"]
    assert result["isError"] is True
    assert _text(result).startswith("Invalid arguments for tool 'echo': text:")


@pytest.mark.parametrize(
    ("tool", "text"),
    [
        ("refuse", "Nothing to refuse today"),
        ("bad_output", "does not match its output schema"),
        ("boom", "failed with an internal error"),
    ],
)
def test_a_failing_tool_answers_is_error_with_no_internals(
    served: Any, tool: str, text: str
) -> None:
    _, out = served
    result = out[tool]
    assert result["isError"] is True
    assert text in _text(result)
    assert "structuredContent" not in result
    assert "secret" not in _text(result)


def test_the_servers_own_tool_resource_and_prompt_are_still_served(served: Any) -> None:
    _, out = served
    assert _text(out[servers.OWN_TOOL]) == "OWN"
    assert out["resource"]["contents"][0]["text"] == servers.RESOURCE_TEXT
    assert out["prompt"]["messages"][0]["content"]["text"] == servers.PROMPT_TEXT


def test_add_tools_refuses_what_is_not_an_sdk_server() -> None:
    from toolgen.sdk import add_tools

    with pytest.raises(TypeError, match="MCPServer"):
        add_tools(object(), servers.DEMO_SPEC, {})
    assert sys.modules.get("toolgen.sdk") is not None


def test_the_example_sdk_server_serves_the_notes_tools_beside_its_own() -> None:
    async def scenario(session: ClientSession, era: str) -> dict[str, Any]:
        names = [tool.name for tool in (await session.list_tools()).tools]
        created = await session.call_tool("create_note", {"title": "Milk", "tags": ["shop"]})
        counted = await session.call_tool("count_notes", {})
        readme = await session.read_resource("notes://readme")
        prompt = await session.get_prompt("summarize", {"tag": "shop"})
        return {
            "names": names,
            "created": created.structured_content,
            "count": counted.structured_content,
            "readme": _dump(readme)["contents"][0]["text"],
            "prompt": _dump(prompt)["messages"][0]["content"]["text"],
        }

    out = run_sdk_scenario("legacy", ["examples/sdk_server.py"], scenario, cwd=ROOT)
    notes = [tool.name for tool in toolgen.load(ROOT / "specs" / "notes").tools]
    assert out["names"] == ["server_time", *notes]
    assert out["created"]["title"] == "Milk"
    assert out["count"] == {"result": 1}
    assert out["readme"].startswith("# Notes")
    assert "tag='shop'" in out["prompt"]


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("kind", KINDS)
def test_a_handlers_progress_and_log_messages_reach_the_sdk_client_before_its_result(
    kind: str, era: str, transport: str
) -> None:
    events: list[tuple[str, Any]] = []

    async def on_log(params: Any) -> None:
        events.append(("log", params.data))

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        events.append(("progress", (progress, total, message)))

    async def scenario(session: ClientSession, era: str) -> dict[str, Any]:
        for tool in ("report", "report_sync"):  # async on the loop; sync on a worker thread
            result = await session.call_tool(tool, {}, progress_callback=on_progress)
            events.append(("result", _dump(result)["structuredContent"]))
        return {}

    serve_and_run(kind, era, transport, scenario, logging_callback=on_log, log_level="info")
    one_call = [
        ("progress", (1.0, 2.0, "half way")),
        ("log", "working"),
        ("result", {"done": True}),
    ]
    assert events == one_call + one_call
