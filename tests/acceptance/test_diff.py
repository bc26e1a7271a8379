"""`toolgen diff` as a command: sides (spec sets, directories of them, published definitions,
git revisions), exit codes, formats, configuration, and what a load error looks like."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner, Result
from conftest import ROOT, SPECS, TESTS

from toolgen.cli import cli
from toolgen.version import DOCS_URL

SARIF_SCHEMA = json.loads((TESTS / "data" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, ["diff", "--isolated", *args])


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new), encoding="utf-8")


@pytest.fixture
def notes(tmp_path: Path) -> tuple[Path, Path]:
    """Two copies of the notes spec set: (old, new)."""
    old, new = tmp_path / "old", tmp_path / "new"
    shutil.copytree(SPECS / "notes", old)
    shutil.copytree(SPECS / "notes", new)
    return old, new


def make_list_notes_write(new: Path) -> None:
    """The worked example of docs/diff.md: list_notes starts deleting expired notes."""
    edit(
        new / "notes.yaml",
        "annotations: {readOnly: true, idempotent: true, openWorld: false}\n    input:\n"
        "      type: object\n      properties:\n        tag:",
        "annotations: {readOnly: false, idempotent: true, openWorld: false}\n    input:\n"
        "      type: object\n      properties:\n        tag:",
    )


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return done.stdout


# -- exit codes and the text format -----------------------------------------------


def test_an_unchanged_spec_set_exits_0_with_no_changes(notes: tuple[Path, Path]) -> None:
    result = run(str(notes[0]), str(notes[1]))
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    assert result.stderr.startswith("0 changes.")


def test_a_read_only_tool_that_writes_fails_the_diff(notes: tuple[Path, Path]) -> None:
    old, new = notes
    make_list_notes_write(new)
    result = run(str(old), str(new))
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert any(" TD401 breaking readOnly: true → false" in line for line in lines), lines
    assert all(line.endswith("[list_notes]") or "TD601" in line for line in lines)
    assert any("TD601 error" in line for line in lines)  # 1.0.0 stays 1.0.0


def test_a_major_version_bump_accepts_the_breaking_changes_it_announces(
    notes: tuple[Path, Path], tmp_path: Path
) -> None:
    old, new = notes
    make_list_notes_write(new)
    edit(new / "notes.yaml", "version: 1.0.0", "version: 2.0.0")
    result = run(str(old), str(new), "--format", "json")
    assert result.exit_code == 0, result.output
    changes = json.loads(result.stdout)["changes"]
    accepted = {c["code"]: c for c in changes if c["code"] in ("TD401", "TD402")}
    assert len(accepted) == 2
    assert all(not c["breaking"] and c["severity"] == "info" for c in accepted.values())
    config = tmp_path / "pyproject.toml"
    config.write_text("[tool.toolgen.diff]\naccept-major-bump = false\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["diff", str(old), str(new), "--config", str(config)])
    assert result.exit_code == 1
    assert " TD401 breaking " in result.stdout


def test_a_minor_bump_accepts_nothing(notes: tuple[Path, Path]) -> None:
    old, new = notes
    make_list_notes_write(new)
    edit(new / "notes.yaml", "version: 1.0.0", "version: 1.1.0")
    result = run(str(old), str(new))
    assert result.exit_code == 1
    assert " TD401 breaking " in result.stdout and " TD601 error " in result.stdout


def test_fail_on_safety_ignores_other_breaking_changes(notes: tuple[Path, Path]) -> None:
    old, new = notes
    edit(
        new / "notes.yaml",
        "maxLength: 200, description: Short title.}\n        body",
        "maxLength: 100, description: Short title.}\n        body",
    )
    assert run(str(old), str(new)).exit_code == 1
    assert run(str(old), str(new), "--fail-on", "safety").exit_code == 0
    make_list_notes_write(new)
    assert run(str(old), str(new), "--fail-on", "safety").exit_code == 1


def test_fail_on_any_fails_on_a_note_and_never_never_fails(notes: tuple[Path, Path]) -> None:
    old, new = notes
    edit(new / "notes.yaml", "title: Create a note", "title: New note")
    assert run(str(old), str(new)).exit_code == 0
    assert run(str(old), str(new), "--fail-on", "any").exit_code == 1
    make_list_notes_write(new)
    assert run(str(old), str(new), "--fail-on", "never").exit_code == 0


def test_input_that_does_not_load_exits_2_with_file_line_col(notes: tuple[Path, Path]) -> None:
    old, new = notes
    edit(new / "notes.yaml", "  - name: get_note\n", "  - name: get_note\n    anotations: {}\n")
    result = run(str(old), str(new))
    assert result.exit_code == 2
    assert "notes.yaml:" in result.stderr and "error[unknown-key]" in result.stderr
    assert "Traceback" not in result.output


def test_a_missing_side_exits_2(tmp_path: Path) -> None:
    result = run(str(tmp_path / "nope"), str(SPECS / "notes"))
    assert result.exit_code == 2
    assert "error[io]" in result.stderr


# -- sides -------------------------------------------------------------------------


def test_directories_of_spec_sets_pair_servers_by_name(tmp_path: Path) -> None:
    old, new = tmp_path / "old", tmp_path / "new"
    shutil.copytree(SPECS, old)
    shutil.copytree(SPECS, new)
    shutil.rmtree(new / "shop")
    (new / "extra").mkdir()
    (new / "extra" / "main.yaml").write_text(
        "toolgen: 1\nserver: {name: extra, version: 1.0.0}\ntools:\n  - name: ping\n",
        encoding="utf-8",
    )
    document = json.loads(run(str(old), str(new), "--format", "json").stdout)
    codes = sorted(c["code"] for c in document["changes"])
    assert codes == ["TD104", "TD105"]
    removed = next(c for c in document["changes"] if c["code"] == "TD104")
    assert removed["breaking"] is True and removed["file"].endswith("shop.yaml")


def test_published_definitions_are_compared_like_spec_sets(tmp_path: Path) -> None:
    corpus = TESTS / "data" / "corpus" / "github-mcp-server"
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    tools = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(corpus.glob("*.json"))[:20]]
    old.write_text(json.dumps({"tools": tools}, indent=2), encoding="utf-8")
    changed = json.loads(json.dumps(tools))
    first = changed[0]
    first["annotations"] = {**first.get("annotations", {}), "readOnlyHint": False}
    first["inputSchema"].setdefault("required", []).append("brand_new")
    first["inputSchema"]["properties"]["brand_new"] = {"type": "string"}
    new.write_text(json.dumps({"tools": list(reversed(changed))}), encoding="utf-8")
    document = json.loads(run(str(old), str(new), "--format", "json").stdout)
    codes = {c["code"] for c in document["changes"]}
    assert "TD201" in codes
    assert document["summary"]["servers"][0]["tools"]["changed"] == [first["name"]]
    assert all(c["tool"] == first["name"] for c in document["changes"])
    assert all(c["file"].endswith("new.json") for c in document["changes"])


def test_a_git_revision_is_read_without_touching_the_working_tree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(SPECS / "notes", repo / "specs" / "notes")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "first")
    make_list_notes_write(repo / "specs" / "notes")
    git(repo, "commit", "-qam", "list_notes writes")
    edit(repo / "specs" / "notes" / "notes.yaml", "title: Create a note", "title: New note")
    before = {p: p.read_bytes() for p in repo.rglob("*") if p.is_file() and ".git" not in p.parts}
    monkeypatch.chdir(repo / "specs")
    result = run("git:HEAD~1:notes", "git:HEAD:notes", "--format", "json")
    document = json.loads(result.stdout)
    assert {c["code"] for c in document["changes"]} == {"TD401", "TD402", "TD601"}
    assert {c["file"].split(":")[0] for c in document["changes"]} == {"HEAD"}
    assert document["changes"][0]["file"] == "HEAD:specs/notes/notes.yaml"
    working = run("git:HEAD:notes", "notes", "--format", "json")
    assert [c["code"] for c in json.loads(working.stdout)["changes"]] == ["TD501"]
    after = {p: p.read_bytes() for p in repo.rglob("*") if p.is_file() and ".git" not in p.parts}
    assert after == before
    assert git(repo, "status", "--porcelain").strip() == "M specs/notes/notes.yaml"


def test_a_git_path_is_relative_to_the_working_directory_and_the_error_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copytree(SPECS / "notes", tmp_path / "specs" / "notes")
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "specs")
    monkeypatch.chdir(tmp_path / "specs")
    assert run("git:HEAD:notes", "notes").exit_code == 0
    result = run("git:HEAD:specs/notes", "notes")
    assert result.exit_code == 2
    assert (
        "git:HEAD:specs/notes:1:1: error[io]: no such file or directory at revision 'HEAD' "
        "(looked for specs/specs/notes: PATH is relative to the working directory)"
    ) in result.stderr


def test_an_unknown_git_revision_exits_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    git(tmp_path, "init", "-q")
    monkeypatch.chdir(tmp_path)
    result = run("git:no-such-rev:specs", str(SPECS / "notes"))
    assert result.exit_code == 2
    assert "git:no-such-rev:specs:1:1: error[io]: unknown revision 'no-such-rev'" in result.stderr


def test_the_pre_commit_hook_accepts_the_commit_that_adds_the_first_specs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hook runs `toolgen diff` with its defaults; before specs/ is committed (or before
    the first commit) there is nothing to break, so every server is new, exit 0."""
    import yaml

    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    entry = next(h for h in hooks if h["id"] == "toolgen-diff")["entry"].split()
    assert entry[:2] == ["toolgen", "diff"] and "args" not in entry
    git(tmp_path, "init", "-q")
    shutil.copytree(SPECS / "notes", tmp_path / "specs" / "notes")
    monkeypatch.chdir(tmp_path)
    for _ in ("no commit yet", "a commit without specs/"):
        result = CliRunner().invoke(cli, [*entry[1:], "--isolated"])
        assert result.exit_code == 0, result.output
        assert "TD105 note server 'notes' was added" in result.stdout
        assert "git:HEAD:specs: nothing at revision HEAD yet" in result.stderr
        git(tmp_path, "commit", "-q", "--allow-empty", "-m", "empty")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "specs")
    make_list_notes_write(tmp_path / "specs" / "notes")
    assert CliRunner().invoke(cli, [*entry[1:], "--isolated"]).exit_code == 1
    explicit = run("git:HEAD~2:specs", "specs")
    assert explicit.exit_code == 2
    assert "no such file or directory at revision 'HEAD~2'" in explicit.stderr


# -- formats -----------------------------------------------------------------------


def test_json_is_one_object_with_changes_and_summary(notes: tuple[Path, Path]) -> None:
    old, new = notes
    make_list_notes_write(new)
    document = json.loads(run(str(old), str(new), "--format", "json").stdout)
    assert set(document) == {"changes", "summary"}
    first = document["changes"][0]
    assert set(first) == {
        "code",
        "rule",
        "category",
        "breaking",
        "severity",
        "tool",
        "message",
        "path",
        "file",
        "line",
        "column",
    }
    safety = [c for c in document["changes"] if c["category"] == "safety"]
    assert {c["code"] for c in safety} == {"TD401", "TD402"}
    read_only = next(c for c in safety if c["code"] == "TD401")
    assert read_only["path"] == "/annotations/readOnlyHint"
    assert (read_only["line"], read_only["column"]) == (72, 19)
    server = document["summary"]["servers"][0]
    assert server["tools"]["changed"] == ["list_notes"]
    assert server["digest"]["old"] != server["digest"]["new"]


def test_sarif_is_valid_sarif_2_1_0(notes: tuple[Path, Path]) -> None:
    old, new = notes
    make_list_notes_write(new)
    document = json.loads(run(str(old), str(new), "--format", "sarif").stdout)
    jsonschema.Draft7Validator(SARIF_SCHEMA).validate(document)
    run_ = document["runs"][0]
    rules = run_["tool"]["driver"]["rules"]
    for result in run_["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
    assert {r["ruleId"] for r in run_["results"]} >= {"TD401", "TD402"}


def test_github_format_prints_workflow_commands(notes: tuple[Path, Path]) -> None:
    old, new = notes
    make_list_notes_write(new)
    lines = run(str(old), str(new), "--format", "github").stdout.splitlines()
    assert any(
        line.startswith("::error file=") and "title=TD401 read-only-removed::" in line
        for line in lines
    ), lines


def test_markdown_is_a_pull_request_comment(notes: tuple[Path, Path]) -> None:
    old, new = notes
    make_list_notes_write(new)
    edit(new / "notes.yaml", "title: Create a note", "title: New note")
    text = run(str(old), str(new), "--format", "markdown").stdout
    assert text.startswith("## toolgen diff: 2 breaking changes\n")
    assert f"[TD401]({DOCS_URL}diff-changes/#td401-read-only-removed)" in text
    assert "](docs/" not in text  # never a path of toolgen's repository
    assert "<details><summary>1 non-breaking change</summary>" in text


# -- configuration -----------------------------------------------------------------


def test_configured_ignores_drop_changes_and_need_a_reason(
    notes: tuple[Path, Path], tmp_path: Path
) -> None:
    old, new = notes
    make_list_notes_write(new)
    config = tmp_path / "pyproject.toml"
    config.write_text(
        "[tool.toolgen.diff]\nignore = [\n"
        '  {code = "read-only-removed", tool = "list_*", reason = "it only prunes its cache"},\n'
        '  {code = "TD402", reason = "reviewed"},\n]\n',
        encoding="utf-8",
    )
    result = CliRunner().invoke(cli, ["diff", str(old), str(new), "--config", str(config)])
    assert result.exit_code == 0, result.output
    assert "2 ignored by configuration" in result.stderr
    config.write_text('[tool.toolgen.diff]\nignore = [{code = "TD402"}]\n', encoding="utf-8")
    result = CliRunner().invoke(cli, ["diff", str(old), str(new), "--config", str(config)])
    assert result.exit_code == 2
    assert "needs a 'reason'" in result.stderr


@pytest.mark.parametrize(
    ("section", "problem"),
    [
        ('fail-on = "sometimes"', "'fail-on' must be one of"),
        ('ignore = [{code = "TD999", reason = "x"}]', "unknown change code 'TD999'"),
        ('ignore = [{code = "TD101", reason = "x", tools = "a"}]', "unknown key 'tools'"),
        ("colour = true", "unknown key 'colour'"),
    ],
)
def test_a_configuration_mistake_is_a_usage_error(
    notes: tuple[Path, Path], tmp_path: Path, section: str, problem: str
) -> None:
    config = tmp_path / "pyproject.toml"
    config.write_text(f"[tool.toolgen.diff]\n{section}\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["diff", *map(str, notes), "--config", str(config)])
    assert result.exit_code == 2
    assert problem in result.stderr


def test_output_option_writes_the_report_and_prints_the_summary(
    notes: tuple[Path, Path], tmp_path: Path
) -> None:
    old, new = notes
    make_list_notes_write(new)
    target = tmp_path / "report.sarif"
    result = run(str(old), str(new), "--format", "sarif", "-o", str(target))
    assert result.exit_code == 1
    assert result.stdout == ""
    assert json.loads(target.read_text(encoding="utf-8"))["version"] == "2.1.0"
    assert result.stderr.startswith("3 changes (2 breaking, 1 error).")


def test_a_report_that_cannot_be_written_is_a_clear_error_exit_2(
    notes: tuple[Path, Path], tmp_path: Path
) -> None:
    target = tmp_path / "missing" / "report.json"
    result = run(*map(str, notes), "--format", "json", "-o", str(target))
    assert result.exit_code == 2, result.output
    assert f"Invalid value for --output: no such directory: {target.parent}" in result.stderr
    assert "internal error" not in result.stderr
    assert not target.parent.exists()


def test_a_spec_set_and_its_own_published_definitions_do_not_differ() -> None:
    from conftest import GENERATED

    result = run(str(GENERATED / "notes" / "tools" / "2026-07-28.json"), str(SPECS / "notes"))
    assert result.exit_code == 0
    assert result.stdout == ""


def test_a_spec_set_and_the_package_built_from_it_do_not_differ() -> None:
    from conftest import GENERATED

    result = run(str(SPECS / "notes"), str(GENERATED / "notes"))
    assert result.exit_code == 0, result.output
    assert result.stdout == ""


def test_spec_sets_without_a_server_block_have_no_version_to_check(tmp_path: Path) -> None:
    for side, tools in (("old", "[{name: a}, {name: b}]"), ("new", "[{name: a}]")):
        (tmp_path / side).mkdir()
        (tmp_path / side / "tools.yaml").write_text(
            f"toolgen: 1\ntools: {tools}\n", encoding="utf-8"
        )
    document = json.loads(
        run(str(tmp_path / "old"), str(tmp_path / "new"), "--format", "json").stdout
    )
    assert [c["code"] for c in document["changes"]] == ["TD101"]
    assert document["summary"]["servers"][0]["version"] == {"old": None, "new": None}
