"""MCP tool definitions in the dialects model APIs accept: OpenAI (strict; Chat Completions
and Responses), Anthropic, Gemini.

`convert(provider, tools)` turns MCP tool definitions (a `tools/list` result's
`tools`, from a spec set or from any server) into one provider's tool list, with
names the provider accepts (and the way back to MCP names), what each tool lost
on the way, and its approximate size in tokens. Pure data in, data out: the
compiler writes these views, lint reports what they lose, and `toolgen.providers`
adds the call mapping for agents.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from toolgen.providers.anthropic import anthropic_tool
from toolgen.providers.calls import (
    CallMappingError,
    McpCall,
    mcp_call,
    result_message,
    result_messages,
)
from toolgen.providers.gemini import gemini_tool
from toolgen.providers.model import PROVIDERS, Loss, Provider, ToolView, View
from toolgen.providers.names import (
    ANTHROPIC_NAMES,
    GEMINI_NAMES,
    OPENAI_NAMES,
    NameRule,
    map_names,
)
from toolgen.providers.openai import openai_tool, responses_tool
from toolgen.providers.report import report_text
from toolgen.spec.ir import ToolSet
from toolgen.spec.protocol import LATEST_REVISION, tool_definition

__all__ = [
    "NAME_RULES",
    "PROVIDERS",
    "CallMappingError",
    "Loss",
    "McpCall",
    "Provider",
    "ToolView",
    "View",
    "convert",
    "mcp_call",
    "report_text",
    "result_message",
    "result_messages",
    "toolset_view",
    "view",
]

NAME_RULES: dict[str, NameRule] = {
    "openai": OPENAI_NAMES,
    "openai-responses": OPENAI_NAMES,
    "anthropic": ANTHROPIC_NAMES,
    "gemini": GEMINI_NAMES,
}
_CONVERTERS: dict[str, Callable[[Mapping[str, Any], str], ToolView]] = {
    "openai": openai_tool,
    "openai-responses": responses_tool,
    "anthropic": anthropic_tool,
    "gemini": gemini_tool,
}


def convert(provider: Provider, tools: Sequence[Mapping[str, Any]]) -> View:
    """MCP tool definitions as `provider` accepts them, in the same order."""
    names = map_names((t["name"] for t in tools), NAME_RULES[provider])
    return View(provider, tuple(_CONVERTERS[provider](t, names[t["name"]]) for t in tools))


view = convert
"""`view(provider, tools)`: the name applications use for `convert`."""


def toolset_view(toolset: ToolSet, provider: Provider) -> View:
    """A spec set's tools (as the latest protocol revision publishes them) for `provider`."""
    return view(provider, [tool_definition(t, LATEST_REVISION) for t in toolset.tools])
