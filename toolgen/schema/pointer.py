"""Same-document `$ref`s as JSON Pointers (RFC 6901 inside a URI fragment)."""

from __future__ import annotations

from typing import Any, Final
from urllib.parse import unquote

JsonPath = tuple[str | int, ...]
"""Where a value stands inside a JSON document: object keys and array indexes."""

MISSING: Final[Any] = object()
"""What `resolve_pointer` returns when a ref names nothing."""


def pointer_tokens(ref: str) -> list[str] | None:
    """The reference tokens of a same-document ref (`#/a/b~1c` → `["a", "b/c"]`).

    None when `ref` is not a same-document JSON Pointer: another document, or a
    plain-name anchor (`#foo`), which toolgen does not resolve.
    """
    if not ref.startswith("#"):
        return None
    fragment = unquote(ref[1:])
    if fragment == "":
        return []
    if not fragment.startswith("/"):
        return None
    return [t.replace("~1", "/").replace("~0", "~") for t in fragment[1:].split("/")]


def resolve_pointer(root: Any, ref: str) -> Any:
    """The value a same-document `ref` names inside `root`, or `MISSING`."""
    tokens = pointer_tokens(ref)
    return MISSING if tokens is None else follow(root, tokens)


def follow(root: Any, tokens: list[str]) -> Any:
    """The value at `tokens` inside `root`, or `MISSING`."""
    node = root
    for token in tokens:
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return MISSING
    return node
