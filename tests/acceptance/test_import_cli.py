"""`toolgen import` from files: shapes, errors, refusals, and YAML that reads back exactly."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from toolgen.build import journal
from toolgen.cli import cli
from toolgen.importer.yamlout import dump_yaml
from toolgen.spec.source import parse_source

TOOL = {"name": "echo", "description": "Echo.\n", "inputSchema": {"type": "object"}}


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.mark.parametrize(
    "shape",
    [{"tools": [TOOL]}, {"jsonrpc": "2.0", "id": 1, "result": {"tools": [TOOL]}}, [TOOL], TOOL],
    ids=["tools-list", "json-rpc-response", "list", "one-tool"],
)
def test_every_published_shape_is_imported(shape: object, tmp_path: Path) -> None:
    source = tmp_path / "tools.json"
    source.write_text(json.dumps(shape), encoding="utf-8")
    result = run("import", str(source), "-o", str(tmp_path / "out"))
    assert result.exit_code == 0, result.output
    listed = run("tools", str(tmp_path / "out"))
    assert json.loads(listed.stdout)["tools"] == [TOOL]


def test_the_summary_names_the_written_file_relative_to_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("tools.json").write_text(json.dumps([TOOL]), encoding="utf-8")
    result = run("import", "tools.json", "-o", "specs/echo")
    assert result.exit_code == 0, result.output
    assert result.stderr.startswith("imported 1 tool into specs/echo/tools.yaml: 1 read back")


def test_a_name_option_writes_a_server_block(tmp_path: Path) -> None:
    source = tmp_path / "tools.json"
    source.write_text(json.dumps([TOOL]), encoding="utf-8")
    result = run("import", str(source), "-o", str(tmp_path / "out"), "--name", "echoes")
    assert result.exit_code == 0, result.output
    text = (tmp_path / "out" / "echoes.yaml").read_text(encoding="utf-8")
    assert "server:\n  name: echoes\n  version: 0.0.0\n" in text


@pytest.mark.parametrize(
    ("content", "code"),
    [
        ("{not json", "yaml-syntax"),
        ('{"tools": 5}', "wrong-type"),
        ("7", "wrong-type"),
        ('[{"name": "a", "name": "b", "inputSchema": {"type": "object"}}]', "duplicate-key"),
        ('[{"name": "a", "inputSchema": {"type": "object", "maximum": NaN}}]', "yaml-syntax"),
    ],
    ids=["not-json", "tools-not-a-list", "not-tools", "duplicate-key", "nan"],
)
def test_unreadable_definitions_are_errors_and_nothing_is_written(
    content: str, code: str, tmp_path: Path
) -> None:
    source = tmp_path / "tools.json"
    source.write_text(content, encoding="utf-8")
    result = run("import", str(source), "-o", str(tmp_path / "out"))
    assert result.exit_code == 1
    assert f"error[{code}]" in result.stderr
    assert not (tmp_path / "out").exists()


def test_a_saved_json_rpc_error_response_is_named_as_one(tmp_path: Path) -> None:
    source = tmp_path / "tools.json"
    error = {"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "Method not found"}}
    source.write_text(json.dumps(error), encoding="utf-8")
    result = run("import", str(source), "-o", str(tmp_path / "out"))
    assert result.exit_code == 1
    assert "tools.json:1:38: error[wrong-type]: a JSON-RPC error response (-32601: Method" in (
        result.stderr
    )
    linted = run("lint", str(source))
    assert "a JSON-RPC error response (-32601: Method not found)" in linted.output


def test_a_file_that_starts_with_a_byte_order_mark_is_read_as_lint_reads_it(
    tmp_path: Path,
) -> None:
    source = tmp_path / "tools.json"
    source.write_bytes(b"\xef\xbb\xbf" + json.dumps([TOOL]).encode())
    result = run("import", str(source), "-o", str(tmp_path / "out"))
    assert result.exit_code == 0, result.output
    assert json.loads(run("tools", str(tmp_path / "out")).stdout)["tools"] == [TOOL]


def test_a_missing_source_is_an_error(tmp_path: Path) -> None:
    result = run("import", str(tmp_path / "nope.json"), "-o", str(tmp_path / "out"))
    assert result.exit_code == 1
    assert "error[io]" in result.stderr


def test_sources_and_a_live_server_together_are_a_usage_error(tmp_path: Path) -> None:
    result = run("import", "x.json", "--url", "http://127.0.0.1:9/mcp", "-o", str(tmp_path))
    assert result.exit_code == 2


def test_a_file_toolgen_did_not_write_is_never_overwritten(tmp_path: Path) -> None:
    source = tmp_path / "tools.json"
    source.write_text(json.dumps([TOOL]), encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    (out / "tools.yaml").write_text("mine\n", encoding="utf-8")
    result = run("import", str(source), "-o", str(out))
    assert result.exit_code == 1
    assert (out / "tools.yaml").read_text(encoding="utf-8") == "mine\n"


def test_importing_again_over_its_own_output_rewrites_it(tmp_path: Path) -> None:
    source = tmp_path / "tools.json"
    source.write_text(json.dumps([TOOL]), encoding="utf-8")
    assert run("import", str(source), "-o", str(tmp_path / "out")).exit_code == 0
    source.write_text(json.dumps([{**TOOL, "description": "Echo twice."}]), encoding="utf-8")
    assert run("import", str(source), "-o", str(tmp_path / "out")).exit_code == 0
    assert "Echo twice." in (tmp_path / "out" / "tools.yaml").read_text(encoding="utf-8")


TRICKY = [
    "1e3", "0o17", "0x1F", "null", "~", "yes", "on", "true", "", " lead\nx", "trail \nx",
    "x\n\n", "\tTab\n", "#c", "- x", "a: b", "\u200bzw", "é\r\nx", "\x85nel", "a" * 300 + " b" * 90,
]  # fmt: skip


def test_yaml_out_reads_back_every_string_exactly() -> None:
    document = {"values": TRICKY, "keys": {s: s for s in TRICKY if s}, "numbers": [1, 1.5, 1e-5]}
    text = dump_yaml(document)
    assert parse_source(text, Path("x.yaml")).data == document
    assert "&id" not in text


def test_a_listing_of_the_latest_revision_is_checked_in_that_revision(tmp_path: Path) -> None:
    listing = {"tools": [TOOL], "resultType": "complete", "ttlMs": 1000, "cacheScope": "public"}
    source = tmp_path / "tools.json"
    source.write_text(json.dumps(listing), encoding="utf-8")
    result = run("import", str(source), "-o", str(tmp_path / "out"))
    assert result.exit_code == 0, result.output
    assert "exactly as published (2026-07-28)" in result.stderr


def test_an_import_beside_an_earlier_import_leaves_it(tmp_path: Path) -> None:
    source = tmp_path / "tools.json"
    source.write_text(json.dumps([TOOL]), encoding="utf-8")
    assert run("import", str(source), "-o", str(tmp_path / "specs" / "one")).exit_code == 0
    assert run("import", str(source), "-o", str(tmp_path / "specs" / "two")).exit_code == 0
    assert (tmp_path / "specs" / "one" / "tools.yaml").is_file()
    assert (tmp_path / "specs" / "two" / "tools.yaml").is_file()


def test_an_edited_import_is_replaced_only_with_force(tmp_path: Path) -> None:
    source = tmp_path / "tools.json"
    source.write_text(json.dumps([TOOL]), encoding="utf-8")
    spec = tmp_path / "out" / "tools.yaml"
    assert run("import", str(source), "-o", str(tmp_path / "out")).exit_code == 0
    spec.write_text(spec.read_text(encoding="utf-8") + "# mine\n", encoding="utf-8")
    refused = run("import", str(source), "-o", str(tmp_path / "out"))
    assert refused.exit_code == 1
    assert "error[edited-output]" in refused.stderr
    assert spec.read_text(encoding="utf-8").endswith("# mine\n")
    forced = run("import", str(source), "-o", str(tmp_path / "out"), "--force")
    assert forced.exit_code == 0, forced.output
    assert not spec.read_text(encoding="utf-8").endswith("# mine\n")


def test_an_import_locks_and_journals_inside_its_own_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "tools.json"
    source.write_text(json.dumps([TOOL]), encoding="utf-8")
    written: list[Path] = []
    commit = journal.commit
    monkeypatch.setattr(
        journal, "commit", lambda out, change: (written.append(out), commit(out, change))
    )
    locked: list[Path] = []
    lock = journal.locked
    monkeypatch.setattr(journal, "locked", lambda out: (locked.append(out), lock(out))[1])
    assert run("import", str(source), "-o", str(tmp_path / "specs" / "echo")).exit_code == 0
    assert written == locked == [tmp_path / "specs" / "echo"]
    assert sorted(p.name for p in (tmp_path / "specs").iterdir()) == ["echo"]


def test_imports_into_sibling_directories_at_the_same_time_never_collide(tmp_path: Path) -> None:
    source = tmp_path / "tools.json"
    source.write_text(json.dumps([TOOL]), encoding="utf-8")
    for attempt in range(6):
        parent = tmp_path / f"specs-{attempt}"
        imports = [
            subprocess.Popen(
                [sys.executable, "-m", "toolgen", "import", str(source), "-o", str(parent / name)],
                stderr=subprocess.PIPE,
                text=True,
            )
            for name in ("one", "two")
        ]
        for process in imports:
            _, stderr = process.communicate(timeout=120)
            assert process.returncode == 0, stderr
        assert sorted(p.name for p in parent.iterdir()) == ["one", "two"]
        for name in ("one", "two"):
            assert (parent / name / "tools.yaml").is_file()


def test_a_misspelt_keyword_is_imported_as_published_and_refused_by_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    schema = {"type": "object", "properties": {"title": {"type": "string"}}, "requried": ["title"]}
    Path("tools.json").write_text(json.dumps({"tools": [{"name": "add", "inputSchema": schema}]}))
    assert run("import", "tools.json", "-o", "imported").exit_code == 0
    written = Path("imported", "tools.yaml").read_text(encoding="utf-8")
    line = next(n for n, text in enumerate(written.splitlines(), 1) if "requried" in text)
    built = run("build", "imported", "-o", "out")
    assert built.exit_code == 1
    assert f"imported/tools.yaml:{line}:5: error[misspelt-keyword]" in built.stderr
