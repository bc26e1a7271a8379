"""What several commands share: default paths, the `--name` check, how spec errors end a run."""

from __future__ import annotations

import re
import sys

import click

from toolgen.report.terminal import print_spec_errors
from toolgen.spec.errors import SpecError
from toolgen.spec.model import SERVER_NAME_PATTERN
from toolgen.spec.text import visible

DEFAULT_SPECS = "specs"
DEFAULT_OUT = "generated"


def check_name(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is not None and not re.fullmatch(SERVER_NAME_PATTERN, value):
        raise click.BadParameter(f"{value!r}; expected a name matching {SERVER_NAME_PATTERN}")
    return value


def echo(message: str, *, err: bool = False, nl: bool = True) -> None:
    """`click.echo` of text that may hold a server's or a spec's strings: control characters
    but newline and tab are shown as `\\uXXXX` (`spec.text.visible`), so no escape sequence
    reaches the terminal; JSON text stays valid and means the same."""
    click.echo(visible(message), err=err, nl=nl)


def fail_on_spec_errors(exc: SpecError) -> None:
    """Print every diagnostic (no traceback) and exit 1."""
    print_spec_errors(exc.diagnostics)
    count = len(exc.diagnostics)
    echo(f"{count} error{'s' if count != 1 else ''}; nothing was written.", err=True)
    sys.exit(1)
