"""Parse many spec files on two cores: the parse dominates a first lint or diff of large
spec sets.

Half of the texts are parsed in a forked child while this process parses the
other half (`core.forked`); each process hands what it parsed to `keep` (the
parse cache writes its entries, so the two halves are written at once), and the
child sends its results back as plain data. Without `os.fork`, for little input,
or on any trouble with the child, everything is parsed here: the result is the
same, only slower. A text that does not parse is left out, so that the
ordinary (sequential) load reports it with its diagnostics.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from toolgen.core import forked
from toolgen.core.errors import SpecError
from toolgen.core.positions import SourceFile

MIN_PARALLEL_BYTES = 256 * 1024
"""Below this much text, forking costs more than it saves."""

Parsed = tuple[Any, Any, Any]  # data, positions, key positions


def worth_forking(texts: Iterable[str]) -> bool:
    """Whether parsing these texts on two cores saves time."""
    return forked.available() and sum(map(len, texts)) >= MIN_PARALLEL_BYTES


Keep = Callable[[str, SourceFile], None]
"""Called with each text and its clean parse, in the process that parsed it."""


def parse_all(texts: dict[str, Path], keep: Keep) -> dict[str, SourceFile]:
    """Parse each text (read from the given path); texts that do not parse are left out."""
    todo = sorted(texts, key=len, reverse=True)
    if not worth_forking(todo):
        return _parse(todo, texts, keep)
    theirs, mine = todo[0::2], todo[1::2]
    received, result = forked.beside(
        lambda: _parsed(theirs, texts, keep), lambda: _parse(mine, texts, keep)
    )
    if not isinstance(received, dict):
        received = {}
    for text in theirs:
        path = texts[text]
        source = SourceFile.from_parsed(path, str(path), received.get(text))
        if source is not None:
            result[text] = source
        else:
            result.update(_parse([text], texts, keep))
    return result


def _parsed(todo: list[str], texts: dict[str, Path], keep: Keep) -> dict[str, Parsed]:
    """The clean parses of `todo`, as plain data (what the child sends back)."""
    return {text: s.parsed() for text, s in _parse(todo, texts, keep).items() if not s.problems}


def _parse(todo: list[str], texts: dict[str, Path], keep: Keep) -> dict[str, SourceFile]:
    from toolgen.frontend.source import parse_source

    out: dict[str, SourceFile] = {}
    for text in todo:
        try:
            source = out[text] = parse_source(text, texts[text], str(texts[text]))
        except SpecError:
            continue
        if not source.problems:
            keep(text, source)
    return out
