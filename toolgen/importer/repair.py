"""Published Tool objects as MCP allows them: what is broken is repaired, and said so.

Servers publish tools that no MCP revision allows (an `inputSchema: {}`, a
name with spaces, a hint that is a string, a draft-03 `required: true`). An
import never fails on them: each is read in the nearest valid form, and every
repair is a note naming what was changed and why.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Final

from toolgen.schema.check import metaschema_errors
from toolgen.schema.limits import schema_problems
from toolgen.spec.ir import HINTS
from toolgen.spec.model import unsatisfiable_required
from toolgen.spec.positions import JsonPath

TOOL_NAME: Final = re.compile(r"^[A-Za-z0-9_.-]{1,128}$")
_NOT_NAME_CHARS: Final = re.compile(r"[^A-Za-z0-9_.-]+")
MCP_TOOL_KEYS: Final = frozenset(
    {
        "name",
        "title",
        "description",
        "inputSchema",
        "outputSchema",
        "annotations",
        "icons",
        "execution",
        "_meta",
    }
)
ANNOTATION_KEYS: Final = frozenset({"title", *(mcp for _, mcp in HINTS)})
ICON_KEYS: Final = frozenset({"src", "mimeType", "sizes", "theme"})
TASK_SUPPORT: Final = ("forbidden", "optional", "required")
MAX_SCHEMA_REPAIRS: Final = 100

Warn = Callable[[str], None]


_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def without_surrogates(value: Any) -> tuple[Any, bool]:
    """`value` (parsed JSON) with each lone surrogate in its strings and keys replaced by
    U+FFFD, and whether there was one: JSON can spell them (`"\\ud800"`), UTF-8 cannot."""
    found = False

    def clean(item: Any) -> Any:
        nonlocal found
        if isinstance(item, str):
            fixed = _SURROGATE.sub("\ufffd", item)
            found = found or fixed != item
            return fixed
        if isinstance(item, dict):
            return {clean(k): clean(v) for k, v in item.items()}
        if isinstance(item, list):
            return [clean(v) for v in item]
        return item

    return clean(value), found


def tool_name(raw: Any, index: int, seen: set[str], warn: Warn) -> str:
    """A valid tool name, unique among `seen`: the published one when it is both."""
    name = raw if isinstance(raw, str) else ""
    if not isinstance(raw, str):
        warn(f"tool #{index + 1} has no name (a string): named 'tool_{index + 1}'")
        name = f"tool_{index + 1}"
    elif not TOOL_NAME.fullmatch(name):
        fixed = _NOT_NAME_CHARS.sub("_", name)[:128] or f"tool_{index + 1}"
        warn(f"name {name!r} breaks the MCP name rule: renamed {fixed!r}")
        name = fixed
    if name in seen:
        n = 2
        while f"{name}_{n}" in seen:
            n += 1
        warn(f"a second tool is named {name!r}: renamed '{name}_{n}'")
        name = f"{name}_{n}"
    seen.add(name)
    return name


def text_field(tool: dict[str, Any], key: str, warn: Warn) -> str | None:
    """`title`/`description` when it is a string; anything else is dropped, and said so."""
    value = tool.get(key)
    if value is None or isinstance(value, str):
        return value
    warn(f"`{key}` is not a string: dropped")
    return None


def hints(raw: Any, warn: Warn) -> dict[str, Any]:
    """The MCP `ToolAnnotations` keys that are valid; the rest dropped, and said so."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        warn("`annotations` is not an object: dropped")
        return {}
    out: dict[str, Any] = {}
    for key, value in raw.items():
        if key not in ANNOTATION_KEYS:
            warn(f"`annotations.{key}` is not an MCP annotation: dropped")
        elif key == "title" and not isinstance(value, str):
            warn("`annotations.title` is not a string: dropped")
        elif key != "title" and not isinstance(value, bool):
            warn(f"`annotations.{key}` is {value!r}, not a boolean: dropped")
        else:
            out[key] = value
    return out


def icons(raw: Any, warn: Warn) -> list[dict[str, Any]] | None:
    """The icons with a string `src`, keys MCP defines; the rest dropped, and said so."""
    if raw is None:
        return None
    if not isinstance(raw, list):
        warn("`icons` is not a list: dropped")
        return None
    out = []
    for index, icon in enumerate(raw):
        if not isinstance(icon, dict) or not isinstance(icon.get("src"), str):
            warn(f"icon #{index + 1} has no `src` (a string): dropped")
            continue
        unknown = sorted(k for k in icon if k not in ICON_KEYS)
        if unknown:
            warn(f"icon #{index + 1}: {', '.join(unknown)} not MCP icon keys: dropped")
        out.append({k: v for k, v in icon.items() if k in ICON_KEYS})
    return out


def execution(raw: Any, warn: Warn) -> dict[str, Any] | None:
    """`execution` as MCP defines it (`taskSupport`); the rest dropped, and said so."""
    if raw is None:
        return None
    if not isinstance(raw, dict):
        warn("`execution` is not an object: dropped")
        return None
    out = {}
    for key, value in raw.items():
        if key == "taskSupport" and value in TASK_SUPPORT:
            out[key] = value
        else:
            warn(f"`execution.{key}` = {value!r} is not MCP's: dropped")
    return out


def meta(raw: Any, warn: Warn) -> dict[str, Any] | None:
    if raw is None or isinstance(raw, dict):
        return raw
    warn("`_meta` is not an object: dropped")
    return None


SCHEMA_CHECKS: Final = (metaschema_errors, unsatisfiable_required, schema_problems)
"""What the frontend refuses in a spec's schema, in the order it checks: the metaschema
(2020-12), a `required` name a closed object can never have, and what a validator cannot
compile (a pattern its regex engine refuses, a `$dynamicRef` to no anchor)."""


def valid_schema(schema: Any, part: str, warn: Warn) -> Any:
    """`schema` with every keyword the frontend would refuse removed, one by one."""
    for _ in range(MAX_SCHEMA_REPAIRS):
        problem = _first_problem(schema)
        if problem is None:
            return schema
        path, message = problem
        if not path:
            warn(f"{part} is not a schema ({message}): imported as accepting anything")
            return {}
        schema = _without(schema, path)
        warn(f"{part}: removed invalid `{'/'.join(map(str, path))}` ({message})")
    warn(f"{part}: too many invalid keywords: imported as accepting anything")
    return {}


def _first_problem(schema: Any) -> tuple[JsonPath, str] | None:
    for check in SCHEMA_CHECKS:
        problem = next(iter(check(schema)), None)
        if problem is not None:
            return problem
    return None


def _without(schema: Any, path: JsonPath) -> Any:
    """A copy of `schema` without the value at `path` (a key, or a list item)."""
    head, rest = path[0], path[1:]
    if isinstance(schema, dict):
        if not rest:
            return {k: v for k, v in schema.items() if k != head}
        return {k: (_without(v, rest) if k == head else v) for k, v in schema.items()}
    if isinstance(schema, list) and isinstance(head, int):
        if not rest:
            return [v for i, v in enumerate(schema) if i != head]
        return [(_without(v, rest) if i == head else v) for i, v in enumerate(schema)]
    return schema
