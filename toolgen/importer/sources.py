"""Where published tools come from: files and directories of JSON, or a live server.

Files are read in the shapes lint reads (`toolgen.spec.published.tool_paths`):
a `tools/list` result, also inside a JSON-RPC response, a list of Tool objects,
or one Tool per file; a directory is every `*.json` under it, in path order.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolgen.importer.convert import ServerInfo
from toolgen.spec.errors import Diagnostic, ErrorCode, Location, SpecError
from toolgen.spec.positions import JsonPath, display_path
from toolgen.spec.protocol import LATEST_REVISION
from toolgen.spec.published import ShapeError, definition_files, get_path, tool_paths


@dataclass(frozen=True)
class Published:
    """Tools as a server publishes them, and what it says about itself when it is live."""

    tools: tuple[Any, ...]
    server: ServerInfo | None = None
    revision: str | None = None
    """The protocol revision the tools were listed in, when known."""
    origin: str = "published definitions"
    """What the tools were read from, for the imported file's header (no secrets)."""


def read_files(paths: Sequence[Path]) -> Published:
    """Every Tool object in the JSON files `paths` name; `SpecError` when one cannot be read."""
    files = definition_files(paths)
    if not files:
        shown = ", ".join(display_path(p) for p in paths)
        raise SpecError(
            [Diagnostic(ErrorCode.NO_SPECS, f"no tool definition files (*.json) in {shown}")]
        )
    tools: list[Any] = []
    problems: list[Diagnostic] = []
    revisions: set[str | None] = set()
    for path in files:
        where = Location(display_path(path), 1, 1)
        try:
            data = _load(path.read_bytes())
            tools.extend(get_path(data, at) for at in tool_paths(data))
            revisions.add(listed_revision(data))
        except OSError as exc:
            problems.append(Diagnostic(ErrorCode.IO, f"cannot read: {exc.strerror}", where))
        except (ValueError, RecursionError):  # not UTF-8, not JSON, a key twice, NaN, too deep
            problems.extend(_positioned(path))
        except ShapeError as exc:
            problems.append(Diagnostic(ErrorCode.WRONG_TYPE, exc.message, _located(path, exc.path)))
    if problems:
        raise SpecError(problems)
    origin = ", ".join(display_path(p) for p in paths)
    revision = revisions.pop() if len(revisions) == 1 else None
    return Published(tuple(tools), revision=revision, origin=origin)


def _load(raw: bytes) -> Any:
    """The JSON value of a file, read as lint reads it (a UTF-8 byte order mark allowed,
    no key twice in an object, no NaN or Infinity); `ValueError` when it is not."""
    return json.loads(
        raw.decode("utf-8-sig"), object_pairs_hook=_unique_keys, parse_constant=_no_constant
    )


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    data = dict(pairs)
    if len(data) != len(pairs):
        raise ValueError("a key twice in one object")
    return data


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def listed_revision(data: Any) -> str | None:
    """The revision a `tools/list` result was listed in, when its shape tells: a
    2026-07-28 result carries `resultType`. None when it does not tell."""
    result = data.get("result", data) if isinstance(data, dict) else None
    if isinstance(result, dict) and "resultType" in result:
        return LATEST_REVISION
    return None


def _located(path: Path, at: JsonPath) -> Location:
    """Where the value at `at` stands in the JSON file `path` (the slow reader's positions)."""
    from toolgen.spec.jsonsource import read_json

    return read_json(path).locate(at)


def _positioned(path: Path) -> tuple[Diagnostic, ...]:
    """The diagnostics, at `file:line:col`, of a file that is not JSON (the slow reader's)."""
    from toolgen.spec.jsonsource import read_json

    try:
        read_json(path)
    except SpecError as exc:
        return exc.diagnostics
    return (Diagnostic(ErrorCode.WRONG_TYPE, "not JSON", Location(display_path(path), 1, 1)),)
