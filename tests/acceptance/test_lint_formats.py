"""Output formats: SARIF is valid SARIF 2.1.0; github commands are escaped; text is one line each."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from conftest import TESTS

from toolgen.lint.docs import sarif_rules
from toolgen.report.findings import Finding, Severity
from toolgen.report.formats import artifact_uri, github_command, line, render
from toolgen.spec.errors import Location

SARIF_SCHEMA = json.loads((TESTS / "data" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))

FINDINGS = [
    Finding(
        "TG105",
        "write-name-read-only",
        "annotations",
        Severity.ERROR,
        "name verb 'delete' says the tool changes data, but it is marked read-only",
        "delete_note",
        Location("specs/notes/notes.yaml", 12, 7),
    ),
    Finding(
        "TG304",
        "nullable-union",
        "schemas",
        Severity.WARNING,
        "nullable type list ['string', 'null']",
        None,
        Location("/abs/dir with space/shop.yaml", 3, 20),
    ),
    Finding("TG309", "open-input-object", "schemas", Severity.INFO, "open", "x", None),
    Finding(
        "unknown-key",
        None,
        "spec",
        Severity.ERROR,
        "unknown key 'anotations'",
        None,
        Location("specs/a.yaml", 5, 5),
    ),
]


def test_sarif_output_is_valid_sarif_2_1_0() -> None:
    document = json.loads(render(FINDINGS, "sarif", sarif_rules()))
    jsonschema.Draft7Validator(SARIF_SCHEMA).validate(document)
    run = document["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules][:3] == ["TG001", "TG002", "TG003"]
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
    assert [r["level"] for r in run["results"]] == ["error", "warning", "note", "error"]
    assert run["invocations"] == [{"executionSuccessful": False}]


def test_sarif_output_of_a_real_lint_run_is_valid(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner
    from conftest import SPECS

    from toolgen.cli import cli

    monkeypatch.chdir(SPECS.parent)
    result = CliRunner().invoke(cli, ["lint", "specs", "--format", "sarif", "--select", "ALL"])
    document = json.loads(result.stdout)
    jsonschema.Draft7Validator(SARIF_SCHEMA).validate(document)
    assert document["runs"][0]["results"], "expected findings in the example specs"
    first = document["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert first["artifactLocation"]["uri"].startswith("specs/")
    assert first["region"]["startLine"] >= 1


def test_sarif_uris_are_relative_references_or_file_uris() -> None:
    assert artifact_uri("specs/notes/notes.yaml") == "specs/notes/notes.yaml"
    assert artifact_uri("../corpus/a b.json") == "../corpus/a%20b.json"
    assert (
        artifact_uri("/abs/dir with space/shop.yaml") == "file:///abs/dir%20with%20space/shop.yaml"
    )


def test_github_commands_escape_properties_and_data() -> None:
    finding = Finding(
        "TG401",
        "description-missing",
        "descriptions",
        Severity.INFO,
        "100% wrong\nsecond line",
        "a,b",
        Location("dir:x/a,b.yaml", 2, 3),
    )
    assert github_command(finding) == (
        "::notice file=dir%3Ax/a%2Cb.yaml,line=2,col=3,title=TG401 description-missing"
        "::100%25 wrong%0Asecond line [a,b]"
    )


def test_text_lines_name_place_code_severity_message_and_tool() -> None:
    assert line(FINDINGS[0]) == (
        "specs/notes/notes.yaml:12:7: TG105 error name verb 'delete' says the tool changes "
        "data, but it is marked read-only [delete_note]"
    )
    assert line(FINDINGS[2]) == "TG309 info open [x]"
    assert render([], "text") == ""


def test_json_nulls_the_place_of_findings_without_one() -> None:
    document = json.loads(render(FINDINGS, "json"))
    assert document["findings"][2] == {
        "code": "TG309",
        "rule": "open-input-object",
        "category": "schemas",
        "severity": "info",
        "message": "open",
        "tool": "x",
        "file": None,
        "line": None,
        "column": None,
    }
    assert document["summary"] == {"info": 1, "warning": 1, "error": 2}
