"""Where a build puts what it generates: names the compiler writes and other stages read.

A package toolgen built is `OUT/<package>/`, with `.toolgen-manifest.json` (every file
the build wrote, with its hash) and `tools/<revision>.json` (each protocol revision's
`tools/list` result): `lint`, `diff` and `digest` read a built package as the published
definitions of its latest revision.
"""

from __future__ import annotations

from pathlib import Path

from toolgen.spec.protocol import LATEST_REVISION

MANIFEST = ".toolgen-manifest.json"
TOOLS_DIR = "tools"


def tools_file(package: Path, revision: str = LATEST_REVISION) -> Path:
    """Where a built `package` holds the `tools/list` result of `revision`."""
    return package / TOOLS_DIR / f"{revision}.json"
