"""`toolgen call`: call one tool of any MCP server from the shell, safely.

The tool is looked up in the server's `tools/list` first: an unknown name is
refused with the names the server has, and a tool that may destroy data is
refused unless the caller allows it. "May destroy" is the one rule of
`toolgen.spec.protocol.may_destroy`: a tool that is not `readOnlyHint: true` is
destructive unless it says `destructiveHint: false` (the MCP defaults), hints that are
not JSON booleans read the dangerous way, and every listing entry of the name counts. The call itself goes through
the official SDK client (`mcp.Client`), over stdio or Streamable HTTP.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toolgen.client.connect import list_all_tools, open_session
from toolgen.limits import CALL_TIMEOUT
from toolgen.spec.protocol import may_destroy

__all__ = ["CallError", "CallOutcome", "call", "check_callable", "may_destroy"]


class CallError(Exception):
    """The tool was not called: unknown, refused as destructive, or the server failed."""


@dataclass(frozen=True, slots=True)
class CallOutcome:
    """What the server answered: the structured value (when there is one), the text, isError."""

    structured: Any
    has_structured: bool
    text: str
    is_error: bool


def check_callable(
    tool: str, listed: Sequence[Mapping[str, Any]], *, allow_destructive: bool
) -> None:
    """Raise `CallError` unless the server lists `tool` and it may be called as asked (every
    entry of that name counts: a server may list a name twice, with other hints)."""
    found = [t.get("annotations") for t in listed if t.get("name") == tool]
    if not found:
        names = ", ".join(sorted({str(t.get("name")) for t in listed})) or "none"
        raise CallError(f"the server has no tool {tool!r}; it has: {names}")
    if may_destroy(*found) and not allow_destructive:
        twice = f" (listed {len(found)} times)" if len(found) > 1 else ""
        raise CallError(
            f"tool {tool!r}{twice} may destroy data (it is not read-only and does not declare "
            "destructiveHint: false); pass --allow-destructive to call it anyway"
        )


def call(
    tool: str,
    arguments: Mapping[str, Any],
    *,
    command: Sequence[str] | None = None,
    url: str | None = None,
    headers: Mapping[str, str] | None = None,
    allow_destructive: bool = False,
    timeout: float = CALL_TIMEOUT,
) -> CallOutcome:
    """Call `tool` on the stdio server `command` (this process's environment) or at `url`."""
    import anyio

    async def main() -> CallOutcome:
        with anyio.fail_after(timeout):
            env = os.environ if command else None  # tokens in the environment reach the server
            async with open_session(command=command, env=env, url=url, headers=headers) as session:
                listed = await list_all_tools(session)
                check_callable(tool, listed, allow_destructive=allow_destructive)
                result = await session.call_tool(tool, dict(arguments))
        text = "".join(getattr(block, "text", "") for block in result.content)
        structured = result.structured_content
        has = structured is not None or "structured_content" in result.model_fields_set
        return CallOutcome(structured, has, text, bool(result.is_error))

    try:
        return anyio.run(main)
    except CallError:
        raise
    except TimeoutError:
        raise CallError(f"the call did not finish within {timeout:g} s") from None
    except Exception as exc:  # transport or protocol failures: said plainly, no traceback
        raise CallError(f"cannot call {tool!r}: {_reason(exc)}") from None


def _reason(exc: BaseException) -> str:
    inner = getattr(exc, "exceptions", None)
    if inner:
        return _reason(inner[0])
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
