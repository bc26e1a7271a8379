"""Parse many spec files on two cores: the parse dominates a first lint or diff of large
spec sets.

The texts are parsed in a forked child and in this process at once, each taking
the next text from one queue (`core.forked.in_turns`, the biggest texts first)
until none is left, so that the two finish at about the same time. Each process
hands what it parsed to `keep` (the parse cache writes its entries, so both
processes write at once), and the child sends its results back as plain data:
each file's data and its positions, packed once for both the cache and the parent
(unpacked here only when something is located) and marshalled as each file is
done. Without `os.fork`, for little input, or on any trouble with the child,
everything is parsed here: the result is the same, only slower. A text that does
not parse is left out, so that the ordinary (sequential) load reports it with its
diagnostics.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator
from functools import partial
from pathlib import Path

from toolgen.spec import forked
from toolgen.spec.errors import SpecError
from toolgen.spec.positions import SourceFile

MIN_PARALLEL_BYTES = 256 * 1024
"""Below this much text, forking costs more than it saves."""


def worth_forking(texts: Collection[str]) -> bool:
    """Whether parsing these texts on two cores saves time (there are two to split, at least)."""
    return len(texts) >= 2 and forked.available() and sum(map(len, texts)) >= MIN_PARALLEL_BYTES


Keep = Callable[[str, SourceFile], None]
"""Called with each text and its clean parse, in the process that parsed it."""


def parse_all(texts: dict[str, Path], keep: Keep) -> dict[str, SourceFile]:
    """Parse each text (read from the given path); texts that do not parse are left out."""
    todo = sorted(texts, key=len, reverse=True)  # the biggest first: the last ones are short
    if not worth_forking(todo):
        return _parse(todo, texts, keep)
    mine: list[int] = []
    received, result = forked.in_turns(
        len(todo),
        lambda taken: _shipped(taken, todo, texts, keep),
        lambda taken: _parse(_texts(taken, todo, mine), texts, keep),
    )
    if not isinstance(received, dict):
        received = {}
    taken_here = set(mine)
    for index, text in enumerate(todo):
        if index in taken_here:
            continue
        path = texts[text]
        again = partial(_parse_one, text, path)
        source = SourceFile.from_shipped(path, str(path), received.get(index), again)
        if source is not None:
            result[text] = source
        else:  # the child's parse failed, or the child did
            result.update(_parse([text], texts, keep))
    return result


def _texts(indices: Iterable[int], todo: list[str], taken: list[int]) -> Iterator[str]:
    """The texts of `todo` at `indices` (taken in turns as they are asked for), each index
    noted in `taken`."""
    for index in indices:
        taken.append(index)
        yield todo[index]


def _shipped(
    indices: Iterable[int], todo: list[str], texts: dict[str, Path], keep: Keep
) -> dict[int, bytes]:
    """The clean parses of the texts at `indices` in `todo` (the child's), by index, each
    packed for the parent as soon as it is made (`SourceFile.shipped`): the child's last
    work is then only to send them. A file's positions are packed once, for the cache
    (`keep`) and for the parent."""
    out: dict[int, bytes] = {}
    taken: list[int] = []

    def keep_packed(text: str, source: SourceFile) -> None:  # the text taken last
        packed = SourceFile.from_packed(
            source.path, source.display, source.data, source.packed_positions(), lambda: source
        )
        out[taken[-1]] = packed.shipped()  # its positions as packed, not packed again
        keep(text, packed)

    _parse(_texts(indices, todo, taken), texts, keep_packed)
    return out


def _parse_one(text: str, path: Path) -> SourceFile:
    """Parse one text (also a file whose shipped positions do not unpack, anew)."""
    from toolgen.spec.source import parse_source

    return parse_source(text, path, str(path))


def _parse(todo: Iterable[str], texts: dict[str, Path], keep: Keep) -> dict[str, SourceFile]:
    out: dict[str, SourceFile] = {}
    for text in todo:
        try:
            source = out[text] = _parse_one(text, texts[text])
        except SpecError:
            continue
        if not source.problems:
            keep(text, source)
    return out
