"""Report files (`-o FILE`): refused up front when they cannot be written, written whole.

A long run (a verify of a live server) should not end in an unwritable path, so
the path is checked before the work starts; the report is then written to a
temporary sibling and renamed into place, so a reader never sees half a report. A file
gets what the terminal would: a server's or a spec's control characters as escapes.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import click

from toolgen.spec.text import visible

OUTPUT = click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path),
    help="Write the report here instead of stdout (whole, or not at all).",
)
"""The `-o FILE` option of the commands that print a report (lint, diff, verify)."""


def check_report_path(path: Path) -> None:
    """A `click.BadParameter` (exit 2) when a report cannot be written to `path`."""
    if path.is_dir():
        raise click.BadParameter(f"{path} is a directory, not a file", param_hint="--output")
    parent = path.parent
    if not parent.is_dir():
        raise click.BadParameter(f"no such directory: {parent}", param_hint="--output")
    if not os.access(parent, os.W_OK):
        raise click.BadParameter(f"cannot write in {parent}", param_hint="--output")


def write_report(path: Path, text: str) -> None:
    """Write `text` to `path` whole (temporary sibling, then rename), its control characters
    escaped as on stdout (`toolgen.cli.common.echo`)."""
    import tempfile  # only when a report is written (every lint imports this module)

    handle, name = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(visible(text))
        os.chmod(name, _mode(path))
        os.replace(name, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(name)
        raise


def _mode(path: Path) -> int:
    """The existing file's permissions, else what the umask gives a new file (mkstemp's 0600
    would hide a CI report from other users)."""
    with contextlib.suppress(OSError):
        return path.stat().st_mode & 0o7777
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask
