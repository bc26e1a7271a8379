"""toolgen's version, in one place: `pyproject.toml` reads it (hatch) and the package exports it."""

__version__ = "0.1.0"
