"""Call mapping for agents: a provider's tool call → MCP `tools/call` → the provider's
tool-result message.

A model calls a tool by its provider name, and in OpenAI strict mode it sends
`null` for every optional field it leaves out. `mcp_call` restores the MCP name
and removes exactly those `null`s (the ones where the MCP input schema makes
the property optional), so the server sees the arguments the tool declares.
`result_message` turns the MCP `CallToolResult` into the message the provider
expects next in the conversation. See `examples/agent_loop.py`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from toolgen.providers.model import View
from toolgen.schema.pointer import resolve_pointer


class SdkResult(Protocol):
    """A result object of an MCP SDK (`mcp.types.CallToolResult`, any pydantic model)."""

    def model_dump(self, *, mode: str = ..., by_alias: bool = ..., exclude_none: bool = ...) -> Any:
        """The object as JSON data, under its wire names."""


Result = Mapping[str, Any] | SdkResult
"""An MCP `CallToolResult`: as a JSON object, or as an SDK's object."""


def as_json(result: Result) -> Mapping[str, Any]:
    """The result as the JSON object the wire carries (an SDK object is dumped as it would
    be sent: wire names, no unset fields)."""
    if isinstance(result, Mapping):
        return result
    dumped = result.model_dump(mode="json", by_alias=True, exclude_none=True)
    if not isinstance(dumped, Mapping):
        raise TypeError(f"a tool result must be a JSON object, not {type(dumped).__name__}")
    return dumped


class CallMappingError(ValueError):
    """A provider tool call that cannot be mapped (unknown tool, arguments not JSON)."""


@dataclass(frozen=True, slots=True)
class McpCall:
    """An MCP `tools/call` made from a provider's tool call."""

    name: str
    """The MCP tool name."""
    arguments: dict[str, Any]
    provider_name: str
    call_id: str | None
    """The provider's id for the call, which the result message must carry."""

    def params(self) -> dict[str, Any]:
        """The `params` of the `tools/call` request."""
        return {"name": self.name, "arguments": self.arguments}


def mcp_call(view: View, tool_call: Any) -> McpCall:
    """The MCP call for one provider tool call (a dict as the provider's API returns it,
    or the provider SDK's object for it)."""
    call = _as_dict(tool_call)
    name, raw, call_id = _parts(view.provider, call)
    try:
        tool = view.tool_for(name)
    except KeyError:
        raise CallMappingError(
            f"the model called {name!r}, which is not a tool of this view"
        ) from None
    if isinstance(raw, str):
        try:
            raw = json.loads(raw) if raw.strip() else {}
        except json.JSONDecodeError as exc:
            raise CallMappingError(f"arguments of {name!r} are not JSON: {exc}") from None
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise CallMappingError(f"arguments of {name!r} are not a JSON object")
    schema = tool.input_schema
    arguments = strip_nulls(raw, schema, schema)
    return McpCall(tool.mcp_name, arguments, name, call_id)


def _as_dict(value: Any) -> dict[str, Any]:
    if isinstance(value, Mapping):
        return dict(value)
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dict(dump(exclude_none=True))
    raise CallMappingError(f"not a tool call: {value!r}")


def _parts(provider: str, call: dict[str, Any]) -> tuple[str, Any, str | None]:
    """(provider tool name, arguments, call id) of a tool call."""
    if provider in ("openai", "openai-responses"):
        if isinstance(call.get("function"), Mapping):  # Chat Completions
            fn = call["function"]
            return str(fn.get("name")), fn.get("arguments"), call.get("id")
        return str(call.get("name")), call.get("arguments"), call.get("call_id")  # Responses
    if provider == "anthropic":
        return str(call.get("name")), call.get("input"), call.get("id")
    fn = call.get("functionCall", call.get("function_call", call))
    fn = _as_dict(fn)
    return str(fn.get("name")), fn.get("args"), fn.get("id")


def strip_nulls(value: Any, schema: Any, root: Mapping[str, Any], depth: int = 0) -> Any:
    """`value` without the `null`s of properties `schema` does not require (recursively)."""
    if depth > 64:
        return value
    candidates = _object_schemas(schema, root)
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            subs = [c["properties"][key] for c in candidates if key in (c.get("properties") or {})]
            required = any(key in (c.get("required") or []) for c in candidates)
            if item is None and not required:
                continue
            out[key] = strip_nulls(item, subs[0], root, depth + 1) if subs else item
        return out
    if isinstance(value, list):
        items = next((c["items"] for c in candidates if isinstance(c.get("items"), dict)), None)
        prefix: list[Any] = next(
            (c["prefixItems"] for c in candidates if isinstance(c.get("prefixItems"), list)), []
        )
        return [
            strip_nulls(v, prefix[i] if i < len(prefix) else items, root, depth + 1)
            for i, v in enumerate(value)
        ]
    return value


def _object_schemas(schema: Any, root: Mapping[str, Any]) -> list[dict[str, Any]]:
    """`schema` and the schemas it applies in place (`$ref`, `allOf`/`anyOf`/`oneOf`)."""
    out: list[dict[str, Any]] = []
    todo = [schema]
    seen: set[int] = set()
    while todo and len(out) < 256:
        node = todo.pop(0)
        if not isinstance(node, dict) or id(node) in seen:
            continue
        seen.add(id(node))
        out.append(node)
        if isinstance(node.get("$ref"), str):
            todo.append(resolve_pointer(root, node["$ref"]))
        for key in ("allOf", "anyOf", "oneOf"):
            if isinstance(node.get(key), list):
                todo.extend(node[key])
    return out


# -- results ----------------------------------------------------------------------


def result_message(view: View, call: McpCall, result: Result) -> dict[str, Any]:
    """The provider's message carrying an MCP `CallToolResult` (a dict or an SDK's object)
    back to the model."""
    result = as_json(result)
    is_error = bool(result.get("isError"))
    blocks = [b for b in result.get("content") or [] if isinstance(b, Mapping)]
    if view.provider == "openai":
        return {
            "role": "tool",
            "tool_call_id": call.call_id or "",
            "content": _text(result, blocks),
        }
    if view.provider == "openai-responses":  # an input item, beside the `function_call`
        return {
            "type": "function_call_output",
            "call_id": call.call_id or "",
            "output": _text(result, blocks),
        }
    if view.provider == "anthropic":
        block: dict[str, Any] = {
            "type": "tool_result",
            "tool_use_id": call.call_id or "",
            "content": [_anthropic_block(b) for b in blocks]
            or [{"type": "text", "text": _text(result, blocks)}],
        }
        if is_error:
            block["is_error"] = True
        return {"role": "user", "content": [block]}
    structured = result.get("structuredContent")
    payload: dict[str, Any]
    if is_error:
        payload = {"error": _text(result, blocks)}
    else:
        payload = {"output": structured if structured is not None else _text(result, blocks)}
    response: dict[str, Any] = {"name": call.provider_name, "response": payload}
    if call.call_id:
        response["id"] = call.call_id
    return {"role": "user", "parts": [{"functionResponse": response}]}


def _text(result: Mapping[str, Any], blocks: list[Mapping[str, Any]]) -> str:
    """The result as text: its text blocks (others named), else its structured content."""
    parts = [_block_text(b) for b in blocks]
    if parts:
        return "\n".join(parts)
    structured = result.get("structuredContent")
    return json.dumps(structured, ensure_ascii=False) if structured is not None else ""


def _block_text(block: Mapping[str, Any]) -> str:
    kind = block.get("type")
    if kind == "text":
        return str(block.get("text", ""))
    if kind == "resource":
        resource = block.get("resource") or {}
        return str(resource.get("text") or f"[resource {resource.get('uri', '')}]")
    if kind == "resource_link":
        return f"[resource {block.get('uri', '')}]"
    return f"[{kind} content, {block.get('mimeType', 'unknown type')}: not shown]"


def _anthropic_block(block: Mapping[str, Any]) -> dict[str, Any]:
    if block.get("type") == "image" and isinstance(block.get("data"), str):
        source = {
            "type": "base64",
            "media_type": block.get("mimeType", "image/png"),
            "data": block["data"],
        }
        return {"type": "image", "source": source}
    return {"type": "text", "text": _block_text(block)}


def result_messages(view: View, results: Sequence[tuple[McpCall, Result]]) -> list[dict[str, Any]]:
    """The messages answering one model turn's tool calls: OpenAI one message (Responses:
    one `function_call_output` item) per call; Anthropic and Gemini one user message
    holding every result, as their APIs want."""
    messages = [result_message(view, call, result) for call, result in results]
    if view.provider in ("openai", "openai-responses") or not messages:
        return messages
    key = "content" if view.provider == "anthropic" else "parts"
    return [{"role": "user", key: [part for m in messages for part in m[key]]}]
