"""Diff two sides: pair servers and tools, find renames, judge each pair, check the version.

Servers pair by name (a side with one server pairs with the other side's
one server whatever its name); tools pair by name; a removed tool and an
added one with the same schemas and a similar name (or the same
description) are a rename, judged as one tool. Every tool gets its digest
on both sides, so the report says which tools changed at a glance; a tool
whose digest changed with nothing else to report gets `definition-rewritten`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import replace
from difflib import SequenceMatcher
from typing import Any

from toolgen.diff.documents import Document
from toolgen.diff.model import Change, ServerDiff, make_change
from toolgen.diff.schemas import compare_schemas
from toolgen.diff.sides import Side
from toolgen.diff.tools import SetContext, compare_tools, text_change
from toolgen.report.findings import Severity
from toolgen.schema.jsonequal import same
from toolgen.spec.digests import digest, tool_digests
from toolgen.spec.ir import Tool, ToolSet
from toolgen.spec.protocol import LATEST_REVISION, tool_definition

_RENAME_NAME_RATIO = 0.5
_SEMVER = re.compile(r"^v?(\d+)\.(\d+)\.(\d+)")


def diff_sides(old: Side, new: Side) -> list[ServerDiff]:
    """The diff of every server of OLD and NEW."""
    if len(old.toolsets) == 1 and len(new.toolsets) == 1:
        pairs = [(old.toolsets[0], new.toolsets[0])]
        gone: list[ToolSet] = []
        added: list[ToolSet] = []
    else:
        by_name = {t.server.name: t for t in new.toolsets}
        pairs = [(t, by_name[t.server.name]) for t in old.toolsets if t.server.name in by_name]
        paired = {t.server.name for t, _ in pairs}
        gone = [t for t in old.toolsets if t.server.name not in paired]
        added = [
            t for t in new.toolsets if t.server.name not in {o.server.name for o in old.toolsets}
        ]
    servers = [diff_toolsets(a, b, old.published, new.published) for a, b in pairs]
    for toolset in gone:
        server = ServerDiff(toolset.server.name, old_digests=digests_of(toolset, old.published))
        where = toolset.server.origin.locate() if toolset.server.origin else None
        server.changes.append(
            make_change(
                "TD104",
                f"server {toolset.server.name!r} was removed with its {len(toolset.tools)} tools",
                tool=None,
                location=where,
            )
        )
        servers.append(server)
    for toolset in added:
        server = ServerDiff(toolset.server.name, new_digests=digests_of(toolset, new.published))
        where = toolset.server.origin.locate() if toolset.server.origin else None
        server.changes.append(
            make_change(
                "TD105", f"server {toolset.server.name!r} was added", tool=None, location=where
            )
        )
        servers.append(server)
    return servers


def diff_toolsets(
    old: ToolSet, new: ToolSet, old_published: bool, new_published: bool
) -> ServerDiff:
    """The changes between two versions of one server."""
    old_digests, new_digests = _both_digests(old, new, old_published, new_published)
    server = ServerDiff(new.server.name, old_digests=old_digests, new_digests=new_digests)
    if not old_published and not new_published:
        if old.server.declared and new.server.declared:  # else there is no version to check
            server.old_version, server.new_version = old.server.version, new.server.version
            server.version_origin = new.server.origin
        server.changes += _server_docs(old, new)
    old_ctx, new_ctx = _context(old), _context(new)
    old_tools = {t.name: t for t in old.tools}
    new_tools = {t.name: t for t in new.tools}
    removed = [t for t in old.tools if t.name not in new_tools]
    added = [t for t in new.tools if t.name not in old_tools]
    renames = find_renames(removed, added, old_ctx, new_ctx)
    pairs = [(old_tools[t.name], t) for t in new.tools if t.name in old_tools]
    for before, after in pairs:
        changes = compare_tools(before, after, old_ctx, new_ctx)
        if not changes and server.old_digests.get(before.name) != server.new_digests.get(
            after.name
        ):
            changes.append(
                make_change(
                    "TD001",
                    "the definition changed (its digest too) but not its meaning",
                    tool=after.name,
                    location=after.origin.locate(),
                )
            )
        server.changes += changes
    renamed_old = {a.name for a, _ in renames}
    renamed_new = {b.name for _, b in renames}
    for before, after in renames:
        server.changes.append(
            make_change(
                "TD103",
                f"tool {before.name!r} was renamed {after.name!r} (removed, and added with the same schemas); callers of {before.name!r} break",
                tool=after.name,
                location=after.origin.locate("name"),
            )
        )
        server.changes += compare_tools(before, after, old_ctx, new_ctx)
    for tool in removed:
        if tool.name not in renamed_old:
            server.changes.append(
                make_change(
                    "TD101",
                    f"tool {tool.name!r} was removed; clients that call it get an unknown-tool error",
                    tool=tool.name,
                    location=tool.origin.locate("name"),
                )
            )
    for tool in added:
        if tool.name not in renamed_new:
            server.changes.append(
                make_change(
                    "TD102",
                    f"tool {tool.name!r} was added",
                    tool=tool.name,
                    location=tool.origin.locate("name"),
                )
            )
    return server


def find_renames(
    removed: list[Tool], added: list[Tool], old_ctx: SetContext, new_ctx: SetContext
) -> list[tuple[Tool, Tool]]:
    """Pairs (removed, added) that look like one tool renamed, best match first."""
    scored: list[tuple[float, int, int]] = []
    for i, before in enumerate(removed):
        for j, after in enumerate(added):
            ratio = _name_ratio(before.name, after.name)
            alike = ratio >= _RENAME_NAME_RATIO or (
                before.description is not None and before.description == after.description
            )
            if alike and same_schemas(before, after, old_ctx, new_ctx):
                scored.append((ratio, i, j))
    renames: list[tuple[Tool, Tool]] = []
    used_old: set[int] = set()
    used_new: set[int] = set()
    for _, i, j in sorted(scored, reverse=True):
        if i not in used_old and j not in used_new:
            used_old.add(i)
            used_new.add(j)
            renames.append((removed[i], added[j]))
    return renames


def _name_ratio(a: str, b: str) -> float:
    """How alike two names are (0 to 1); the cheap upper bounds first, as many pairs differ."""
    matcher = SequenceMatcher(None, a, b)
    if (
        matcher.real_quick_ratio() < _RENAME_NAME_RATIO
        or matcher.quick_ratio() < _RENAME_NAME_RATIO
    ):
        return 0.0
    return matcher.ratio()


def same_schemas(a: Tool, b: Tool, a_ctx: SetContext, b_ctx: SetContext) -> bool:
    """Whether two tools accept and return the same values (docs may differ)."""
    if (a.output_schema is None) != (b.output_schema is None):
        return False
    parts: list[tuple[Any, Any]] = [(a.input_schema, b.input_schema)]
    if a.output_schema is not None:
        parts.append((a.output_schema, b.output_schema))
    for x, y in parts:
        deltas = compare_schemas(
            Document(x, None, a_ctx.def_origins), Document(y, None, b_ctx.def_origins)
        )
        if any(d.validates for d in deltas):
            return False
    return True


def _context(toolset: ToolSet) -> SetContext:
    return SetContext({d.name: d.origin for d in toolset.defs})


def definitions_of(
    toolset: ToolSet, published: bool, revision: str = LATEST_REVISION
) -> dict[str, Mapping[str, Any]]:
    """Each tool's definition as clients see it: the published object as it is, or the
    definition toolgen serves for `revision`."""
    if published:
        return {t.name: t.origin.value() for t in toolset.tools}
    return {t.name: tool_definition(t, revision) for t in toolset.tools}


def digests_of(
    toolset: ToolSet, published: bool, revision: str = LATEST_REVISION
) -> dict[str, str]:
    """Tool digests as clients compute them (see `definitions_of`)."""
    return tool_digests(definitions_of(toolset, published, revision).values())


def _both_digests(
    old: ToolSet, new: ToolSet, old_published: bool, new_published: bool
) -> tuple[dict[str, str], dict[str, str]]:
    """Digests of both sides; a definition equal on both sides is digested once."""
    before = definitions_of(old, old_published)
    after = definitions_of(new, new_published)
    old_digests = {name: digest(d) for name, d in before.items()}
    new_digests = {
        name: old_digests[name] if same(before.get(name), d) else digest(d)
        for name, d in after.items()
    }
    return old_digests, new_digests


def _server_docs(old: ToolSet, new: ToolSet) -> Iterable[Change]:
    for key in ("title", "description", "instructions"):
        a, b = getattr(old.server, key), getattr(new.server, key)
        if a != b:
            where = new.server.origin.locate(key) if new.server.origin else None
            yield make_change(
                "TD504",
                f"server {key} {text_change(a, b)}",
                tool=None,
                path=f"/server/{key}",
                location=where,
            )


def _semver(version: str | None) -> tuple[int, ...] | None:
    match = _SEMVER.match(version) if version is not None else None
    return tuple(map(int, match.groups())) if match else None


def major_bump(server: ServerDiff) -> bool | None:
    """Whether `server.version` went up a major version (a minor one before 1.0.0); None
    when a side has no version or either is no semantic version."""
    a, b = _semver(server.old_version), _semver(server.new_version)
    if a is None or b is None:
        return None
    return b[0] > a[0] or (a[0] == 0 == b[0] and b[1] > a[1])


def version_check(server: ServerDiff) -> Change | None:
    """`version-not-bumped` when the server has breaking changes and no new major version."""
    if server.old_version is None or server.new_version is None:
        return None
    if not any(c.breaking for c in server.changes):
        return None
    bumped, a = major_bump(server), _semver(server.old_version)
    where = server.version_origin.locate("version") if server.version_origin else None
    if bumped is None:
        if server.old_version != server.new_version:
            return None  # not semantic versions: any new version may be a major one
        message = f"breaking changes, but server.version stays {server.new_version!r}"
    elif bumped or a is None:
        return None
    else:
        want = f"{a[0] + 1}.0.0" if a[0] > 0 else f"0.{a[1] + 1}.0"
        message = f"breaking changes, but server.version {server.old_version!r} → {server.new_version!r} is not a major bump (expected {want} or later)"
    return make_change(
        "TD601", message, tool=None, path="/server/version", location=where, severity=Severity.ERROR
    )


def accepted(change: Change, server: ServerDiff) -> Change:
    """A breaking `change` that the server's major version bump announces, as a notice."""
    bump = f"{server.old_version} → {server.new_version}"
    return replace(
        change,
        breaking=False,
        severity=Severity.INFO,
        message=f"{change.message} (accepted: the major version bump {bump} announces it)",
    )
