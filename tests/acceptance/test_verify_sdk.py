"""`toolgen verify` against the official SDK's `MCPServer` (mcp 2.3.0) serving the demo spec's
tools: what it finds is what docs/verify.md reports (the SDK is pinned, so the findings are stable)."""

from __future__ import annotations

import sys

from verify_support.run import DEMO_SPEC, HERE, verify

SDK_SERVER = f"{sys.executable} {HERE / 'sdk_server.py'}"

FINDINGS_2025_11_25 = {
    ("protocol.parse-error", None),  # malformed JSON dropped without a reply
    ("protocol.batch", None),  # batches dropped without a reply
    ("protocol.unknown-tool", None),  # an isError result instead of -32602
    ("listing.input-schema", "search"),  # input objects are left open
    ("listing.input-schema", "add"),
    ("listing.input-schema", "wipe"),
    ("listing.output-schema", "wipe"),  # `-> str` becomes an output schema
    ("call.invalid-input", "search"),  # undeclared properties accepted
    ("call.invalid-input", "add"),  # "1.5" accepted for a number (pydantic's lax mode)
}
FINDINGS_2026_07_28 = FINDINGS_2025_11_25 | {
    ("listing.output-schema", "add"),  # a number output stays wrapped as {"result": ...}
    ("call.structured-content", "add"),
}


def test_verify_reports_what_the_sdk_mcpserver_does() -> None:
    run = verify(DEMO_SPEC, "--server", SDK_SERVER)
    assert run.exit_code == 1
    assert run.report["revisions"] == ["2025-11-25", "2026-07-28"]
    found: dict[str, set[tuple[str, str | None]]] = {}
    for r in run.report["results"]:
        if r["status"] == "failed":
            found.setdefault(r["revision"], set()).add((r["check"], r["tool"]))
    assert found == {"2025-11-25": FINDINGS_2025_11_25, "2026-07-28": FINDINGS_2026_07_28}
    (parse,) = [r for r in run.results("protocol.parse-error") if r["revision"] == "2025-11-25"]
    assert "no reply" in parse["message"]


def _without_stdio_only(findings: set[tuple[str, str | None]]) -> set[tuple[str, str | None]]:
    return findings - {("protocol.parse-error", None), ("protocol.batch", None)}


def test_over_streamable_http_the_sdk_answers_malformed_json_and_batches() -> None:
    from http_support import asgi_server
    from verify_support.sdk_server import app

    with asgi_server(app.streamable_http_app()) as base:
        run = verify(DEMO_SPEC, "--url", f"{base}/mcp")
    assert run.exit_code == 1
    found: dict[str, set[tuple[str, str | None]]] = {}
    for r in run.report["results"]:
        if r["status"] == "failed":
            found.setdefault(r["revision"], set()).add((r["check"], r["tool"]))
    assert found == {
        "2025-11-25": _without_stdio_only(FINDINGS_2025_11_25),
        "2026-07-28": _without_stdio_only(FINDINGS_2026_07_28),
    }
    for check in ("protocol.parse-error", "protocol.batch"):
        assert {r["status"] for r in run.results(check)} == {"passed"}
