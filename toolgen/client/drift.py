"""Compare a server's `tools/list` with the spec a client was generated from.

A typed client's methods, argument types and result models are only right while
the server still lists the spec's tools as the spec defines them. Each difference
is one `Drift`: a tool the server does not list, or a field of its definition
(title, description, schemas, annotations, the declared output wrapping) that
differs from the spec's definition for the negotiated protocol revision, or a
tool the server lists more than once (each entry is compared: a tool listed
once as the spec has it and once as destructive drifts). Tools the server lists
beyond the spec are not drift.

One drift is about safety, not types: a tool the spec calls safe (read-only, or not
destructive) that some listing entry hints may destroy data (`may_destroy`, the rule
`verify` and `toolgen call` apply). Code that calls the tool relied on the spec's
word; the typed client does not call it, whatever the drift policy.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from toolgen.schema.inline import inline_refs
from toolgen.spec.protocol import may_destroy

COMPARED: Final = ("title", "description", "inputSchema", "outputSchema", "annotations", "_meta")
"""The fields of a tool definition a client depends on."""
SCHEMAS: Final = ("inputSchema", "outputSchema")
"""Compared with their `$ref`s inlined: a server that sends refs, or inlines them, lists the
same tool."""


@dataclass(frozen=True, slots=True)
class Drift:
    """One way the server's tools differ from the spec."""

    tool: str
    field: str
    """`missing` (the server does not list the tool), `name` (it lists it more than once),
    `safety` (the spec says safe, the server may destroy: never called), or the definition
    field that differs."""
    message: str

    def __str__(self) -> str:
        return f"{self.tool}: {self.message}"


class DriftError(Exception):
    """The server's tools differ from the spec (raised at connect with `drift="error"`)."""

    def __init__(self, drift: list[Drift]) -> None:
        super().__init__(describe(drift))
        self.drift = drift


class DriftWarning(UserWarning):
    """The server's tools differ from the spec (warned at connect with `drift="warn"`)."""


def describe(drift: list[Drift]) -> str:
    """All differences in one message."""
    lines = "; ".join(str(item) for item in drift)
    return f"the server's tools differ from the spec ({len(drift)}): {lines}"


def compare(
    expected: Iterable[Mapping[str, Any]], listed: Iterable[Mapping[str, Any]]
) -> list[Drift]:
    """How the `listed` tool definitions differ from the `expected` ones (same revision)."""
    by_name: dict[str, list[Mapping[str, Any]]] = {}
    for tool in listed:
        by_name.setdefault(str(tool.get("name")), []).append(tool)
    found: list[Drift] = []
    for spec in expected:
        name = str(spec["name"])
        entries = by_name.get(name, [])
        if not entries:
            found.append(Drift(name, "missing", "the server does not list this tool"))
        elif len(entries) > 1:
            found.append(Drift(name, "name", f"the server lists this tool {len(entries)} times"))
        found += [drift for served in entries for drift in _fields(name, spec, served)]
        hints = [served.get("annotations") for served in entries]
        if entries and not may_destroy(spec.get("annotations")) and may_destroy(*hints):
            found.append(Drift(name, "safety", UNSAFE))
    return found


UNSAFE: Final = (
    "the spec says it is safe to call, the server hints it may destroy data: the client "
    "does not call it"
)


def _fields(name: str, spec: Mapping[str, Any], served: Mapping[str, Any]) -> list[Drift]:
    """The fields of one listing entry of `name` that differ from the spec's definition."""
    found: list[Drift] = []
    for field in COMPARED:
        want, got = spec.get(field), served.get(field)
        if field == "_meta":  # only what the spec declares there (other keys are free)
            got = {k: v for k, v in (got or {}).items() if k in (want or {})} or None
        if field in SCHEMAS and isinstance(want, Mapping) and isinstance(got, Mapping):
            want, got = inline_refs(want), inline_refs(got)  # a def inlined is the same
        if want != got:
            found.append(Drift(name, field, _difference(field, want, got)))
    return found


def _difference(field: str, want: Any, got: Any) -> str:
    if got is None:
        return f"`{field}` is missing (the spec declares one)"
    if want is None:
        return f"`{field}` is declared by the server, not by the spec"
    return f"`{field}` differs from the spec"
