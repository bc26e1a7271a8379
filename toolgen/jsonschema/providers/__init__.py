"""MCP tool definitions in the dialects model APIs accept: OpenAI (strict), Anthropic, Gemini.

`convert(provider, tools)` turns MCP tool definitions (a `tools/list` result's
`tools`, from a spec set or from any server) into one provider's tool list, with
names the provider accepts (and the way back to MCP names), what each tool lost
on the way, and its approximate size in tokens. Pure data in, data out: the
compiler writes these views, lint reports what they lose, and `toolgen.views`
adds the call mapping for agents.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from toolgen.jsonschema.providers.anthropic import anthropic_tool
from toolgen.jsonschema.providers.gemini import gemini_tool
from toolgen.jsonschema.providers.model import PROVIDERS, Loss, Provider, ToolView, View
from toolgen.jsonschema.providers.names import (
    ANTHROPIC_NAMES,
    GEMINI_NAMES,
    OPENAI_NAMES,
    NameRule,
    map_names,
)
from toolgen.jsonschema.providers.openai import openai_tool

__all__ = ["NAME_RULES", "PROVIDERS", "Loss", "Provider", "ToolView", "View", "convert"]

NAME_RULES: dict[str, NameRule] = {
    "openai": OPENAI_NAMES,
    "anthropic": ANTHROPIC_NAMES,
    "gemini": GEMINI_NAMES,
}
_CONVERTERS: dict[str, Callable[[Mapping[str, Any], str], ToolView]] = {
    "openai": openai_tool,
    "anthropic": anthropic_tool,
    "gemini": gemini_tool,
}


def convert(provider: Provider, tools: Sequence[Mapping[str, Any]]) -> View:
    """MCP tool definitions as `provider` accepts them, in the same order."""
    names = map_names((t["name"] for t in tools), NAME_RULES[provider])
    return View(provider, tuple(_CONVERTERS[provider](t, names[t["name"]]) for t in tools))
