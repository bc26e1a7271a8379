"""Parse many spec files on two cores: the parse dominates a first lint or diff of large
spec sets.

Half of the texts are parsed in a forked child while this process parses the
other half (`core.forked`); each process hands what it parsed to `keep` (the
parse cache writes its entries, so the two halves are written at once), and the
child sends its results back as plain data: each file's data, and its positions
packed once for both the cache and the parent (unpacked here only when something
is located). Without `os.fork`, for little input, or on any trouble with the
child, everything is parsed here: the result is the same, only slower. A text
that does not parse is left out, so that the ordinary (sequential) load reports
it with its diagnostics.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from functools import partial
from pathlib import Path
from typing import Any

from toolgen.core import forked
from toolgen.core.errors import SpecError
from toolgen.core.positions import SourceFile

MIN_PARALLEL_BYTES = 256 * 1024
"""Below this much text, forking costs more than it saves."""

Shipped = tuple[Any, bytes]  # data, packed positions (`SourceFile.shipped`)


def worth_forking(texts: Collection[str]) -> bool:
    """Whether parsing these texts on two cores saves time (there are two to split, at least)."""
    return len(texts) >= 2 and forked.available() and sum(map(len, texts)) >= MIN_PARALLEL_BYTES


Keep = Callable[[str, SourceFile], None]
"""Called with each text and its clean parse, in the process that parsed it."""


def parse_all(texts: dict[str, Path], keep: Keep) -> dict[str, SourceFile]:
    """Parse each text (read from the given path); texts that do not parse are left out."""
    todo = sorted(texts, key=len, reverse=True)
    if not worth_forking(todo):
        return _parse(todo, texts, keep)
    theirs, mine = todo[0::2], todo[1::2]
    received, result = forked.beside(
        lambda: _shipped(theirs, texts, keep), lambda: _parse(mine, texts, keep)
    )
    if not isinstance(received, dict):
        received = {}
    for text in theirs:
        path = texts[text]
        again = partial(_parse_one, text, path)
        source = SourceFile.from_shipped(path, str(path), received.get(text), again)
        if source is not None:
            result[text] = source
        else:
            result.update(_parse([text], texts, keep))
    return result


def _shipped(todo: list[str], texts: dict[str, Path], keep: Keep) -> dict[str, Shipped]:
    """The clean parses of `todo`, as plain data (what the child sends back); each file's
    positions are packed once, for the cache (`keep`) and for the parent."""
    out: dict[str, Shipped] = {}

    def keep_packed(text: str, source: SourceFile) -> None:
        out[text] = shipped = source.shipped()
        keep(text, SourceFile.from_packed(source.path, source.display, *shipped, lambda: source))

    _parse(todo, texts, keep_packed)
    return out


def _parse_one(text: str, path: Path) -> SourceFile:
    """Parse one text (also a file whose shipped positions do not unpack, anew)."""
    from toolgen.frontend.source import parse_source

    return parse_source(text, path, str(path))


def _parse(todo: list[str], texts: dict[str, Path], keep: Keep) -> dict[str, SourceFile]:
    out: dict[str, SourceFile] = {}
    for text in todo:
        try:
            source = out[text] = _parse_one(text, texts[text])
        except SpecError:
            continue
        if not source.problems:
            keep(text, source)
    return out
