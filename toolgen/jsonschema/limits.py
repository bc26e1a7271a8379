"""What a schema must satisfy before a validator is compiled from it.

jsonschema-rs compiles a schema eagerly and fails on some inputs that pass the
metaschema: a `pattern` its regex engine refuses (too large, unsupported
syntax), a `$dynamicRef` to an anchor that does not exist, and a chain of
`$ref`s too long for its stack (a chain of 2,000 defs crashes the process).
These checks find each of them first, with the path to the offending
keyword, so the frontend reports them as located spec errors.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from typing import Any, Final

import jsonschema_rs

from toolgen.core.positions import JsonPath
from toolgen.jsonschema.walk import walk_schemas

MAX_REF_DEPTH: Final = 256
"""Longest chain of defs one schema may reach through `$ref` (each def referring to the next)."""


def schema_problems(schema: Any) -> Iterator[tuple[JsonPath, str]]:
    """(path inside `schema`, message) for each keyword a validator could not compile."""
    anchors: set[str] = set()
    dynamic: list[tuple[JsonPath, Any]] = []
    for path, sub in walk_schemas(schema):
        if not isinstance(sub, Mapping):
            continue
        for key in ("$anchor", "$dynamicAnchor"):
            if isinstance(sub.get(key), str):
                anchors.add(sub[key])
        if "$dynamicRef" in sub:
            dynamic.append(((*path, "$dynamicRef"), sub["$dynamicRef"]))
        pattern = sub.get("pattern")
        if isinstance(pattern, str) and (problem := regex_problem(pattern)):
            yield (*path, "pattern"), problem
        keys = sub.get("patternProperties")
        for key in keys if isinstance(keys, Mapping) else ():
            if problem := regex_problem(key):
                yield (*path, "patternProperties", key), problem
    for path, ref in dynamic:
        if not isinstance(ref, str) or not ref.startswith("#") or ref[1:] not in anchors:
            yield (
                path,
                (
                    f"$dynamicRef {ref!r} names no anchor of this schema; expected #NAME where "
                    "a subschema declares `$dynamicAnchor: NAME`"
                ),
            )


@functools.lru_cache(maxsize=4096)
def regex_problem(pattern: str) -> str | None:
    """Why the validator's regex engine refuses `pattern` (None: it compiles)."""
    try:
        jsonschema_rs.Draft202012Validator({"pattern": pattern})
    except (jsonschema_rs.ValidationError, ValueError) as exc:
        if len(pattern) > 100:
            return f"the validator's regex engine refuses this {len(pattern)}-character pattern"
        return f"the validator's regex engine refuses it: {str(exc).splitlines()[0][:200]}"
    return None


def ref_depth(start: set[str], deps: Mapping[str, set[str]], limit: int = MAX_REF_DEPTH) -> int:
    """The longest chain of defs followed depth-first from `start` (stops counting past
    `limit`): what a compiler that resolves `$ref`s eagerly recurses through."""
    deepest = 0
    for root in sorted(start):
        seen = {root}
        stack: list[tuple[str, Iterator[str]]] = [(root, iter(sorted(deps.get(root, ()))))]
        while stack:
            deepest = max(deepest, len(stack))
            if deepest > limit:
                return deepest
            _, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
            elif child not in seen:
                seen.add(child)
                stack.append((child, iter(sorted(deps.get(child, ())))))
    return deepest
