"""Provider views: an MCP server's tools as OpenAI, Anthropic and Gemini accept them.

The conversion itself is `toolgen.jsonschema.providers` (pure data, so the
compiler can write views and lint can report what they lose); this package is
what applications use: `view(provider, tools)` for any server's published
tools, `toolset_view(toolset, provider)` for a spec set, the loss report as
text (`report`), and the call mapping for agents (`calls`: provider tool call →
MCP `tools/call` → the provider's tool-result message).
"""

from __future__ import annotations

from toolgen.core.ir import ToolSet
from toolgen.jsonschema.providers import PROVIDERS, Loss, Provider, ToolView, View
from toolgen.jsonschema.providers import convert as view

__all__ = ["PROVIDERS", "Loss", "Provider", "ToolView", "View", "toolset_view", "view"]


def toolset_view(toolset: ToolSet, provider: Provider) -> View:
    """A spec set's tools (as the latest protocol revision publishes them) for `provider`."""
    from toolgen.core.protocol import LATEST_REVISION, tool_definition

    return view(provider, [tool_definition(t, LATEST_REVISION) for t in toolset.tools])
