"""`toolgen digest`: the canonical digest of every tool and tool set a path holds."""

from __future__ import annotations

import json
from dataclasses import dataclass

from toolgen.diff.sets import digests_of
from toolgen.diff.sides import Reader, load_side
from toolgen.spec.digests import ALGORITHM, CANONICALIZATION, set_digest


@dataclass(frozen=True)
class ServerDigests:
    """One server's tool digests (name -> digest) and the set's digest."""

    name: str
    protocol: str | None
    """The revision digested; None for published definitions (digested as they are)."""
    tools: dict[str, str]

    @property
    def digest(self) -> str:
        return set_digest(self.tools)


def digest_servers(path: str, protocol: str) -> list[ServerDigests]:
    """The digests of every server `path` names (a path or `git:REV:PATH`)."""
    side = load_side(path, Reader())
    return [
        ServerDigests(
            t.server.name,
            None if side.published else protocol,
            digests_of(t, side.published, protocol),
        )
        for t in side.toolsets
    ]


def render_digests(servers: list[ServerDigests], output_format: str) -> str:
    if output_format == "json":
        document = {
            "algorithm": ALGORITHM,
            "canonicalization": CANONICALIZATION,
            "servers": [
                {"name": s.name, "protocol": s.protocol, "digest": s.digest, "tools": s.tools}
                for s in servers
            ],
        }
        return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    lines = []
    for server in servers:
        lines += [f"{d}  {name}\n" for name, d in server.tools.items()]
        what = f"protocol {server.protocol}" if server.protocol else "as published"
        count = len(server.tools)
        lines.append(
            f"{server.digest}  ({server.name}: {count} tool{'s' if count != 1 else ''}, {what})\n"
        )
    return "".join(lines)
