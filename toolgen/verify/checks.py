"""The checks `toolgen verify` runs: stable ids, what each requires, and why.

Ids are `group.name`, never reused or renamed: baselines and CI dashboards
refer to them. `docs/verify-checks.md` is generated from this registry (a
test fails when it drifts). A `warning` check that fails is reported but does
not fail the run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True, slots=True)
class Check:
    id: str
    severity: str
    """`error` (a failure fails the run) or `warning`."""
    summary: str
    doc: str


CHECKS: Final = (
    # -- protocol -------------------------------------------------------------------------
    Check(
        "protocol.handshake",
        "error",
        "The server opens a session at the revision asked for.",
        "Legacy revisions: `initialize` is answered with a result naming a protocol version, "
        "`capabilities.tools` and `serverInfo`, valid against the revision's official schema "
        "where one is vendored; a server that supports the requested revision answers with it. "
        "2026-07-28: `server/discover` is answered with a valid `DiscoverResult` listing the "
        "revision among its supported versions.",
    ),
    Check(
        "protocol.version-negotiation",
        "error",
        "An unknown protocol version is negotiated, not crashed on.",
        "`initialize` asking for `1999-01-01` is answered with a version the server supports "
        "(MCP: the server MUST answer with another version it supports). A 2026-07-28 request "
        "naming `1999-01-01` in `_meta` gets error -32022 (`UnsupportedProtocolVersion`).",
    ),
    Check(
        "protocol.ping",
        "error",
        "`ping` is answered with an empty result (legacy revisions).",
        "Clients use `ping` to tell a live connection from a dead one.",
    ),
    Check(
        "protocol.notification-unanswered",
        "error",
        "Notifications never get a response.",
        "JSON-RPC forbids answering a message without `id`. The probe sends an unknown "
        "notification and `notifications/cancelled` for a request that does not exist, then a "
        "request: anything answered before that request's reply is a failure (HTTP: a "
        "notification must get 202 with no body).",
    ),
    Check(
        "protocol.parse-error",
        "error",
        "Malformed JSON is answered with -32700 and `id: null`.",
        "A server that drops malformed input without a reply leaves the client waiting "
        "forever. Over HTTP a 4xx status answers too; a body, if any, must be the -32700 error.",
    ),
    Check(
        "protocol.batch",
        "error",
        "Batches are rejected where the revision forbids them, accepted where it requires them.",
        "JSON-RPC batches (arrays) were removed in 2025-06-18: the server must answer a batch "
        "with an error (or HTTP 4xx), not run it and not ignore it. A 2025-03-26 session MUST "
        "accept them: the reply is an array answering each request.",
    ),
    Check(
        "protocol.unknown-method",
        "error",
        "An unknown method is answered with -32601.",
        "Method not found is how clients learn what a server does not implement.",
    ),
    Check(
        "protocol.unknown-tool",
        "error",
        "`tools/call` of a tool that does not exist is answered with -32602.",
        "MCP lists unknown tools among protocol errors; an `isError` result would tell the "
        "model to retry a tool that is not there.",
    ),
    Check(
        "protocol.stdout-clean",
        "error",
        "Over stdio, every line on stdout is a JSON-RPC message.",
        "A log line on stdout corrupts the stream for every client; logs belong on stderr.",
    ),
    Check(
        "protocol.survives",
        "error",
        "The server is still alive and answering after the probes and after the calls.",
        "A probe or call that kills the server kills every client's session. Over stdio a probe "
        "after which the server's process has exited is named, and the server is restarted "
        "for the next probe, so every probe is judged on a live server. Any reply, an error "
        "included, counts as answering.",
    ),
    # -- listing --------------------------------------------------------------------------
    Check(
        "listing.result-shape",
        "error",
        "`tools/list` is answered with a result valid against the revision's official schema.",
        "Clients parse the listing with the official types; an invalid one loses every tool.",
    ),
    Check(
        "listing.tool-missing",
        "error",
        "Every tool of the spec is listed.",
        "A tool in the contract that the server does not offer.",
    ),
    Check(
        "listing.tool-extra",
        "error",
        "The server lists no tool the spec does not describe.",
        "An undescribed tool is outside the contract (and outside review).",
    ),
    Check(
        "listing.annotations",
        "error",
        "The behaviour hints clients see are the spec's.",
        "Compared as clients read them (MCP defaults filled in): a listing that omits "
        "`readOnlyHint: true` makes a read-only tool look like a writing one.",
    ),
    Check(
        "listing.input-schema",
        "error",
        "The listed input schema accepts the same values as the spec's.",
        "Compared by meaning: `$ref` vs inline, `$defs` names, key order, annotations and a "
        "declared `$schema` dialect are not drift; a removed `maximum` is.",
    ),
    Check(
        "listing.output-schema",
        "error",
        "The listed output schema accepts the same values as the spec's.",
        "As for inputs. Before 2026-07-28 a non-object output is expected wrapped as "
        "`{result: ...}`.",
    ),
    Check(
        "listing.title",
        "warning",
        "The listed title is the spec's.",
        "People choose tools by title; a difference is reported, not failed.",
    ),
    Check(
        "listing.description",
        "warning",
        "The listed description is the spec's.",
        "Models choose tools by description; a difference is reported, not failed.",
    ),
    # -- calls ----------------------------------------------------------------------------
    Check(
        "call.answers",
        "error",
        "Valid input is answered with a result: no protocol error, no crash, no hang.",
        "Inputs: the spec's examples, boundary values (each bound, each enum value, only the "
        "required properties, every property) and `--cases` inputs generated from the input "
        "schema (hypothesis-jsonschema), shrunk to the smallest failing one. A tool may answer "
        "valid input with `isError` (not found, not allowed); it may not crash.",
    ),
    Check(
        "call.result-shape",
        "error",
        "Every call result is a valid `CallToolResult` of the revision.",
        "Validated against the revision's official schema where one is vendored, else: "
        "`content` is a list of content blocks and `isError` a boolean.",
    ),
    Check(
        "call.structured-content",
        "error",
        "A successful result of a tool with an output schema carries valid `structuredContent`.",
        "MCP: a server that declares an output schema MUST return conforming structured results. "
        "Before 2026-07-28 a non-object output is expected as `{result: ...}`.",
    ),
    Check(
        "call.text-fallback",
        "error",
        "A result with `structuredContent` also carries it as JSON in a text block.",
        "Clients without structured-output support read only `content`.",
    ),
    Check(
        "call.invalid-input",
        "error",
        "Invalid input (one constraint broken at a time) is answered with an `isError` result.",
        "From 2025-11-25 input validation errors are tool execution errors, so the model can "
        "correct itself; earlier revisions also allow error -32602. Never a success, another "
        "protocol error, a crash or a hang.",
    ),
    # -- run ------------------------------------------------------------------------------
    Check(
        "baseline.unused",
        "error",
        "Every baseline entry still matches a failure.",
        "An expected failure that no longer fails was fixed: remove it from the baseline so it "
        "cannot come back unnoticed.",
    ),
)
"""Every check, in report order."""

BY_ID: Final = {check.id: check for check in CHECKS}


def check(check_id: str) -> Check:
    """The check with this id (KeyError for an unknown one)."""
    return BY_ID[check_id]


def checks_markdown() -> str:
    """`docs/verify-checks.md`."""
    lines = [
        "# `toolgen verify` checks",
        "",
        "Generated from `toolgen/verify/checks.py`; ids are stable and never reused.",
        "A failed `warning` check is reported but does not fail the run.",
        "",
        "| id | severity | requires |",
        "| --- | --- | --- |",
    ]
    lines += [f"| [`{c.id}`](#{_anchor(c.id)}) | {c.severity} | {c.summary} |" for c in CHECKS]
    for c in CHECKS:
        lines += ["", f"## {c.id}", "", f"*{c.severity}*. {c.summary}", "", c.doc]
    return "\n".join(lines) + "\n"


def _anchor(check_id: str) -> str:
    return check_id.replace(".", "")
