"""`toolgen import --server` (stdio) and `--url` (Streamable HTTP) against real servers:
toolgen's own, and hand-written ones (tests/import_support)."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner, Result
from conftest import TESTS
from http_support import asgi_server, http_server
from import_support import handwritten_http
from runtime_support.frames import DEMO_SPEC

import toolgen
from toolgen.cli import cli
from toolgen.serve.http import SecurityPolicy
from toolgen.serve.mock import mock_handlers

HERE = TESTS
HANDWRITTEN_STDIO = HERE / "import_support" / "handwritten_stdio.py"
TIMEOUT = "30"  # seconds: a guard against a hang, never a timing assertion


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def listed(spec: Path, revision: str) -> list[dict[str, object]]:
    result = run("tools", str(spec), "--protocol", revision)
    assert result.exit_code == 0, result.output
    tools: list[dict[str, object]] = json.loads(result.stdout)["tools"]
    return tools


def imported_revision(result: Result) -> str:
    return result.stderr.rsplit("exactly as published (", 1)[1].split(")", 1)[0]


def test_a_toolgen_stdio_server_imports_to_the_same_tools(tmp_path: Path) -> None:
    command = shlex.join([sys.executable, "-m", "toolgen", "serve", str(DEMO_SPEC), "--mock"])
    result = run("import", "--server", command, "-o", str(tmp_path / "out"), "--timeout", TIMEOUT)
    assert result.exit_code == 0, result.output
    revision = imported_revision(result)
    assert listed(tmp_path / "out", revision) == listed(DEMO_SPEC, revision)
    source = toolgen.load_toolset(DEMO_SPEC).server
    imported = toolgen.load_toolset(tmp_path / "out").server
    assert (imported.name, imported.version, imported.declared) == (
        source.name,
        source.version,
        True,
    )


def test_a_hand_written_stdio_server_is_imported_page_by_page(tmp_path: Path) -> None:
    command = shlex.join([sys.executable, str(HANDWRITTEN_STDIO)])
    result = run("import", "--server", command, "-o", str(tmp_path / "out"), "--timeout", TIMEOUT)
    assert result.exit_code == 0, result.output
    toolset = toolgen.load_toolset(tmp_path / "out")
    assert [t.name for t in toolset.tools] == ["search_docs", "rebuild_index"]
    assert toolset.server.name == "hand-written-docs"
    assert toolset.server.title == "Hand Written Docs"
    assert toolset.server.instructions == "Search before you rebuild."
    search = toolset.tool("search_docs")
    assert search.execution == {"taskSupport": "optional"}
    assert search.meta == {"com.example/source": "handwritten"}
    assert "$schema" not in search.input_schema
    assert "imported 2 tools" in result.stderr
    assert "2 from draft-07" in result.stderr


def test_a_hostile_servers_text_is_escaped_and_its_bad_tools_repaired(tmp_path: Path) -> None:
    """A newline and YAML in `serverInfo.version`, `\\r` and an escape sequence in its name,
    a lone surrogate, a tool name with a trailing newline, a def that includes itself
    through allOf."""
    command = shlex.join([sys.executable, str(HANDWRITTEN_STDIO), "--hostile"])
    result = run("import", "--server", command, "-o", str(tmp_path / "out"), "--timeout", TIMEOUT)
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.stderr and "\r" not in result.stderr
    (spec,) = (tmp_path / "out").glob("*.yaml")
    text = spec.read_text(encoding="utf-8")
    assert "\r" not in text
    assert all(line.startswith("#") for line in text.splitlines()[:3])
    assert "x-injected" not in yaml.safe_load(text)
    toolset = toolgen.load_toolset(tmp_path / "out")
    assert [t.name for t in toolset.tools] == ["ok", "newline_", "keys"]
    assert toolset.server.version == "1.0\nx-injected: 1\n#\r"
    assert toolset.tools[0].description == "Fine\ufffd."
    assert "lone surrogates" in result.stderr


def test_pages_that_go_round_in_a_circle_are_a_clear_error(tmp_path: Path) -> None:
    command = shlex.join([sys.executable, str(HANDWRITTEN_STDIO), "--circular-cursor"])
    result = run("import", "--server", command, "-o", str(tmp_path / "out"), "--timeout", TIMEOUT)
    assert result.exit_code == 2
    assert "sent the tools/list cursor 'page-2' twice" in result.stderr
    assert not (tmp_path / "out").exists()


def test_a_server_that_cannot_start_is_a_clear_error(tmp_path: Path) -> None:
    missing = str(tmp_path / "no-such-server")
    result = run("import", "--server", missing, "-o", str(tmp_path / "out"), "--timeout", TIMEOUT)
    assert result.exit_code == 2
    assert "toolgen import: error:" in result.stderr
    assert "Traceback" not in result.output
    assert not (tmp_path / "out").exists()


def test_a_toolgen_http_server_with_a_token_is_imported_with_a_header(tmp_path: Path) -> None:
    tools = toolgen.load(DEMO_SPEC)
    with http_server(tools, mock_handlers(tools), SecurityPolicy(token="s3cret")) as url:
        refused = run("import", "--url", url, "-o", str(tmp_path / "no"), "--timeout", TIMEOUT)
        result = run(
            "import", "--url", url, "-H", "Authorization: Bearer s3cret",
            "-o", str(tmp_path / "out"), "--timeout", TIMEOUT,
        )  # fmt: skip
    assert refused.exit_code == 2 and "toolgen import: error:" in refused.stderr
    assert f"HTTP 401 Unauthorized to POST {url}" in refused.stderr
    assert not (tmp_path / "no").exists()
    assert result.exit_code == 0, result.output
    revision = imported_revision(result)
    assert listed(tmp_path / "out", revision) == listed(DEMO_SPEC, revision)


def test_a_hand_written_http_server_is_imported(tmp_path: Path) -> None:
    header = f"Authorization: Bearer {handwritten_http.TOKEN}"
    with asgi_server(handwritten_http.app()) as base:
        result = run(
            "import", "--url", f"{base}/mcp", "-H", header,
            "-o", str(tmp_path / "out"), "--timeout", TIMEOUT,
        )  # fmt: skip
    assert result.exit_code == 0, result.output
    toolset = toolgen.load_toolset(tmp_path / "out")
    assert [t.name for t in toolset.tools] == ["search_docs", "rebuild_index"]
    assert toolset.server.version == "2.1.0"


@pytest.mark.parametrize(
    "args",
    [
        ["--url", "ftp://example.com/mcp"],
        ["--server", ""],
        ["--server", "my-server 'unclosed"],
    ],
    ids=["not-http", "empty-command", "unbalanced-quote"],
)
def test_bad_live_sources_are_usage_errors(args: list[str], tmp_path: Path) -> None:
    result = run("import", *args, "-o", str(tmp_path / "out"))
    assert result.exit_code == 2
    assert "Traceback" not in result.output


def test_a_server_that_writes_no_json_rpc_is_a_clear_error_without_a_traceback(
    tmp_path: Path,
) -> None:
    chatty = shlex.join([sys.executable, "-c", "print('hello, not JSON-RPC')"])
    result = subprocess.run(
        [sys.executable, "-m", "toolgen", "import", "--server", chatty, "-o", str(tmp_path / "out")],
        capture_output=True, text=True, timeout=float(TIMEOUT) * 2, check=False,
    )  # fmt: skip
    assert result.returncode == 2
    assert "toolgen import: error:" in result.stderr
    assert "'hello, not JSON-RPC'" in result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "out").exists()


def test_a_server_that_never_answers_is_given_up_after_the_timeout(tmp_path: Path) -> None:
    silent = shlex.join([sys.executable, "-c", "import time; time.sleep(60)"])
    result = run("import", "--server", silent, "-o", str(tmp_path / "out"), "--timeout", "2")
    assert result.exit_code == 2
    assert "within 2 s" in result.stderr
    assert not (tmp_path / "out").exists()
