"""Listing vs spec: the tools a server lists against the tools its spec set describes.

What the spec says a tool looks like at a revision is `tool_definition(tool,
revision)`, the same function toolgen's own servers and builds use. Schemas
are compared by meaning (`toolgen diff`'s schema comparison), hints as clients
read them (MCP defaults filled in), titles and descriptions as text.

A field the revision does not have (`title` and `outputSchema` before 2025-06-18,
`annotations` in 2024-11-05) is compared only when the server lists it anyway,
and then with what the spec says at the newest legacy revision: servers send
one listing whatever version they negotiated, and clients ignore what their
revision lacks.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any, Final

from toolgen.diff.documents import Document
from toolgen.diff.schemas import Comparison
from toolgen.schema.dialects import DRAFT_2020_12, dialect_of, to_2020_12
from toolgen.spec.ir import MCP_HINT_DEFAULTS, Tool, ToolSet
from toolgen.spec.positions import JsonPath
from toolgen.spec.protocol import (
    LATEST_LEGACY_REVISION,
    WRAP_KEY,
    has_annotations,
    has_structured_output,
    tool_definition,
    wraps_output,
)
from toolgen.verify.official import official_problem
from toolgen.verify.probes import show
from toolgen.verify.results import Result, broken, failed, passed

TOOL_CHECKS: Final = (
    "listing.annotations",
    "listing.input-schema",
    "listing.output-schema",
    "listing.title",
    "listing.description",
)
LISTING_CHECKS: Final = (
    "listing.result-shape",
    "listing.tool-missing",
    "listing.tool-extra",
    "listing.tool-duplicate",
    *TOOL_CHECKS,
)
_NEWER_FIELDS: Final = ("title", "outputSchema")


def listing_results(
    toolset: ToolSet, listed: list[Any], revision: str, selected: Collection[str]
) -> list[Result]:
    """Every listing check for the tools in `selected` (and extra tools of any name)."""
    out: list[Result] = []
    by_name: dict[str, Mapping[str, Any]] = {}
    counts: dict[str, int] = {}
    shape = None
    for index, definition in enumerate(listed):
        problem = official_problem(revision, "Tool", definition)
        if problem and shape is None:
            shape = f"tools[{index}]: {problem}"
        if isinstance(definition, Mapping) and isinstance(definition.get("name"), str):
            by_name[definition["name"]] = definition
            counts[definition["name"]] = counts.get(definition["name"], 0) + 1
    out.append(
        failed("listing.result-shape", shape, revision=revision)
        if shape
        else passed("listing.result-shape", f"{len(listed)} tools", revision=revision)
    )
    known = {tool.name for tool in toolset.tools}
    extra = sorted(set(by_name) - known)
    out += [
        failed("listing.tool-extra", f"`{name}` is listed but not in the spec", name, revision)
        for name in extra
    ]
    if not extra:
        out.append(passed("listing.tool-extra", "no undescribed tools", revision=revision))
    twice = sorted(name for name, count in counts.items() if count > 1)
    out += [
        failed("listing.tool-duplicate", f"`{name}` is listed {counts[name]} times", name, revision)
        for name in twice
    ]
    if not twice:
        out.append(passed("listing.tool-duplicate", "every name once", revision=revision))
    for tool in toolset.tools:
        if tool.name not in selected:
            continue
        definition = by_name.get(tool.name)
        if definition is None:
            out.append(failed("listing.tool-missing", "not listed", tool.name, revision))
            continue
        out.append(passed("listing.tool-missing", "listed", tool.name, revision))
        try:
            out += tool_results(tool, definition, revision)
        except Exception as exc:  # a bug of verify: an error, never a pass
            out += [broken(check, exc, tool.name, revision) for check in TOOL_CHECKS]
    return out


def tool_results(tool: Tool, listed: Mapping[str, Any], revision: str) -> list[Result]:
    """The per-tool listing checks."""
    expected = tool_definition(tool, revision)
    if not has_structured_output(revision):
        newer = tool_definition(tool, LATEST_LEGACY_REVISION)
        for key in _NEWER_FIELDS:
            if key in listed and key in newer:
                expected[key] = newer[key]
    hints = has_annotations(revision) or "annotations" in listed
    checks: list[tuple[str, str | None]] = [
        ("listing.annotations", _annotations_problem(tool, listed) if hints else None),
        (
            "listing.input-schema",
            _schema_problem(expected.get("inputSchema"), listed.get("inputSchema"), "inputSchema"),
        ),
        ("listing.output-schema", _output_problem(tool, expected, listed, revision)),
        ("listing.title", _text_problem("title", _title(expected), _title(listed))),
        (
            "listing.description",
            _text_problem("description", expected.get("description"), listed.get("description")),
        ),
    ]
    return [
        failed(check, problem, tool.name, revision)
        if problem
        else passed(check, "as in the spec", tool.name, revision)
        for check, problem in checks
    ]


def _annotations_problem(tool: Tool, listed: Mapping[str, Any]) -> str | None:
    found = listed.get("annotations")
    found = found if isinstance(found, Mapping) else {}
    differences = []
    for hint, want in tool.annotations.effective().items():
        got = found.get(hint, MCP_HINT_DEFAULTS[hint])
        if got != want:
            written = "" if hint in found else " (not declared: the MCP default)"
            differences.append(f"{hint} is {show(got)}{written}, the spec says {show(want)}")
    return "; ".join(differences) or None


def _schema_problem(expected: Any, actual: Any, what: str) -> str | None:
    if actual is None and expected is None:
        return None
    if actual is None:
        return f"the listing has no {what}"
    if expected is None:
        return f"the listing declares an {what} the spec does not have"
    difference = meaning_difference(expected, actual)
    if difference is None:
        return None
    path, text = difference
    return f"{what} accepts different values at {_pointer(path)}: {text}"


def meaning_difference(expected: Any, actual: Any) -> tuple[JsonPath, str] | None:
    """The first way `actual` accepts other values than `expected` (None: the same values).

    `toolgen diff`'s schema comparison: `$ref` vs inline, `$defs` names, key order and
    annotations are not differences; a changed or removed constraint is. A listed schema
    that declares an older dialect (draft-07's `dependencies`, tuple `items`, ...) is read
    in that dialect: converted to 2020-12 the way `toolgen import` converts it."""
    expected, actual = _in_2020_12(expected), _in_2020_12(actual)
    deltas = Comparison(Document(expected, None), Document(actual, None)).run()
    for delta in deltas:
        if delta.validates:
            return (*delta.path, *delta.at), delta.message
    return None


def _in_2020_12(schema: Any) -> Any:
    dialect = dialect_of(schema)
    if dialect is None or dialect == DRAFT_2020_12:
        return schema
    return to_2020_12(schema, dialect).schema


def _output_problem(
    tool: Tool, expected: Mapping[str, Any], listed: Mapping[str, Any], revision: str
) -> str | None:
    actual = listed.get("outputSchema")
    if (
        tool.output_schema is None
        or not wraps_output(tool, revision)
        or not isinstance(actual, dict)
    ):
        return _schema_problem(expected.get("outputSchema"), actual, "outputSchema")
    # A non-object output at a legacy revision: any object wrapper with a required
    # `result` property holding the spec's schema is the same contract.
    properties = actual.get("properties")
    required = actual.get("required")
    if (
        actual.get("type") != "object"
        or not isinstance(properties, dict)
        or WRAP_KEY not in properties
        or not isinstance(required, list)
        or WRAP_KEY not in required
    ):
        return f"outputSchema should wrap the non-object output as {{{WRAP_KEY!r}: ...}}"
    inner = dict(properties[WRAP_KEY])
    if "$defs" in actual and isinstance(inner, dict):
        inner.setdefault("$defs", actual["$defs"])
    return _schema_problem(dict(tool.output_schema), inner, f"outputSchema.properties.{WRAP_KEY}")


def _title(definition: Mapping[str, Any]) -> Any:
    title = definition.get("title")
    annotations = definition.get("annotations")
    if title is None and isinstance(annotations, Mapping):
        title = annotations.get("title")
    return title


def _text_problem(what: str, expected: Any, actual: Any) -> str | None:
    if expected == actual:
        return None
    return f"{what} is {show(actual, 120)}, the spec says {show(expected, 120)}"


def _pointer(path: JsonPath) -> str:
    return "/" + "/".join(str(p) for p in path) if path else "the root"
