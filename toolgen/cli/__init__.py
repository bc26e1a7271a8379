"""The `toolgen` command line: parsing only; the work happens in the library.

Subcommands are imported lazily (`LazyGroup`), so `toolgen serve` does not
pay for the compiler's imports and `toolgen build` not for the runtime's.
Exit codes: 0 ok, 1 problems in the input (spec errors, drift, findings),
2 usage errors, 3 an internal error (a bug in toolgen: never the input's fault),
130 interrupted (Ctrl-C; the writer leaves nothing half-written).
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any

import click

from toolgen.cli.common import echo
from toolgen.limits import max_message
from toolgen.spec import collector
from toolgen.version import __version__

COMMANDS: dict[str, tuple[str, str]] = {
    "build": (
        "toolgen.cli.build",
        "Compile spec sets into schemas, tool definitions, models and stubs.",
    ),
    "check": (
        "toolgen.cli.build",
        "Fail (exit 1, with a diff) when generated output is stale.",
    ),
    "tools": (
        "toolgen.cli.build",
        "Print the tools/list result body for a protocol revision.",
    ),
    "serve": (
        "toolgen.cli.serve",
        "Serve a spec set over MCP (stdio or Streamable HTTP) with handlers or mocks.",
    ),
    "call": (
        "toolgen.cli.call",
        "Call one tool of a live server from the shell (destructive tools only when allowed).",
    ),
    "import": (
        "toolgen.cli.importing",
        "Import an existing server's tools (files or a live server) as a spec set.",
    ),
    "init": (
        "toolgen.cli.importing",
        "Write a starter spec set that builds, lints clean and serves.",
    ),
    "lint": ("toolgen.cli.lint", "Lint annotations, names, schemas and descriptions of MCP tools."),
    "rules": ("toolgen.cli.lint", "List the lint rules, or explain one."),
    "diff": (
        "toolgen.cli.diff",
        "Tell whether a spec change breaks clients or makes a tool less safe.",
    ),
    "digest": ("toolgen.cli.diff", "Print the canonical digest of every tool and of the tool set."),
    "verify": (
        "toolgen.cli.verify",
        "Check a running MCP server (stdio or HTTP) against a spec set.",
    ),
}
"""Command name -> (module holding a click command of that name, short help)."""


class LazyGroup(click.Group):
    """A group whose subcommands are imported only when they run."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        entry = COMMANDS.get(cmd_name)
        if entry is None:
            return None
        module = importlib.import_module(entry[0])
        attribute = cmd_name.replace("-", "_")
        command = getattr(module, attribute, None) or getattr(module, attribute + "_")  # import_
        assert isinstance(command, click.Command)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, COMMANDS[name][1]) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="toolgen")
def cli() -> None:
    """toolgen compiles declarative MCP tool specs (YAML) into JSON Schema 2020-12
    documents, MCP tool definitions, pydantic models and server stubs; lints
    their annotations; and serves them over MCP.

    A spec set is a directory of *.yaml files (searched recursively) or a list
    of files; commands default to `specs/`. See `toolgen COMMAND --help`.
    """
    try:
        max_message()  # a bad setting is refused before any command reads from a server
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None


EXIT_INTERNAL_ERROR = 3
"""A crash: its own code, so that no script mistakes a bug in toolgen for bad input."""
EXIT_INTERRUPTED = 130
"""128 + SIGINT, as shells report a command stopped by Ctrl-C."""


def main(argv: list[str] | None = None) -> Any:
    """Console-script entry point."""
    args = argv if argv is not None else sys.argv[1:]
    try:
        return cli.main(args=args, prog_name="toolgen", standalone_mode=False)
    except click.exceptions.Abort:
        echo("toolgen: interrupted", err=True)
        sys.exit(EXIT_INTERRUPTED)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except Exception as exc:  # every input problem is a SpecError or a click error before this
        report_internal_error(exc)
        sys.exit(EXIT_INTERNAL_ERROR)
    finally:
        collector.keep_forever()  # the process ends now: its last collection need not walk it


def report_internal_error(exc: BaseException) -> None:
    """A short "please report" message on stderr (the traceback with TOOLGEN_DEBUG=1)."""
    if os.environ.get("TOOLGEN_DEBUG"):
        import traceback  # only for a bug: every command starts faster without it

        traceback.print_exception(exc)
    summary = f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
    echo(
        f"toolgen: internal error ({summary})\n"
        f"This is a bug in toolgen {__version__}, not a problem in your input. Please report it "
        "with the command you ran and the input that caused it (TOOLGEN_DEBUG=1 prints the "
        "traceback).",
        err=True,
    )
