"""`toolgen import` and `toolgen init`: option parsing only."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from toolgen.cli.common import DEFAULT_OUT, check_name, echo, fail_on_spec_errors
from toolgen.limits import CALL_TIMEOUT
from toolgen.spec.errors import SpecError
from toolgen.spec.positions import display_path


def _headers(values: tuple[str, ...]) -> dict[str, str]:
    headers: dict[str, str] = {}
    for value in values:
        key, sep, rest = value.partition(":")
        if not sep or not key.strip():
            raise click.BadParameter(f"{value!r}; expected 'Name: value'", param_hint="--header")
        headers[key.strip()] = rest.strip()
    return headers


@click.command("import")
@click.argument("sources", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "-o",
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    required=True,
    help="Directory of the new spec set (created; a file toolgen did not write is never overwritten).",
)
@click.option(
    "--server", "command", metavar="'CMD ARGS...'", help="Import a live server run over stdio."
)
@click.option(
    "--url", metavar="URL", help="Import a live server over Streamable HTTP (its MCP endpoint)."
)
@click.option(
    "-H",
    "--header",
    "headers",
    multiple=True,
    metavar="'NAME: VALUE'",
    help="An HTTP header for --url (repeatable), e.g. 'Authorization: Bearer $TOKEN'.",
)
@click.option(
    "--timeout",
    type=float,
    default=CALL_TIMEOUT,
    show_default=True,
    help="Seconds a live server has to list its tools.",
)
@click.option(
    "--name",
    default=None,
    callback=check_name,
    help="Write a `server` block with this name (default: the live server's own, made valid; "
    "none for files).",
)
@click.option("-q", "--quiet", is_flag=True, help="Print only warnings.")
@click.option(
    "--force",
    is_flag=True,
    help="Replace an earlier import in OUT even if it was edited since (the edits are lost). "
    "Files toolgen did not write are still never touched.",
)
def import_(
    sources: tuple[Path, ...],
    out: Path,
    command: str | None,
    url: str | None,
    headers: tuple[str, ...],
    timeout: float,
    name: str | None,
    quiet: bool,
    force: bool,
) -> None:
    """Import an existing server's tools as a YAML spec set in OUT.

    SOURCES are published definitions: a tools/list result (also inside a
    JSON-RPC response), a JSON list of Tool objects, or directories of Tool
    JSON files. Or a live server: --server 'CMD ARGS...' (stdio) or --url URL.
    Schemas become JSON Schema 2020-12 (draft-07 and 2019-09 are converted),
    shared definitions become `defs`, and every tool that would not read back
    exactly as published carries a warning saying why.
    """
    from toolgen.importer import import_published, read_files, write_import
    from toolgen.importer.live import LiveError, list_http, list_stdio

    chosen = sum(bool(x) for x in (sources, command, url))
    if chosen != 1:
        raise click.UsageError(
            "give definition files, or --server 'CMD ARGS...', or --url URL (one of them)"
        )
    if headers and not url:
        raise click.UsageError("--header goes with --url")
    try:
        if command:
            published = list_stdio(command, timeout=timeout)
        elif url:
            published = list_http(url, _headers(headers), timeout=timeout)
        else:
            published = read_files(list(sources))
        result = import_published(published, name=name)
        path = write_import(result, out, force=force)
    except LiveError as exc:
        echo(f"toolgen import: error: {exc}", err=True)
        sys.exit(2)
    except SpecError as exc:
        fail_on_spec_errors(exc)
        return
    for warning in result.warnings:
        echo(f"warning: {warning}", err=True)
    if not quiet:
        converted = ", ".join(f"{n} from {d}" for d, n in sorted(result.converted.items()))
        echo(
            f"imported {result.tools} tool{'s' if result.tools != 1 else ''} "
            f"into {display_path(path)}: "
            f"{result.identical} read back exactly as published ({result.revision})"
            + (f"; schemas converted to 2020-12: {converted}" if converted else "")
            + f"; {len(result.warnings)} warning{'s' if len(result.warnings) != 1 else ''}",
            err=True,
        )


@click.command()
@click.argument("directory", required=False, type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--handlers", is_flag=True, help="Also write DIR/handlers.py, Python handlers for the tools."
)
@click.option(
    "--force",
    is_flag=True,
    help="Replace an earlier starter in DIRECTORY even if it was edited since (the edits are "
    "lost). Files toolgen did not write are still never touched.",
)
def init(directory: Path | None, handlers: bool, force: bool) -> None:
    """Write a starter spec set into DIRECTORY (default: specs/hello), commented to
    teach the format. It builds, lints clean and serves as it is."""
    from toolgen.importer.starter import write_starter

    root = directory or Path("specs") / "hello"
    try:
        written, built = write_starter(root, handlers=handlers, force=force, out=Path(DEFAULT_OUT))
    except SpecError as exc:
        fail_on_spec_errors(exc)
        return
    for path in written:
        echo(f"wrote {path}", err=True)
    if built is not None:
        echo(f"your handlers are in {built}, which `toolgen build` wrote", err=True)
    serve = f"--handlers {root}/handlers.py:Handlers" if handlers and built is None else "--mock"
    echo(f"next: toolgen lint {root} && toolgen serve {root} {serve}", err=True)
