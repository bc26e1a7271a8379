"""Name rules (TG2xx): the MCP name rule, one casing style, length, confusable names."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator

from toolgen.lint.context import Context
from toolgen.lint.model import Category, Hit
from toolgen.lint.registry import rule
from toolgen.report.findings import Severity
from toolgen.spec.ir import Tool

N = Category.NAMES

MCP_TOOL_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,128}$")
"""The MCP tool name rule (same as `toolgen.spec.model.TOOL_NAME_PATTERN`, which spec files
must already meet; published definitions need not)."""

_STYLES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("lower", re.compile(r"^[a-z][a-z0-9]*$")),
    ("snake_case", re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$")),
    ("kebab-case", re.compile(r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)+$")),
    ("camelCase", re.compile(r"^[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+$")),
    ("PascalCase", re.compile(r"^(?:[A-Z][a-z0-9]*)+$")),
    ("SCREAMING_SNAKE_CASE", re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$")),
)
_LOWER_FITS = frozenset({"snake_case", "kebab-case", "camelCase"})


def name_style(name: str) -> str:
    """The casing style of a tool name (of its last `.`-separated part), or `mixed`."""
    last = name.rsplit(".", 1)[-1]
    for style, pattern in _STYLES:
        if pattern.fullmatch(last):
            return style
    return "mixed"


def _fits(style: str, wanted: str) -> bool:
    return style == wanted or (style == "lower" and wanted in _LOWER_FITS)


@rule("TG201", "invalid-tool-name", N, Severity.ERROR)
def invalid_tool_name(tool: Tool, ctx: Context) -> Iterator[Hit]:
    """A tool name breaks the MCP name rule.

    What it does: Flags a name that does not match `^[A-Za-z0-9_.-]{1,128}$`
    (1 to 128 characters: ASCII letters, digits, `_`, `-` and `.`).

    Why: MCP requires it (2025-11-25 onwards). Clients reject or rewrite names
    with spaces, slashes or other characters, and some refuse the whole tool
    list. Spec files cannot have such names (loading fails); published
    definitions of other servers can.

    Example:

        {"name": "create note", ...}                       # TG201

    Use `create_note`.
    """
    if not MCP_TOOL_NAME.fullmatch(tool.name):
        yield Hit(
            f"tool name {tool.name!r} does not match the MCP rule ^[A-Za-z0-9_.-]{{1,128}}$",
            ctx.name_location(tool),
        )


@rule("TG202", "inconsistent-name-casing", N, Severity.WARNING, scope="set")
def inconsistent_name_casing(ctx: Context) -> Iterator[Hit]:
    """Tool names of one server mix casing styles.

    What it does: Finds the casing style most tool names use (`snake_case`,
    `kebab-case`, `camelCase`, `PascalCase`; a one-word lowercase name fits the
    first three) and flags names in another style. Set `name-style` to require
    one style instead of the majority. For namespaced names (`github.get_issue`)
    the part after the last `.` counts.

    Why: Models guess tool names from the ones they have seen; `getIssue` next
    to `list_issues` invites calls to `get_issue` or `listIssues`, which do not
    exist.

    Example:

        - name: list_notes
        - name: getNote                                     # TG202

    Rename to `get_note`.
    """
    tools = ctx.toolset.tools
    styles = {tool.name: name_style(tool.name) for tool in tools}
    wanted = ctx.options.name_style
    if wanted == "auto":
        counts = Counter(s for s in styles.values() if s not in ("lower", "mixed"))
        if not counts:
            return
        top = max(counts.values())
        wanted = next(styles[t.name] for t in tools if counts.get(styles[t.name]) == top)
        why = f"{counts[wanted]} of {len(tools)} tools use {wanted}"
    else:
        why = f"name-style is {wanted}"
    for tool in tools:
        style = styles[tool.name]
        if not _fits(style, wanted):
            shown = "mixes styles" if style == "mixed" else f"is {style}"
            yield Hit(
                f"tool name {tool.name!r} {shown}; {why}",
                ctx.name_location(tool),
                tool.name,
            )


@rule("TG203", "long-tool-name", N, Severity.WARNING)
def long_tool_name(tool: Tool, ctx: Context) -> Iterator[Hit]:
    """A tool name is longer than 64 characters.

    What it does: Flags names longer than `max-name-length` (default 64).

    Why: MCP allows 128 characters, but several clients and model APIs cut or
    reject function names past 64 (often after prefixing the server name), so
    the tool cannot be called or collides with another.

    Example:

        name: list_all_open_pull_requests_with_failing_checks_for_a_repository   # TG203

    Shorten it; put the detail in the description.
    """
    limit = ctx.options.max_name_length
    if len(tool.name) > limit:
        yield Hit(
            f"tool name is {len(tool.name)} characters long; some clients cut names past {limit}",
            ctx.name_location(tool),
        )


@rule("TG204", "confusable-tool-names", N, Severity.WARNING, scope="set")
def confusable_tool_names(ctx: Context) -> Iterator[Hit]:
    """Two tool names differ only in case or separators.

    What it does: Flags a tool whose name equals an earlier tool's name once case
    and the separators `_`, `-`, `.` are ignored (`get_user`, `getUser`, `get-user`).

    Why: Names are case-sensitive in MCP, but not to models and people: the model
    calls the wrong one, and clients that normalise names see a duplicate.

    Example:

        - name: get_user
        - name: getUser                                     # TG204

    Give them names that say how they differ.
    """
    first: dict[str, Tool] = {}
    for tool in ctx.toolset.tools:
        key = re.sub(r"[-_.]", "", tool.name.lower())
        if key in first:
            yield Hit(
                f"tool name {tool.name!r} differs from {first[key].name!r} only in case or separators",
                ctx.name_location(tool),
                tool.name,
            )
        else:
            first[key] = tool


@rule("TG205", "too-many-tools", N, Severity.WARNING, scope="set")
def too_many_tools(ctx: Context) -> Iterator[Hit]:
    """A server offers more tools than clients handle well.

    What it does: Flags a spec set with more than `max-tools` tools (default 128).

    Why: Clients cap the tools they send to a model (some at 128, some far lower),
    silently dropping the rest, and every tool definition costs context and makes
    choosing the right tool harder.

    Example:

        tools: [... 129 tools ...]                          # TG205

    Split the server, or group related operations into one tool with a `method`
    argument.
    """
    count, limit = len(ctx.toolset.tools), ctx.options.max_tools
    if count > limit:
        yield Hit(
            f"the server has {count} tools; clients cap or degrade past {limit}",
            ctx.server_location(),
        )
