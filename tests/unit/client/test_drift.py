"""The typed client's drift check: a def inlined is the same tool, a changed schema is not."""

from __future__ import annotations

from typing import Any

from toolgen.client.drift import compare

REFERENCED: dict[str, Any] = {
    "name": "get_note",
    "inputSchema": {
        "type": "object",
        "properties": {"id": {"$ref": "#/$defs/NoteId"}},
        "$defs": {"NoteId": {"type": "string", "pattern": "^n_"}},
    },
}
INLINED: dict[str, Any] = {
    "name": "get_note",
    "inputSchema": {"type": "object", "properties": {"id": {"type": "string", "pattern": "^n_"}}},
}


def test_a_server_that_sends_refs_lists_the_same_tool_as_one_that_inlines_them() -> None:
    assert compare([INLINED], [REFERENCED]) == []
    assert compare([REFERENCED], [INLINED]) == []


def test_a_changed_def_is_drift_whichever_way_it_is_written() -> None:
    changed = {
        **INLINED,
        "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}},
    }
    assert [d.field for d in compare([REFERENCED], [changed])] == ["inputSchema"]


def test_a_tool_listed_twice_drifts_and_each_entry_is_compared() -> None:
    reader = {**INLINED, "annotations": {"readOnlyHint": True}}
    destructive = {**INLINED, "annotations": {"destructiveHint": True}}
    found = [d.field for d in compare([reader], [destructive, reader])]
    assert found == ["name", "annotations", "safety"]
    assert [d.field for d in compare([reader], [reader, reader])] == ["name"]
