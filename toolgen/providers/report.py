"""The loss report as text: per tool, what a view could not pass on, and sizes."""

from __future__ import annotations

from toolgen.providers.model import View


def report_text(view: View) -> str:
    """`toolgen tools --format PROVIDER --explain`: one block per tool, losses indented."""
    total = sum(t.tokens for t in view.tools)
    lines = [f"{view.provider}: {len(view.tools)} tools, ~{total:,} tokens"]
    for tool in view.tools:
        state = ""
        if tool.strict is not None:
            state = "strict, " if tool.strict else "not strict, "
        renamed = f" (MCP name {tool.mcp_name!r})" if tool.name != tool.mcp_name else ""
        lines.append(f"{tool.name}{renamed}: {state}~{tool.tokens:,} tokens")
        lines.extend(f"  not strict: {reason}" for reason in tool.blockers)
        for loss in tool.losses:
            lines.append(f"  {loss.path or '/'}: {loss.keyword} {loss.action}: {loss.detail}")
    return "\n".join(lines) + "\n"
