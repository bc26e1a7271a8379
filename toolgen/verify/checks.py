"""The checks `toolgen verify` runs: stable ids, and the rule each one enforces.

Ids are `group.name`, never reused or renamed: baselines and CI dashboards
refer to them. Every check names its rule: where it is written (an MCP
revision's section, JSON-RPC 2.0, the spec set under test, the fixtures file)
and at which level (`must`, `should`, `may`, as RFC 2119 words it). A rule
stated without a keyword (MCP lists unknown tools among protocol errors, no
MUST) is a `should`; what the spec set says is a `must` for schemas and tools,
a `may` for titles and descriptions; what verify infers (stateful sequences, the
state other tools' calls leave) is a `should`. `docs/verify-checks.md` is generated from this registry (a test
fails when it drifts).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from toolgen.spec.protocol import LEGACY_REVISIONS, MODERN_REVISIONS, SUPPORTED_REVISIONS

MUST: Final = "must"
SHOULD: Final = "should"
MAY: Final = "may"
LEVELS: Final = (MUST, SHOULD, MAY)
"""Strictest first: `--fail-on should` fails on `must` and `should` failures."""

MCP: Final = "MCP"
JSON_RPC: Final = "JSON-RPC 2.0"
SPEC_SET: Final = "spec set"
"""The spec set under test: the contract the server is held to."""
INFERRED: Final = "inferred from the schemas"
"""Expectations verify draws from the spec set's schemas (stateful sequences)."""
ACROSS_CALLS: Final = "inferred across calls"
"""Expectations verify draws from what calls of several tools did."""
FIXTURES: Final = "fixtures file"
BASELINE: Final = "baseline"
LIMITS: Final = "verify's limits"
"""What verify reads from a server at most (`toolgen.limits`)."""

_MCP_URL: Final = "https://modelcontextprotocol.io/specification/{revision}/{section}"
_JSON_RPC_URL: Final = "https://www.jsonrpc.org/specification#{section}"
STRUCTURED: Final = tuple(r for r in SUPPORTED_REVISIONS if r >= "2025-06-18")
"""The revisions with `outputSchema` and `structuredContent` (and a schema reference page)."""
_SCHEMA_IN_TS: Final = tuple(r for r in SUPPORTED_REVISIONS if r not in STRUCTURED)
"""The revisions whose types are only in `schema.ts`: their rules cite the tools page."""


@dataclass(frozen=True, slots=True)
class Rule:
    """One requirement: its level, where it is written, and what it says (in our words)."""

    level: str
    source: str
    """`MCP`, `JSON-RPC 2.0`, `spec set`, `inferred from the schemas`, `inferred across
    calls`, `fixtures file`, `baseline` or `verify's limits`."""
    section: str
    """MCP: the page and anchor below a revision (`server/tools#output-schema`); JSON-RPC:
    the anchor of its specification; else what part of the file."""
    text: str
    revisions: tuple[str, ...] = SUPPORTED_REVISIONS
    """The MCP revisions this rule applies to."""
    cited: str | None = None
    """The MCP revision that states the rule, when not each revision itself (a change)."""

    def revision_for(self, revision: str | None) -> str | None:
        """The MCP revision to cite: the stating one, the result's own, else the newest."""
        if self.source != MCP:
            return None
        if self.cited is not None:
            return self.cited
        return revision if revision in self.revisions else self.revisions[-1]

    def url(self, revision: str | None = None) -> str | None:
        if self.source == MCP:
            cited = self.revision_for(revision)
            return _MCP_URL.format(revision=cited, section=self.section)
        if self.source == JSON_RPC:
            return _JSON_RPC_URL.format(section=self.section)
        return None

    def where(self, revision: str | None = None) -> str:
        """`MCP 2025-11-25 server/tools#output-schema`, `spec set: tools[].title`, ..."""
        if self.source == MCP:
            return f"MCP {self.revision_for(revision)} {self.section}"
        if self.source == JSON_RPC:
            return f"{JSON_RPC} #{self.section}"
        return f"{self.source}: {self.section}"

    def cite(self, revision: str | None = None) -> str:
        """`MUST, MCP 2025-11-25 server/tools#output-schema` and the like."""
        return f"{self.level.upper()}, {self.where(revision)}"


@dataclass(frozen=True, slots=True)
class Check:
    id: str
    summary: str
    doc: str
    rules: tuple[Rule, ...]
    """One per range of revisions (the first that covers a result's revision applies)."""

    def rule(self, revision: str | None = None) -> Rule:
        """The rule a result at `revision` is judged by (None: the first)."""
        for rule in self.rules:
            if revision is None or revision in rule.revisions:
                return rule
        return self.rules[0]


def _mcp(
    level: str,
    section: str,
    text: str,
    revisions: tuple[str, ...] = SUPPORTED_REVISIONS,
    cited: str | None = None,
) -> Rule:
    return Rule(level, MCP, section, text, revisions, cited)


_REPLY: Final = Rule(
    MUST,
    JSON_RPC,
    "response_object",
    "Every call gets a response (MUST; MCP messages follow JSON-RPC 2.0).",
)
_CONTRACT: Final = "tools (the tool as the spec set describes it)"

CHECKS: Final = (
    # -- protocol -------------------------------------------------------------------------
    Check(
        "protocol.handshake",
        "The server opens a session at the revision asked for.",
        "Legacy revisions: `initialize` is answered with a result naming a protocol version, "
        "`capabilities.tools` and `serverInfo`, valid against the revision's official schema "
        "where one is vendored; a server that supports the requested revision answers with it. "
        "2026-07-28: `server/discover` is answered with a valid `DiscoverResult` listing the "
        "revision among its supported versions.",
        (
            _mcp(
                MUST,
                "basic/lifecycle#initialization",
                "`initialize` is answered with the server's capabilities and information, at "
                "the requested version when the server supports it (MUST).",
                LEGACY_REVISIONS,
            ),
            _mcp(
                MUST,
                "basic/versioning#protocol-version-negotiation",
                "A server implements `server/discover` (MUST).",
                MODERN_REVISIONS,
            ),
        ),
    ),
    Check(
        "protocol.version-negotiation",
        "An unknown protocol version is negotiated, not crashed on.",
        "`initialize` asking for `1999-01-01` is answered with a version the server supports. "
        "A 2026-07-28 request naming `1999-01-01` in `_meta` gets error -32022 "
        "(`UnsupportedProtocolVersion`).",
        (
            _mcp(
                MUST,
                "basic/lifecycle#version-negotiation",
                "Asked for a version it does not support, the server answers with one it does "
                "(MUST).",
                LEGACY_REVISIONS,
            ),
            _mcp(
                MUST,
                "basic/versioning#protocol-version-negotiation",
                "A request naming a version the server does not implement gets an "
                "`UnsupportedProtocolVersionError`, -32022 (MUST).",
                MODERN_REVISIONS,
            ),
        ),
    ),
    Check(
        "protocol.ping",
        "`ping` is answered with an empty result (legacy revisions).",
        "Clients use `ping` to tell a live connection from a dead one.",
        (
            _mcp(
                MUST,
                "basic/utilities/ping#behavior-requirements",
                "A `ping` gets an empty result, promptly (MUST).",
                LEGACY_REVISIONS,
            ),
        ),
    ),
    Check(
        "protocol.notification-unanswered",
        "Notifications never get a response.",
        "The probe sends an unknown notification and `notifications/cancelled` for a request "
        "that does not exist, then a request: anything answered before that request's reply is "
        "a failure (HTTP: a notification must get 202 with no body).",
        (
            Rule(
                MUST,
                JSON_RPC,
                "notification",
                "A notification is never answered (MUST NOT, in JSON-RPC and in MCP).",
            ),
        ),
    ),
    Check(
        "protocol.parse-error",
        "Malformed JSON is answered with -32700 and `id: null`.",
        "A server that drops malformed input without a reply leaves the client waiting "
        "forever. Over HTTP a 4xx status answers too; a body, if any, must be the -32700 error.",
        (
            Rule(
                MUST,
                JSON_RPC,
                "response_object",
                "Every call gets a response; when its id cannot be read (a parse error, -32700) "
                "the response's id is null (MUST).",
            ),
        ),
    ),
    Check(
        "protocol.batch",
        "Batches are answered: accepted where the revision requires them, refused with an "
        "error where it removed them.",
        "A 2025-03-26 session MUST accept batches: the reply is an array answering each "
        "request. From 2025-06-18 MCP has no batches: a batch should be answered with an error "
        "(or HTTP 4xx), not run and not left without a reply (a client waiting for one hangs). "
        "2024-11-05 says nothing beyond JSON-RPC: either answer passes, silence fails.",
        (
            Rule(
                SHOULD,
                JSON_RPC,
                "batch",
                "A batch is answered with an array of the responses (a lowercase should in "
                "JSON-RPC 2.0).",
                ("2024-11-05",),
            ),
            _mcp(
                MUST,
                "basic#batching",
                "Servers take JSON-RPC batches (MUST).",
                ("2025-03-26",),
            ),
            _mcp(
                SHOULD,
                "changelog",
                "Batches left MCP (no keyword): a batch is not an MCP message, and an error "
                "says so.",
                tuple(r for r in SUPPORTED_REVISIONS if r >= "2025-06-18"),
                cited="2025-06-18",
            ),
        ),
    ),
    Check(
        "protocol.unknown-method",
        "An unknown method is answered with -32601.",
        "Method not found is how clients learn what a server does not implement.",
        (
            Rule(
                MUST,
                JSON_RPC,
                "error_object",
                "Every call gets a response; an unknown method is error -32601, the code "
                "JSON-RPC reserves for it (MUST).",
            ),
        ),
    ),
    Check(
        "protocol.unknown-tool",
        "`tools/call` of a tool that does not exist is answered with -32602.",
        "An `isError` result would tell the model to retry a tool that is not there.",
        (
            _mcp(
                SHOULD,
                "server/tools#error-handling",
                "An unknown tool is a protocol error, -32602 (stated without a keyword).",
            ),
        ),
    ),
    Check(
        "protocol.stdout-clean",
        "Over stdio, every line on stdout is a JSON-RPC message.",
        "A log line on stdout corrupts the stream for every client; logs belong on stderr.",
        (
            _mcp(
                MUST,
                "basic/transports#stdio",
                "Nothing but MCP messages goes to stdout (MUST NOT).",
                LEGACY_REVISIONS,
            ),
            _mcp(
                MUST,
                "basic/transports/stdio",
                "Nothing but MCP messages goes to stdout (MUST NOT).",
                MODERN_REVISIONS,
            ),
        ),
    ),
    Check(
        "protocol.survives",
        "The server is still alive and answering after the probes and after the calls.",
        "A probe or call that kills the server kills every client's session. Over stdio a probe "
        "after which the server's process has exited is named, and the server is restarted "
        "for the next probe, so every probe is judged on a live server. Any reply, an error "
        "included, counts as answering.",
        (_REPLY,),
    ),
    Check(
        "protocol.limits",
        "Everything the server sends is within what verify reads.",
        "A message (a stdio line, an HTTP body, one server-sent event), and everything that "
        "comes while verify waits for one answer (notifications and the answer together), is "
        "read up to `TOOLGEN_MAX_MESSAGE` bytes (64 MiB by default); a message up to 1024 "
        "levels of nesting; a "
        "`tools/list` up to 1000 pages within ten timeouts, its `nextCursor` never "
        "repeating. What goes past a limit is dropped unread, never held whole: the exchange waiting for it fails "
        "too, naming the limit, and this check lists what was dropped. Every client has "
        "such limits; raise the message size with the environment variable when a server "
        "really sends more.",
        (
            Rule(
                MUST,
                LIMITS,
                "toolgen.limits",
                "Messages, their nesting and listings stay within verify's limits.",
            ),
        ),
    ),
    # -- listing --------------------------------------------------------------------------
    Check(
        "listing.result-shape",
        "`tools/list` is answered with a result valid against the revision's official schema.",
        "Clients parse the listing with the official types; an invalid one loses every tool.",
        (
            _mcp(
                MUST,
                "server/tools#listing-tools",
                "The result is a `ListToolsResult` of the revision's schema.",
                _SCHEMA_IN_TS,
            ),
            _mcp(
                MUST,
                "schema#listtoolsresult",
                "The result is a `ListToolsResult` of the revision's schema.",
                STRUCTURED,
            ),
        ),
    ),
    Check(
        "listing.tool-missing",
        "Every tool of the spec is listed.",
        "A tool in the contract that the server does not offer.",
        (Rule(MUST, SPEC_SET, _CONTRACT, "Every tool the spec set describes is listed."),),
    ),
    Check(
        "listing.tool-extra",
        "The server lists no tool the spec does not describe.",
        "An undescribed tool is outside the contract (and outside review).",
        (Rule(MUST, SPEC_SET, _CONTRACT, "The server lists only tools the spec set describes."),),
    ),
    Check(
        "listing.tool-duplicate",
        "The server lists each tool name once.",
        "Clients pick one entry of a name listed twice, each its own: schemas and hints "
        "(a destructive tool listed again as read-only) become a matter of luck. verify and "
        "`toolgen call` treat such a tool as destructive when any entry is.",
        (Rule(MUST, SPEC_SET, _CONTRACT, "The server lists each tool of the spec set once."),),
    ),
    Check(
        "listing.annotations",
        "The behaviour hints clients see are the spec's.",
        "Compared as clients read them (MCP defaults filled in): a listing that omits "
        "`readOnlyHint: true` makes a read-only tool look like a writing one.",
        (Rule(MUST, SPEC_SET, "tools[].annotations", "The listed hints are the spec set's."),),
    ),
    Check(
        "listing.input-schema",
        "The listed input schema accepts the same values as the spec's.",
        "Compared by meaning: `$ref` vs inline, `$defs` names, key order, annotations and a "
        "declared `$schema` dialect are not drift; a removed `maximum` is.",
        (Rule(MUST, SPEC_SET, "tools[].input", "The listed inputSchema means the spec set's."),),
    ),
    Check(
        "listing.output-schema",
        "The listed output schema accepts the same values as the spec's.",
        "As for inputs. Before 2026-07-28 a non-object output is expected wrapped as "
        "`{result: ...}`. A revision without output schemas (before 2025-06-18) is compared "
        "only when the server lists one anyway.",
        (Rule(MUST, SPEC_SET, "tools[].output", "The listed outputSchema means the spec set's."),),
    ),
    Check(
        "listing.title",
        "The listed title is the spec's.",
        "People choose tools by title. A revision without `title` is compared only when the "
        "server lists one anyway.",
        (Rule(MAY, SPEC_SET, "tools[].title", "The listed title is the spec set's."),),
    ),
    Check(
        "listing.description",
        "The listed description is the spec's.",
        "Models choose tools by description.",
        (Rule(MAY, SPEC_SET, "tools[].description", "The listed description is the spec set's."),),
    ),
    # -- calls ----------------------------------------------------------------------------
    Check(
        "call.answers",
        "Every call is answered: no crash, no hang, no silence.",
        "Inputs: fixtures, the spec's examples, boundary values (each bound, each enum value, "
        "only the required properties, every property), `--cases` inputs generated from the "
        "input schema (hypothesis-jsonschema, seeded with fixture and example values), shrunk "
        "to the smallest failing one, and invalid inputs. A call that reports progress "
        "(`notifications/progress`) gets more time, up to six times `--timeout`; one still "
        "progressing then is cancelled, not failed. A tool whose call got no answer in time "
        "is not called again, and no call starts once the tool's share of `--budget` is "
        "spent.",
        (_REPLY,),
    ),
    Check(
        "call.valid-input",
        "Valid input gets a result, not a JSON-RPC error.",
        "What goes wrong inside a tool (not found, not allowed, an API failure) is an `isError` "
        "result the model can act on.",
        (
            _mcp(
                SHOULD,
                "server/tools#error-handling",
                "What fails inside a tool (an API, a lookup, a business rule, a validation) is "
                "a result with `isError: true` (stated without a keyword).",
            ),
        ),
    ),
    Check(
        "call.result-shape",
        "Every call result is a valid `CallToolResult` of the revision.",
        "Validated against the revision's official schema where one is vendored, else: "
        "`content` is a list of content blocks and `isError` a boolean.",
        (
            _mcp(
                MUST,
                "server/tools#calling-tools",
                "The result is a `CallToolResult`.",
                _SCHEMA_IN_TS,
            ),
            _mcp(MUST, "schema#calltoolresult", "The result is a `CallToolResult`.", STRUCTURED),
        ),
    ),
    Check(
        "call.structured-content",
        "A successful result of a tool with an output schema carries valid `structuredContent`.",
        "Before 2026-07-28 a non-object output is expected as `{result: ...}`.",
        (
            _mcp(
                MUST,
                "server/tools#output-schema",
                "With an output schema, every structured result conforms to it (MUST).",
                STRUCTURED,
            ),
        ),
    ),
    Check(
        "call.text-fallback",
        "A result with `structuredContent` also carries it as JSON in a text block.",
        "Clients without structured-output support read only `content`.",
        (
            _mcp(
                SHOULD,
                "server/tools#structured-content",
                "A structured result comes with its serialized JSON in a text block too (SHOULD).",
                STRUCTURED,
            ),
        ),
    ),
    Check(
        "call.invalid-input",
        "Invalid input (one constraint broken at a time) is refused, never run.",
        "Refused means an `isError` result or a JSON-RPC error; a success is a failure.",
        (
            _mcp(
                MUST,
                "server/tools#security-considerations",
                "Tool inputs are validated (MUST).",
            ),
        ),
    ),
    Check(
        "call.invalid-input-error",
        "Invalid input is refused the way the revision says.",
        "From 2025-11-25 input validation errors are tool execution errors (`isError`), so the "
        "model can correct itself; earlier revisions also allow error -32602.",
        (
            _mcp(
                SHOULD,
                "server/tools#error-handling",
                "Invalid arguments are tool execution errors (stated without a keyword); "
                "before 2025-11-25 error -32602 too.",
            ),
        ),
    ),
    Check(
        "call.task-required",
        "A tool that requires tasks refuses a plain call with -32601.",
        "Checked when the server declares `tasks.requests.tools.call` and lists the tool with "
        "`execution.taskSupport: required`. verify makes plain calls only: the other call checks "
        "of such a tool are `not-exercised`.",
        (
            _mcp(
                MUST,
                "basic/utilities/tasks#tool-level-negotiation",
                "A tool whose `taskSupport` is `required`, called without a task, gets error "
                "-32601 (MUST).",
                ("2025-11-25",),
            ),
        ),
    ),
    Check(
        "call.state-intact",
        "A tool's calls leave the tools that passed before working.",
        "After each successful call of a tool that may write (not read-only), verify calls "
        "again up to three read-only, closed-world tools that passed before, each with the "
        "input that first succeeded. When every one of them fails now, this call is reported, "
        "with its input, as suspected of damaging what the server keeps for all tools (a file "
        "or a database left unreadable); the tools whose calls all fail after it are not "
        "told to get real values from a fixtures file. Checked until the first suspect.",
        (
            Rule(
                SHOULD,
                ACROSS_CALLS,
                "calls -> the tools that passed before",
                "A valid call does not break the tools that worked before it.",
            ),
        ),
    ),
    # -- sequences ------------------------------------------------------------------------
    Check(
        "sequence.read-back",
        "An item a create (or update) step made can be read back.",
        "Inferred: the create tool's output names a value (same def, or same property name "
        "and type) that the read tool requires as input; the read must not fail.",
        (
            Rule(
                SHOULD,
                INFERRED,
                "create -> read",
                "A created item can be read with the identifier its creation returned.",
            ),
        ),
    ),
    Check(
        "sequence.values",
        "A read shows the values the item was created (or updated) with.",
        "Compared where the read's output and the writing tool's input or output name the same "
        "field (same name, same def or type); lists are compared as sets.",
        (
            Rule(
                SHOULD,
                INFERRED,
                "create -> read",
                "A read returns what was written, for fields the schemas say are the same.",
            ),
        ),
    ),
    Check(
        "sequence.deleted",
        "An item a delete step removed can no longer be read.",
        "The read after the delete must fail (an `isError` result or a JSON-RPC error).",
        (
            Rule(
                SHOULD,
                INFERRED,
                "delete -> read",
                "A deleted item is gone: reading it fails.",
            ),
        ),
    ),
    Check(
        "sequence.expected",
        "Each step of a pinned sequence gives what the fixtures file expects.",
        "A step without `expect` must succeed; `expect: {error: true}` must fail; `expect: "
        "{output: ...}` is matched against `structuredContent` (objects by their listed keys).",
        (Rule(MUST, FIXTURES, "sequences[].steps[].expect", "The step's result is as expected."),),
    ),
    # -- run ------------------------------------------------------------------------------
    Check(
        "baseline.unused",
        "Every baseline entry still matches a failure.",
        "An expected failure that no longer fails was fixed: remove it from the baseline so it "
        "cannot come back unnoticed.",
        (Rule(MUST, BASELINE, "expected-failures", "Every entry matches a failure."),),
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
        "Each check enforces one rule per range of revisions, at a level: by default only a",
        "failed `must` fails the run (`--fail-on should` or `--fail-on may` is stricter).",
        "",
        "| id | level | requires |",
        "| --- | --- | --- |",
    ]
    for c in CHECKS:
        levels = "/".join(dict.fromkeys(rule.level for rule in c.rules))
        lines.append(f"| [`{c.id}`](#{_anchor(c.id)}) | {levels} | {c.summary} |")
    for c in CHECKS:
        lines += ["", f"## {c.id}", "", c.summary, ""]
        for rule in c.rules:
            lines.append(f"- {_rule_line(rule)}")
        lines += ["", c.doc]
    return "\n".join(lines) + "\n"


def _rule_line(rule: Rule) -> str:
    scope = ""
    if rule.revisions != SUPPORTED_REVISIONS:
        first, last = rule.revisions[0], rule.revisions[-1]
        scope = f" ({first}" + (f" to {last})" if last != first else ")")
    where = f"[{rule.where()}]({rule.url()})" if rule.url() else rule.where()
    return f"**{rule.level}**{scope}: {where}. {rule.text}"


def _anchor(check_id: str) -> str:
    return check_id.replace(".", "")
