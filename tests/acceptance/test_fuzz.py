"""Bounded fuzzing of the three surfaces anyone can feed: the spec loader, the engine
(what stdio hands it, line by line) and the HTTP app (issue 10).

Each property is the contract: whatever the input, the loader answers a value or a
`SpecError` (never another exception), the engine answers every request exactly once
with a well-formed JSON-RPC response and nothing else, and the HTTP app never answers
500. Example counts are small and derandomized so the suite stays fast and
repeatable; `benchmarks/fuzz.py` runs the same properties with many more examples
(`TOOLGEN_FUZZ_EXAMPLES`).
"""

from __future__ import annotations

import asyncio
import json
import os
import unicodedata
from pathlib import Path
from typing import Any

import httpx
import pytest
from conftest import SPECS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolgen
from toolgen.build.naming import field_aliases
from toolgen.serve import jsonrpc
from toolgen.serve.connection import Connection
from toolgen.serve.engine import Engine
from toolgen.serve.http import create_app
from toolgen.serve.mock import mock_handlers
from toolgen.spec.errors import SpecError
from toolgen.spec.model import parse_spec_file
from toolgen.spec.resolver import resolve
from toolgen.spec.source import parse_source

EXAMPLES = int(os.environ.get("TOOLGEN_FUZZ_EXAMPLES", "60"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize="TOOLGEN_FUZZ_EXAMPLES" not in os.environ,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
VIRTUAL = Path("/fuzz/main.yaml")

# -- the spec loader ----------------------------------------------------------------------

SCHEMA_KEYS = [
    "type", "properties", "items", "required", "$ref", "$dynamicRef", "$dynamicAnchor",
    "pattern", "patternProperties", "enum", "const", "default", "allOf", "anyOf", "oneOf",
    "not", "additionalProperties", "minimum", "maxLength", "format", "$defs", "examples",
]  # fmt: skip
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=20),
    st.sampled_from(
        ["object", "string", "#/defs/A", "#/defs/B", "#a", "[", "(?<=x)y", "a{1,99999}"]
    ),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(
            st.one_of(st.sampled_from(SCHEMA_KEYS), st.text(max_size=8)), inner, max_size=5
        ),
    ),
    max_leaves=25,
)
tools = st.lists(
    st.fixed_dictionaries(
        {"name": st.sampled_from(["a", "b", "c", "bad name", ""])},
        optional={"input": values, "output": values, "examples": values, "annotations": values},
    ),
    max_size=3,
)
specs = st.fixed_dictionaries(
    {
        "toolgen": st.sampled_from([1, 1, 1, 2, "1"]),
        "server": st.just({"name": "fuzz", "version": "1"}),
    },
    optional={
        "tools": tools,
        "defs": st.dictionaries(st.sampled_from(["A", "B"]), values, max_size=2),
    },
)


def load_text(text: str) -> None:
    """The whole load pipeline on one file's text: parse, validate, resolve."""
    resolve([parse_spec_file(parse_source(text, VIRTUAL, "main.yaml"))])


@FUZZ
@given(specs)
def test_any_spec_loads_or_fails_with_spec_errors(spec: dict[str, Any]) -> None:
    try:
        load_text(json.dumps(spec))
    except SpecError as exc:
        assert all(d.code for d in exc.diagnostics)


YAML_BITS = [
    "toolgen: 1\n", "server: {name: x, version: '1'}\n", "tools:\n", "  - name: a\n",
    "    input: ", "{", "}", "[", "]", "!!python/object:os.system ", "&a ", "*a ", "? ", "- ",
    ": ", "'", '"', "\\", "\t", "\x00", "\x07", "\ufeff", "#", "\n", "    ", "99999999999",
    "0x", ".nan", "yes", "<<: ", "%YAML 1.1\n", "---\n", "...\n", "|\n", ">\n",
]  # fmt: skip


@FUZZ
@given(st.lists(st.one_of(st.sampled_from(YAML_BITS), st.text(max_size=6)), max_size=40))
def test_any_text_parses_or_fails_with_spec_errors(bits: list[str]) -> None:
    try:
        load_text("".join(bits))
    except SpecError as exc:
        assert all(d.location is not None for d in exc.diagnostics)


# -- numbers at the 64-bit edges, names Python folds ----------------------------------------

EDGES = [2**63 - 1, 2**63, 2**64 - 1, 2**64, 2**64 + 1, -(2**63), -(2**63) - 1, 10**19]
numbers = st.one_of(
    st.sampled_from(EDGES),
    st.integers(-(2**200), 2**200),
    st.floats(allow_nan=False, allow_infinity=False),
)
json_values = st.recursive(
    st.one_of(numbers, st.text(max_size=4), st.booleans(), st.none()),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=8,
)


@FUZZ
@given(json_values)
def test_the_json_rpc_codec_keeps_every_number_exactly(value: Any) -> None:
    back = jsonrpc.loads(jsonrpc.dumps(value))
    assert json.dumps(back, sort_keys=True) == json.dumps(value, sort_keys=True)


FOLDING = "aKs_0\u017f\u212a\uff41\ufb01\uff58\u00b5"
"""ASCII, and characters NFKC folds (long s, Kelvin sign, fullwidth, a ligature, micro)."""


@FUZZ
@given(st.lists(st.text(alphabet=FOLDING, min_size=1, max_size=4), max_size=6, unique=True))
def test_field_names_of_folded_properties_are_ascii_and_never_another_property(
    names: list[str],
) -> None:
    aliases = field_aliases(names)
    taken = set(names) | {unicodedata.normalize("NFKC", name) for name in names}
    assert len(set(aliases.values())) == len(aliases)
    for python in aliases.values():
        assert python.isascii() and python.isidentifier() and python not in taken
    assert all(unicodedata.normalize("NFKC", n) == n for n in names if n not in aliases)


# -- the engine, as stdio feeds it ------------------------------------------------------------

TOOLSET = toolgen.load(SPECS / "notes")
METHODS = ["initialize", "ping", "tools/list", "tools/call", "server/discover", "logging/setLevel",
           "notifications/cancelled", "notifications/initialized", "resources/list", ""]  # fmt: skip
ids = st.one_of(
    st.integers(-5, 5), st.sampled_from(["a", "b", ""]), st.none(), st.floats(0, 1), st.booleans()
)
params = st.one_of(
    st.none(),
    values,
    st.fixed_dictionaries(
        {},
        optional={
            "name": st.sampled_from([t.name for t in TOOLSET.tools] + ["nope", ""]),
            "arguments": values,
            "protocolVersion": st.sampled_from(["2025-11-25", "2025-03-26", "1999-01-01"]),
            "_meta": st.one_of(
                values,
                st.just(
                    {
                        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                        "io.modelcontextprotocol/clientCapabilities": {},
                    }
                ),
            ),
            "cursor": values,
            "level": st.sampled_from(["info", "loud"]),
            "requestId": ids,
        },
    ),
)
messages = st.one_of(
    values,
    st.fixed_dictionaries(
        {
            "jsonrpc": st.sampled_from(["2.0", "2.0", "1.0"]),
            "method": st.one_of(st.sampled_from(METHODS), values),
        },
        optional={"id": ids, "params": params, "result": values, "error": values},
    ),
)


@FUZZ
@given(st.lists(messages, max_size=8))
def test_the_engine_answers_each_request_once_and_nothing_else(batch: list[Any]) -> None:
    engine = Engine(TOOLSET, mock_handlers(TOOLSET), timeout=5)
    connection = Connection()

    async def feed() -> list[Any]:
        replies = []
        for message in batch:
            line = json.dumps(message).encode()  # what a client writes; the server reads it
            replies.append(await engine.handle(jsonrpc.loads(line), connection))
        return replies

    for message, reply in zip(batch, asyncio.run(feed()), strict=True):
        is_request = isinstance(message, dict) and "id" in message and "method" in message
        if reply is None:
            assert not (is_request and jsonrpc.is_request_id(message["id"])), message
            continue
        jsonrpc.dumps(reply)  # serializable
        assert reply["jsonrpc"] == "2.0"
        assert ("result" in reply) != ("error" in reply)
        if is_request and jsonrpc.is_request_id(message["id"]) and "error" not in reply:
            assert reply["id"] == message["id"]


@FUZZ
@given(st.binary(max_size=200))
def test_any_line_of_bytes_is_a_parse_error_or_a_message(line: bytes) -> None:
    try:
        message = jsonrpc.loads(line)
    except jsonrpc.JSONDecodeError:
        return
    engine = Engine(TOOLSET, mock_handlers(TOOLSET))
    reply = asyncio.run(engine.handle(message, Connection()))
    assert reply is None or reply["jsonrpc"] == "2.0"


# -- the HTTP app ------------------------------------------------------------------------------

APP = create_app(Engine(TOOLSET, mock_handlers(TOOLSET), timeout=5))
header_names = st.sampled_from(
    ["content-type", "accept", "mcp-session-id", "mcp-protocol-version", "mcp-method", "mcp-name",
     "origin", "authorization", "content-length", "host", "mcp-param-x"]
)  # fmt: skip
header_values = st.one_of(
    st.sampled_from(["application/json", "text/event-stream", "2026-07-28", "2025-11-25",
                     "tools/call", "http://127.0.0.1", "http://evil.example", "127.0.0.1", "-1", "9"]),
    st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=20),
)  # fmt: skip


@FUZZ
@given(
    st.sampled_from(["POST", "POST", "GET", "DELETE", "PUT", "OPTIONS"]),
    st.dictionaries(header_names, header_values, max_size=6),
    st.one_of(st.binary(max_size=100), messages.map(lambda m: json.dumps(m).encode())),
)
def test_the_http_app_never_answers_500(method: str, headers: dict[str, str], body: bytes) -> None:
    base = {
        "host": "127.0.0.1",
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
    }
    headers = {**base, **headers}
    headers.pop("content-length", None)

    async def send() -> httpx.Response:
        transport = httpx.ASGITransport(app=APP)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            return await client.request(method, "/mcp", headers=headers, content=body)

    response = asyncio.run(send())
    assert response.status_code < 500 or response.status_code == 503, response.text
    if response.headers.get("content-type", "").startswith("application/json") and response.content:
        assert response.json()["jsonrpc"] == "2.0"


@pytest.mark.parametrize("depth", [500, 1023])
def test_deeply_nested_arguments_are_refused_not_crashing(depth: int) -> None:
    engine = Engine(TOOLSET, mock_handlers(TOOLSET))
    nested: list[Any] = []
    for _ in range(depth - 1):  # orjson reads at most 1024 levels from the wire
        nested = [nested]
    arguments = {"title": nested}
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
               "params": {"name": TOOLSET.tools[0].name, "arguments": arguments,
                          "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                                    "io.modelcontextprotocol/clientCapabilities": {}}}}  # fmt: skip
    reply = asyncio.run(engine.handle(message, Connection()))
    assert reply is not None and reply["result"]["isError"] is True
