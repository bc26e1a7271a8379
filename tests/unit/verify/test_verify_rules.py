"""The checks registry: every check names a rule per revision, at a level, with a source; a
result's level is its revision's rule's; the exit decision follows --fail-on; verdicts and
coverage are derived from the results."""

from __future__ import annotations

import pytest

from toolgen.spec.protocol import SUPPORTED_REVISIONS
from toolgen.verify.checks import CHECKS, LEVELS, MCP, check
from toolgen.verify.results import (
    Report,
    Result,
    broken,
    failed,
    not_exercised,
    passed,
    skipped,
)


def test_every_check_has_a_rule_for_every_revision_with_a_level_and_a_source() -> None:
    for c in CHECKS:
        for revision in SUPPORTED_REVISIONS:
            rule = c.rule(revision)
            assert rule.level in LEVELS, c.id
            if rule.source == MCP:
                assert rule.url(revision), c.id


LEVEL_BY_REVISION = [
    # (check, revision, level, the revision the rule cites)
    ("protocol.batch", "2024-11-05", "should", None),  # JSON-RPC 2.0 only
    ("protocol.batch", "2025-03-26", "must", "2025-03-26"),
    ("protocol.batch", "2025-11-25", "should", "2025-06-18"),  # removed in 2025-06-18
    ("protocol.handshake", "2025-11-25", "must", "2025-11-25"),
    ("protocol.handshake", "2026-07-28", "must", "2026-07-28"),
    ("protocol.parse-error", "2025-06-18", "must", None),
    ("protocol.unknown-tool", "2025-11-25", "should", "2025-11-25"),
    ("call.text-fallback", "2025-06-18", "should", "2025-06-18"),
    ("call.structured-content", "2026-07-28", "must", "2026-07-28"),
    ("call.invalid-input", "2025-03-26", "must", "2025-03-26"),
    ("call.task-required", "2025-11-25", "must", "2025-11-25"),
    ("listing.title", None, "may", None),
    ("sequence.read-back", None, "should", None),
    ("sequence.expected", None, "must", None),
]


@pytest.mark.parametrize(("check_id", "revision", "level", "cited"), LEVEL_BY_REVISION)
def test_a_results_level_is_the_rule_of_its_revision(
    check_id: str, revision: str | None, level: str, cited: str | None
) -> None:
    result = failed(check_id, "x", revision=revision)
    assert result.level == level
    assert result.rule.revision_for(revision) == cited
    json = result.to_json()
    assert json["level"] == level and json["rule"]["revision"] == cited


def test_an_mcp_rule_links_to_the_section_of_its_revision() -> None:
    rule = check("call.structured-content").rule("2025-11-25")
    assert rule.url("2025-11-25") == (
        "https://modelcontextprotocol.io/specification/2025-11-25/server/tools#output-schema"
    )
    assert rule.cite("2025-11-25") == "MUST, MCP 2025-11-25 server/tools#output-schema"


FAILS = [
    # (result, fail_on, fails the run)
    (failed("protocol.parse-error", "x"), "must", True),
    (failed("protocol.unknown-tool", "x", revision="2025-11-25"), "must", False),
    (failed("protocol.unknown-tool", "x", revision="2025-11-25"), "should", True),
    (failed("listing.title", "x"), "should", False),
    (failed("listing.title", "x"), "may", True),
    (failed("protocol.parse-error", "x").with_expected("known"), "may", False),
    (broken("call.answers", RuntimeError("boom")), "must", True),
    (not_exercised("call.answers", "x"), "may", False),
    (skipped("call.answers", "x"), "may", False),
]


@pytest.mark.parametrize(("result", "fail_on", "fails"), FAILS)
def test_what_fails_the_run_follows_fail_on(result: Result, fail_on: str, fails: bool) -> None:
    assert result.fails(fail_on) is fails
    assert Report([result], fail_on=fail_on).ok is not fails


def test_an_error_of_verify_names_the_exception_and_where_it_was_raised() -> None:
    try:
        {}["missing"]
    except KeyError as exc:
        result = broken("call.answers", exc, "search", "2025-11-25")
    assert result.status == "error"
    assert "KeyError: 'missing'" in result.message
    assert "test_verify_rules.py:" in result.message


def test_verdicts_and_coverage_come_from_the_results() -> None:
    rev = "2025-11-25"
    results = [
        passed("listing.input-schema", "ok", "good", rev),
        passed("call.answers", "ok", "good", rev),
        passed("listing.input-schema", "ok", "refused", rev),
        not_exercised("call.answers", "every call answered isError", "refused", rev),
        failed("listing.title", "differs", "drifted", rev),
        passed("call.answers", "ok", "drifted", rev),
        passed("listing.input-schema", "ok", "risky", rev),
        skipped("call.answers", "destructive", "risky", rev),
        failed("sequence.read-back", "lost", "good", rev).with_expected("known"),
    ]
    report = Report(results, tools=("good", "refused", "drifted", "risky"))
    verdicts = {v.tool: (v.status, v.reason) for v in report.verdicts()}
    assert verdicts == {
        "good": ("passed", ""),
        "refused": ("not-exercised", f"[{rev}] call.answers: every call answered isError"),
        "drifted": ("failed", f"[{rev}] listing.title: differs"),
        "risky": ("skipped", f"[{rev}] call.answers: destructive"),
    }
    assert report.exercised() == ["good", "drifted"]
    summary = report.summary()
    assert summary["tools"] == {
        "total": 4, "exercised": 2, "passed": 1, "failed": 1, "skipped": 1, "not-exercised": 1,
    }  # fmt: skip
    assert summary["levels"] == {"must": 0, "should": 0, "may": 1}
    assert summary["expected"] == 1
