"""Emit `annotation-reasons.json`: each tool's hints with the reasons the spec gives.

OpenAI's app review asks for every behaviour hint with a written justification;
this file is that list, ready to copy into a submission. It is written only when
some tool of the spec set gives a reason (`annotations.reasons`).
"""

from __future__ import annotations

from typing import Any

from toolgen.build.common import header_text, json_text
from toolgen.build.tooldefs import GENERATED_META_KEY
from toolgen.spec.ir import ToolSet

REASONS_FILE = "annotation-reasons.json"


def render_reasons(toolset: ToolSet, *, source_note: str) -> list[tuple[str, str]]:
    """`annotation-reasons.json`, or nothing when no tool gives a reason."""
    if not any(tool.annotations.reasons for tool in toolset.tools):
        return []
    tools: list[dict[str, Any]] = [
        {
            "name": tool.name,
            "annotations": tool.annotations.effective(),
            "declared": [k for k in tool.annotations.to_mcp() if k != "title"],
            "reasons": tool.annotations.reasons_mcp(),
        }
        for tool in toolset.tools
    ]
    body = {
        "_meta": {GENERATED_META_KEY: header_text(source_note)},
        "server": toolset.server.name,
        "tools": tools,
    }
    return [(REASONS_FILE, json_text(body))]
