"""Annotation reasons: written per hint in a spec, emitted as annotation-reasons.json."""

from __future__ import annotations

import json
from pathlib import Path

from toolgen.build.run import render_package
from toolgen.spec.pipeline import load_spec_set

SPEC = """toolgen: 1
server: {name: demo, version: "1"}
tools:
  - name: add_note
    annotations:
      readOnlyHint: false
      destructive: false
      reasons: {readOnlyHint: Adds a note., destructive: Only adds.}
  - name: show_note
    annotations: {readOnly: true}
"""


def test_reasons_are_emitted_by_mcp_hint_name_and_kept_out_of_tool_definitions(
    tmp_path: Path,
) -> None:
    (tmp_path / "demo.yaml").write_text(SPEC, encoding="utf-8")
    files = dict(render_package(load_spec_set(tmp_path), source_note="test"))
    reasons = json.loads(files["annotation-reasons.json"])
    add, show = reasons["tools"]
    assert add["reasons"] == {"readOnlyHint": "Adds a note.", "destructiveHint": "Only adds."}
    assert add["declared"] == ["readOnlyHint", "destructiveHint"]
    assert show == {
        "name": "show_note",
        "annotations": {"readOnlyHint": True, "destructiveHint": True, "idempotentHint": False,
                        "openWorldHint": True},
        "declared": ["readOnlyHint"],
        "reasons": {},
    }  # fmt: skip
    definitions = json.loads(files["tools/2026-07-28.json"])["tools"]
    assert "reasons" not in json.dumps(definitions)


def test_no_file_is_emitted_when_no_tool_gives_a_reason(tmp_path: Path) -> None:
    spec = SPEC.replace(
        "      reasons: {readOnlyHint: Adds a note., destructive: Only adds.}\n", ""
    )
    (tmp_path / "demo.yaml").write_text(spec, encoding="utf-8")
    files = dict(render_package(load_spec_set(tmp_path), source_note="test"))
    assert "annotation-reasons.json" not in files
