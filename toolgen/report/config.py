"""Configuration in `[tool.toolgen.<section>]` of pyproject.toml, read one way for every
command that has a section (`lint`, `diff`). Any mistake is a `ConfigError`: a usage error
(exit 2) whose message says where and what is expected."""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Collection, Mapping
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")


class ConfigError(ValueError):
    """The configuration is wrong; the message says where and what is expected."""


def find_pyproject(start: Path) -> Path | None:
    """The nearest pyproject.toml in `start` or above it."""
    start = start.resolve()
    for folder in (start, *start.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def load_section(path: Path | None, section: str, parse: Callable[[Mapping[str, Any]], T]) -> T:
    """`parse` of the `[tool.toolgen.<section>]` table of `path`, or of an empty table when
    there is no file or no such table; its `ConfigError`s say which file and table."""
    if path is None:
        return parse({})
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read configuration: {exc}") from None
    table = data.get("tool", {}).get("toolgen", {}).get(section, {})
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.toolgen.{section}] must be a table")
    try:
        return parse(table)
    except ConfigError as exc:
        raise ConfigError(f"{path}: [tool.toolgen.{section}] {exc}") from None


def check_keys(table: Mapping[str, Any], known: Collection[str], where: str = "") -> None:
    """A `ConfigError` naming the first key of `table` that is not `known`."""
    unknown = sorted(set(table) - set(known))
    if unknown:
        raise ConfigError(f"{where}unknown key {unknown[0]!r}; expected one of: {', '.join(known)}")


def one_of(key: str, value: Any, allowed: Collection[str]) -> str:
    """`value` when it is one of `allowed`, else a `ConfigError` about `key`."""
    if value not in allowed:
        raise ConfigError(f"{key!r} must be one of {', '.join(allowed)}, got {value!r}")
    return str(value)


def strings(key: str, value: Any) -> list[str]:
    """`value` when it is a list of strings, else a `ConfigError` about `key`."""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{key!r} must be a list of strings, got {value!r}")
    return list(value)
