"""Find and render the jinja2 templates of generated code.

Templates live beside this module in `templates/` (package data). The environment
uses `StrictUndefined` (a misspelt variable is an error, never an empty
string) and no HTML autoescaping: generated Python is made safe by the `py`
filter, which every spec string must go through (a Python literal via
`repr`), and by `ident`, which refuses anything that is not a plain Python
identifier.
"""

from __future__ import annotations

import functools
import keyword
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import jinja2

TEMPLATES = Path(__file__).resolve().parent / "templates"


def template_dir() -> Path:
    """The directory holding the templates."""
    return TEMPLATES


def py_literal(value: Any) -> str:
    """A Python literal for a spec value (str, number, bool, None, lists and dicts of them).

    `repr` escapes quotes, backslashes, newlines and unprintable characters, so no
    spec text can end the literal or inject code."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(py_literal(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{py_literal(k)}: {py_literal(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"no Python literal for a {type(value).__name__}")


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
    return f'"""{text}"""' if plain else repr(text)


def comment_text(value: Any) -> str:
    """`value` as one line of printable text, safe inside a `#` comment."""
    text = " ".join(str(value).split())
    return "".join(ch if ch.isprintable() else "?" for ch in text)


@functools.cache
def environment() -> jinja2.Environment:
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(template_dir())),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["py"] = py_literal
    env.filters["ident"] = identifier
    env.filters["comment"] = comment_text
    env.filters["doc"] = docstring
    return env


def render(name: str, **context: Any) -> str:
    """Render the template `name` with `context`."""
    return environment().get_template(name).render(**context)
