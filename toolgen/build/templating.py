"""Find and render the jinja2 templates of generated code, the one way every target
lays out its files.

Each target keeps its templates in its own folder (`python/server.py.jinja`,
`typescript/index.ts.jinja`: package data), named from `toolgen/build/`. The environment
uses `StrictUndefined` (a misspelt variable is an error, never an empty string) and no HTML
autoescaping: every spec string reaches a template already escaped for where it lands. For
Python that is the `py` filter (a Python literal via `repr`) and `ident`, which refuses
anything that is not a plain Python identifier; other targets pass their own escaping
functions in the template's context.
"""

from __future__ import annotations

import functools
import keyword
from pathlib import Path
from typing import Any

import jinja2

TEMPLATES = Path(__file__).resolve().parent
"""Template names are paths from here: `<target>/<file>.jinja`."""


def template_dir() -> Path:
    """The directory template names start from (`toolgen/build/`)."""
    return TEMPLATES


def py_literal(value: Any) -> str:
    """A Python literal for a spec value (str, number, bool, None, lists and dicts of them).

    `repr` escapes quotes, backslashes, newlines and unprintable characters, so no
    spec text can end the literal or inject code."""
    if isinstance(value, str):
        return string_literal(value)
    if value is None or isinstance(value, (bool, int, float)):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(py_literal(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{py_literal(k)}: {py_literal(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"no Python literal for a {type(value).__name__}")


def string_literal(text: str) -> str:
    """`repr(text)` in the quotes `ruff format` would choose: double, unless that needs
    more escaped quotes than single. Only the quote escapes change; every other escape
    is `repr`'s, so no text can end the literal."""
    quote = '"' if text.count('"') <= text.count("'") else "'"
    body = repr(text)[1:-1]
    if "\\" not in body and quote not in body:
        return quote + body + quote  # nothing escaped (most spec strings): no loop
    out: list[str] = []
    index = 0
    while index < len(body):
        char = body[index]
        if char == "\\":
            escaped = body[index + 1]
            index += 2
            if escaped in "'\"":
                out.append("\\" + escaped if escaped == quote else escaped)
            else:
                out.append(char + escaped)
            continue
        out.append("\\" + char if char == quote else char)
        index += 1
    return quote + "".join(out) + quote


LINE_LENGTH = 100
"""The line length generated Python is laid out for (the project's `ruff format`)."""


def fit(indent: int, head: str, parts: list[str], tail: str = "") -> str:
    """`head(parts)tail` laid out as `ruff format` lays out a call or a `def`: on one line
    when it fits, else the parts on one line of their own, else one part per line with a
    trailing comma. `indent` is the column `head` starts at; the parts are code already."""
    pad = " " * indent
    joined = ", ".join(parts)
    if indent + len(head) + len(joined) + len(tail) + 2 <= LINE_LENGTH:
        return f"{head}({joined}){tail}"
    if indent + 4 + len(joined) <= LINE_LENGTH:
        return f"{head}(\n{pad}    {joined}\n{pad}){tail}"
    lines = "".join(f"{pad}    {part},\n" for part in parts)
    return f"{head}(\n{lines}{pad}){tail}"


def parameter(indent: int, name: str, annotation: str, default: str = "") -> str:
    """`name: annotation = default,` as a line of a parameter list, laid out as `ruff format`
    does when it is too long: the annotation's union split before each top-level `|`."""
    tail = f" = {default}," if default else ","
    if indent + len(name) + 2 + len(annotation) + len(tail) <= LINE_LENGTH:
        return f"{name}: {annotation}{tail}"
    members, depth, start = [], 0, 0
    for index, char in enumerate(annotation):
        depth += (char in "[(") - (char in "])")
        if depth == 0 and annotation.startswith(" | ", index):
            members.append(annotation[start:index])
            start = index + 3
    members.append(annotation[start:])
    return f"{name}: " + f"\n{' ' * indent}| ".join(members) + tail


def identifier(value: Any) -> str:
    """`value` unchanged when it is a plain Python identifier (never a keyword), else an error."""
    if not isinstance(value, str) or not value.isidentifier() or not value.isascii():
        raise ValueError(f"not a Python identifier: {value!r}")
    if keyword.iskeyword(value):
        raise ValueError(f"a Python keyword cannot be an identifier: {value!r}")
    return value


def docstring(value: Any) -> str:
    """A docstring literal: triple-quoted for plain one-line text, else the `repr` literal."""
    text = str(value)
    plain = text.isprintable() and "\\" not in text and '"' not in text
    return f'"""{text}"""' if plain else string_literal(text)


def comment_text(value: Any) -> str:
    """`value` as one line of printable text, safe inside a `#` comment."""
    text = " ".join(str(value).split())
    return "".join(ch if ch.isprintable() else "?" for ch in text)


@functools.cache
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(template_dir())),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals["fit"] = fit
    env.globals["parameter"] = parameter
    env.filters["py"] = py_literal
    env.filters["ident"] = identifier
    env.filters["comment"] = comment_text
    env.filters["doc"] = docstring
    return env


def render(name: str, **context: Any) -> str:
    """Render the template `name` with `context`."""
    return environment().get_template(name).render(**context)
