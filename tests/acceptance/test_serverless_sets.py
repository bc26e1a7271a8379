"""A spec set without a `server` block: every command works; build names it, saying so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from runtime_support.frames import FrameClient

from toolgen.cli import cli

TOOLS = """toolgen: 1
tools:
  - name: get_weather
    description: Return the weather of a city.
    annotations: {readOnly: true, idempotent: true, openWorld: true}
    input:
      type: object
      properties:
        city: {type: string, description: The city.}
      required: [city]
      additionalProperties: false
    output:
      type: object
      properties: {summary: {type: string}}
      required: [summary]
    examples:
      - input: {city: Paris}
        output: {summary: sunny}
"""


@pytest.fixture
def tools_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    root = tmp_path / "weather-tools"
    root.mkdir()
    (root / "tools.yaml").write_text(TOOLS, encoding="utf-8")
    return root


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_tools_lists_a_set_without_a_server_block(tools_dir: Path) -> None:
    result = run("tools", str(tools_dir))
    assert result.exit_code == 0, result.output
    assert [t["name"] for t in json.loads(result.stdout)["tools"]] == ["get_weather"]


def test_lint_reads_a_single_file_of_tools(tools_dir: Path) -> None:
    result = run("lint", str(tools_dir / "tools.yaml"), "--format", "json")
    assert result.exit_code == 0, result.output
    assert not [f for f in json.loads(result.stdout)["findings"] if f["severity"] == "error"]


def test_build_names_the_server_after_the_directory_and_says_so(tools_dir: Path) -> None:
    result = run("build", str(tools_dir), "-o", "out")
    assert result.exit_code == 0, result.output
    assert "no server block" in result.stderr
    assert "'weather-tools'" in result.stderr
    assert (Path("out") / "weather_tools" / "tools" / "2026-07-28.json").is_file()
    assert run("check", str(tools_dir), "-o", "out").exit_code == 0


def test_build_takes_the_name_from_the_name_option(tools_dir: Path) -> None:
    result = run("build", str(tools_dir), "-o", "out", "--name", "forecast")
    assert result.exit_code == 0, result.output
    assert "'forecast' as --name says" in result.stderr
    assert (Path("out") / "forecast" / "__init__.py").is_file()
    assert run("check", str(tools_dir), "-o", "out", "--name", "forecast").exit_code == 0


def test_an_invalid_name_option_is_a_usage_error(tools_dir: Path) -> None:
    assert run("build", str(tools_dir), "--name", "Not A Name").exit_code == 2


def test_serve_answers_from_a_set_without_a_server_block(tools_dir: Path) -> None:
    client = FrameClient(str(tools_dir), "--mock")
    try:
        init = client.request(
            1,
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        )
        assert init["result"]["serverInfo"]["name"] == "weather-tools"
        client.notify("notifications/initialized")
        call = client.request(
            2, "tools/call", {"name": "get_weather", "arguments": {"city": "Paris"}}
        )
        assert call["result"]["structuredContent"] == {"summary": "sunny"}
    finally:
        client.close()
