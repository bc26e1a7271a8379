"""Results verify used to get wrong, each pinned by a test that failed before the fix: listing
fields a revision lacks, a long call cut off at the timeout, integers beyond 64 bits, and an
error of verify itself reported as a pass."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from verify_support.run import DEMO_SERVER, DEMO_SPEC, demo_server, verify

from toolgen.verify.judge import Judge
from toolgen.verify.session import Session
from toolgen.verify.stdio import StdioTarget


def test_a_server_listing_its_newest_definitions_at_older_revisions_passes_the_listing() -> None:
    run = verify(DEMO_SPEC, "--server", demo_server("newest-listing"), "--protocol", "all")
    opened = [r["revision"] for r in run.results("protocol.handshake") if r["status"] == "passed"]
    assert opened == ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]
    assert [
        (r["check"], r["tool"], r["revision"])
        for r in run.report["results"]
        if r["check"].startswith("listing.") and r["status"] != "passed"
    ] == []
    assert run.exit_code == 0, run.stderr


def test_a_real_drift_in_a_field_the_revision_lacks_is_still_reported() -> None:
    run = verify(
        DEMO_SPEC, "--server", demo_server("newest-listing", "output-schema-differs"),
        "--protocol", "2024-11-05",
    )  # fmt: skip
    assert run.levels() == {"listing.output-schema": "must"}


SLOW_SEARCH = {"VERIFY_SLOW": "5"}
"""The demo server's search for the example's "apples" takes 5 s."""
SLOW = [
    # (server modes, what call.answers says) with --timeout 3
    (("slow-apples",), "passed"),  # a progress notification every 0.2 s renews the 3 s wait
    (("slow-apples", "silent"), "failed"),  # no progress: no reply within 3 s
]


@pytest.mark.parametrize(("modes", "status"), SLOW, ids=["progress", "silent"])
def test_progress_notifications_renew_the_timeout_of_a_long_call(
    modes: tuple[str, ...], status: str
) -> None:
    run = verify(
        DEMO_SPEC, "--server", demo_server(*modes), "--protocol", "2025-11-25",
        "--only", "search", "--cases", "0", "--timeout", "3", env=SLOW_SEARCH,
    )  # fmt: skip
    (answers,) = run.results("call.answers", "search")
    assert answers["status"] == status, answers
    if status == "failed":
        assert "no reply within 3 s" in answers["message"]


def test_a_tool_that_supports_tasks_gets_six_times_the_timeout(tmp_path: Path) -> None:
    spec = yaml.safe_load((DEMO_SPEC / "demo.yaml").read_text(encoding="utf-8"))
    spec["tools"][0]["execution"] = {"taskSupport": "optional"}
    (tmp_path / "demo.yaml").write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    run = verify(
        tmp_path, "--server", demo_server("slow-apples", "silent"), "--protocol", "2025-11-25",
        "--only", "search", "--cases", "0", "--timeout", "3", env=SLOW_SEARCH,
    )  # fmt: skip
    assert run.results("call.answers", "search")[0]["status"] == "passed"


def test_a_call_still_progressing_at_the_limit_is_cancelled_not_counted_as_a_hang() -> None:
    target = StdioTarget(
        [sys.executable, str(DEMO_SERVER), "slow-apples"], {**os.environ, "VERIFY_SLOW": "3"}
    )
    transport = target.connect()
    try:
        session = Session(transport, "2025-11-25", 20.0)  # the server takes a moment to start
        session.open()
        exchange = session.call_tool("search", {"query": "apples"}, None, 0.5, 1.5)
        assert (exchange.timed_out, exchange.progressed, exchange.reply) == (True, True, None)
        assert transport.alive()  # not treated as hung: no restart, the server goes on
    finally:
        transport.close()


BIG_INT_SPEC = """toolgen: 1
tools:
  - name: diff
    description: Shows a diff.
    annotations: {readOnly: true, openWorld: false}
    input:
      type: object
      properties:
        repo_path: {type: string}
        context_lines: {type: integer, default: 3}
      required: [repo_path]
"""


def test_integers_beyond_64_bits_are_sent_not_a_silent_generator_stop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "diff.yaml").write_text(BIG_INT_SPEC, encoding="utf-8")
    sent: list[Any] = []
    original = Session.call_tool

    def spy(self: Session, name: str, arguments: Any, *args: Any) -> Any:
        sent.append(arguments)
        return original(self, name, arguments, *args)

    monkeypatch.setattr(Session, "call_tool", spy)
    server = f"{sys.executable} -m toolgen serve {tmp_path} --mock"
    run = verify(tmp_path, "--server", server, "--protocol", "2025-11-25", "--cases", "20")
    assert any(abs(a.get("context_lines", 0)) >= 2**63 for a in sent if isinstance(a, dict))
    (answers,) = run.results("call.answers", "diff")
    assert answers["status"] == "passed" and "generation stopped" not in answers["message"]
    assert run.exit_code == 0


def test_an_error_of_verify_itself_is_an_error_that_fails_the_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    original = Judge.valid_input
    calls = {"n": 0}

    def broken(self: Judge, *args: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 3:
            raise RuntimeError("judge broke")
        return original(self, *args)

    monkeypatch.setattr(Judge, "valid_input", broken)
    run = verify(
        DEMO_SPEC, "--server", demo_server(), "--protocol", "2025-11-25", "--only", "search"
    )
    statuses = {r["check"]: r["status"] for r in run.report["results"] if r["tool"] == "search"}
    assert statuses["call.answers"] == "error" and "passed" not in {
        statuses[c] for c in ("call.answers", "call.valid-input", "call.result-shape")
    }
    (answers,) = run.results("call.answers", "search")
    assert "RuntimeError: judge broke" in answers["message"]
    assert run.report["summary"]["error"] >= 3
    assert {t["tool"]: t["status"] for t in run.report["tools"]} == {"search": "failed"}
    assert run.exit_code == 1
