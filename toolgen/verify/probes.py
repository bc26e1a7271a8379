"""Protocol probes: what every MCP server must do, whatever its tools.

Each probe sends one thing (often bytes no correct client sends) and judges
the answer. Over stdio a silent server is detected without waiting out the
timeout: the probe is followed by a request, and whatever answered the probe
arrives before that request's reply (plus a short grace for late answers).
Over HTTP each POST carries its own answer.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import orjson

from toolgen.spec.protocol import SUPPORTED_REVISIONS
from toolgen.verify.official import official_problem
from toolgen.verify.results import Result, failed, passed
from toolgen.verify.session import Session, request_message, result_of
from toolgen.verify.transport import Exchange, any_response, dumps

PARSE_ERROR: Final = -32700
INVALID_REQUEST: Final = -32600
METHOD_NOT_FOUND: Final = -32601
INVALID_PARAMS: Final = -32602
UNSUPPORTED_VERSION: Final = -32022
GRACE: Final = 0.05
"""Seconds to wait for a late answer to a stdio probe after the follow-up's reply."""
UNKNOWN_VERSION: Final = "1999-01-01"
NO_SUCH_TOOL: Final = "toolgen-verify-no-such-tool"
UNKNOWN_METHOD: Final = "toolgen-verify/no-such-method"
BATCH_REVISION: Final = "2025-03-26"
"""The one revision whose sessions MUST accept JSON-RPC batches."""


def error_code(message: Any) -> Any:
    """The `error.code` of a response (None when it is not an error response)."""
    if isinstance(message, dict) and isinstance(message.get("error"), dict):
        return message["error"].get("code")
    return None


def show(value: Any, limit: int = 200) -> str:
    text = dumps(value).decode() if value is not None else "nothing"
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass(slots=True)
class ProbeAnswer:
    """The responses a probe got, the HTTP status, and whether the server still answers."""

    responses: list[Any] = field(default_factory=list)
    status: int | None = None
    follow_up: Exchange | None = None

    @property
    def http(self) -> bool:
        return self.status is not None


def probe(session: Session, payload: bytes, method: str | None) -> ProbeAnswer:
    """Send raw `payload` and collect what answers it (see the module docs)."""
    if session.transport.kind == "http":
        exchange = session.send_raw(payload, method, session.timeout)
        return ProbeAnswer(list(exchange.messages), exchange.status)
    session.transport.exchange(payload, None, session.timeout, session.headers(method))
    follow = session.alive_check()
    early = [m for m in follow.messages if m is not follow.reply]
    late = [m for m in session.transport.drain(GRACE) if any_response(m)]
    return ProbeAnswer(early + late, None, follow)


class Probes:
    """The protocol probes for one session (replaceable: `session` is read by each probe);
    `steps()` are the probes, each giving one result."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.revision = session.revision

    def _result(self, check: str, problem: str | None, ok: str) -> Result:
        if problem is None:
            return passed(check, ok, revision=self.revision)
        return failed(check, problem, revision=self.revision)

    def steps(self) -> list[Callable[[], Result]]:
        """The probes, in the order they run; each gives one result."""
        first = self.modern_negotiation if self.session.modern else self.ping
        return [
            first,
            self.notifications,
            self.parse_error,
            self.batch,
            self.unknown_method,
            self.unknown_tool,
        ]

    def ping(self) -> Result:
        exchange = self.session.request("ping", {})
        result = result_of(exchange)
        problem = None if result is not None else f"`ping` got {describe(exchange)}"
        return self._result("protocol.ping", problem, "ping answered")

    def modern_negotiation(self) -> Result:
        session = self.session
        request_id = session.next_id()
        params = {
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": UNKNOWN_VERSION,
                "io.modelcontextprotocol/clientCapabilities": {},
            }
        }
        message = request_message(request_id, "server/discover", params)
        headers = session.headers("server/discover")
        headers["MCP-Protocol-Version"] = UNKNOWN_VERSION
        exchange = session.transport.exchange(
            orjson.dumps(message), any_response, session.timeout, headers
        )
        code = error_code(exchange.reply)
        problem = None
        if code != UNSUPPORTED_VERSION:
            problem = (
                f"a request naming protocol version {UNKNOWN_VERSION} got {describe(exchange)}; "
                f"expected error {UNSUPPORTED_VERSION} (UnsupportedProtocolVersion)"
            )
        return self._result("protocol.version-negotiation", problem, "unknown version refused")

    def notifications(self) -> Result:
        session = self.session
        sent: list[tuple[str, dict[str, Any]]] = [
            ("notifications/toolgen-verify/probe", {}),
            ("notifications/cancelled", {"requestId": 987654321, "reason": "toolgen verify probe"}),
        ]
        answers: list[Any] = []
        for method, params in sent:
            message = {"jsonrpc": "2.0", "method": method, "params": session.params(params)}
            found = probe(session, orjson.dumps(message), method)
            if found.http:
                answers += [m for m in found.responses if _answers_notification(m, found.status)]
            else:
                answers += found.responses
        problem = None
        if answers:
            problem = f"a notification was answered: {show(answers[0])}"
        return self._result("protocol.notification-unanswered", problem, "notifications unanswered")

    def parse_error(self) -> Result:
        payload = b'{"jsonrpc": "2.0", "id": 1, "method": "ping", '
        found = probe(self.session, payload, None)
        errors = [m for m in found.responses if error_code(m) is not None]
        if found.http and 400 <= (found.status or 0) < 500 and not found.responses:
            return self._result("protocol.parse-error", None, f"HTTP {found.status}")
        problem = None
        if not found.responses:
            problem = _silence(found, "malformed JSON")
        elif not errors or error_code(errors[0]) != PARSE_ERROR:
            problem = f"malformed JSON got {show(found.responses[0])}; expected error {PARSE_ERROR}"
        elif "id" not in errors[0]:
            problem = 'the parse error has no "id"; JSON-RPC requires "id": null'
        elif errors[0]["id"] is not None:
            problem = f"the parse error carries id {show(errors[0]['id'])}; it must be null"
        return self._result("protocol.parse-error", problem, "parse error -32700, id null")

    def batch(self) -> Result:
        session = self.session
        method = "server/discover" if session.modern else "ping"
        ids = (session.next_id(), session.next_id())
        batch = [request_message(i, method, session.params({})) for i in ids]
        found = probe(session, orjson.dumps(batch), method)
        lists = [m for m in found.responses if isinstance(m, list)]
        answered_ids = {m.get("id") for m in found.responses if isinstance(m, dict)} | {
            m.get("id") for group in lists for m in group if isinstance(m, dict)
        }
        ran = bool(lists) or any(i in answered_ids for i in ids)
        problem: str | None = None
        if self.revision == BATCH_REVISION:
            if not lists or not all(i in answered_ids for i in ids):
                got = (
                    f"a batch got {show(found.responses[0])}"
                    if found.responses
                    else _silence(found, "a batch")
                )
                problem = f"{got}; 2025-03-26 requires an array answering each request"
            return self._result("protocol.batch", problem, "batch accepted (2025-03-26)")
        if ran and self.revision < BATCH_REVISION:
            pass  # 2024-11-05 is plain JSON-RPC: running a batch answers it too
        elif ran:
            problem = (
                f"a batch was accepted ({show(found.responses[0])}); batches are not part of "
                f"MCP {self.revision}: reject them with an error"
            )
        elif found.http and 400 <= (found.status or 0) < 500:
            pass
        elif not found.responses:
            problem = _silence(found, "a batch")
        elif error_code(found.responses[0]) is None:
            problem = f"a batch got {show(found.responses[0])}; expected an error"
        return self._result("protocol.batch", problem, "batch rejected")

    def unknown_method(self) -> Result:
        exchange = self.session.request(UNKNOWN_METHOD, {})
        problem = None
        if error_code(exchange.reply) != METHOD_NOT_FOUND:
            problem = f"unknown method `{UNKNOWN_METHOD}` got {describe(exchange)}; expected error {METHOD_NOT_FOUND}"
        return self._result("protocol.unknown-method", problem, "-32601")

    def unknown_tool(self) -> Result:
        name = unlisted_name(self.session.list_tools()[0])
        exchange = self.session.call_tool(name, {})
        result = result_of(exchange)
        problem = None
        if result is not None and result.get("isError") is True:
            problem = (
                f"calling the unknown tool `{name}` got an isError result; MCP answers "
                f"unknown tools with error {INVALID_PARAMS}"
            )
        elif error_code(exchange.reply) != INVALID_PARAMS:
            problem = f"calling the unknown tool `{name}` got {describe(exchange)}; expected error {INVALID_PARAMS}"
        return self._result("protocol.unknown-tool", problem, "-32602")


def unlisted_name(listed: Sequence[Any]) -> str:
    """`NO_SUCH_TOOL`, with dashes added until no entry of `listed` has that name: the
    probe never calls a tool the server has (it may be destructive)."""
    names = {entry.get("name") for entry in listed if isinstance(entry, Mapping)}
    name = NO_SUCH_TOOL
    while name in names:
        name += "-"
    return name


def _answers_notification(message: Any, status: int | None) -> bool:
    """Over HTTP an error without id may accompany a 4xx; anything else answers the notification."""
    if error_code(message) is not None and message.get("id") is None:
        return not (status is not None and 400 <= status < 500)
    return True


def _silence(found: ProbeAnswer, what: str) -> str:
    if found.http:
        return f"{what} got HTTP {found.status} and no JSON-RPC error"
    if found.follow_up is not None and not found.follow_up.answered:
        return f"{what} got no reply, and the server stopped answering"
    return f"{what} got no reply: a client waiting for one hangs"


def describe(exchange: Exchange) -> str:
    """What came back, for a message: the reply, or why there was none."""
    if exchange.reply is not None:
        return show(exchange.reply)
    if exchange.refused is not None:
        return f"no reply verify reads: {exchange.refused}"
    if exchange.closed:
        return "no reply: the server went away"
    if exchange.timed_out:
        return "no reply within the timeout"
    if exchange.status is not None:
        return f"HTTP {exchange.status} without a JSON-RPC reply"
    return "no reply"


def handshake_problem(session: Session, exchange: Exchange, requested: str) -> str | None:
    """What is wrong with the reply that opened `session` (None: a valid opening)."""
    result = result_of(exchange)
    if result is None:
        return f"{'server/discover' if session.modern else 'initialize'} got {describe(exchange)}"
    name = "DiscoverResult" if session.modern else "InitializeResult"
    problem = official_problem(session.revision, name, result)
    if problem is not None:
        return problem
    if session.modern:
        versions = result.get("supportedVersions")
        if not isinstance(versions, list) or session.revision not in versions:
            return f"server/discover lists supportedVersions {show(versions)}, without {session.revision}"
        return None
    if not isinstance(result.get("protocolVersion"), str):
        return f"initialize result has no protocolVersion: {show(result)}"
    capabilities = result.get("capabilities")
    if not isinstance(capabilities, dict) or not isinstance(capabilities.get("tools"), dict):
        return "initialize result does not declare the `tools` capability"
    info = result.get("serverInfo")
    if not isinstance(info, dict) or not isinstance(info.get("name"), str):
        return "initialize result has no serverInfo with a name"
    return None


def negotiated_version(exchange: Exchange) -> str | None:
    """The protocol version an `initialize` reply names."""
    result = result_of(exchange)
    version = result.get("protocolVersion") if result is not None else None
    return version if isinstance(version, str) else None


def legacy_negotiation(session: Session) -> Result:
    """`initialize` asking for an unknown version (on a fresh, unopened session)."""
    exchange = session.open(requested=UNKNOWN_VERSION)
    version = negotiated_version(exchange)
    problem = None
    if version is None:
        problem = (
            f"initialize asking for {UNKNOWN_VERSION} got {describe(exchange)}; the server must "
            "answer with a version it supports"
        )
    elif version == UNKNOWN_VERSION or version not in SUPPORTED_REVISIONS:
        problem = f"initialize asking for {UNKNOWN_VERSION} was answered with version {version!r}"
    return (
        failed("protocol.version-negotiation", problem)
        if problem
        else passed("protocol.version-negotiation", f"{UNKNOWN_VERSION} negotiated to {version}")
    )
