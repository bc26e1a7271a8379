"""Asking the client for input in both eras, as raw frames: `InputRequiredResult`
(2026-07-28, SEP-2322) over stdio and HTTP, the signed `requestState`,
multi-round and concurrent questions, client capabilities (-32021), and the
same handlers asking through the 2025 session's event stream.

Errors are asserted by code (and HTTP status), never by message text.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from typing import Any

import anyio
import httpx
import mcp.types as types
import orjson
import pytest
from conftest import ROOT, SPECS
from http_support import http_server
from mcp import StdioServerParameters
from mcp.client.client import Client
from runtime_support.frames import FrameClient, modern_meta

import toolgen
from examples.conformance_handlers import HANDLERS
from toolgen.serve.inputs import InvalidInput, StateSigner
from toolgen.spec.protocol import LATEST_REVISION

GUARD = 30.0
"""Seconds before a hung request fails: a guard, not a timing assertion."""
CONFORMANCE = SPECS / "conformance"
ALL_CAPABILITIES = {"elicitation": {}, "sampling": {}, "roots": {}}
ALICE = {"action": "accept", "content": {"name": "Alice"}}
PARIS = {
    "role": "assistant",
    "content": {"type": "text", "text": "Paris."},
    "model": "test-model",
    "stopReason": "endTurn",
}
ROOTS = {"roots": [{"uri": "file:///work", "name": "work"}]}


def meta(capabilities: dict[str, Any] | None = None) -> dict[str, Any]:
    found = modern_meta()
    found["io.modelcontextprotocol/clientCapabilities"] = (
        ALL_CAPABILITIES if capabilities is None else capabilities
    )
    return found


def text_of(result: dict[str, Any]) -> str:
    return "".join(block["text"] for block in result["content"])


@pytest.fixture(scope="module")
def stdio() -> Iterator[FrameClient]:
    client = FrameClient(str(CONFORMANCE), "--handlers", "examples.conformance_handlers:HANDLERS")
    yield client
    client.close()


class Caller:
    """Modern `tools/call` over stdio with fresh ids."""

    def __init__(self, client: FrameClient) -> None:
        self.client = client
        self.next_id = 0

    def __call__(self, name: str, capabilities: Any = None, **params: Any) -> dict[str, Any]:
        self.next_id += 1
        body = {"name": name, "arguments": {}, "_meta": meta(capabilities), **params}
        reply: dict[str, Any] = self.client.request(self.next_id, "tools/call", body)
        return reply


@pytest.fixture(scope="module")
def call(stdio: FrameClient) -> Caller:
    return Caller(stdio)


def test_a_question_answers_input_required_then_the_retry_completes(call: Caller) -> None:
    first = call("test_input_required_result_elicitation")["result"]
    assert first["resultType"] == "input_required"
    request = first["inputRequests"]["user_name"]
    assert request["method"] == "elicitation/create"
    assert request["params"]["message"] == "What is your name?"
    assert isinstance(first["requestState"], str)
    final = call(
        "test_input_required_result_elicitation",
        inputResponses={"user_name": ALICE},
        requestState=first["requestState"],
    )["result"]
    assert final["resultType"] == "complete"
    assert final["isError"] is False
    assert text_of(final) == "Hello, Alice!"


@pytest.mark.parametrize(
    ("tool", "key", "method", "answer", "text"),
    [
        (
            "test_input_required_result_sampling",
            "capital_question",
            "sampling/createMessage",
            PARIS,
            "The model said: Paris.",
        ),
        (
            "test_input_required_result_list_roots",
            "client_roots",
            "roots/list",
            ROOTS,
            "Roots: file:///work",
        ),
    ],
)
def test_sampling_and_roots_go_the_same_way(
    call: Caller, tool: str, key: str, method: str, answer: Any, text: str
) -> None:
    first = call(tool)["result"]
    assert first["inputRequests"][key]["method"] == method
    final = call(tool, inputResponses={key: answer}, requestState=first["requestState"])
    assert text_of(final["result"]) == text


def test_concurrent_questions_go_out_in_one_round(call: Caller) -> None:
    first = call("test_input_required_result_multiple_inputs")["result"]
    methods = {key: request["method"] for key, request in first["inputRequests"].items()}
    assert methods == {
        "user_name": "elicitation/create",
        "greeting": "sampling/createMessage",
        "client_roots": "roots/list",
    }
    answers = {"user_name": ALICE, "greeting": PARIS, "client_roots": ROOTS}
    final = call(
        "test_input_required_result_multiple_inputs",
        inputResponses=answers,
        requestState=first["requestState"],
    )["result"]
    assert text_of(final) == "Paris. Alice (1 roots)"


def test_a_multi_round_call_keeps_earlier_answers_in_the_state(call: Caller) -> None:
    tool = "test_input_required_result_multi_round"
    first = call(tool)["result"]
    assert list(first["inputRequests"]) == ["step1"]
    second = call(tool, inputResponses={"step1": ALICE}, requestState=first["requestState"])
    second_result = second["result"]
    assert list(second_result["inputRequests"]) == ["step2"]
    blue = {"action": "accept", "content": {"color": "blue"}}
    final = call(tool, inputResponses={"step2": blue}, requestState=second_result["requestState"])
    assert text_of(final["result"]) == "Alice likes blue"


@pytest.mark.parametrize("tamper", [lambda s: s + "-TAMPERED", lambda s: "x" + s[1:], lambda s: ""])
def test_a_tampered_state_is_refused(call: Caller, tamper: Any) -> None:
    tool = "test_input_required_result_tampered_state"
    first = call(tool)["result"]
    confirm = {"action": "accept", "content": {"ok": True}}
    reply = call(
        tool, inputResponses={"confirm": confirm}, requestState=tamper(first["requestState"])
    )
    assert reply["error"]["code"] == -32602


def test_a_state_from_another_call_is_refused(call: Caller) -> None:
    first = call("test_input_required_result_request_state")["result"]
    reply = call(
        "test_input_required_result_tampered_state",
        inputResponses={"confirm": {"action": "accept", "content": {"ok": True}}},
        requestState=first["requestState"],
    )
    assert reply["error"]["code"] == -32602


def test_an_expired_state_is_refused() -> None:
    now = [1000.0]
    signer = StateSigner(b"k", ttl=10, clock=lambda: now[0])
    token = signer.seal({"call": "x"})
    assert signer.open(token)["call"] == "x"
    now[0] += 11
    with pytest.raises(InvalidInput):
        signer.open(token)


def test_a_missing_answer_is_asked_again(call: Caller) -> None:
    tool = "test_input_required_result_elicitation"
    reply = call(tool, inputResponses={"wrong_key": ALICE})["result"]
    assert reply["resultType"] == "input_required"
    assert list(reply["inputRequests"]) == ["user_name"]


def test_extra_answers_are_ignored_and_no_state_is_needed(call: Caller) -> None:
    answers = {"user_name": ALICE, "unknown_extra_key": {"action": "accept", "content": {}}}
    reply = call("test_input_required_result_elicitation", inputResponses=answers)["result"]
    assert text_of(reply) == "Hello, Alice!"


@pytest.mark.parametrize("responses", [None, 12345, {"user_name": 12345}, {"user_name": {"x": 1}}])
def test_malformed_input_responses_are_invalid_params(call: Caller, responses: Any) -> None:
    reply = call("test_input_required_result_elicitation", inputResponses=responses)
    assert reply["error"]["code"] == -32602


def test_only_declared_capabilities_are_asked_for(call: Caller) -> None:
    reply = call("test_input_required_result_capabilities", {"sampling": {}})["result"]
    assert [r["method"] for r in reply["inputRequests"].values()] == ["sampling/createMessage"]


def test_a_question_needing_an_undeclared_capability_fails_the_call(call: Caller) -> None:
    reply = call("test_input_required_result_elicitation", {})["result"]
    assert reply["isError"] is True
    assert "inputRequests" not in reply


def test_a_tool_needing_a_capability_is_refused_without_it(call: Caller) -> None:
    reply = call("test_missing_capability", {"elicitation": {}})
    assert reply["error"]["code"] == -32021
    assert reply["error"]["data"] == {"requiredCapabilities": {"sampling": {}}}
    assert call("test_missing_capability", {"sampling": {}})["result"]["isError"] is False


def test_tools_list_never_asks_for_input(call: Caller, stdio: FrameClient) -> None:
    reply = stdio.request("l", "tools/list", {"_meta": meta()})["result"]
    assert reply["resultType"] == "complete"


# -- the 2025 era: the same handlers ----------------------------------------------------


def test_a_2025_session_over_stdio_cannot_be_asked_and_gets_an_error() -> None:
    client = FrameClient(str(CONFORMANCE), "--handlers", "examples.conformance_handlers:HANDLERS")
    try:
        client.initialize()
        body = {"name": "test_input_required_result_elicitation", "arguments": {}}
        result = client.request(1, "tools/call", body)["result"]
        assert result["isError"] is True
        need = client.request(2, "tools/call", {"name": "test_missing_capability"})["result"]
        assert need["isError"] is True  # initialize declared no sampling
    finally:
        client.close()


# -- HTTP -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with http_server(toolgen.load(CONFORMANCE), HANDLERS) as endpoint:
        yield endpoint


def post(http: httpx.Client, url: str, body: Any, **headers: str) -> httpx.Response:
    merged = {
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        **headers,
    }
    return http.post(url, content=orjson.dumps(body), headers=merged)


def modern_post(
    http: httpx.Client, url: str, name: str, capabilities: Any = None, **params: Any
) -> httpx.Response:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": name, "arguments": {}, "_meta": meta(capabilities), **params},
    }
    headers = {
        "mcp-protocol-version": LATEST_REVISION,
        "mcp-method": "tools/call",
        "mcp-name": name,
    }
    return post(http, url, body, **headers)


def test_input_required_over_http(url: str) -> None:
    tool = "test_input_required_result_multi_round"
    with httpx.Client(timeout=GUARD) as http:
        first = modern_post(http, url, tool)
        assert first.status_code == 200
        assert first.headers["content-type"].startswith("application/json")
        state = first.json()["result"]["requestState"]
        second = modern_post(http, url, tool, inputResponses={"step1": ALICE}, requestState=state)
        assert list(second.json()["result"]["inputRequests"]) == ["step2"]


def test_a_missing_capability_is_400_over_http(url: str) -> None:
    with httpx.Client(timeout=GUARD) as http:
        response = modern_post(http, url, "test_missing_capability", {})
    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32021
    assert response.json()["id"] == 1


def test_a_2025_session_asks_the_same_handler_on_its_event_stream(url: str) -> None:
    """The handler that answers InputRequiredResult in 2026-07-28 sends elicitation/create
    on the call's SSE stream in a 2025 session, and gets the client's POSTed answer."""
    with httpx.Client(timeout=GUARD) as http:
        init = {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {"elicitation": {}},
                "clientInfo": {"name": "t", "version": "1"},
            },
        }
        session = post(http, url, init).headers["mcp-session-id"]
        call = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "test_input_required_result_elicitation", "arguments": {}},
        }
        headers = {
            "content-type": "application/json",
            "accept": "application/json, text/event-stream",
            "mcp-session-id": session,
        }
        messages = []
        with http.stream("POST", url, content=orjson.dumps(call), headers=headers) as stream:
            for line in stream.iter_lines():
                if not line.startswith("data:"):
                    continue
                message = orjson.loads(line[len("data:") :])
                messages.append(message)
                if message.get("method") == "elicitation/create":
                    answer = {"jsonrpc": "2.0", "id": message["id"], "result": ALICE}
                    assert post(http, url, answer, **{"mcp-session-id": session}).status_code == 202
                if "result" in message and message.get("id") == 1:
                    break
    assert messages[0]["params"]["message"] == "What is your name?"
    assert text_of(messages[-1]["result"]) == "Hello, Alice!"


# -- the official SDK client drives the rounds itself -------------------------------------


async def sdk_elicit(context: Any, params: types.ElicitRequestParams) -> Any:
    asks_color = "color" in params.message
    content = {"color": "red"} if asks_color else {"name": "Ada"}
    return types.ElicitResult(action="accept", content=content)


async def sdk_sample(context: Any, params: types.CreateMessageRequestParams) -> Any:
    return types.CreateMessageResult(
        role="assistant", content=types.TextContent(type="text", text="Paris."), model="m"
    )


async def sdk_roots(context: Any) -> Any:
    return types.ListRootsResult(roots=[types.Root(uri="file:///work", name="work")])


def sdk_call(server: Any, tool: str, mode: str) -> Any:
    async def main() -> Any:
        with anyio.fail_after(GUARD):
            async with Client(
                server,
                mode=mode,
                elicitation_callback=sdk_elicit,
                sampling_callback=sdk_sample,
                list_roots_callback=sdk_roots,
            ) as client:
                return await client.call_tool(tool, {})

    return anyio.run(main)


@pytest.mark.parametrize("mode", ["2026-07-28", "legacy"])
def test_the_sdk_client_answers_the_same_handler_in_both_eras_over_http(
    url: str, mode: str
) -> None:
    result = sdk_call(url, "test_input_required_result_multi_round", mode)
    assert not result.is_error
    assert result.content[0].text == "Ada likes red"


def test_the_sdk_client_answers_concurrent_questions_over_stdio() -> None:
    server = StdioServerParameters(
        command=sys.executable,
        args=[
            "-m",
            "toolgen",
            "serve",
            str(CONFORMANCE),
            "--handlers",
            "examples.conformance_handlers:HANDLERS",
        ],
        cwd=str(ROOT),
        env=dict(os.environ),  # the SDK passes a minimal environment: keep coverage's
    )
    result = sdk_call(server, "test_input_required_result_multiple_inputs", "2026-07-28")
    assert not result.is_error
    assert result.content[0].text == "Paris. Ada (1 roots)"
