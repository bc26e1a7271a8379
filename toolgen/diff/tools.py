"""Judge the differences between two versions of one tool: safety, docs, schemas, wrapping.

Schema deltas become changes by side, the request/response asymmetry: what
clients send (input) breaks when it narrows, what they receive (output)
breaks when it widens. Safety hints are compared as clients read them (MCP
defaults filled in; a read-only tool counts as non-destructive and
idempotent), so a hint that becomes undeclared can be a regression too.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from toolgen.diff.codes import find
from toolgen.diff.deltas import NO, YES, Certainty, Delta, Kind
from toolgen.diff.documents import Document, root_origin
from toolgen.diff.model import Change, make_change
from toolgen.diff.schemas import compare_schemas
from toolgen.report.findings import Severity
from toolgen.schema.jsonequal import same
from toolgen.schema.pointer import join
from toolgen.spec.errors import Location
from toolgen.spec.ir import HINTS, Annotations, Origin, Tool
from toolgen.spec.positions import JsonPath
from toolgen.spec.protocol import EMITTED_REVISIONS, wraps_output

_INPUT_CODES: Mapping[Kind, str] = {
    Kind.REQUIRED_PROPERTY_ADDED: "TD201",
    Kind.BECAME_REQUIRED: "TD202",
    Kind.PROPERTY_REMOVED: "TD203",
    Kind.PROPERTY_ADDED: "TD204",
    Kind.BECAME_OPTIONAL: "TD205",
    Kind.ENUM_REMOVED: "TD208",
    Kind.ENUM_ADDED: "TD209",
    Kind.TIGHTENED: "TD210",
    Kind.RELAXED: "TD211",
    Kind.CONSTRAINT_CHANGED: "TD212",
    Kind.CLOSED: "TD213",
    Kind.OPENED: "TD214",
    Kind.DEFAULT: "TD215",
    Kind.SCHEMA: "TD216",
    Kind.DOCS: "TD503",
}
_OUTPUT_CODES: Mapping[Kind, str] = {
    Kind.PROPERTY_REMOVED: "TD301",
    Kind.BECAME_OPTIONAL: "TD302",
    Kind.PROPERTY_ADDED: "TD303",
    Kind.REQUIRED_PROPERTY_ADDED: "TD303",
    Kind.BECAME_REQUIRED: "TD304",
    Kind.ENUM_ADDED: "TD307",
    Kind.ENUM_REMOVED: "TD308",
    Kind.RELAXED: "TD309",
    Kind.TIGHTENED: "TD310",
    Kind.CONSTRAINT_CHANGED: "TD311",
    Kind.OPENED: "TD312",
    Kind.CLOSED: "TD313",
    Kind.DEFAULT: "TD314",
    Kind.SCHEMA: "TD315",
    Kind.DOCS: "TD503",
}
_WORTH_A_LOOK = frozenset({"TD203", "TD215", "TD502"})
"""Non-breaking changes reported as warnings: they change behaviour or what models read."""


@dataclass(frozen=True)
class SetContext:
    """What a tool comparison needs to know about the spec set a tool comes from."""

    def_origins: Mapping[str, Origin] = field(default_factory=dict)

    def document(self, schema: Mapping[str, Any], origin: Origin | None) -> Document:
        """A schema of this set, ready to compare."""
        return Document(schema, root_origin(origin, self.def_origins), self.def_origins)


def compare_tools(old: Tool, new: Tool, old_set: SetContext, new_set: SetContext) -> list[Change]:
    """Every change between two versions of a tool (the same tool, or a renamed one)."""
    changes = [*_safety(old, new), *_docs(old, new)]
    changes += _schemas(old, new, old_set, new_set)
    changes += _wrapping(old, new)
    return changes


# -- schemas -------------------------------------------------------------------


def _schemas(old: Tool, new: Tool, old_set: SetContext, new_set: SetContext) -> list[Change]:
    changes: list[Change] = []
    if not same(old.input_schema, new.input_schema):
        a = old_set.document(old.input_schema, old.input_origin)
        b = new_set.document(new.input_schema, new.input_origin)
        changes += [_from_delta(d, "input", new) for d in compare_schemas(a, b)]
    if old.output_schema is not None and new.output_schema is not None:
        if not same(old.output_schema, new.output_schema):
            a = old_set.document(old.output_schema, old.output_origin)
            b = new_set.document(new.output_schema, new.output_origin)
            changes += [_from_delta(d, "output", new) for d in compare_schemas(a, b)]
    elif old.output_schema is not None:
        where = (old.output_origin or old.origin).locate()
        changes.append(
            make_change(
                "TD316",
                "the output schema was removed; clients lose structuredContent",
                tool=new.name,
                path="/outputSchema",
                location=where,
            )
        )
    elif new.output_schema is not None:
        where = (new.output_origin or new.origin).locate()
        changes.append(
            make_change(
                "TD317",
                "an output schema was added",
                tool=new.name,
                path="/outputSchema",
                location=where,
            )
        )
    return changes


def _from_delta(delta: Delta, side: str, tool: Tool) -> Change:
    if delta.kind is Kind.TYPE:
        narrows_or_widens = delta.narrows if side == "input" else delta.widens
        code = {
            ("input", True): "TD206",
            ("input", False): "TD207",
            ("output", True): "TD305",
            ("output", False): "TD306",
        }[(side, narrows_or_widens is not NO)]
    else:
        code = (_INPUT_CODES if side == "input" else _OUTPUT_CODES)[delta.kind]
    certainty = delta.narrows if side == "input" else delta.widens
    if code == "TD301":
        certainty = YES  # clients read what the output promised
    elif code == "TD303":
        certainty = NO  # clients ignore what they do not know
    where = describe_path(delta.path)
    message = f"{side} {where}: {delta.message}"
    path = pointer(side, (*delta.path, *delta.at))
    return _judged(code, message, certainty, tool.name, path, delta.location())


def _judged(
    code: str, message: str, certainty: Certainty, tool: str, path: str, location: Location | None
) -> Change:
    entry = find(code)
    assert entry is not None
    if certainty is NO:
        severity = Severity.WARNING if code in _WORTH_A_LOOK else Severity.INFO
        return make_change(
            code,
            message,
            tool=tool,
            path=path,
            location=location,
            breaking=False,
            severity=severity,
        )
    why = entry.why.split(". ")[0].rstrip(".")
    if certainty is YES:
        return make_change(
            code,
            f"{message}; {why[0].lower()}{why[1:]}",
            tool=tool,
            path=path,
            location=location,
            breaking=True,
            severity=Severity.ERROR,
        )
    return make_change(
        code,
        f"{message}; possibly breaking: toolgen cannot prove it harmless",
        tool=tool,
        path=path,
        location=location,
        breaking=True,
        severity=Severity.WARNING,
    )


def pointer(side: str, path: JsonPath) -> str:
    """The JSON pointer of a schema path inside a tool definition."""
    root = "/inputSchema" if side == "input" else "/outputSchema"
    return join(root, *path)


def describe_path(path: JsonPath) -> str:
    """A schema path as people read it: `note.tags[]`, `(root)`."""
    out = ""
    tokens = list(path)
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token == "properties" and i + 1 < len(tokens):
            out += ("." if out else "") + str(tokens[i + 1])
            i += 2
            continue
        if token == "items":
            out += "[]"
        elif isinstance(token, int):
            out += f"[{token}]"
        else:
            out += ("." if out else "") + f"<{token}>"
        i += 1
    return f"`{out}`" if out else "(root)"


# -- safety --------------------------------------------------------------------

_REGRESSIONS = {
    "readOnlyHint": ("TD401", True),
    "destructiveHint": ("TD402", False),
    "idempotentHint": ("TD403", True),
    "openWorldHint": ("TD404", False),
}
"""MCP hint -> (code, the safe value)."""


def effective_hints(annotations: Annotations) -> dict[str, bool]:
    """The hints as clients act on them: MCP defaults, and read-only implies the rest."""
    hints = annotations.effective()
    if hints["readOnlyHint"]:
        hints["destructiveHint"] = False
        hints["idempotentHint"] = True
    return hints


def _safety(old: Tool, new: Tool) -> Iterator[Change]:
    before, after = effective_hints(old.annotations), effective_hints(new.annotations)
    declared_before, declared_after = old.annotations.to_mcp(), new.annotations.to_mcp()
    for spec_name, mcp_name in HINTS:
        code, safe = _REGRESSIONS[mcp_name]
        was, now = declared_before.get(mcp_name), declared_after.get(mcp_name)
        if before[mcp_name] == after[mcp_name] and was == now:
            continue  # unchanged: nothing to say, nothing to locate (most hints of most tools)
        old_text = _hint_text(was, before[mcp_name], old.annotations, mcp_name)
        new_text = _hint_text(now, after[mcp_name], new.annotations, mcp_name)
        shown = f"{spec_name}: {old_text} → {new_text}"
        where = _hint_location(new, spec_name, mcp_name)
        path = f"/annotations/{mcp_name}"
        if before[mcp_name] == after[mcp_name]:
            yield make_change(
                "TD406",
                f"{shown}; the same for clients",
                tool=new.name,
                path=path,
                location=where,
            )
            continue
        if after[mcp_name] == safe:
            yield make_change("TD405", f"{shown}: safer", tool=new.name, path=path, location=where)
        else:
            yield _judged(code, shown, YES, new.name, path, where)


def _hint_text(declared: Any, effective: bool, annotations: Annotations, hint: str) -> str:
    value = str(effective).lower()
    if (
        hint in ("destructiveHint", "idempotentHint")
        and effective_hints(annotations)["readOnlyHint"]
    ):
        if declared is None or declared == effective:
            return f"{value} (read-only)"
        return f"{value} (read-only: the declared {str(declared).lower()} does not apply)"
    if declared is None:
        return f"undeclared ({value} for clients)"
    return str(declared).lower()


def _hint_location(tool: Tool, spec_name: str, mcp_name: str) -> Location:
    positions = tool.origin.source.key_positions
    for key in (spec_name, mcp_name):
        if (*tool.origin.path, "annotations", key) in positions:
            return tool.origin.locate("annotations", key, key=True)
    return tool.origin.locate("annotations", key=True)


# -- docs ----------------------------------------------------------------------


def _docs(old: Tool, new: Tool) -> Iterator[Change]:
    for label, path, a, b, at in (
        ("title", "/title", old.title, new.title, ("title",)),
        (
            "annotations.title",
            "/annotations/title",
            old.annotations.title,
            new.annotations.title,
            ("annotations", "title"),
        ),
    ):
        if a != b:
            yield make_change(
                "TD501",
                f"{label} {text_change(a, b)}",
                tool=new.name,
                path=path,
                location=new.origin.locate(*at, key=True),
            )
    if old.description != new.description:
        yield make_change(
            "TD502",
            f"description {text_change(old.description, new.description)}",
            tool=new.name,
            path="/description",
            severity=Severity.WARNING,
            location=new.origin.locate("description"),
        )


def text_change(old: str | None, new: str | None, context: int = 20, limit: int = 80) -> str:
    """`"…old part…" → "…new part…"`: the differing middle of two texts, with some context."""
    if old is None or new is None:
        return f"{_quote(old, limit)} → {_quote(new, limit)}"
    start = 0
    while start < min(len(old), len(new)) and old[start] == new[start]:
        start += 1
    end = 0
    while end < min(len(old), len(new)) - start and old[-1 - end] == new[-1 - end]:
        end += 1
    begin = max(0, start - context)

    def part(text: str) -> str:
        middle = text[begin : len(text) - max(0, end - context)]
        if len(middle) > limit:
            middle = middle[: limit - 1] + "…"
        return ("…" if begin else "") + middle + ("…" if end > context else "")

    return f"{part(old)!r} → {part(new)!r}"


def _quote(text: str | None, limit: int) -> str:
    if text is None:
        return "none"
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


# -- wrapping ------------------------------------------------------------------


def _wrapping(old: Tool, new: Tool) -> Iterator[Change]:
    if old.output_schema is None or new.output_schema is None:
        return
    moved = [r for r in EMITTED_REVISIONS if wraps_output(old, r) != wraps_output(new, r)]
    if moved:
        now = (
            'now wrapped as {"result": ...}' if wraps_output(new, moved[0]) else "no longer wrapped"
        )
        yield make_change(
            "TD701",
            f"output {now} for protocol {', '.join(moved)}",
            tool=new.name,
            path="/outputSchema",
            location=(new.output_origin or new.origin).locate(),
        )
