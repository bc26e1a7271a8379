"""Text a server sent, in a verify report: control characters (escape sequences, NUL, C1)
and lone surrogates are shown as escapes, so the JUnit XML stays well-formed."""

from __future__ import annotations

import re
from xml.etree import ElementTree as ET

import pytest

from toolgen.verify.reports import headline, to_junit
from toolgen.verify.results import (
    ERROR,
    FAILED,
    NOT_EXERCISED,
    PASSED,
    SKIPPED,
    Report,
    Result,
)

HOSTILE = ["\x1b]0;owned\x07", "nul\x00", "c1\x9b2J", "lone\ud800", "bom\ufffe", "cr\rlf\n"]


@pytest.mark.parametrize("text", HOSTILE)
@pytest.mark.parametrize("status", [FAILED, ERROR])
def test_the_junit_report_is_well_formed_xml_whatever_the_server_said(
    text: str, status: str
) -> None:
    result = Result("protocol.handshake", status, f"tool{text}", f"said {text}", "2025-11-25")
    xml = to_junit(Report(results=[result]))
    xml.encode("utf-8")  # no lone surrogate left
    root = ET.fromstring(xml.split("\n", 1)[1])
    case = root.find("testsuite/testcase")
    assert case is not None
    assert "\\u" in case.get("name", "") + "".join(case.itertext()) or text == "cr\rlf\n"


TOOL_COUNTS = re.compile(
    r"(\d+) tools: (\d+) passed, (\d+) failed, (\d+) not exercised, (\d+) skipped "
    r"\((\d+) exercised\)"
)


def test_the_summary_line_counts_each_tool_once_and_the_exercised_among_them() -> None:
    """Tools by verdict add up to all of them, and the exercised ones are the passed ones and
    the failed ones some call of which succeeded; check counts are apart, named as checks."""
    revision = "2025-11-25"
    results = [
        Result("call.answers", PASSED, "good", "ok", revision),
        Result("call.answers", PASSED, "broken", "ok", revision),
        Result("call.result-shape", FAILED, "broken", "bad shape", revision),
        Result("listing.annotations", FAILED, "refusing", "hints differ", revision),
        Result("call.answers", NOT_EXERCISED, "refusing", "every call answered isError", revision),
        Result("call.answers", NOT_EXERCISED, "other", "every call answered isError", revision),
        Result("call.answers", SKIPPED, "wipe", "destructive", revision),
    ]
    tools = ("good", "broken", "refusing", "other", "wipe")
    line = headline(Report(results=results, tools=tools, revisions=(revision,)))
    found = TOOL_COUNTS.search(line)
    assert found, line
    total, passed_, failed_, unexercised, skipped_, exercised = map(int, found.groups())
    assert (total, passed_, failed_, unexercised, skipped_) == (5, 1, 2, 1, 1)
    assert exercised == 2  # good, and broken (a call succeeded); not refusing
    assert "checks: 2 passed, 1 skipped, 2 not exercised" in line
