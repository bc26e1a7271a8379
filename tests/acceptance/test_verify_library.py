"""verify's pieces: input generation (explicit and hypothesis), baselines, reports, exit codes,
and the checks document."""

from __future__ import annotations

import json
import socket
import sys
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

import jsonschema
import pytest
from conftest import ROOT, TESTS
from verify_support.run import DEMO_SPEC, demo_server, verify, verify_raw

from toolgen.schema.validation import SchemaValidator
from toolgen.verify.checks import CHECKS, checks_markdown
from toolgen.verify.generate import Failure, explore, strategy_for
from toolgen.verify.inputs import boundary_cases, invalid_cases

SARIF_SCHEMA = json.loads((TESTS / "data" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "limit": {"type": "integer", "minimum": 1, "maximum": 100},
        "text": {"type": "string", "minLength": 1, "maxLength": 100},
        "mode": {"enum": ["fast", "slow"]},
    },
    "required": ["text"],
    "additionalProperties": False,
}


def test_boundary_cases_reach_every_bound_and_enum_value() -> None:
    cases = boundary_cases(SCHEMA, {"text": "x"}, SchemaValidator(SCHEMA))
    values = [c.arguments for c in cases]
    assert {v.get("limit") for v in values} >= {1, 100}
    assert {len(v["text"]) for v in values} >= {1, 100}
    assert {v.get("mode") for v in values} >= {"fast", "slow"}
    assert all(SchemaValidator(SCHEMA).is_valid(v) for v in values)


def test_invalid_cases_break_exactly_one_keyword_each() -> None:
    validator = SchemaValidator(SCHEMA)
    cases = invalid_cases(SCHEMA, {"text": "x"}, validator)
    keywords = set()
    for case in cases:
        issues = validator.issues(case.arguments)
        assert len({i.keyword for i in issues}) == 1, case
        keywords.add(issues[0].keyword)
    assert keywords >= {
        "required",
        "type",
        "minimum",
        "maximum",
        "minLength",
        "maxLength",
        "enum",
        "additionalProperties",
    }


def test_the_pinned_hypothesis_still_generates_objects_with_optional_properties() -> None:
    # hypothesis-jsonschema 0.23.1 fails on such objects with hypothesis >= 6.170.10
    validator = SchemaValidator(SCHEMA)
    strategy = strategy_for(SCHEMA, validator.is_valid)
    assert not isinstance(strategy, str), strategy
    seen: list[Any] = []
    found = explore(strategy, lambda v: seen.append(v), cases=30, seed=1)  # type: ignore[func-returns-value]
    assert found.failure is None and found.unavailable is None
    assert len(seen) >= 10 and all(validator.is_valid(v) for v in seen)
    assert any("limit" in v for v in seen) and any("limit" not in v for v in seen)


def test_a_failure_is_shrunk_to_the_smallest_input() -> None:
    strategy = strategy_for(SCHEMA, SchemaValidator(SCHEMA).is_valid)
    found = explore(
        strategy,
        lambda v: Failure("call.answers", "long") if len(v["text"]) >= 5 else None,
        cases=100,
        seed=3,
    )
    assert found.failure is not None
    assert len(found.input["text"]) == 5


def test_a_baseline_expects_failures_and_reports_unused_entries(tmp_path: Path) -> None:
    baseline = tmp_path / "baseline.yaml"
    baseline.write_text(
        "expected-failures:\n"
        "  - check: protocol.batch\n    reason: we accept batches for now\n"
        "  - check: call.*\n    tool: add\n    reason: nothing fails here\n",
        encoding="utf-8",
    )
    run = verify(
        DEMO_SPEC,
        "--server",
        demo_server("accepts-batches"),
        "--protocol",
        "2025-11-25",
        "--baseline",
        str(baseline),
    )
    assert run.exit_code == 1
    assert run.failed() == {"baseline.unused"}
    assert run.report["summary"]["expected"] == 1
    (unused,) = run.results("baseline.unused")
    assert ":4:5: the expected failure call.* for add did not happen" in unused["message"]


def test_a_baseline_entry_without_reason_is_a_usage_error_with_its_position(tmp_path: Path) -> None:
    baseline = tmp_path / "baseline.yaml"
    baseline.write_text("expected-failures:\n  - check: protocol.batch\n", encoding="utf-8")
    code, _, err = verify_raw(
        [str(DEMO_SPEC), "--server", demo_server(), "--baseline", str(baseline)]
    )
    assert code == 2
    assert ":2:5: error[missing-key]: `reason` is required" in err


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize(
    "target",
    [
        ["--server", "toolgen-verify-no-such-command --flag"],
        ["--server", f"{sys.executable} -c pass"],  # starts, exits at once
        ["--url", "http://127.0.0.1:{port}/mcp"],
    ],
    ids=["missing-command", "exits-at-once", "nothing-listening"],
)
def test_a_server_that_cannot_be_reached_exits_2(target: list[str]) -> None:
    target = [t.format(port=_free_port()) for t in target]
    code, out, err = verify_raw([str(DEMO_SPEC), *target, "--timeout", "5"])
    assert code == 2, out
    assert err.startswith("toolgen verify: ")


def test_usage_errors_exit_2() -> None:
    assert verify_raw([str(DEMO_SPEC)])[0] == 2
    assert verify_raw([str(DEMO_SPEC), "--server", "x", "--url", "http://127.0.0.1:1/"])[0] == 2
    code, _, err = verify_raw([str(ROOT / "no-such-specs"), "--server", demo_server()])
    assert code == 2 and "error[" in err


USAGE_ERRORS = [
    ("unclosed-quote", ["--server", "python 'x"], "not a command line: No closing quotation"),
    ("output-dir-missing", ["-o", "{tmp}/nowhere/r.json"], "no such directory"),
    ("output-is-a-directory", ["-o", "{tmp}"], "is a directory, not a file"),
    ("only-matches-nothing", ["--only", "serch"], "'serch' matches no tool of the spec set"),
    ("exclude-matches-nothing", ["--exclude", "wipe_*"], "'wipe_*' matches no tool"),
    ("header-without-url", ["--header", "A: b"], "--header needs --url"),
]


@pytest.mark.parametrize(
    ("args", "message"), [c[1:] for c in USAGE_ERRORS], ids=[c[0] for c in USAGE_ERRORS]
)
def test_a_usage_error_is_refused_before_any_server_starts(
    tmp_path: Path, args: list[str], message: str
) -> None:
    started = tmp_path / "started"
    server = f"{sys.executable} -c \"open({str(started)!r}, 'w')\""  # leaves a mark if started
    argv = [str(DEMO_SPEC), "--server", server, *[a.format(tmp=tmp_path) for a in args]]
    if args[0] == "--server":
        argv = [str(DEMO_SPEC), *args]
    code, out, err = verify_raw(argv)
    assert (code, out) == (2, "")
    assert message in err and "internal error" not in err
    assert not started.exists() and not (tmp_path / "nowhere").exists()


def test_the_same_seed_generates_the_same_inputs() -> None:
    strategy = strategy_for(SCHEMA, SchemaValidator(SCHEMA).is_valid)

    def inputs(seed: int) -> list[Any]:
        seen: list[Any] = []
        explore(strategy, lambda v: seen.append(v), cases=15, seed=seed)  # type: ignore[func-returns-value]
        return seen

    assert inputs(7) == inputs(7)
    assert inputs(7) != inputs(8)


def test_json_and_junit_reports_carry_every_result_with_its_level_and_rule(
    tmp_path: Path,
) -> None:
    run = verify(DEMO_SPEC, "--server", demo_server("no-text-fallback"), "--protocol", "2025-11-25")
    summary = run.report["summary"]
    assert summary["failed"] == 2 and summary["levels"] == {"must": 0, "should": 2, "may": 0}
    assert summary["passed"] > 0 and summary["skipped"] == 7 and summary["not-exercised"] == 0
    assert summary["tools"] == {
        "total": 3, "exercised": 2, "failed": 2, "not-exercised": 0, "passed": 0, "skipped": 1,
    }  # fmt: skip
    assert run.exit_code == 0 and run.report["ok"]  # only should failures
    (failure,) = [r for r in run.results("call.text-fallback") if r["tool"] == "search"]
    assert set(failure) >= {"check", "status", "level", "rule", "tool", "message", "input"}
    assert failure["rule"]["url"] == (
        "https://modelcontextprotocol.io/specification/2025-11-25/server/tools#structured-content"
    )
    assert {t["tool"]: t["status"] for t in run.report["tools"]} == {
        "search": "failed", "add": "failed", "wipe": "skipped",
    }  # fmt: skip
    out = tmp_path / "report.xml"
    code, _, _ = verify_raw(
        [
            str(DEMO_SPEC), "--server", demo_server("no-text-fallback"), "--protocol",
            "2025-11-25", "--cases", "3", "--format", "junit", "-o", str(out), "--fail-on",
            "should",
        ]
    )  # fmt: skip
    assert code == 1
    assert [p.name for p in tmp_path.iterdir()] == ["report.xml"]  # written whole, no temp left
    suites = ET.parse(out).getroot()
    cases = suites.findall(".//testcase")
    assert len(cases) == len(run.report["results"])
    failures = suites.findall(".//failure")
    assert len(failures) == 2
    assert all(
        "SHOULD, MCP 2025-11-25 server/tools#structured-content" in f.get("message", "")
        for f in failures
    )


def test_sarif_report_is_valid_and_locates_each_failure_at_its_tool(tmp_path: Path) -> None:
    code, out, _ = verify_raw(
        [
            str(DEMO_SPEC), "--server", demo_server("no-text-fallback", "accepts-invalid-input"),
            "--protocol", "2025-11-25", "--cases", "3", "--format", "sarif",
        ]
    )  # fmt: skip
    assert code == 1
    document = json.loads(out)
    jsonschema.Draft7Validator(SARIF_SCHEMA).validate(document)
    run = document["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == [c.id for c in CHECKS]
    found = {(r["ruleId"], r["level"], r["properties"]["tool"]) for r in run["results"]}
    assert found == {
        ("call.text-fallback", "warning", "search"),
        ("call.text-fallback", "warning", "add"),
        ("call.invalid-input", "error", "search"),
    }
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        location = result["locations"][0]["physicalLocation"]
        assert location["artifactLocation"]["uri"].endswith("demo.yaml")
    lines = {
        r["properties"]["tool"]: r["locations"][0]["physicalLocation"]["region"]["startLine"]
        for r in run["results"]
    }
    text = (DEMO_SPEC / "demo.yaml").read_text(encoding="utf-8").splitlines()
    assert "name: search" in text[lines["search"] - 1] and "name: add" in text[lines["add"] - 1]


def test_text_report_starts_with_a_summary_and_groups_failures_by_level() -> None:
    code, out, _ = verify_raw(
        [
            str(DEMO_SPEC), "--server", demo_server("output-breaks-schema", "no-text-fallback"),
            "--protocol", "2025-11-25", "--cases", "3",
        ]
    )  # fmt: skip
    assert code == 1
    lines = out.splitlines()
    assert lines[0].startswith("toolgen verify: FAILED (fails on must): 1 must, 1 should, 0 may")
    assert "3 tools: 0 passed, 2 failed, 0 not exercised, 1 skipped (2 exercised)" in lines[0]
    must, should = lines.index("MUST: 1 failed"), lines.index("SHOULD: 1 failed, reported only")
    assert must < should
    fail = must + 1
    assert lines[fail].startswith("FAIL call.structured-content search [2025-11-25]")
    assert json.loads(lines[fail + 1].split("input: ", 1)[1]) == {"query": "apples"}
    assert lines[fail + 2] == (
        "     rule: MUST, https://modelcontextprotocol.io/specification/2025-11-25/server/tools#output-schema"
    )
    assert lines[should + 1].startswith("FAIL call.text-fallback add [2025-11-25]")
    assert "  wipe: [2025-11-25] call.answers: destructive" in out  # why it was skipped


def test_the_checks_document_matches_the_registry(update_goldens: bool) -> None:
    doc = ROOT / "docs" / "verify-checks.md"
    if update_goldens:
        doc.write_text(checks_markdown(), encoding="utf-8")
        return
    assert doc.read_text(encoding="utf-8") == checks_markdown(), "run with --update-goldens"


def test_check_ids_are_unique_and_grouped() -> None:
    ids = [c.id for c in CHECKS]
    assert len(ids) == len(set(ids))
    assert {i.split(".")[0] for i in ids} == {"protocol", "listing", "call", "sequence", "baseline"}


def test_a_run_leaves_the_working_directory_clean(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("HYPOTHESIS_STORAGE_DIRECTORY", raising=False)
    run = verify(DEMO_SPEC, "--server", demo_server(), "--protocol", "2025-11-25")
    assert run.exit_code == 0
    assert list(tmp_path.iterdir()) == []  # no .hypothesis/ cache left behind


HINTS_SPEC = """toolgen: 1
server: {name: hints, version: 1.0.0}
tools:
  - name: undeclared
    description: Says nothing about its behaviour.
    input: {type: object}
  - name: reader
    description: Only reads.
    annotations: {readOnly: true}
    input: {type: object}
  - name: adder
    description: Writes, destroys nothing.
    annotations: {readOnly: false, destructive: false}
    input: {type: object}
"""
SAFETY = [
    # (tool, the hints the server lists, skipped without --allow-destructive)
    ("undeclared", {}, True),  # MCP's default: destructive
    ("reader", {"readOnlyHint": True}, False),
    ("reader", {}, True),  # the server's listing leaves it to the destructive default
    ("adder", {"destructiveHint": False}, False),
    ("adder", {"destructiveHint": True}, True),  # either side saying so is enough
    ("undeclared", {"readOnlyHint": True}, True),  # the spec's default still counts
    ("reader", {"readOnlyHint": "true"}, True),  # not a boolean: the MCP default
    ("adder", {"destructiveHint": "false"}, True),
]


@pytest.mark.parametrize(("name", "listed", "skipped"), SAFETY)
def test_a_tool_is_destructive_when_either_side_says_so_or_leaves_the_default(
    tmp_path: Path, name: str, listed: dict[str, bool], skipped: bool
) -> None:
    from toolgen.spec.pipeline import load_spec_set
    from toolgen.verify.revision import is_destructive

    (tmp_path / "hints.yaml").write_text(HINTS_SPEC, encoding="utf-8")
    tool = load_spec_set(tmp_path).tool(name)
    assert is_destructive(tool, [{"name": name, "annotations": listed}]) is skipped
