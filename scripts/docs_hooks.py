"""MkDocs hooks (mkdocs.yml `hooks:`): what the site shows readers is the page without its HTML
comments, which hold the docs tests' setup blocks and skip marks (tests/docs_support.py)."""

from __future__ import annotations

import re
from typing import Any

_COMMENT = re.compile(r"[ \t]*<!--.*?-->[ \t]*\n?", re.DOTALL)


def on_page_markdown(markdown: str, **_: Any) -> str:
    return _COMMENT.sub("", markdown)
