"""Text a server sent, in a verify report: control characters (escape sequences, NUL, C1)
and lone surrogates are shown as escapes, so the JUnit XML stays well-formed."""

from __future__ import annotations

from xml.etree import ElementTree as ET

import pytest

from toolgen.verify.reports import to_junit
from toolgen.verify.results import ERROR, FAILED, Report, Result

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
