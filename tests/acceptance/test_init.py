"""`toolgen init`: a starter spec set that builds, lints clean and serves as it is."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from runtime_support.frames import FrameClient

from toolgen.cli import cli
from toolgen.version import DOCS_URL


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.fixture
def starter(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    result = run("init", "--handlers")
    assert result.exit_code == 0, result.output
    return Path("specs") / "hello"


def test_the_starter_lints_without_a_single_finding(starter: Path) -> None:
    result = run("lint", str(starter), "--format", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["findings"] == []


def test_the_starter_points_to_the_format_page_of_the_published_docs(starter: Path) -> None:
    head = (starter / "hello.yaml").read_text(encoding="utf-8").split("toolgen: 1")[0]
    assert f"{DOCS_URL}spec-format/" in head
    assert "docs/" not in head.replace(DOCS_URL, "")


def test_the_starter_builds(starter: Path) -> None:
    result = run("build", str(starter), "-o", "generated")
    assert result.exit_code == 0, result.output
    assert (Path("generated") / "hello" / "server.py").is_file()


def test_the_starter_serves_with_its_handlers(starter: Path) -> None:
    client = FrameClient(str(starter), "--handlers", f"{starter}/handlers.py:Handlers")
    try:
        client.request(
            1,
            "initialize",
            {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        )
        client.notify("notifications/initialized")
        greeting = client.request(
            2, "tools/call", {"name": "get_greeting", "arguments": {"name": "Ada"}}
        )
        count = client.request(
            3, "tools/call", {"name": "count_words", "arguments": {"text": "a b c d"}}
        )
    finally:
        client.close()
    assert greeting["result"]["structuredContent"] == {"greeting": "Hello, Ada!"}
    assert count["result"]["structuredContent"] == {"result": 4}


def test_init_never_overwrites_a_file_it_did_not_write(tmp_path: Path) -> None:
    root = tmp_path / "mine"
    root.mkdir()
    (root / "mine.yaml").write_text("toolgen: 1\n", encoding="utf-8")
    result = run("init", str(root))
    assert result.exit_code == 1
    assert (root / "mine.yaml").read_text(encoding="utf-8") == "toolgen: 1\n"


def test_a_second_starter_beside_the_first_leaves_the_first(tmp_path: Path) -> None:
    assert run("init", str(tmp_path / "one")).exit_code == 0
    assert run("init", str(tmp_path / "two")).exit_code == 0
    assert (tmp_path / "one" / "one.yaml").is_file()
    assert (tmp_path / "two" / "two.yaml").is_file()


@pytest.mark.parametrize("name", ["hello", "h2", "a-much-longer-server"])
def test_the_comments_beside_the_server_name_stay_in_their_column(name: str) -> None:
    from toolgen.importer.starter import starter_files

    text = starter_files(Path(name))[f"{name}.yaml"]
    server_line = next(line for line in text.splitlines() if line.startswith("server:"))
    name_line = next(line for line in text.splitlines() if line.startswith("  name:"))
    assert name_line.index("#") == server_line.index("#")


def test_a_build_after_init_handlers_writes_no_second_handler_file(starter: Path) -> None:
    result = run("build", str(starter))
    assert result.exit_code == 0, result.output
    assert (starter / "handlers.py").is_file()
    assert not (Path("generated") / "hello_handlers.py").exists()


def test_init_handlers_after_a_build_writes_no_second_handler_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert run("init").exit_code == 0
    assert run("build", "specs/hello").exit_code == 0
    assert (Path("generated") / "hello_handlers.py").is_file()
    result = run("init", "--handlers")
    assert result.exit_code == 0, result.output
    assert not (Path("specs") / "hello" / "handlers.py").exists()
    assert "generated/hello_handlers.py" in result.stderr
