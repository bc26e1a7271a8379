"""Provider views: an MCP server's tools as OpenAI, Anthropic and Gemini accept them.

`view(provider, tools)` converts MCP tool definitions (a `tools/list` result's
`tools`, from a spec set or from any server) into one provider's tool list,
with tool names providers accept (and the way back to MCP names), what each
tool lost on the way, and its approximate size in tokens. `toolset_view` does
the same for a loaded spec set. The call mapping (`toolgen.views.calls`) turns
the provider's tool calls back into MCP `tools/call` requests.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from toolgen.core.ir import ToolSet
from toolgen.views.anthropic import anthropic_tool
from toolgen.views.gemini import gemini_tool
from toolgen.views.model import PROVIDERS, Loss, Provider, ToolView, View
from toolgen.views.names import ANTHROPIC_NAMES, GEMINI_NAMES, OPENAI_NAMES, NameRule, map_names
from toolgen.views.openai import openai_tool

__all__ = ["PROVIDERS", "Loss", "Provider", "ToolView", "View", "toolset_view", "view"]

_CONVERTERS: dict[str, tuple[NameRule, Callable[[Mapping[str, Any], str], ToolView]]] = {
    "openai": (OPENAI_NAMES, openai_tool),
    "anthropic": (ANTHROPIC_NAMES, anthropic_tool),
    "gemini": (GEMINI_NAMES, gemini_tool),
}


def view(provider: Provider, tools: Sequence[Mapping[str, Any]]) -> View:
    """MCP tool definitions as `provider` accepts them, in the same order."""
    rule, convert = _CONVERTERS[provider]
    names = map_names((t["name"] for t in tools), rule)
    return View(provider, tuple(convert(t, names[t["name"]]) for t in tools))


def toolset_view(toolset: ToolSet, provider: Provider) -> View:
    """A spec set's tools (as the latest protocol revision publishes them) for `provider`."""
    from toolgen.core.protocol import LATEST_REVISION, tool_definition

    return view(provider, [tool_definition(t, LATEST_REVISION) for t in toolset.tools])
