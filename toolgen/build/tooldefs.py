"""Emit the MCP tool definitions (`tools/list` result bodies), one file per revision, and
`tools/digests.json`: the canonical digest of every tool and of the set, per revision."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolgen.build.common import header_text, json_text
from toolgen.spec.digests import digests_document
from toolgen.spec.ir import ToolSet
from toolgen.spec.layout import TOOLS_DIR
from toolgen.spec.protocol import EMITTED_REVISIONS, list_tools_result

GENERATED_META_KEY = "dev.toolgen/generated"
DIGESTS_FILE = "digests.json"


def render_tooldefs(
    toolset: ToolSet, *, source_note: str, listings: Mapping[str, Mapping[str, Any]] | None = None
) -> list[tuple[str, str]]:
    """`tools/<revision>.json` for every emitted revision; `_meta` carries the header.
    `listings` are the `tools/list` results by revision when the caller has made them."""
    files = []
    definitions = {}
    for revision in EMITTED_REVISIONS:
        result = dict(listings[revision]) if listings else list_tools_result(toolset, revision)
        definitions[revision] = result["tools"]
        body = {"_meta": {GENERATED_META_KEY: header_text(source_note)}, **result}
        files.append((f"{TOOLS_DIR}/{revision}.json", json_text(body)))
    document = digests_document(toolset, definitions)
    digests = {"_meta": {GENERATED_META_KEY: header_text(source_note)}, **document}
    files.append((f"{TOOLS_DIR}/{DIGESTS_FILE}", json_text(digests)))
    return files
