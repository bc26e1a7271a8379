"""What a provider view is made of: converted tools, their losses, sizes and names."""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import orjson

from toolgen.spec.digests import is_plain

Provider = Literal["openai", "openai-responses", "anthropic", "gemini"]
PROVIDERS: tuple[Provider, ...] = ("openai", "openai-responses", "anthropic", "gemini")
"""`openai`: Chat Completions function tools; `openai-responses`: the same tools in the
Responses API's flat `FunctionToolParam` form."""

Action = Literal["described", "dropped", "rewritten", "narrowed", "closed", "nullable", "renamed"]
"""What a view did with a constraint it could not pass on as written:

- `described`: removed from the schema, its meaning written into the description;
- `dropped`: removed (the server still enforces it);
- `rewritten`: expressed another way with the same meaning (`oneOf` → `anyOf`, a
  type list → `anyOf`, `allOf` merged);
- `closed`: an object that accepted undeclared properties no longer does;
- `nullable`: an optional property became required and nullable (OpenAI strict);
  the call mapping removes the `null`s again;
- `narrowed`: the view accepts fewer values than the tool (said in the description);
- `renamed`: the tool name was mapped to one the provider accepts.
"""


@dataclass(frozen=True, slots=True)
class Loss:
    """One constraint a view could not pass on as written."""

    path: str
    """JSON pointer into the MCP tool's `inputSchema` ("" for the tool itself)."""
    keyword: str
    action: Action
    detail: str

    def to_json(self) -> dict[str, str]:
        return {
            "path": self.path,
            "keyword": self.keyword,
            "action": self.action,
            "detail": self.detail,
        }


@dataclass(slots=True)
class Losses:
    """A collector the converters append to."""

    items: list[Loss] = field(default_factory=list)
    blockers: list[str] = field(default_factory=list)
    """Why the view cannot keep the tool's meaning (OpenAI: why it stays `strict: false`)."""

    def add(self, path: str, keyword: str, action: Action, detail: str) -> None:
        self.items.append(Loss(path, keyword, action, detail))

    def block(self, path: str, reason: str) -> None:
        self.blockers.append(f"{path or '/'}: {reason}")


def approx_tokens(value: Any) -> int:
    """About how many tokens a JSON value costs a model: compact JSON characters / 4
    (the usual rule of thumb for English and JSON with BPE tokenizers)."""
    if is_plain(value):  # no floats: orjson spells it as `json` does, several times faster
        with contextlib.suppress(TypeError):  # a lone surrogate, say
            return math.ceil(len(orjson.dumps(value).decode()) / 4)
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return math.ceil(len(text) / 4)


@dataclass(frozen=True, slots=True)
class ToolView:
    """One MCP tool as one provider sees it."""

    mcp_name: str
    name: str
    definition: dict[str, Any]
    """Exactly what goes into the provider's `tools` list."""
    losses: tuple[Loss, ...]
    blockers: tuple[str, ...] = ()
    strict: bool | None = None
    """OpenAI: whether the definition is `strict: true`; None for other providers."""
    input_schema: Mapping[str, Any] = field(default_factory=dict, compare=False)
    """The MCP `inputSchema` (the call mapping reads it)."""

    @property
    def tokens(self) -> int:
        return approx_tokens(self.definition)

    def report(self) -> dict[str, Any]:
        out: dict[str, Any] = {"mcpName": self.mcp_name, "name": self.name, "tokens": self.tokens}
        if self.strict is not None:
            out["strict"] = self.strict
        if self.blockers:
            out["notStrictBecause"] = list(self.blockers)
        out["losses"] = [loss.to_json() for loss in self.losses]
        return out


@dataclass(frozen=True, slots=True)
class View:
    """Every tool of a server for one provider, and the name mapping back to MCP."""

    provider: Provider
    tools: tuple[ToolView, ...]

    @property
    def mcp_names(self) -> dict[str, str]:
        """Provider name -> MCP name, for every tool."""
        return {t.name: t.mcp_name for t in self.tools}

    def provider_name(self, mcp_name: str) -> str:
        for t in self.tools:
            if t.mcp_name == mcp_name:
                return t.name
        raise KeyError(mcp_name)

    def tool_for(self, provider_name: str) -> ToolView:
        for t in self.tools:
            if t.name == provider_name:
                return t
        raise KeyError(provider_name)

    def payload(self) -> list[dict[str, Any]]:
        """The provider's `tools` request field (Gemini: one Tool with `functionDeclarations`)."""
        definitions = [t.definition for t in self.tools]
        if self.provider == "gemini":
            return [{"functionDeclarations": definitions}]
        return definitions

    def document(self) -> dict[str, Any]:
        """What `toolgen tools --format PROVIDER` prints and a build writes."""
        return {"provider": self.provider, "tools": self.payload(), "mcpNames": self.mcp_names}

    def report(self) -> dict[str, Any]:
        """The loss report: per tool, each constraint not passed on, and sizes."""
        tools = [t.report() for t in self.tools]
        return {
            "provider": self.provider,
            "tokens": sum(tool["tokens"] for tool in tools),
            "tools": tools,
        }
