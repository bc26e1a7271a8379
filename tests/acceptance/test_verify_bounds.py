"""verify reads a hostile server within bounds: a flooded line, body or event is dropped and
named (`protocol.limits`), never held whole; nesting past orjson's limit is named as such, not
called "not JSON-RPC"; an endless listing is a finding; a server dripping a header, a body or
an event stream costs at most the timeout. Floods are a few MB against a 64 KiB limit."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from verify_support import hostile
from verify_support.run import DEMO_SPEC, HERE, verify

from toolgen.cli import cli
from toolgen.limits import MESSAGE_ENV, STDERR_LINE
from toolgen.verify.http import HttpTarget
from toolgen.verify.session import Session
from toolgen.verify.stdio import StdioTarget
from toolgen.verify.transport import Transport

HOSTILE = HERE / "hostile.py"
LIMIT = 65536
ENV = {MESSAGE_ENV: str(LIMIT), "HOSTILE_SIZE": str(4 * 1024 * 1024), "HOSTILE_DRIP": "20"}
GUARD = 20.0
"""Seconds to wait for the hostile server to listen: a guard against a hang."""


def stdio_command(mode: str) -> str:
    return f"{sys.executable} {HOSTILE} {mode}"


@contextmanager
def http_server(mode: str, env: dict[str, str] | None = None) -> Iterator[str]:
    """The hostile server over HTTP in `mode` (`env` over `ENV`): its URL."""
    process = subprocess.Popen(
        [sys.executable, str(HOSTILE), "--http", mode],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, **ENV, **(env or {})},
    )
    try:
        assert process.stdout is not None
        port = process.stdout.readline().strip()
        assert port.isdigit(), f"the hostile server did not start: {port!r}"
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.kill()
        process.wait(GUARD)


OVER_LIMITS = [
    # (transport, server mode): what the server's tools/list answer does
    ("stdio", "flood-line"),  # one 4 MB line
    ("stdio", "deep"),  # valid JSON nested 2000 levels
    ("stdio", "pages-forever"),  # a new nextCursor on every page
    ("stdio", "cursor-loop"),  # page 3's cursor is page 1's
    ("http", "flood-line"),  # a 4 MB JSON body
    ("http", "flood-event"),  # one 4 MB server-sent event
    ("http", "deep"),
]


@pytest.mark.parametrize(("kind", "mode"), OVER_LIMITS, ids=[f"{k}-{m}" for k, m in OVER_LIMITS])
def test_what_goes_past_a_limit_fails_protocol_limits_and_is_not_called_junk(
    kind: str, mode: str
) -> None:
    args = ("--protocol", "2025-11-25", "--timeout", "5")
    if kind == "stdio":
        run = verify(DEMO_SPEC, "--server", stdio_command(mode), *args, env=ENV)
    else:
        with http_server(mode) as url:
            run = verify(DEMO_SPEC, "--url", url, *args, env=ENV)
    (limits,) = run.results("protocol.limits")
    assert limits["status"] == "failed", limits
    assert limits["level"] == "must"
    assert all(r["status"] == "passed" for r in run.results("protocol.stdout-clean")), run.report
    assert not [r for r in run.report["results"] if r["status"] == "error"]
    assert run.exit_code == 1, run.stderr


def test_a_server_within_the_limits_passes_protocol_limits() -> None:
    run = verify(DEMO_SPEC, "--server", stdio_command("plain"), "--protocol", "2025-11-25", env=ENV)
    assert [r["status"] for r in run.results("protocol.limits")] == ["passed"]


def test_the_text_report_names_the_limit_and_how_to_raise_it() -> None:
    result = CliRunner().invoke(
        cli,
        ["verify", str(DEMO_SPEC), "--server", stdio_command("flood-line"), "--cases", "0"],
        env=ENV,
    )
    (line,) = [x for x in result.stdout.splitlines() if x.startswith("FAIL protocol.limits")]
    assert str(LIMIT) in line and MESSAGE_ENV in line


def test_an_invalid_message_limit_is_a_usage_error() -> None:
    result = CliRunner().invoke(
        cli,
        ["verify", str(DEMO_SPEC), "--server", stdio_command("plain")],
        env={MESSAGE_ENV: "lots"},
    )
    assert result.exit_code == 2
    assert MESSAGE_ENV in result.stderr


def list_tools(transport: Transport, timeout: float, longest: float | None = None) -> Any:
    session = Session(transport, "2025-11-25", timeout)
    session.open()
    return session.request("tools/list", {}, timeout, longest=longest)


@pytest.mark.parametrize("mode", ["flood-line", "flood-notices"])
def test_a_stdout_flood_costs_verify_at_most_a_few_times_the_message_limit(
    mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """32 MB in one line, or in small notifications before the reply: either way dropped past
    the limit, and the exchange refused."""
    monkeypatch.setenv(MESSAGE_ENV, str(LIMIT))
    flood = 32 * 1024 * 1024
    env = {**os.environ, "HOSTILE_SIZE": str(flood)}
    transport = StdioTarget(stdio_command(mode), env).connect()
    tracemalloc.start()
    try:
        exchange = list_tools(transport, 30.0)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        transport.close()
    assert peak < flood / 4, peak
    assert exchange.refused is not None and not exchange.answered


BIG = 4 * 1024 * 1024
"""The message limit of the tests below: notifications just under it each, twelve of them."""


@pytest.mark.parametrize("kind", ["stdio", "http"])
def test_what_comes_for_one_answer_is_read_within_one_message_limit_in_all(
    kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Twelve notifications of almost the limit each come before the answer: what arrived
    while waiting passes the limit with the second, which and all after it are dropped
    unread; the exchange fails, naming the limit (before: all were read and decoded, the
    answer too)."""
    monkeypatch.setenv(MESSAGE_ENV, str(BIG))
    env = {**os.environ, "HOSTILE_SIZE": str(BIG - 4096), "HOSTILE_COUNT": "12"}
    with contextlib.ExitStack() as stack:
        if kind == "stdio":
            transport: Transport = StdioTarget(stdio_command("big-notices"), env).connect()
        else:
            url = stack.enter_context(http_server("big-notices", env))
            transport = HttpTarget(url).connect()
        stack.callback(transport.close)
        exchange = list_tools(transport, 30.0)
    assert not exchange.answered and exchange.refused is not None
    assert str(BIG) in exchange.refused and MESSAGE_ENV in exchange.refused


def test_each_stderr_line_is_kept_to_a_bounded_size() -> None:
    env = {**os.environ, "HOSTILE_SIZE": str(4 * 1024 * 1024)}
    transport = StdioTarget(stdio_command("flood-stderr"), env).connect()
    list_tools(transport, 30.0)
    transport.close()
    end = time.monotonic() + GUARD
    while "the last words" not in (said := transport.describe_exit()) and time.monotonic() < end:
        time.sleep(0.05)
    assert "the last words" in said
    assert len(said) < 5 * STDERR_LINE


DRIPS = [
    # (server mode, timeout, longest, least and most seconds the exchange may take)
    ("drip-header", 1.0, None, 0.9, 4.0),  # a header line, one byte every 0.1 s
    ("drip-body", 1.0, None, 0.9, 4.0),  # a JSON body, likewise
    ("drip-event", 1.0, None, 0.9, 4.0),  # an SSE line, likewise
    ("progress-event", 1.0, 3.0, 2.9, 12.0),  # progress renews the 1 s wait, up to 3 s
]


@pytest.mark.parametrize(
    ("mode", "timeout", "longest", "least", "most"), DRIPS, ids=[d[0] for d in DRIPS]
)
def test_a_dripping_http_server_costs_at_most_the_timeout(
    mode: str, timeout: float, longest: float | None, least: float, most: float
) -> None:
    with http_server(mode) as url:
        transport = HttpTarget(url).connect()
        try:
            started = time.monotonic()
            exchange = list_tools(transport, timeout, longest)
            took = time.monotonic() - started
        finally:
            transport.close()
    assert exchange.timed_out and not exchange.answered and not exchange.closed
    assert exchange.progressed == (longest is not None)
    assert least <= took < most, took  # a correctness bound (the drip lasts 20 s), not a timing


def test_a_header_line_over_http_clients_limit_ends_the_exchange_not_verify() -> None:
    with http_server("flood-header") as url:
        transport = HttpTarget(url).connect()
        try:
            exchange = list_tools(transport, 5.0)
        finally:
            transport.close()
    assert exchange.closed and not exchange.answered
    assert "LineTooLong" in transport.describe_exit()


def test_a_listing_that_pages_slowly_forever_is_cut_after_ten_timeouts() -> None:
    transport = StdioTarget(stdio_command("pages-slow")).connect()
    try:
        session = Session(transport, "2025-11-25", 0.3)
        session.open()
        started = time.monotonic()
        tools, _ = session.list_tools()
        took = time.monotonic() - started
    finally:
        transport.close()
    assert tools == []
    assert any("10 timeouts" in note for note in transport.refused), transport.refused
    assert took < 3.0 + 1.0, took  # a correctness bound (1,000 pages take 200 s), not a timing


def slow_tools(tmp_path: Path, count: int) -> tuple[Path, str, dict[str, str]]:
    """A spec set of `count` tools the hostile server lists and never answers, each call
    getting progress every 0.05 s forever: (spec, --server command, environment)."""
    spec = tmp_path / "slow.yaml"
    spec.write_text(hostile.slow_spec(count), encoding="utf-8")
    return spec, stdio_command("progress-calls"), {"HOSTILE_COUNT": str(count)}


def test_a_tool_whose_call_gets_no_answer_in_time_is_not_called_again(tmp_path: Path) -> None:
    """Each call progresses forever and is cancelled at six timeouts (1.8 s); before, every
    next input went to the same tool, each for another 1.8 s."""
    spec, server, env = slow_tools(tmp_path, 3)
    run = verify(spec, "--server", server, "--protocol", "2025-11-25", "--timeout", "0.3", env=env)
    assert run.report["calls"] == 3, run.report["calls"]
    for verdict in run.report["tools"]:
        assert verdict["status"] == "not-exercised"
        assert "not called again" in verdict["reason"], verdict
    assert {r["status"] for r in run.results("call.invalid-input")} == {"skipped"}


def test_no_call_starts_once_the_runs_budget_is_spent(tmp_path: Path) -> None:
    """Six tools whose one call each takes 1.8 s, and a budget of 3 s: the tools left when
    it is spent are not called, and the report says so."""
    spec, server, env = slow_tools(tmp_path, 6)
    args = ("--protocol", "2025-11-25", "--timeout", "0.3", "--budget", "3")
    run = verify(spec, "--server", server, *args, env=env)
    assert 1 <= run.report["calls"] < 6, run.report["calls"]
    cut = run.report["cut_short"]
    assert cut and {v["tool"] for v in run.report["tools"] if "budget" in v["reason"]} == set(cut)
    assert {r["status"] for r in run.results("call.answers") if r["tool"] in cut} == {
        "not-exercised"
    }
