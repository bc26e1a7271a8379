"""The HTTP transport's security rules: Host and Origin (403), bearer token (401),
body size (413), no internals in responses; and `toolgen serve --http` wiring them."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import httpx
import orjson
import pytest
from conftest import ROOT, SPECS
from http_support import http_server

import toolgen
from examples.conformance_handlers import HANDLERS
from toolgen.serve.http.security import (
    SecurityPolicy,
    host_allowed,
    normalize_origin,
    origin_allowed,
    parse_origins,
    token_accepted,
)
from toolgen.serve.http.server import parse_address

CONFORMANCE = toolgen.load(SPECS / "conformance")
GUARD = 30.0
"""Seconds before a hung request or server start fails: a guard, not a timing assertion."""
PING = orjson.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"})
JSON_HEADERS = {"content-type": "application/json", "accept": "application/json"}


def boom() -> None:
    raise RuntimeError("secret internal detail")


@pytest.fixture(scope="module")
def default_url() -> Iterator[str]:
    with http_server(CONFORMANCE, {**HANDLERS, "test_simple_text": boom}) as url:
        yield url


def post(url: str, headers: dict[str, str] | None = None, content: bytes = PING) -> httpx.Response:
    with httpx.Client(timeout=GUARD) as client:
        return client.post(url, content=content, headers={**JSON_HEADERS, **(headers or {})})


def initialize_body() -> bytes:
    return orjson.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "test", "version": "1"},
            },
        }
    )


# -- the rules as pure functions ----------------------------------------------------------


@pytest.mark.parametrize(
    ("origin", "allowed"),
    [
        (None, True),
        ("http://localhost", True),
        ("http://localhost:6274", True),
        ("https://127.0.0.1:8443", True),
        ("http://[::1]:3000", True),
        ("http://evil.example.com", False),
        ("http://localhost.evil.example.com", False),
        ("http://127.0.0.1.evil.example.com", False),
        ("null", False),
        ("file://", False),
        ("not a url", False),
    ],
)
def test_only_absent_or_loopback_origins_pass_by_default(origin: str | None, allowed: bool) -> None:
    assert origin_allowed(origin, SecurityPolicy()) is allowed


def test_an_allow_list_admits_exactly_its_origins() -> None:
    policy = SecurityPolicy(allowed_origins=parse_origins(["https://App.Example.com/"]))
    assert origin_allowed("https://app.example.com", policy)
    assert not origin_allowed("http://app.example.com", policy)
    assert not origin_allowed("https://app.example.com:444", policy)
    assert origin_allowed("http://evil.example.com", SecurityPolicy(allowed_origins=frozenset("*")))


@pytest.mark.parametrize("value", ["app.example.com", "https://app.example.com/path", "ftp://x"])
def test_allow_list_entries_must_be_origins(value: str) -> None:
    with pytest.raises(ValueError):
        parse_origins([value])


def test_origins_are_normalized_for_comparison() -> None:
    assert normalize_origin("HTTP://LOCALHOST:80") == "http://localhost:80"
    assert normalize_origin("http://[::1]:3000/") == "http://[::1]:3000"


@pytest.mark.parametrize(
    ("host", "allowed"),
    [
        ("127.0.0.1:8000", True),
        ("localhost", True),
        ("[::1]:8000", True),
        ("evil.example.com:8000", False),
        ("127.0.0.1.nip.io", False),
        (None, False),
        ("[::1", False),
    ],
)
def test_the_host_check_admits_loopback_names_only(host: str | None, allowed: bool) -> None:
    assert host_allowed(host, SecurityPolicy()) is allowed
    assert host_allowed(host, SecurityPolicy(check_host=False))


@pytest.mark.parametrize(
    ("authorization", "accepted"),
    [
        ("Bearer s3cret", True),
        ("bearer s3cret", True),
        ("Bearer wrong", False),
        ("Basic s3cret", False),
        ("s3cret", False),
        (None, False),
    ],
)
def test_the_token_must_be_presented_as_a_bearer_credential(
    authorization: str | None, accepted: bool
) -> None:
    assert token_accepted(authorization, SecurityPolicy(token="s3cret")) is accepted
    assert token_accepted(authorization, SecurityPolicy())


@pytest.mark.parametrize(
    ("text", "address"),
    [
        ("127.0.0.1:8000", ("127.0.0.1", 8000)),
        ("8000", ("127.0.0.1", 8000)),
        ("[::1]:0", ("::1", 0)),
        ("0.0.0.0:9", ("0.0.0.0", 9)),
    ],
)
def test_listen_addresses_parse(text: str, address: tuple[str, int]) -> None:
    assert parse_address(text) == address


@pytest.mark.parametrize("text", ["", "host:", ":80", "host:http", "127.0.0.1:70000", "[::1]"])
def test_bad_listen_addresses_are_refused(text: str) -> None:
    with pytest.raises(ValueError):
        parse_address(text)


# -- the rules on a running server --------------------------------------------------------


@pytest.mark.parametrize("method", ["POST", "GET", "DELETE"])
def test_a_foreign_origin_gets_403_whatever_the_method(default_url: str, method: str) -> None:
    with httpx.Client(timeout=GUARD) as client:
        response = client.request(
            method,
            default_url,
            content=PING if method == "POST" else None,
            headers={**JSON_HEADERS, "origin": "http://evil.example.com"},
        )
    assert response.status_code == 403
    assert response.json()["error"]["code"] == -32600


def test_a_loopback_origin_is_served(default_url: str) -> None:
    response = post(default_url, {"origin": "http://localhost:6274"}, initialize_body())
    assert response.status_code == 200
    assert response.headers["access-control-allow-origin"] == "http://localhost:6274"
    assert "mcp-session-id" in response.headers["access-control-expose-headers"].lower()


def test_a_second_origin_header_cannot_hide_behind_a_loopback_one(default_url: str) -> None:
    headers = [
        ("content-type", "application/json"),
        ("origin", "http://localhost"),
        ("origin", "http://evil.example.com"),
    ]
    with httpx.Client(timeout=GUARD) as client:
        assert client.post(default_url, content=PING, headers=headers).status_code == 403


def test_a_rebound_host_name_gets_403_even_without_origin(default_url: str) -> None:
    assert post(default_url, {"host": "evil.example.com"}).status_code == 403


def test_a_body_over_the_limit_gets_413_whether_declared_or_streamed() -> None:
    with http_server(CONFORMANCE, HANDLERS, SecurityPolicy(max_body=1024)) as url:
        big = b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "pad": "' + b"x" * 2000 + b'"}'
        assert post(url, content=big).status_code == 413

        def chunks() -> Iterator[bytes]:  # no Content-Length: the server counts as it reads
            yield big[:1000]
            yield big[1000:]

        with httpx.Client(timeout=GUARD) as client:
            streamed = client.post(url, content=chunks(), headers=JSON_HEADERS)
        assert streamed.status_code == 413
        assert post(url, content=initialize_body()).status_code == 200


def test_a_configured_token_is_required_before_anything_else() -> None:
    with http_server(CONFORMANCE, HANDLERS, SecurityPolicy(token="s3cret")) as url:
        missing = post(url, content=initialize_body())
        assert missing.status_code == 401
        assert missing.headers["www-authenticate"].startswith("Bearer")
        assert post(url, {"authorization": "Bearer nope"}).status_code == 401
        with httpx.Client(timeout=GUARD) as client:
            assert client.get(url).status_code == 401
        ok = post(url, {"authorization": "Bearer s3cret"}, initialize_body())
        assert ok.status_code == 200


def test_an_allow_listed_origin_passes_and_gets_cors_preflight_answers() -> None:
    policy = SecurityPolicy(allowed_origins=parse_origins(["https://app.example.com"]))
    with http_server(CONFORMANCE, HANDLERS, policy) as url:
        assert post(url, {"origin": "https://app.example.com"}, initialize_body()).is_success
        assert post(url, {"origin": "https://other.example.com"}).status_code == 403
        with httpx.Client(timeout=GUARD) as client:
            preflight = client.options(
                url,
                headers={
                    "origin": "https://app.example.com",
                    "access-control-request-method": "POST",
                    "access-control-request-headers": "content-type, mcp-session-id",
                },
            )
        assert preflight.status_code == 200
        assert preflight.headers["access-control-allow-origin"] == "https://app.example.com"


def test_a_crashing_handler_leaks_no_internals(default_url: str) -> None:
    session = post(default_url, content=initialize_body()).headers["mcp-session-id"]
    call = orjson.dumps(
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "test_simple_text"}}
    )
    response = post(default_url, {"mcp-session-id": session}, call)
    assert response.status_code == 200
    result = response.json()["result"]
    assert result["isError"] is True
    assert "secret" not in response.text
    assert "Traceback" not in response.text


@pytest.mark.parametrize(
    "body",
    [b'"just a string"', b"42", b'{"jsonrpc": "2.0", "id": {"x": 1}, "method": "ping"}', b"\xff"],
)
def test_odd_bodies_get_json_rpc_errors_not_server_errors(default_url: str, body: bytes) -> None:
    response = post(default_url, content=body)
    assert response.status_code == 400
    assert response.json()["error"]["code"] in (-32700, -32600)


# -- toolgen serve --http -----------------------------------------------------------------


def start_cli(*args: str, env: dict[str, str] | None = None) -> tuple[subprocess.Popen[str], str]:
    """`toolgen serve specs/conformance ... --http 127.0.0.1:0 ARGS`, and its endpoint URL."""
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "toolgen",
            "serve",
            "specs/conformance",
            "--handlers",
            "examples.conformance_handlers:HANDLERS",
            "--http",
            "127.0.0.1:0",
            *args,
        ],
        cwd=ROOT,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
    )
    assert process.stderr is not None
    line = process.stderr.readline()
    if "http://" not in line:
        process.kill()
        raise AssertionError(f"no address announced: {line!r}")
    return process, line.split(" at ", 1)[1].split()[0]


def stop(process: subprocess.Popen[Any]) -> None:
    process.terminate()
    try:
        process.wait(GUARD)
    finally:
        if process.poll() is None:
            process.kill()


@pytest.mark.parametrize("how", ["option", "environment"])
def test_serve_http_requires_the_token_given_by_option_or_environment(how: str) -> None:
    args, env = (
        (["--token", "s3cret"], None) if how == "option" else ([], {"TOOLGEN_TOKEN": "s3cret"})
    )
    process, url = start_cli(*args, env=env)
    try:
        assert url.startswith("http://127.0.0.1:") and url.endswith("/mcp")
        assert post(url, content=initialize_body()).status_code == 401
        assert post(url, {"authorization": "Bearer s3cret"}, initialize_body()).status_code == 200
    finally:
        stop(process)


def test_serve_http_admits_an_allow_listed_origin() -> None:
    process, url = start_cli("--allow-origin", "https://app.example.com")
    try:
        assert post(url, {"origin": "https://app.example.com"}, initialize_body()).is_success
        assert post(url, {"origin": "https://evil.example.com"}).status_code == 403
    finally:
        stop(process)


@pytest.mark.parametrize(
    "args",
    [
        ["--http", "nowhere"],
        ["--http", "127.0.0.1:0", "--allow-origin", "example.com"],
        ["--http", "127.0.0.1:0", "--workers", "0"],
        ["--workers", "2"],  # without --http
        ["--http", "127.0.0.1:0", "--token", ""],  # would let any client in
        ["--http", "127.0.0.1:0", "--token", " "],
        ["--http", "127.0.0.1:0", "TOOLGEN_TOKEN="],  # an empty variable: click reads it unset
    ],
)
def test_serve_http_usage_errors_exit_2(args: list[str]) -> None:
    env = {**os.environ, "TOOLGEN_TOKEN": ""} if "TOOLGEN_TOKEN=" in args else None
    args = [a for a in args if a != "TOOLGEN_TOKEN="]
    result = subprocess.run(
        [sys.executable, "-m", "toolgen", "serve", "specs/conformance", "--mock", *args],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=GUARD,
    )
    assert result.returncode == 2
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("token", ["", "  "])
def test_a_policy_with_an_empty_token_is_refused(token: str) -> None:
    with pytest.raises(ValueError):
        SecurityPolicy(token=token)
