"""JSON Pointers (RFC 6901): the one way toolgen follows a `$ref` or a path into JSON data.

A pointer's tokens are object keys (with `~` and `/` escaped as `~0` and `~1`) and array
indexes; a same-document `$ref` is a pointer inside a URI fragment (`#/$defs/a~1b`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final
from urllib.parse import unquote

JsonPath = tuple[str | int, ...]
"""Where a value stands inside a JSON document: object keys and array indexes."""

MISSING: Final[Any] = object()
"""What a pointer that names nothing leads to."""


def escape(key: str | int) -> str:
    """A key (or index) as a pointer token: `a/b~c` → `a~1b~0c`."""
    return str(key).replace("~", "~0").replace("/", "~1")


def unescape(token: str) -> str:
    """The key a pointer token names: `~1` → `/`, then `~0` → `~`."""
    return token.replace("~1", "/").replace("~0", "~")


def join(pointer: str, *keys: str | int) -> str:
    """The pointer to `keys` below `pointer` (`join("/a", "b/c", 0)` → `/a/b~1c/0`)."""
    return pointer + "".join("/" + escape(key) for key in keys)


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
    return [unescape(t) for t in fragment[1:].split("/")]


def resolve_pointer(root: Any, ref: str) -> Any:
    """The value a same-document `ref` names inside `root`, or `MISSING`."""
    tokens = pointer_tokens(ref)
    return MISSING if tokens is None else follow(root, tokens)


def follow(root: Any, tokens: Sequence[str | int]) -> Any:
    """The value at `tokens` inside `root`, or `MISSING`."""
    value, path = walk(root, tokens)
    return value if len(path) == len(tokens) else MISSING


def walk(root: Any, tokens: Sequence[str | int]) -> tuple[Any, JsonPath]:
    """Follow `tokens` into `root` as far as they lead: the value reached and its path (array
    indexes as integers, whether a token wrote one as a string or not), which is shorter than
    `tokens` when one of them names nothing."""
    node = root
    path: list[str | int] = []
    for token in tokens:
        if isinstance(node, dict):
            if token not in node:
                break
        elif isinstance(node, list):
            if isinstance(token, str):
                if not token.isdigit():
                    break
                token = int(token)
            if not 0 <= token < len(node):
                break
        else:
            break
        node = node[token]
        path.append(token)
    return node, tuple(path)
