"""Write a file so that readers see the old content or the new, never half of it."""

from __future__ import annotations

import itertools
import os
from pathlib import Path

_WRITES = itertools.count()
"""Names the temporary files of this process apart (`tempfile` would cost a lint ~10 ms of
imports: shutil and the compression modules it loads)."""


def write_atomically(path: Path, data: bytes) -> None:
    """Write `data` to a temporary file beside `path` (named for this process and write),
    then rename it over `path`; the temporary file never outlives a failure. OSError when
    it cannot be written."""
    name = path.with_name(f"{path.name}.{os.getpid()}-{next(_WRITES)}.tmp")
    try:
        with open(name, "xb") as handle:
            handle.write(data)
        os.replace(name, path)
    finally:
        name.unlink(missing_ok=True)
