"""`ToolClient`: what every generated `Client` inherits (connect, drift, calls, results).

A generated method validates its keyword arguments with the tool's Input model
(a pydantic `ValidationError` before anything is sent), refuses a tool the spec calls
safe that the server hints may destroy data (`DriftError`, see `drift`), calls the tool through
the official SDK's `ClientSession` (which checks `structuredContent` against the
listed output schema), raises `ToolCallError` on `isError`, and parses the
structured result into the Output model; a non-object output is unwrapped from
`{"result": ...}` where the revision wraps it (`toolgen.spec.protocol`).
"""

from __future__ import annotations

import json
import warnings
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Self, TypeVar

from pydantic import BaseModel, TypeAdapter

from toolgen.client.connect import list_all_tools, open_session
from toolgen.client.drift import Drift, DriftError, DriftWarning, compare, describe
from toolgen.client.errors import ToolCallError
from toolgen.spec.protocol import has_structured_output, wraps_output

if TYPE_CHECKING:
    from mcp import ClientSession
    from mcp_types import CallToolResult

    from toolgen.serve.toolset import RuntimeToolSet

DriftPolicy = Literal["error", "warn", "ignore"]
"""At connect, a server whose tools differ from the spec: raise `DriftError`, warn
(`DriftWarning`), or say nothing. The differences are in `client.drift` either way."""

M = TypeVar("M", bound=BaseModel)

_TOOLSETS: dict[type[ToolClient], RuntimeToolSet] = {}
_ADAPTERS: dict[Any, TypeAdapter[Any]] = {}


def _adapter(alias: Any) -> TypeAdapter[Any]:
    """The validator of a generated type alias (built once per alias)."""
    if alias not in _ADAPTERS:
        _ADAPTERS[alias] = TypeAdapter(alias)
    return _ADAPTERS[alias]


class ToolClient:
    """A typed MCP client for one spec set; generated subclasses add one method per tool."""

    SERVER: ClassVar[Mapping[str, str]]
    """The spec's `server` block (name, version, ...)."""
    TOOLS_FILE: ClassVar[Path]
    """The build's `tools/<latest revision>.json`: the definitions the client expects."""

    def __init__(self, session: ClientSession, *, drift: DriftPolicy = "warn") -> None:
        """Wrap an initialized `mcp.ClientSession`; the drift check runs on first use."""
        if drift not in ("error", "warn", "ignore"):
            raise ValueError(f"drift must be 'error', 'warn' or 'ignore', not {drift!r}")
        self.session = session
        self.drift_policy: DriftPolicy = drift
        self.drift: list[Drift] | None = None
        """How the server's tools differ from the spec (None until checked)."""

    @classmethod
    def toolset(cls) -> RuntimeToolSet:
        """The spec's tools, read once per class from `TOOLS_FILE`."""
        found = _TOOLSETS.get(cls)
        if found is None:
            from toolgen.serve.definitions import load_definitions

            found = _TOOLSETS[cls] = load_definitions(cls.SERVER, cls.TOOLS_FILE)
        return found

    # -- connecting ------------------------------------------------------------------

    async def __aenter__(self) -> Self:
        await self.check_drift()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        return None

    @classmethod
    @asynccontextmanager
    async def stdio(
        cls,
        argv: Sequence[str],
        env: Mapping[str, str] | None = None,
        *,
        cwd: str | Path | None = None,
        drift: DriftPolicy = "warn",
        mode: str = "auto",
    ) -> AsyncIterator[Self]:
        """Start `argv` as an MCP server on stdio and connect (the SDK's client, reading
        within `toolgen.limits`).

        `env`: the server's environment (None: the SDK's safe default, not this
        process's). `mode`: `"auto"` (the stateless revision if the server offers it,
        else the `initialize` handshake), `"legacy"`, or a revision such as `"2026-07-28"`.
        """
        if not argv:
            raise ValueError("argv must name the server command")
        async with open_session(command=argv, env=env, cwd=cwd, mode=mode) as session:
            yield await cls(session, drift=drift).__aenter__()

    @classmethod
    @asynccontextmanager
    async def http(
        cls,
        url: str,
        headers: Mapping[str, str] | None = None,
        *,
        drift: DriftPolicy = "warn",
        mode: str = "auto",
    ) -> AsyncIterator[Self]:
        """Connect to a Streamable HTTP endpoint (the SDK's `streamable_http_client`,
        reading within `toolgen.limits`);
        `headers` go with every request (e.g. `{"Authorization": "Bearer ..."}`)."""
        async with open_session(url=url, headers=headers, mode=mode) as session:
            yield await cls(session, drift=drift).__aenter__()

    async def check_drift(self) -> list[Drift]:
        """Compare the server's `tools/list` with the spec now; act as `drift_policy` says."""
        listed = await list_all_tools(self.session)
        self.drift = compare(self.toolset().definitions(_revision(self)), listed)
        if self.drift and self.drift_policy == "error":
            raise DriftError(self.drift)
        if self.drift and self.drift_policy == "warn":
            warnings.warn(describe(self.drift), DriftWarning, stacklevel=2)
        return self.drift


# -- calls (used by the generated methods) --------------------------------------------
# Module functions, not methods: a generated `Client` holds one method per tool, whatever the
# tools are called, so nothing the calls rely on lives in its namespace.


def _absent(value: object, models: str) -> bool:
    """Is `value` the `OMITTED` of the generated models module `models` (an argument the
    caller did not give)? Each generated package defines its own."""
    kind = type(value)
    return kind.__name__ == "Omitted" and kind.__module__ == models


def _revision(client: ToolClient) -> str:
    version = client.session.protocol_version
    if version is None:
        raise RuntimeError("the session is not initialized: call initialize() or discover()")
    return version


async def call_result(
    client: ToolClient, name: str, input_model: type[BaseModel], arguments: Mapping[str, Any]
) -> CallToolResult:
    """Validate the arguments, call, raise `ToolCallError` on `isError`: the SDK's
    `CallToolResult` (what a tool without output schema returns: content blocks)."""
    given = {k: v for k, v in arguments.items() if not _absent(v, input_model.__module__)}
    payload = input_model.model_validate(given).model_dump(
        mode="json", by_alias=True, exclude_unset=True
    )
    if client.drift is None:
        await client.check_drift()
    unsafe = [d for d in client.drift or () if d.tool == name and d.field == "safety"]
    if unsafe:
        raise DriftError(unsafe)
    result = await client.session.call_tool(name, payload)
    if result.is_error:
        raise ToolCallError(name, _text(result), result)
    return result


async def call_model(
    client: ToolClient,
    name: str,
    input_model: type[BaseModel],
    arguments: Mapping[str, Any],
    output: type[M],
) -> M:
    """A tool with an object output: its Output model."""
    result = await call_result(client, name, input_model, arguments)
    value = _value(client, name, result)
    return output.model_validate(value, by_alias=True, by_name=False)  # JSON names only


async def call_value(
    client: ToolClient,
    name: str,
    input_model: type[BaseModel],
    arguments: Mapping[str, Any],
    output: Any,
) -> Any:
    """A tool with a non-object output: the value, validated by its Output type alias."""
    result = await call_result(client, name, input_model, arguments)
    value = _value(client, name, result)
    return _adapter(output).validate_python(value, by_alias=True, by_name=False)


def _value(client: ToolClient, name: str, result: CallToolResult) -> Any:
    """The structured value of a result, unwrapped where the revision wraps it."""
    revision = _revision(client)
    tool = client.toolset().tool(name)
    if not has_structured_output(revision):  # 2025-03-26: the value is in the text
        text = _text(result)
        string = (tool.output_schema or {}).get("type") == "string"
        return text if string else json.loads(text)  # a string is sent as itself
    value = result.structured_content
    if wraps_output(tool, revision) and isinstance(value, dict) and "result" in value:
        return value["result"]
    return value


def _text(result: CallToolResult) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)
