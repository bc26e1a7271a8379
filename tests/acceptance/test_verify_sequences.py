"""Fixtures and stateful sequences: real values make a picky tool exercised; inferred sequences
(create_note -> get_note -> delete_note -> get_note) pass on the real notes handlers and catch
the planted defects of `verify_support/planted.py`, shrunk to the shortest failing sequence;
pinned sequences hold as a must; the fixtures file's mistakes are reported at file:line:col."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, SPECS
from verify_support.run import DEMO_SPEC, HERE, demo_server, verify, verify_raw

NOTES = SPECS / "notes"
LEGACY = ("--protocol", "2025-11-25")


def notes_server(handlers: str) -> str:
    path = (
        ROOT / "examples" / "notes_handlers.py"
        if handlers == "NotesHandlers"
        else HERE / "planted.py"
    )
    return f"{sys.executable} -m toolgen serve {NOTES} --handlers {path}:{handlers}"


def sequences(run: Any) -> dict[str, tuple[str, str]]:
    """check -> (status, message) of the inferred sequence of create_note."""
    return {
        r["check"]: (r["status"], r["message"])
        for r in run.report["results"]
        if r["check"].startswith("sequence.") and r["tool"] == "create_note"
    }


@pytest.mark.parametrize("revision", ["2025-11-25", "2025-03-26"])
def test_the_inferred_sequence_passes_on_the_real_notes_handlers(revision: str) -> None:
    # 2025-03-26 has no structuredContent: the created id is read from the text block's JSON
    server = notes_server("NotesHandlers")
    run = verify(NOTES, "--server", server, "--protocol", revision, "--allow-destructive")
    assert run.exit_code == 0, run.stderr
    assert sequences(run) == {
        check: ("passed", "create_note -> get_note -> delete_note -> get_note: as expected")
        for check in ("sequence.read-back", "sequence.values", "sequence.deleted")
    }
    tools = {t["tool"]: t["status"] for t in run.report["tools"]}
    assert (
        tools["get_note"] == "passed"
    )  # plain calls with made-up ids all fail; the sequence's read succeeds


PLANTED = [
    # (handlers, the check that catches the defect, the shortest failing sequence)
    ("ForgetfulNotes", "sequence.read-back", ["create_note", "get_note"]),
    ("UndeletableNotes", "sequence.deleted", ["create_note", "delete_note", "get_note"]),
]


@pytest.mark.parametrize(("handlers", "check", "shortest"), PLANTED, ids=[p[0] for p in PLANTED])
def test_a_planted_stateful_defect_is_caught_and_shrunk(
    handlers: str, check: str, shortest: list[str]
) -> None:
    run = verify(
        NOTES, "--server", notes_server(handlers), *LEGACY, "--allow-destructive",
        "--fail-on", "should",
    )  # fmt: skip
    assert run.levels() == {check: "should"}  # inferred, so a should
    assert run.exit_code == 1
    (result,) = run.results(check, "create_note")
    assert [step["call"] for step in result["input"]] == shortest
    assert result["message"].startswith(" -> ".join(shortest) + f": step {len(shortest)} ")
    created = result["input"][0]["arguments"]
    assert created == {"title": "Groceries"}  # the spec example seeds the create step


def test_without_allow_destructive_the_sequence_leaves_out_the_delete() -> None:
    run = verify(NOTES, "--server", notes_server("UndeletableNotes"), *LEGACY)
    found = sequences(run)
    assert found["sequence.read-back"] == ("passed", "create_note -> get_note: as expected")
    assert found["sequence.deleted"][0] == "skipped"
    assert "delete_note not called" in found["sequence.deleted"][1]


PINNED = """
sequences:
  - name: a note round trip
    steps:
      - call: create_note
        arguments: {title: Pinned, body: kept}
      - call: get_note
        arguments: {id: "${1.id}"}
        expect: {output: {title: Pinned, body: kept}}
      - call: delete_note
        arguments: {id: "${1.id}"}
        expect: {output: {deleted: true}}
      - call: get_note
        arguments: {id: "${1.id}"}
        expect: {error: true}
"""


@pytest.mark.parametrize(
    ("handlers", "status", "code"),
    [("NotesHandlers", "passed", 0), ("ForgetfulNotes", "failed", 1)],
    ids=["correct", "forgetful"],
)
def test_a_pinned_sequence_is_held_as_a_must(
    tmp_path: Path, handlers: str, status: str, code: int
) -> None:
    fixtures = tmp_path / "fixtures.yaml"
    fixtures.write_text(PINNED, encoding="utf-8")
    run = verify(
        NOTES, "--server", notes_server(handlers), *LEGACY, "--allow-destructive",
        "--fixtures", str(fixtures), "--sequences", "pinned",
    )  # fmt: skip
    (result,) = run.results("sequence.expected")
    assert (result["status"], result["level"]) == (status, "must")
    assert run.exit_code == code
    assert run.results("sequence.read-back") == []  # --sequences pinned: none inferred
    if status == "failed":
        assert "step 2 get_note: expected to succeed" in result["message"]
        assert result["input"][1]["arguments"]["id"].startswith("n_")  # ${1.id} resolved


def test_sequences_off_runs_none() -> None:
    run = verify(NOTES, "--server", notes_server("ForgetfulNotes"), *LEGACY, "--sequences", "off")
    assert not [r for r in run.report["results"] if r["check"].startswith("sequence.")]


def test_fixture_values_make_a_tool_that_needs_real_values_exercised(tmp_path: Path) -> None:
    args = ("--server", demo_server("picky"), *LEGACY, "--only", "search")
    run = verify(DEMO_SPEC, *args)
    (verdict,) = run.report["tools"]
    assert verdict["status"] == "not-exercised"
    assert "every call answered isError" in verdict["reason"]
    assert "no catalogue entry" in verdict["reason"]
    assert run.report["summary"]["tools"]["exercised"] == 0
    fixtures = tmp_path / "fixtures.json"
    fixtures.write_text('{"values": {"query": ["kiwi"]}}', encoding="utf-8")
    run = verify(DEMO_SPEC, *args, "--fixtures", str(fixtures))
    assert [(t["tool"], t["status"]) for t in run.report["tools"]] == [("search", "passed")]
    assert run.report["summary"]["tools"]["exercised"] == 1
    (answers,) = run.results("call.answers", "search")
    assert answers["status"] == "passed" and "0 answered isError" not in answers["message"]


FIXTURE_ERRORS = [
    # (fixtures file, line:col and code of the first error)
    ("values:\n  nope: [1]\n", "2:3: error[invalid-value]"),
    ("tools:\n  serch: {}\n", "2:3: error[invalid-value]"),
    ("tools:\n  search:\n    timeout: 0\n", "3:14: error[invalid-value]"),
    ("tools:\n  search:\n    values: {limit: [1000]}\n", "3:22: error[invalid-value]"),
    ("tools:\n  search:\n    arguments: [{query: 5}]\n", "3:17: error[invalid-value]"),
    ("tools:\n  search:\n    colour: red\n", "3:5: error[unknown-key]"),
    ("values:\n  query: kiwi\n", "2:10: error[wrong-type]"),
    (
        "sequences:\n  - name: s\n    steps:\n      - call: search\n"
        '        arguments: {query: "${2.items}"}\n',
        "5:28: error[invalid-value]",
    ),
]


@pytest.mark.parametrize(("text", "where"), FIXTURE_ERRORS)
def test_a_fixtures_mistake_is_a_usage_error_at_its_position(
    tmp_path: Path, text: str, where: str
) -> None:
    fixtures = tmp_path / "fixtures.yaml"
    fixtures.write_text(text, encoding="utf-8")
    started = tmp_path / "started"
    server = f"{sys.executable} -c \"open({str(started)!r}, 'w')\""
    code, out, err = verify_raw([str(DEMO_SPEC), "--server", server, "--fixtures", str(fixtures)])
    assert (code, out) == (2, "")
    assert f"fixtures.yaml:{where}" in err.splitlines()[0], err
    assert not started.exists()
