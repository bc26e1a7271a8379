"""The lint rules, one module per category; importing this package registers them."""

from toolgen.lint.rules import annotations, descriptions, names, schemas, suppressions

__all__ = ["annotations", "descriptions", "names", "schemas", "suppressions"]
