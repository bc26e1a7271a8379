"""Writing a new spec set (`toolgen import`, `toolgen init`) through the one writer.

All or nothing, never over a file toolgen did not write, and a file toolgen
wrote is replaced only while it is unchanged. Unlike a build's packages, spec
sets beside the new one are never taken for its earlier names: each directory
is a spec set of its own.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path


def write_spec_set(
    root: Path, files: Mapping[str, str], header: str, *, force: bool = False
) -> None:
    """Write `files` (name → text) into directory `root`; `header` is the manifest's note.
    `force`: replace files toolgen wrote there even when edited since."""
    from toolgen.build.writer import PackageOutput, apply, plan

    target = root.resolve()
    digest = hashlib.sha256("".join(files[name] for name in sorted(files)).encode()).hexdigest()
    output = PackageOutput(target.name, files, digest, header=header, replaces_renamed=False)
    apply(plan(target.parent, [output], force=force))
