"""`toolgen call`: call one tool of a live MCP server from the shell (option parsing only)."""

from __future__ import annotations

import json
import shlex
import sys
from typing import Any

import click

from toolgen.cli.common import echo
from toolgen.cli.importing import _headers
from toolgen.extras import install_hint
from toolgen.limits import CALL_TIMEOUT


@click.command()
@click.argument("tool")
@click.argument("arguments", required=False, default="{}", metavar="[JSON]")
@click.option("--server", "command", metavar="'CMD ARGS...'", help="Start the server over stdio.")
@click.option("--url", metavar="URL", help="The server's Streamable HTTP endpoint.")
@click.option(
    "-H",
    "--header",
    "headers",
    multiple=True,
    metavar="'Name: value'",
    help="An HTTP header for --url (repeatable), e.g. 'Authorization: Bearer $TOKEN'.",
)
@click.option(
    "--allow-destructive",
    is_flag=True,
    help="Also call a tool that may destroy data (not read-only, and not declared "
    "destructiveHint: false). Refused without this flag.",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=CALL_TIMEOUT,
    show_default=True,
    help="Seconds for connecting, listing and the call together.",
)
def call(
    tool: str,
    arguments: str,
    command: str | None,
    url: str | None,
    headers: tuple[str, ...],
    allow_destructive: bool,
    timeout: float,
) -> None:
    """Call TOOL of a live server with JSON arguments (an object; default {}) and print
    the result: its structured content as JSON, else its text.

    Exit 0 on success, 1 when the tool answers isError (its text on stderr), 2 when
    the tool was not called (usage, unknown tool, refused as destructive, no server).
    """
    from toolgen.client.call import CallError
    from toolgen.client.call import call as call_tool

    try:  # the MCP SDK is an extra: its absence is the install's, not a bug in toolgen
        import anyio  # noqa: F401
        import mcp  # noqa: F401
    except ImportError as exc:
        raise click.UsageError(
            f"toolgen call needs the mcp extra ({exc.name} is missing); add it with: "
            + install_hint("mcp")
        ) from None
    if (command is None) == (url is None):
        raise click.UsageError("give exactly one of --server 'CMD ARGS...' and --url URL")
    if headers and url is None:
        raise click.UsageError("--header goes with --url")
    parsed = _arguments(arguments)
    try:
        argv = shlex.split(command) if command is not None else None
    except ValueError as exc:  # "No closing quotation"
        raise click.BadParameter(
            f"{exc}; quote it as a shell would", param_hint="--server"
        ) from None
    if argv is not None and not argv:
        raise click.BadParameter("needs a command", param_hint="--server")
    try:
        outcome = call_tool(
            tool,
            parsed,
            command=argv,
            url=url,
            headers=_headers(headers),
            allow_destructive=allow_destructive,
            timeout=timeout,
        )
    except CallError as exc:
        echo(f"toolgen call: {exc}", err=True)
        sys.exit(2)
    if outcome.is_error:
        echo(outcome.text, err=True)
        sys.exit(1)
    if outcome.has_structured:
        echo(json.dumps(outcome.structured, indent=2, ensure_ascii=False))
    else:
        echo(outcome.text)


def _arguments(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise click.BadParameter(
            f"not JSON: {exc.msg} at column {exc.colno}", param_hint="JSON"
        ) from None
    if not isinstance(value, dict):
        raise click.BadParameter("expected a JSON object of arguments", param_hint="JSON")
    return value
