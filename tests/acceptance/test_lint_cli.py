"""`toolgen lint` and `toolgen rules` as users run them: exit codes, config, formats."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from toolgen.cli import cli

HEADER = 'toolgen: 1\nserver: {name: demo, version: "1.0.0"}\n'
CLEAN = """tools:
  - name: get_note
    title: Get a note
    description: Return one note by its identifier, with its body and tags.
    annotations: {readOnly: true, openWorld: false}
    input:
      type: object
      properties:
        id: {type: string, description: The note identifier.}
      required: [id]
      additionalProperties: false
    output: {type: object, properties: {id: {type: string}}}
"""
# One error (TG105: a delete marked read-only) and one warning (TG104: openWorld undeclared).
DIRTY = """tools:
  - name: delete_note
    title: Delete a note
    description: Delete a note for good; it cannot be restored.
    annotations: {readOnly: true}
    output: {type: boolean}
"""


def lint(project: Path, *args: str) -> Result:
    return CliRunner().invoke(cli, ["lint", *args], catch_exceptions=False)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty project directory (the working directory) with a pyproject.toml."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def write_spec(project: Path, body: str, name: str = "specs") -> Path:
    folder = project / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "main.yaml").write_text(HEADER + body, encoding="utf-8")
    return folder


def json_findings(result: Result) -> list[dict[str, object]]:
    findings: list[dict[str, object]] = json.loads(result.stdout)["findings"]
    return findings


def test_clean_spec_set_exits_zero(project: Path) -> None:
    write_spec(project, CLEAN)
    result = lint(project)
    assert result.exit_code == 0, result.output
    assert result.stdout == ""


def test_an_error_finding_exits_one_and_prints_path_line_col_code_severity_tool(
    project: Path,
) -> None:
    write_spec(project, DIRTY)
    result = lint(project, "specs")
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "specs/main.yaml:7:5: TG104 warning `openWorld` is not declared; MCP clients then "
        "assume the tool reaches outside systems [delete_note]",
        "specs/main.yaml:7:19: TG105 error name verb 'delete' says the tool changes data, "
        "but it is marked read-only [delete_note]",
    ]
    assert "2 findings (1 error, 1 warning) in 1 tool." in result.stderr


def test_warnings_alone_exit_zero_unless_fail_on_warning(project: Path) -> None:
    write_spec(project, DIRTY)
    assert lint(project, "--ignore", "TG105").exit_code == 0
    assert lint(project, "--ignore", "TG105", "--fail-on", "warning").exit_code == 1
    assert lint(project, "--fail-on", "never").exit_code == 0


def test_spec_that_does_not_load_exits_two_and_is_reported_as_a_finding(project: Path) -> None:
    write_spec(project, "tools:\n  - name: get_note\n    anotations: {}\n")
    result = lint(project, "--format", "json")
    assert result.exit_code == 2
    assert [(f["code"], f["severity"], f["line"], f["column"]) for f in json_findings(result)] == [
        ("unknown-key", "error", 5, 5)
    ]


@pytest.mark.parametrize(
    ("target", "message"),
    [("missing/report.json", "no such directory: missing"), (".", "is a directory, not a file")],
)
def test_a_report_that_cannot_be_written_is_refused_before_linting(
    project: Path, target: str, message: str
) -> None:
    write_spec(project, CLEAN)
    result = lint(project, "specs", "-o", target)
    assert result.exit_code == 2
    assert "Invalid value for --output: " in result.stderr
    assert message in result.stderr
    assert not (project / "missing").exists()


def test_a_report_file_is_written_whole(project: Path) -> None:
    write_spec(project, CLEAN)
    result = lint(project, "specs", "--format", "json", "-o", "report.json")
    assert result.exit_code == 0
    assert json.loads((project / "report.json").read_text(encoding="utf-8"))["findings"] == []
    assert [p.name for p in project.iterdir() if p.name.startswith(".report")] == []


def test_missing_path_exits_two(project: Path) -> None:
    result = lint(project, "nowhere")
    assert result.exit_code == 2
    assert "io error" in result.stdout


def test_bad_option_values_are_usage_errors(project: Path) -> None:
    write_spec(project, CLEAN)
    assert lint(project, "--select", "TG999").exit_code == 2
    assert lint(project, "--severity", "TG104").exit_code == 2
    assert lint(project, "--severity", "TG104=fatal").exit_code == 2
    assert lint(project, "--format", "xml").exit_code == 2


def test_json_format_is_one_document_with_the_contract_fields(project: Path) -> None:
    write_spec(project, DIRTY)
    result = lint(project, "--format", "json")
    document = json.loads(result.stdout)
    assert document["summary"] == {"info": 0, "warning": 1, "error": 1}
    first = document["findings"][0]
    assert set(first) >= {"code", "severity", "message", "tool", "file", "line", "column"}
    assert {
        (f["code"], f["severity"], f["tool"], f["file"], f["line"], f["column"])
        for f in document["findings"]
    } == {
        ("TG104", "warning", "delete_note", "specs/main.yaml", 7, 5),
        ("TG105", "error", "delete_note", "specs/main.yaml", 7, 19),
    }
    assert all(isinstance(f["message"], str) and f["message"] for f in document["findings"])


def test_github_format_prints_workflow_annotations(project: Path) -> None:
    write_spec(project, DIRTY)
    result = lint(project, "--format", "github")
    lines = result.stdout.splitlines()
    assert lines[0].startswith("::warning file=specs/main.yaml,line=7,col=5,title=TG104 ")
    assert lines[1].startswith("::error file=specs/main.yaml,line=7,col=19,title=TG105 ")
    assert lines[1].endswith("[delete_note]")


def test_pyproject_config_selects_ignores_and_overrides_severity(project: Path) -> None:
    write_spec(project, DIRTY)
    (project / "pyproject.toml").write_text(
        "[tool.toolgen.lint]\n"
        'ignore = ["write-name-read-only"]\n'
        'fail-on = "warning"\n'
        "[tool.toolgen.lint.severity]\n"
        'TG104 = "info"\n',
        encoding="utf-8",
    )
    result = lint(project, "--format", "json")
    assert [(f["code"], f["severity"]) for f in json_findings(result)] == [("TG104", "info")]
    assert result.exit_code == 0
    assert lint(project, "--isolated").exit_code == 1
    overridden = lint(project, "--format", "json", "--severity", "TG104=error")
    assert [(f["code"], f["severity"]) for f in json_findings(overridden)] == [("TG104", "error")]
    assert overridden.exit_code == 1


def test_pyproject_config_is_found_above_the_working_directory(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    specs = write_spec(project, DIRTY)
    (project / "pyproject.toml").write_text(
        '[tool.toolgen.lint]\nselect = ["TG104"]\n', encoding="utf-8"
    )
    monkeypatch.chdir(specs)
    result = lint(project, ".", "--format", "json")
    assert [f["code"] for f in json_findings(result)] == ["TG104"]


def test_command_line_select_replaces_the_configured_selection(project: Path) -> None:
    write_spec(project, DIRTY)
    (project / "pyproject.toml").write_text(
        '[tool.toolgen.lint]\nselect = ["TG104"]\n', encoding="utf-8"
    )
    result = lint(project, "--format", "json", "--select", "annotations", "--ignore", "TG104")
    assert [f["code"] for f in json_findings(result)] == ["TG105"]


def test_per_tool_ignores_silence_a_rule_for_matching_tools(project: Path) -> None:
    write_spec(project, DIRTY)
    (project / "pyproject.toml").write_text(
        '[tool.toolgen.lint.per-tool-ignores]\n"delete_*" = ["TG105"]\n', encoding="utf-8"
    )
    assert [f["code"] for f in json_findings(lint(project, "--format", "json"))] == ["TG104"]


def test_bad_pyproject_config_is_a_usage_error(project: Path) -> None:
    write_spec(project, CLEAN)
    (project / "pyproject.toml").write_text(
        '[tool.toolgen.lint]\nselcet = ["TG1"]\n', encoding="utf-8"
    )
    result = lint(project)
    assert result.exit_code == 2
    assert "selcet" in result.output


def test_output_option_writes_the_report_to_a_file(project: Path) -> None:
    write_spec(project, DIRTY)
    result = lint(project, "--format", "sarif", "-o", "lint.sarif")
    assert result.exit_code == 1
    assert json.loads((project / "lint.sarif").read_text(encoding="utf-8"))["version"] == "2.1.0"


def test_statistics_count_findings_per_rule(project: Path) -> None:
    write_spec(project, DIRTY + CLEAN.replace("tools:\n", "").replace("get_note", "get_other"))
    result = lint(project, "--statistics", "--select", "TG104,TG105")
    assert [line.split()[:2] for line in result.stdout.splitlines()] == [
        ["1", "TG104"],
        ["1", "TG105"],
    ]


def test_explain_prints_a_rules_documentation(project: Path) -> None:
    result = lint(project, "--explain", "TG101")
    assert result.exit_code == 0
    assert result.stdout.startswith("TG101 read-only-destructive (annotations, error)")
    for section in ("What it does:", "Why:", "Example:"):
        assert section in result.stdout
    assert lint(project, "--explain", "read-only-destructive").stdout == result.stdout
    assert lint(project, "--explain", "TG999").exit_code == 2


def test_rules_lists_every_rule_and_explains_one(project: Path) -> None:
    from toolgen.lint.registry import all_rules

    runner = CliRunner()
    listing = runner.invoke(cli, ["rules"])
    assert listing.exit_code == 0
    assert [line.split()[0] for line in listing.stdout.splitlines()] == [
        r.code for r in all_rules()
    ]
    as_json = json.loads(runner.invoke(cli, ["rules", "--format", "json"]).stdout)
    assert {r["code"] for r in as_json} == {r.code for r in all_rules()}
    assert runner.invoke(cli, ["rules", "TG304"]).stdout.startswith("TG304 nullable-union")


def test_published_definitions_are_detected_and_linted(project: Path) -> None:
    (project / "tools.json").write_text(
        json.dumps(
            {
                "tools": [
                    {
                        "name": "delete_repo",
                        "description": "Delete a repository and everything in it.",
                        "inputSchema": {"type": "object"},
                        "annotations": {"readOnlyHint": True, "openWorldHint": True},
                    }
                ]
            },
            indent=2,
        ),
        encoding="utf-8",
    )
    result = lint(project, "tools.json", "--format", "json", "--select", "TG105")
    assert [(f["code"], f["file"], f["line"], f["column"]) for f in json_findings(result)] == [
        ("TG105", "tools.json", 10, 9)
    ]
    assert result.exit_code == 1


def test_directory_of_spec_sets_is_linted_set_by_set(project: Path) -> None:
    write_spec(project / "specs", CLEAN, "one")
    (project / "specs" / "two").mkdir()
    (project / "specs" / "two" / "main.yaml").write_text(
        HEADER.replace("demo", "other") + DIRTY, encoding="utf-8"
    )
    result = lint(project, "--format", "json", "--select", "TG105")
    assert [(f["code"], f["file"]) for f in json_findings(result)] == [
        ("TG105", "specs/two/main.yaml")
    ]


def test_lint_never_imports_the_code_generators(project: Path) -> None:
    write_spec(project, DIRTY)
    code = (
        "import sys\n"
        "from toolgen.cli import main\n"
        "try:\n"
        "    main(['lint', 'specs'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "bad = [m for m in ('jinja2', 'datamodel_code_generator') if m in sys.modules]\n"
        "print(bad)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=project, check=False
    )
    assert proc.stdout.strip().splitlines()[-1] == "[]", proc.stderr
