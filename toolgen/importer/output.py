"""Writing a new spec set (`toolgen import`, `toolgen init`) through the one writer.

All or nothing, never over a file toolgen did not write, and a file toolgen
wrote is replaced only while it is unchanged. The directory written is the
writer's output directory itself, so its lock and its journal are inside it:
imports into sibling directories never meet. Unlike a build's packages, spec
sets beside the new one are never taken for its earlier names.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path

from toolgen.build.writer import PackageOutput, write


def write_spec_set(
    root: Path, files: Mapping[str, str], header: str, *, force: bool = False
) -> None:
    """Write `files` (name → text) into directory `root`; `header` is the manifest's note.
    `force`: replace files toolgen wrote there even when edited since."""
    digest = hashlib.sha256("".join(files[name] for name in sorted(files)).encode()).hexdigest()
    output = PackageOutput("", files, digest, header=header, replaces_renamed=False)
    write(root, [output], force=force)
