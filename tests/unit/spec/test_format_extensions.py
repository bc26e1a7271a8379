"""The lossless format: `icons`, `execution` and `_meta` on a tool, emitted per revision."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_tool_definitions import official_validator

from toolgen.serve.definitions import load_definitions
from toolgen.spec.errors import SpecError
from toolgen.spec.pipeline import load_spec_set
from toolgen.spec.protocol import EMITTED_REVISIONS, WRAPPED_META_KEY, list_tools_result

ICON = {"src": "https://example.com/icon.png", "mimeType": "image/png", "sizes": ["48x48"]}
SPEC = """
tools:
  - name: render
    icons:
      - {src: "https://example.com/icon.png", mimeType: image/png, sizes: ["48x48"]}
      - {src: "data:image/svg+xml;base64,PHN2Zy8+", theme: dark, x-note: not emitted}
    execution: {taskSupport: optional}
    _meta: {com.example/ui: {resourceUri: "ui://render"}}
    output: {type: array, items: {type: string}}
"""


def definition(root: Path, revision: str) -> dict[str, Any]:
    (tool,) = list_tools_result(load_spec_set(root), revision)["tools"]
    assert official_validator(revision, "Tool").is_valid(tool), revision
    return tool


@pytest.mark.parametrize(
    ("revision", "has_icons", "has_execution"),
    [("2025-06-18", False, False), ("2025-11-25", True, True), ("2026-07-28", True, False)],
)
def test_icons_and_execution_are_emitted_only_for_revisions_that_have_them(
    write_specs: Any, revision: str, has_icons: bool, has_execution: bool
) -> None:
    tool = definition(write_specs({"main.yaml": SPEC}), revision)
    assert ("icons" in tool) is has_icons
    assert ("execution" in tool) is has_execution
    if has_icons:
        assert tool["icons"][0] == ICON
        assert "x-note" not in tool["icons"][1]
    if has_execution:
        assert tool["execution"] == {"taskSupport": "optional"}


@pytest.mark.parametrize("revision", EMITTED_REVISIONS)
def test_meta_is_passed_through_beside_a_declared_wrapping(write_specs: Any, revision: str) -> None:
    meta = definition(write_specs({"main.yaml": SPEC}), revision)["_meta"]
    assert meta["com.example/ui"] == {"resourceUri": "ui://render"}
    wrapped = revision != "2026-07-28"  # a non-object output is wrapped before 2026-07-28
    assert (WRAPPED_META_KEY in meta) is wrapped


def test_a_tool_without_the_new_keys_is_emitted_as_before(write_specs: Any) -> None:
    root = write_specs({"main.yaml": "tools:\n  - name: plain\n"})
    for revision in EMITTED_REVISIONS:
        assert set(definition(root, revision)) == {"name", "inputSchema"}


@pytest.mark.parametrize(
    ("text", "code", "line", "column"),
    [
        ("    icons: [{mimeType: image/png}]\n", "missing-key", 5, 13),
        ("    icons: [{src: a.png, size: [any]}]\n", "unknown-key", 5, 26),
        ("    execution: {taskSupport: sometimes}\n", "invalid-value", 5, 30),
        ("    _meta: [not, an, object]\n", "wrong-type", 5, 12),
    ],
    ids=["icon-without-src", "icon-unknown-key", "task-support-value", "meta-not-object"],
)
def test_bad_extension_values_are_reported_at_their_position(
    write_specs: Any, text: str, code: str, line: int, column: int
) -> None:
    root = write_specs({"main.yaml": "tools:\n  - name: a\n" + text})
    with pytest.raises(SpecError) as caught:
        load_spec_set(root)
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.code == code
    assert diagnostic.location is not None
    assert (diagnostic.location.line, diagnostic.location.column) == (line, column)


def test_a_generated_server_announces_execution_to_2025_11_25_clients(
    write_specs: Any, tmp_path: Path
) -> None:
    toolset = load_spec_set(write_specs({"main.yaml": SPEC}))
    tools_dir = tmp_path / "tools"
    tools_dir.mkdir()
    for revision in EMITTED_REVISIONS:  # what a build writes
        body = json.dumps(list_tools_result(toolset, revision))
        (tools_dir / f"{revision}.json").write_text(body, encoding="utf-8")
    served = load_definitions({"name": "demo", "version": "1"}, tools_dir / "2026-07-28.json")
    for revision in EMITTED_REVISIONS:
        assert served.definitions(revision) == list_tools_result(toolset, revision)["tools"]
