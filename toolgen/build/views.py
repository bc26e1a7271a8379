"""Emit the provider views: `tools/openai.json`, `tools/anthropic.json`, `tools/gemini.json`.

Each holds what `toolgen tools --format PROVIDER` prints (the API's `tools`
field and `mcpNames`, the way back to MCP names) plus the loss report, for the
tools as the latest protocol revision publishes them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from toolgen.build.common import header_text, json_text
from toolgen.build.tooldefs import GENERATED_META_KEY
from toolgen.providers import PROVIDERS, convert
from toolgen.spec.ir import ToolSet
from toolgen.spec.layout import TOOLS_DIR
from toolgen.spec.protocol import LATEST_REVISION, tool_definition


def render_views(
    toolset: ToolSet, *, source_note: str, definitions: Sequence[Mapping[str, Any]] | None = None
) -> list[tuple[str, str]]:
    """One file per provider under `tools/` (`definitions`: the tools as the latest revision
    lists them, when the caller has them)."""
    if definitions is None:
        definitions = [tool_definition(tool, LATEST_REVISION) for tool in toolset.tools]
    files = []
    for provider in PROVIDERS:
        view = convert(provider, definitions)
        body = {
            "_meta": {GENERATED_META_KEY: header_text(source_note)},
            **view.document(),
            "report": view.report(),
        }
        files.append((f"{TOOLS_DIR}/{provider}.json", json_text(body)))
    return files
