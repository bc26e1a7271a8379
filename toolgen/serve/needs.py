"""What a tool declares it needs from the client: the `x-toolgen-client-capabilities` key.

    - name: summarize_repo
      x-toolgen-client-capabilities: [sampling]

A 2026-07-28 call of such a tool whose `_meta` client capabilities lack one of
them is refused before the handler runs with -32021
(`MissingRequiredClientCapabilityError`, HTTP 400) and
`data.requiredCapabilities` naming what is missing (`{"sampling": {}}`); a
2025 session that did not declare it in `initialize` gets an `isError` result.
The value is checked when the spec set is loaded: a list of the client
capabilities MCP defines (`elicitation`, `roots`, `sampling`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

from toolgen.spec.errors import Diagnostic, ErrorCode, SpecError
from toolgen.spec.ir import Tool

CAPABILITIES_KEY: Final = "x-toolgen-client-capabilities"
CLIENT_CAPABILITIES: Final = ("elicitation", "roots", "sampling")


def client_needs(tools: Iterable[Tool]) -> dict[str, tuple[str, ...]]:
    """The client capabilities each tool declares it needs (tools that need none are left
    out); `SpecError` naming the place of every malformed declaration."""
    needs: dict[str, tuple[str, ...]] = {}
    problems: list[Diagnostic] = []
    for tool in tools:
        value = tool.extensions.get(CAPABILITIES_KEY)
        if value is None:
            continue
        valid = isinstance(value, list) and all(item in CLIENT_CAPABILITIES for item in value)
        if not valid:
            problems.append(
                Diagnostic(
                    ErrorCode.INVALID_VALUE,
                    f"`{CAPABILITIES_KEY}` must be a list of client capabilities "
                    f"({', '.join(CLIENT_CAPABILITIES)}); got {value!r:.80}",
                    tool.origin.locate(CAPABILITIES_KEY),
                )
            )
        elif value:
            needs[tool.name] = tuple(dict.fromkeys(value))
    if problems:
        raise SpecError(problems)
    return needs


def missing(needed: tuple[str, ...], declared: Any) -> dict[str, Any]:
    """The needed capabilities `declared` (a `ClientCapabilities` object) lacks, as a
    `ClientCapabilities` object (`{"sampling": {}}`); empty when none is missing."""
    have = declared if isinstance(declared, Mapping) else {}
    return {name: {} for name in needed if name not in have}
