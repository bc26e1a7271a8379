"""Output formats of `toolgen lint`: each renders a list of findings as one text."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from toolgen.lint.model import Finding

Renderer = Callable[[Sequence[Finding]], str]
FORMATS = ("text", "json", "sarif", "github")


def renderer(name: str) -> Renderer:
    """The render function of a format (imported only when used)."""
    if name == "text":
        from toolgen.lint.formats.text import render
    elif name == "json":
        from toolgen.lint.formats.json_format import render
    elif name == "sarif":
        from toolgen.lint.formats.sarif import render
    elif name == "github":
        from toolgen.lint.formats.github import render
    else:
        raise ValueError(f"unknown format {name!r}; expected one of {', '.join(FORMATS)}")
    return render
