"""Rebuild a spec set's IR from built artifacts, so generated servers need no YAML.

A generated package carries its tool definitions for the latest revision
(`tools/<revision>.json`, where outputs are never wrapped) and its server
identity as literals. `toolset_from_definitions` inverts
`toolgen.spec.protocol.tool_definition` for that revision, so the served
definitions are exactly the ones the build wrote, for every revision. Loading
JSON instead of parsing and checking YAML also makes a generated server start
faster.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from toolgen.serve import jsonrpc
from toolgen.serve.toolset import RuntimeToolSet
from toolgen.spec.ir import Annotations, Origin, Server, Tool, ToolSet
from toolgen.spec.positions import SourceFile
from toolgen.spec.protocol import LATEST_REVISION

DEFINITIONS_REVISION = LATEST_REVISION
"""The revision whose definitions carry every output schema unwrapped."""


def _origin(path: Path, where: tuple[str | int, ...]) -> Origin:
    source = SourceFile(path=path, display=str(path), data=None, positions={}, key_positions={})
    return Origin(source, where)


def toolset_from_definitions(
    server: Mapping[str, Any],
    definitions: Sequence[Mapping[str, Any]],
    *,
    path: Path = Path("<definitions>"),
) -> ToolSet:
    """The IR of MCP `Tool` objects of revision `DEFINITIONS_REVISION` and a server block.

    `server` has the spec's `server` keys (`name`, `version`, optional `title`,
    `description`, `instructions`). Examples are not part of definitions;
    `execution` (no field of the latest revision) is added by `load_definitions`.
    """
    tools = tuple(
        Tool(
            name=d["name"],
            title=d.get("title"),
            description=d.get("description"),
            annotations=Annotations.from_mcp(d.get("annotations", {})),
            input_schema=d["inputSchema"],
            output_schema=d.get("outputSchema"),
            examples=(),
            extensions={},
            origin=_origin(path, ("tools", index)),
            icons=tuple(d["icons"]) if "icons" in d else None,
            meta=d.get("_meta"),
            refs="keep",  # the build decided: served exactly as written
        )
        for index, d in enumerate(definitions)
    )
    info = Server(
        name=server["name"],
        version=server["version"],
        title=server.get("title"),
        description=server.get("description"),
        instructions=server.get("instructions"),
    )
    return ToolSet(server=info, tools=tools)


EXECUTION_REVISION = "2025-11-25"
"""The one revision whose `Tool` has `execution`; a build writes its definitions beside."""


def load_definitions(server: Mapping[str, Any], tools_file: str | Path) -> RuntimeToolSet:
    """A `RuntimeToolSet` from a built `tools/<revision>.json` (a `tools/list` result body).

    `execution`, which the latest revision has no field for, is taken from the
    build's `tools/2025-11-25.json` beside it, when there is one.
    """
    path = Path(tools_file)
    body = jsonrpc.decode(path.read_bytes())
    toolset = toolset_from_definitions(server, body["tools"], path=path)
    executions = _executions(path.with_name(f"{EXECUTION_REVISION}.json"))
    if executions:
        tools = tuple(replace(t, execution=executions.get(t.name)) for t in toolset.tools)
        toolset = replace(toolset, tools=tools)
    return RuntimeToolSet(toolset)


def _executions(path: Path) -> dict[str, Any]:
    """Tool name → `execution`, from a build's 2025-11-25 definitions (empty when none)."""
    try:
        tools = jsonrpc.decode(path.read_bytes())["tools"]
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    return {t["name"]: t["execution"] for t in tools if isinstance(t, dict) and "execution" in t}
