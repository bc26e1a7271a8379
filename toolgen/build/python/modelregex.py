"""Patterns in the models read as the runtime reads them: ECMA-262's `\\d`, `\\w`, `\\s`.

JSON Schema patterns are ECMA-262 regular expressions, and the runtime (jsonschema-rs)
reads `\\d` as `[0-9]`, `\\w` as `[A-Za-z0-9_]` and `\\s` as ECMA-262's fixed set of
white space. pydantic reads them as Unicode classes (`\\d` matches `٣`, `\\w` matches
`é`), so a model would accept strings the runtime refuses. `ecma_pattern` spells the
classes out before datamodel-code-generator sees the pattern: one dialect for both.
`\\b` and a negated class inside brackets (`[\\D]`) are left as they are.
"""

from __future__ import annotations

from typing import Final

_CLASSES: Final = {
    "d": "0-9",
    "w": "A-Za-z0-9_",
    "s": "\\t\\n\\x0b\\f\\r \\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff",
}
"""ECMA-262's character class escapes, as the contents of a bracketed class."""


def ecma_pattern(pattern: str) -> str:
    """`pattern` with `\\d`, `\\w`, `\\s` (and `\\D`, `\\W`, `\\S` outside brackets) written as
    the explicit classes ECMA-262 gives them."""
    out: list[str] = []
    in_class = False
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\" and i + 1 < len(pattern):
            letter = pattern[i + 1]
            spelled = _CLASSES.get(letter.lower())
            if spelled is not None and in_class and letter.islower():
                out.append(spelled)
            elif spelled is not None and not in_class:
                out.append(f"[{spelled}]" if letter.islower() else f"[^{spelled}]")
            else:
                out.append(pattern[i : i + 2])
            i += 2
            continue
        if char == "[" and not in_class:
            in_class = True
        elif char == "]" and in_class:
            in_class = False
        out.append(char)
        i += 1
    return "".join(out)
