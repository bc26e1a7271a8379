"""The lint rules, one module per category; importing this package registers them."""

from toolgen.lint.rules import (
    annotations,
    descriptions,
    keywords,
    names,
    portability,
    schemas,
    suppressions,
    tool_schemas,
)

__all__ = [
    "annotations",
    "descriptions",
    "keywords",
    "names",
    "portability",
    "schemas",
    "suppressions",
    "tool_schemas",
]
