"""`toolgen build`, `toolgen check` and `toolgen tools`: option parsing only."""

from __future__ import annotations

import re
import shlex
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar, cast

import click

from toolgen.spec.errors import SpecError

F = TypeVar("F", bound=Callable[..., Any])

DEFAULT_SPECS = "specs"
DEFAULT_OUT = "generated"


def spec_arguments(func: F) -> F:
    """The SPECS... argument shared by the commands (default: specs/)."""
    return click.argument("specs", nargs=-1, type=click.Path(path_type=Path))(func)


def out_option(func: F) -> F:
    return click.option(
        "-o",
        "--out",
        type=click.Path(file_okay=False, path_type=Path),
        default=DEFAULT_OUT,
        show_default=True,
        help="Output directory; each spec set becomes OUT/<package>/.",
    )(func)


def check_name(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    from toolgen.spec.model import SERVER_NAME_PATTERN

    if value is not None and not re.fullmatch(SERVER_NAME_PATTERN, value):
        raise click.BadParameter(f"{value!r}; expected a name matching {SERVER_NAME_PATTERN}")
    return value


def name_option(func: F) -> F:
    return click.option(
        "--name",
        default=None,
        callback=check_name,
        help="Server (and package) name of a spec set without a `server` block "
        "(default: its directory's name).",
    )(func)


def target_option(func: F) -> F:
    return click.option(
        "--target",
        default=None,
        metavar="TARGETS",
        help="What to write per spec set: python, typescript, or python,typescript "
        "(default: `target` under [tool.toolgen] in the nearest pyproject.toml, else python).",
    )(func)


def resolve_targets(value: str | None) -> tuple[str, ...]:
    """The build targets `--target` names, else the nearest pyproject.toml's
    `[tool.toolgen] target` (a string or a list), else python; in canonical order."""
    from toolgen.build.run import DEFAULT_TARGETS, TARGETS

    where = "--target"
    if value is None:
        import tomllib  # only when --target is not given

        from toolgen.lint.config import find_pyproject

        path = find_pyproject(Path.cwd())
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8")) if path else {}
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise click.UsageError(f"{path}: cannot read configuration: {exc}") from None
        value = data.get("tool", {}).get("toolgen", {}).get("target")
        if value is None:
            return DEFAULT_TARGETS
        where = f"{path}: [tool.toolgen] target"
        value = ",".join(value) if isinstance(value, list) else value
    names = [part.strip() for part in str(value).split(",") if part.strip()]
    if not names or any(name not in TARGETS for name in names):
        raise click.UsageError(
            f"{where}: {value!r}; expected {', '.join(TARGETS)} or several, comma-separated"
        )
    return tuple(target for target in TARGETS if target in names)


def fail_on_spec_errors(exc: SpecError) -> None:
    """Print every diagnostic (no traceback) and exit 1."""
    for diagnostic in exc.diagnostics:
        click.echo(str(diagnostic), err=True)
    count = len(exc.diagnostics)
    click.echo(f"{count} error{'s' if count != 1 else ''}; nothing was written.", err=True)
    sys.exit(1)


def build_command(specs: Sequence[Path], out: Path) -> str:
    """The `toolgen build` command line that regenerates `out` from `specs`, shell-quoted."""
    words = ["toolgen", "build", *(str(s) for s in specs)]
    if out != Path(DEFAULT_OUT):
        words += ["-o", str(out)]
    return shlex.join(words)


def _specs_or_default(specs: tuple[Path, ...]) -> list[Path]:
    return list(specs) if specs else [Path(DEFAULT_SPECS)]


@click.command()
@spec_arguments
@out_option
@click.option("-q", "--quiet", is_flag=True, help="Print nothing on success.")
@click.option(
    "--scaffold/--no-scaffold",
    default=True,
    show_default=True,
    help="Write a handler module for you beside each package (OUT/<package>_handlers.py) "
    "when it is missing; an existing one is never touched.",
)
@name_option
@target_option
@click.option(
    "--force",
    "--overwrite",
    "force",
    is_flag=True,
    help="Replace (or remove) generated files that were edited since toolgen wrote them, "
    "discarding the edits. Files toolgen did not write are still never touched.",
)
def build(
    specs: tuple[Path, ...],
    out: Path,
    quiet: bool,
    scaffold: bool,
    name: str | None,
    target: str | None,
    force: bool,
) -> None:
    """Compile spec sets into OUT/<package>/: JSON Schema documents, MCP tool
    definitions for every protocol revision, pydantic models and a server stub
    (--target typescript: a TypeScript module for the official SDK instead, or too).

    SPECS are spec files or directories (default: specs/). A directory whose
    subdirectories each declare a server is a directory of spec sets.
    Incremental: unchanged spec sets are skipped. All-or-nothing: on any error
    nothing in OUT changes, and files toolgen did not write are never touched.
    """
    from toolgen.build.progress import clock, process_started
    from toolgen.build.run import build as run_build

    started = time.perf_counter()
    targets = resolve_targets(target)
    progress = None if quiet else (lambda line: click.echo(line, err=True))
    try:
        with clock(since=process_started()):  # silence counts from the command's start
            report = run_build(
                _specs_or_default(specs),
                out,
                progress=progress,
                scaffold=scaffold,
                name=name,
                force=force,
                targets=targets,
            )
    except SpecError as exc:
        fail_on_spec_errors(exc)
        return
    if not quiet:
        elapsed = time.perf_counter() - started
        for path in report.scaffolds:
            click.echo(f"wrote {path}: your handlers, to fill in (never overwritten)", err=True)
        for package in report.up_to_date:
            click.echo(f"{out / package}: up to date", err=True)
        if report.packages:
            click.echo(
                f"built {', '.join(report.packages)} in {out}: {report.written} written, "
                f"{report.deleted} removed, {report.unchanged} unchanged ({elapsed:.2f}s)",
                err=True,
            )


@click.command()
@spec_arguments
@out_option
@name_option
@target_option
def check(specs: tuple[Path, ...], out: Path, name: str | None, target: str | None) -> None:
    """Exit 1 with a unified diff when OUT is stale (does not match a fresh build
    of SPECS); exit 0 when it is up to date. For CI and pre-commit.
    """
    from toolgen.build.run import check as run_check

    try:
        diff = run_check(_specs_or_default(specs), out, name=name, targets=resolve_targets(target))
    except SpecError as exc:
        fail_on_spec_errors(exc)
        return
    if diff:
        click.echo(diff, nl=False)
        command = build_command(specs, out)
        click.echo(f"{out} is stale: run `{command}` and commit the result.", err=True)
        sys.exit(1)
    click.echo(f"{out} is up to date.", err=True)


@click.command()
@spec_arguments
@click.option(
    "--protocol",
    "revision",
    default=None,
    metavar="REV",
    help="Protocol revision (2025-06-18, 2025-11-25, 2026-07-28). Default: the latest.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["mcp", "openai", "anthropic", "gemini"]),
    default="mcp",
    show_default=True,
    help="mcp: the tools/list result; openai, anthropic, gemini: the tool list that "
    "provider's API accepts, with the names mapped back to MCP (`mcpNames`).",
)
@click.option(
    "--explain",
    is_flag=True,
    help="Print the loss report instead: per tool, each constraint the provider view "
    "could not pass on as written, and its size in tokens (about).",
)
def tools(specs: tuple[Path, ...], revision: str | None, fmt: str, explain: bool) -> None:
    """Print the tools of one spec set as JSON: the `tools/list` result body
    ({"tools": [...]}), or a provider's view of them (--format)."""
    from toolgen.build.common import json_text
    from toolgen.spec.pipeline import load_spec_set
    from toolgen.spec.protocol import LATEST_REVISION, SUPPORTED_REVISIONS, list_tools_result

    chosen = revision or LATEST_REVISION
    if chosen not in SUPPORTED_REVISIONS:
        raise click.BadParameter(
            f"{chosen!r}; expected one of {', '.join(SUPPORTED_REVISIONS)}", param_hint="--protocol"
        )
    if explain and fmt == "mcp":
        raise click.UsageError("--explain needs a provider --format (openai, anthropic, gemini)")
    try:
        toolset = load_spec_set(_specs_or_default(specs))
    except SpecError as exc:
        fail_on_spec_errors(exc)
        return
    if fmt == "mcp":
        click.echo(json_text(list_tools_result(toolset, chosen)), nl=False)
        return
    from toolgen.providers import Provider, toolset_view
    from toolgen.providers.report import report_text

    view = toolset_view(toolset, cast("Provider", fmt))  # click checked the choice
    click.echo(report_text(view) if explain else json_text(view.document()), nl=False)
