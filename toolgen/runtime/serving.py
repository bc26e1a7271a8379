"""Loading the one spec set a server serves."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from toolgen.runtime.toolset import RuntimeToolSet


def load_spec_set(paths: Sequence[str | Path]) -> RuntimeToolSet:
    """The spec set named by `paths`; `ValueError` when they name several (a server serves one).

    Raises `SpecError` for bad input, like the compiler.
    """
    from toolgen.loader import load_files, spec_sets
    from toolgen.resolver import resolve

    sets = spec_sets(paths)
    if len(sets) > 1:
        names = ", ".join(str(s.root) for s in sets)
        raise ValueError(f"a server serves one spec set; {paths[0]} holds several: {names}")
    return RuntimeToolSet(resolve(load_files(sets[0].files)))
