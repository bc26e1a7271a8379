"""`toolgen import` and `toolgen call` read a server's messages within the message limit
(`TOOLGEN_MAX_MESSAGE`): a larger one, over stdio, in an HTTP body or in one server-sent
event, ends the connection with an error that names the limit, never held whole."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from http_support import asgi_server
from import_support import handwritten_http

from toolgen.cli import cli
from toolgen.limits import MESSAGE_ENV

HANDWRITTEN_STDIO = Path(__file__).parents[1] / "import_support" / "handwritten_stdio.py"
LIMIT = 65536
FLOOD = 500_000  # one valid message: over the limit, under the SDK's own 1 MiB for events
TIMEOUT = "30"  # seconds: a guard against a hang, never a timing assertion
HEADER = f"Authorization: Bearer {handwritten_http.TOKEN}"
COMMANDS = {
    "import": lambda out: ["import", "-o", str(out), "--timeout", TIMEOUT],
    "call": lambda out: ["call", "big", "--timeout", TIMEOUT],
}


def flooded(command: str, source: list[str], tmp_path: Path) -> tuple[int, str]:
    result = CliRunner().invoke(cli, [*COMMANDS[command](tmp_path / "out"), *source])
    return result.exit_code, result.stderr


@pytest.fixture(autouse=True)
def small_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(MESSAGE_ENV, str(LIMIT))


@pytest.mark.parametrize("command", COMMANDS)
def test_a_stdio_line_over_the_limit_ends_the_connection_with_the_limit_named(
    command: str, tmp_path: Path
) -> None:
    server = shlex.join([sys.executable, str(HANDWRITTEN_STDIO), "--flood", str(FLOOD)])
    code, stderr = flooded(command, ["--server", server], tmp_path)
    assert code == 2
    assert f"a line of over {LIMIT} bytes" in stderr
    assert MESSAGE_ENV in stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize(("sse", "what"), [(False, "an HTTP body"), (True, "event")])
def test_an_http_message_over_the_limit_is_refused_with_the_limit_named(
    command: str, sse: bool, what: str, tmp_path: Path
) -> None:
    with asgi_server(handwritten_http.app(FLOOD, sse=sse)) as base:
        code, stderr = flooded(command, ["--url", f"{base}/mcp", "-H", HEADER], tmp_path)
    assert code == 2
    assert what in stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("command", COMMANDS)
def test_a_message_within_the_limit_is_read(
    command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(MESSAGE_ENV, str(4 * FLOOD))
    server = shlex.join([sys.executable, str(HANDWRITTEN_STDIO), "--flood", str(FLOOD)])
    code, stderr = flooded(command, ["--server", server], tmp_path)
    assert code == 0, stderr
