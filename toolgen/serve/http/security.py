"""The request checks that make the HTTP transport safe by default.

Pure functions over header values, so each rule is testable on its own:

- `Origin` (DNS rebinding, browsers): allowed when absent (non-browser
  clients send none), when it is a loopback origin (`http://localhost:*`,
  `127.0.0.1`, `[::1]`), or when it is on the configured allow-list.
  Anything else gets 403.
- `Host` (DNS rebinding, defence in depth): while the server listens on a
  loopback address, the `Host` header must name a loopback host too, so a
  page whose DNS name was rebound to 127.0.0.1 is refused even if its
  browser sent no `Origin`.
- Bearer token (optional): `Authorization: Bearer <token>`, compared in
  constant time; 401 otherwise.
"""

from __future__ import annotations

import hmac
import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final
from urllib.parse import urlsplit

from toolgen.limits import MAX_BUFFERED

LOOPBACK_HOSTS: Final = frozenset({"localhost", "127.0.0.1", "::1"})
DEFAULT_MAX_BODY: Final = 4 * 1024 * 1024
"""Largest request body accepted (bytes): far above any real tool call, small enough to
keep a flood of huge bodies from exhausting memory."""
DEFAULT_BODY_TIMEOUT: Final = 30.0


@dataclass(frozen=True, slots=True)
class SecurityPolicy:
    """What the transport lets through; the defaults are the safe choice."""

    allowed_origins: frozenset[str] = frozenset()
    """Extra origins allowed besides loopback ones (`scheme://host[:port]`, or `*` for any)."""
    token: str | None = None
    """When set, every request must carry `Authorization: Bearer <token>`."""
    max_body: int = DEFAULT_MAX_BODY
    check_host: bool = True
    """Require a loopback `Host` header (on by default when the server binds loopback)."""
    allowed_hosts: frozenset[str] = field(default_factory=frozenset)
    """Extra host names accepted by the `Host` check (without port)."""
    body_timeout: float = DEFAULT_BODY_TIMEOUT
    """Seconds a request body may take to arrive (then 408)."""
    max_buffered: int = MAX_BUFFERED
    """Bytes of request bodies buffered by all requests together (past it, 503)."""

    def __post_init__(self) -> None:
        if self.token is not None and not self.token.strip():
            raise ValueError("the token is empty: every client would get in; give one or none")


def is_loopback_host(host: str) -> bool:
    """Whether a host name (no port; IPv6 without brackets) is this machine's loopback."""
    host = host.lower().rstrip(".")
    if host in LOOPBACK_HOSTS:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def split_host(value: str) -> str | None:
    """The host part of a `Host` header value (`[::1]:8000` → `::1`); None when malformed."""
    value = value.strip()
    if not value:
        return None
    if value.startswith("["):
        end = value.find("]")
        if end == -1 or (len(value) > end + 1 and value[end + 1] != ":"):
            return None
        return value[1:end]
    host, _, port = value.partition(":")
    if port and not port.isdigit():
        return None
    return host or None


def normalize_origin(origin: str) -> str | None:
    """`scheme://host[:port]` in lower case, or None when `origin` is not a URL origin."""
    try:
        parts = urlsplit(origin.strip())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        return None
    host = parts.hostname.lower()
    if ":" in host:
        host = f"[{host}]"
    return f"{parts.scheme}://{host}" + (f":{port}" if port is not None else "")


def parse_origins(values: Iterable[str]) -> frozenset[str]:
    """Allow-list entries, normalized; raises ValueError naming a malformed one."""
    found: set[str] = set()
    for value in values:
        if value.strip() == "*":
            found.add("*")
            continue
        normal = normalize_origin(value)
        if normal is None:
            raise ValueError(f"not an origin (expected scheme://host[:port]): {value!r}")
        found.add(normal)
    return frozenset(found)


def origin_allowed(origin: str | None, policy: SecurityPolicy) -> bool:
    """The `Origin` rule: absent, loopback or allow-listed passes; anything else fails."""
    if origin is None:
        return True
    if "*" in policy.allowed_origins:
        return True
    normal = normalize_origin(origin)
    if normal is None:
        return False  # includes the opaque "null" origin of sandboxed pages and files
    if normal in policy.allowed_origins:
        return True
    hostname = urlsplit(normal).hostname
    return hostname is not None and is_loopback_host(hostname)


def host_allowed(host_header: str | None, policy: SecurityPolicy) -> bool:
    """The `Host` rule (only when `policy.check_host`): a loopback or allow-listed host."""
    if not policy.check_host:
        return True
    if host_header is None:
        return False
    host = split_host(host_header)
    if host is None:
        return False
    return is_loopback_host(host) or host.lower() in policy.allowed_hosts


def token_accepted(authorization: str | None, policy: SecurityPolicy) -> bool:
    """The bearer-token rule: no token configured, or the right one presented."""
    if policy.token is None:
        return True
    if authorization is None:
        return False
    scheme, _, credentials = authorization.strip().partition(" ")
    if scheme.lower() != "bearer":
        return False
    return hmac.compare_digest(credentials.strip().encode(), policy.token.encode())
