"""A verify run: pick the revisions, then per revision probe, compare the listing, call.

Each revision gets its own session (over stdio: its own process): the legacy
handshake is once per connection. A server that dies or hangs during a call is
restarted (a new session) and the run goes on with the next input.
"""

from __future__ import annotations

import fnmatch
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from toolgen.limits import VERIFY_TIMEOUT
from toolgen.spec.protocol import (
    LATEST_LEGACY_REVISION,
    LEGACY_REVISIONS,
    MODERN_REVISIONS,
    SUPPORTED_REVISIONS,
    is_modern,
)
from toolgen.verify.checks import MUST
from toolgen.verify.fixtures import Fixtures
from toolgen.verify.probes import (
    Probes,
    describe,
    error_code,
    handshake_problem,
    legacy_negotiation,
    negotiated_version,
)
from toolgen.verify.results import Report, Result, failed, passed, skipped
from toolgen.verify.session import Session, result_of
from toolgen.verify.transport import Exchange, Target, Transport, Unreachable

ALL: Final = "all"
DEFAULT_CASES: Final = 20
DEFAULT_BUDGET: Final = 600.0
"""Seconds a whole run may take (`--budget`): no call starts after it."""


@dataclass(frozen=True, slots=True)
class Options:
    """What `toolgen verify` was asked to do."""

    protocol: str | None = None
    """A revision, `all`, or None: the newest revision of each era the server offers."""
    cases: int = DEFAULT_CASES
    seed: int = 0
    allow_destructive: bool = False
    only: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    timeout: float = VERIFY_TIMEOUT
    fixtures: Fixtures = field(default_factory=Fixtures)
    sequences: str = "auto"
    """`auto`: the fixtures file's sequences and the inferred ones; `pinned`: only the
    former; `off`: none."""
    fail_on: str = MUST
    budget: float = DEFAULT_BUDGET
    allow_open_world: bool = False

    def selects(self, name: str) -> bool:
        if self.only and not any(fnmatch.fnmatchcase(name, p) for p in self.only):
            return False
        return not any(fnmatch.fnmatchcase(name, p) for p in self.exclude)


@dataclass(slots=True)
class Budget:
    """The time a run may take, shared out: each part left (a tool at a revision, or a
    revision's sequences) gets an equal share of the time left when it starts, so a slow
    tool cannot starve the others, and once the whole budget is spent no call starts."""

    ends: float
    """`time.monotonic()` when the run's budget is spent."""
    parts: int
    """Parts not started yet."""

    def share(self) -> float:
        """When the part starting now must stop calling (`time.monotonic()`)."""
        now = time.monotonic()
        left = max(0.0, self.ends - now) / max(1, self.parts)
        self.parts -= 1
        return now + left


@dataclass(slots=True)
class Connection:
    """The session a revision's checks use, replaced when the server dies or hangs."""

    target: Target
    revision: str
    timeout: float
    session: Session | None = None
    junk: list[bytes] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    """What verify dropped unread on this revision's connections, and why."""
    opening: Any = None

    def open(self) -> Session:
        transport: Transport = self.target.connect()
        session = Session(transport, self.revision, self.timeout)
        self.opening = session.open()
        self.session = session
        return session

    def current(self) -> Session:
        return self.session if self.session is not None else self.open()

    def restart(self) -> Session | None:
        """A fresh session after a crash or hang; None when the server cannot be restarted."""
        self.close()
        try:
            session = self.open()
        except Unreachable:
            return None
        return session if result_of(self.opening) is not None else None

    def close(self) -> None:
        if self.session is not None:
            self.junk += self.session.transport.stdout_junk
            self.refused += self.session.transport.refused
            self.session.close()
            self.session = None


def connections(target: Target, options: Options, report: Report) -> list[Connection]:
    """One connection per revision to check: as asked, or the newest of each era the
    server offers. The version-negotiation probe (a legacy `initialize` asking for an
    unknown version) also tells which legacy version the server prefers, and the
    stateless era's probe connection is kept for its checks: fewer server starts."""
    timeout = options.timeout
    if options.protocol is not None:
        asked = list(SUPPORTED_REVISIONS) if options.protocol == ALL else [options.protocol]
        if not all(is_modern(r) for r in asked):
            report.results.append(_negotiation(target, timeout)[0])
        return [Connection(target, r, timeout) for r in asked]
    negotiation, preferred = _negotiation(target, timeout)
    report.results.append(negotiation)
    legacy, why = (preferred, "") if preferred else _probe_legacy(target, timeout)
    found = [Connection(target, legacy, timeout)] if legacy else []
    modern = Connection(target, MODERN_REVISIONS[-1], timeout)
    try:
        modern.open()
        opened = result_of(modern.opening) is not None
    except Unreachable:
        opened = False
    if opened:
        found.append(modern)
    else:
        modern.close()
    if not found:
        raise Unreachable(
            f"the server answered neither the initialize handshake nor server/discover: {why}"
        )
    return found


def _probe_legacy(target: Target, timeout: float) -> tuple[str | None, str]:
    """The legacy version the server negotiates when asked for the newest (None: none), and
    what went wrong when there is none."""
    transport = target.connect()
    try:
        exchange = Session(transport, LATEST_LEGACY_REVISION, timeout).open()
        version = negotiated_version(exchange)
        if version in LEGACY_REVISIONS:
            return version, ""
        return None, f"initialize got {describe(exchange)}; {transport.describe_exit()}"
    finally:
        transport.close()


def _negotiation(target: Target, timeout: float) -> tuple[Result, str | None]:
    """The version-negotiation check, and the legacy version the server answered with."""
    transport = target.connect()
    try:
        session = Session(transport, LATEST_LEGACY_REVISION, timeout)
        result = legacy_negotiation(session)
        version = session.http_headers.get("MCP-Protocol-Version")  # set by a valid answer
        return result, version if version in LEGACY_REVISIONS else None
    finally:
        transport.close()


def opening_results(connection: Connection, strict: bool) -> tuple[list[Result], bool]:
    """The handshake result for a freshly opened connection, and whether to go on.

    A revision the server does not offer (it negotiates another, or refuses the
    stateless era's `server/discover` with an error) is skipped, unless it was asked
    for by name (`strict`): then it is a failure."""
    session = connection.current()
    revision = connection.revision
    exchange = connection.opening
    offered = _not_offered(session, exchange)
    if offered is not None:
        message = f"the server does not offer {revision} ({offered})"
        if strict:
            return [failed("protocol.handshake", message, revision=revision)], False
        return [skipped("protocol.handshake", message, revision=revision)], False
    problem = handshake_problem(session, exchange, revision)
    if problem is not None:
        go_on = result_of(exchange) is not None
        return [failed("protocol.handshake", problem, revision=revision)], go_on
    return [passed("protocol.handshake", f"opened at {revision}", revision=revision)], True


def _not_offered(session: Session, exchange: Exchange) -> str | None:
    if session.modern:
        code = error_code(exchange.reply)
        return None if code is None else f"server/discover got error {code}"
    version = negotiated_version(exchange)
    if version is not None and version != session.revision:
        return f"it answered {version}"
    return None


def probe_results(connection: Connection) -> tuple[list[Result], list[str]]:
    """Each probe's result, and the probes the server died on (with how it died).

    A server that dies on a probe (stdio: its process exits) is restarted before the
    next probe, so each probe is judged on its own and the killer is named."""
    out: list[Result] = []
    killers: list[str] = []
    probes = Probes(connection.current())
    for step in probes.steps():
        probes.session = session = connection.current()  # the restarted one after a death
        out.append(step())
        if not session.transport.alive():
            killers.append(f"{out[-1].check} ({session.transport.describe_exit()})")
            if connection.restart() is None:
                break
    return out, killers


def survives(connection: Connection, when: str, killers: Sequence[str] = ()) -> Result:
    """protocol.survives: the server answers now, and no probe in `killers` ended it."""
    if killers:
        return failed(
            "protocol.survives",
            f"the server died on a probe: {'; '.join(killers)}",
            revision=connection.revision,
        )
    session = connection.current()
    exchange = session.alive_check()
    if exchange.answered:  # an error reply answers too (a server without `ping` is alive)
        return passed("protocol.survives", f"answering {when}", revision=connection.revision)
    detail = session.transport.describe_exit()
    return failed(
        "protocol.survives",
        f"the server stopped answering {when}: {describe(exchange)}; {detail}",
        revision=connection.revision,
    )


def stdout_result(connection: Connection) -> Result | None:
    if connection.target.kind != "stdio":
        return None
    if connection.junk:
        lines = "; ".join(
            repr(line.decode("utf-8", "replace"))[:120] for line in connection.junk[:3]
        )
        return failed(
            "protocol.stdout-clean",
            f"{len(connection.junk)} line(s) on stdout are not JSON-RPC, e.g. {lines}",
            revision=connection.revision,
        )
    return passed("protocol.stdout-clean", "only JSON-RPC on stdout", revision=connection.revision)


def limits_result(connection: Connection) -> Result:
    """protocol.limits: what verify dropped unread on the revision's connections (closed)."""
    refused = list(dict.fromkeys(connection.refused))
    if refused:
        more = f" (and {len(refused) - 3} more)" if len(refused) > 3 else ""
        return failed(
            "protocol.limits", "; ".join(refused[:3]) + more, revision=connection.revision
        )
    return passed("protocol.limits", "within verify's limits", revision=connection.revision)
