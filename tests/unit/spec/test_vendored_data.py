"""Vendored upstream data is byte-for-byte what its README says it is (a drift check).

The official MCP schemas are pinned by git blob id, like the python-sdk pins its schema: a
changed byte changes the id, and the README names the id of the upstream file.
"""

from __future__ import annotations

import hashlib
import re

import pytest
from conftest import CORPUS

from toolgen.spec.protocol import EMITTED_REVISIONS, OFFICIAL_SCHEMAS


def git_blob_id(data: bytes) -> str:
    """The id git gives a file's content (`git hash-object`)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def noted_blob_ids() -> dict[str, str]:
    """{revision: blob id} as the vendored README records them."""
    text = (OFFICIAL_SCHEMAS / "README.md").read_text(encoding="utf-8")
    ids: dict[str, str] = {}
    for block in re.split(r"\n(?=\d{4}-\d{2}-\d{2}/schema\.json)", text):
        revision = block[:10]
        match = re.search(r"[Gg]it blob ([0-9a-f]{40})", block)
        if match and re.fullmatch(r"\d{4}-\d{2}-\d{2}", revision):
            ids[revision] = match.group(1)
    return ids


@pytest.mark.parametrize("revision", EMITTED_REVISIONS)
def test_each_vendored_mcp_schema_is_the_upstream_blob_its_readme_names(revision: str) -> None:
    data = (OFFICIAL_SCHEMAS / revision / "schema.json").read_bytes()
    assert git_blob_id(data) == noted_blob_ids()[revision]


def test_the_github_corpus_holds_its_117_tools_and_names_its_source() -> None:
    assert len(list(CORPUS.glob("*.json"))) == 117
    assert "github.com/github/github-mcp-server" in (CORPUS / "README.md").read_text()
