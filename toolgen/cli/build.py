"""`toolgen build`, `toolgen check` and `toolgen tools`: option parsing only."""

from __future__ import annotations

import shlex
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

import click

from toolgen.build.common import json_text
from toolgen.build.progress import clock, process_started
from toolgen.build.run import build as run_build
from toolgen.build.run import check as run_check
from toolgen.build.targets import DEFAULT_TARGETS, TARGETS
from toolgen.build.writer import Drift
from toolgen.cli.common import DEFAULT_OUT, DEFAULT_SPECS, check_name, echo, fail_on_spec_errors
from toolgen.providers import Provider, toolset_view
from toolgen.providers.report import report_text
from toolgen.report.config import ConfigError, find_pyproject, load_section
from toolgen.spec import collector
from toolgen.spec.errors import SpecError
from toolgen.spec.pipeline import load_spec_set
from toolgen.spec.positions import display_path
from toolgen.spec.protocol import LATEST_REVISION, SUPPORTED_REVISIONS, list_tools_result

if TYPE_CHECKING:
    from toolgen.spec.ir import Refs

F = TypeVar("F", bound=Callable[..., Any])


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


def name_option(func: F) -> F:
    return click.option(
        "--name",
        default=None,
        callback=check_name,
        help="Server (and package) name of a spec set without a `server` block "
        "(default: its directory's name).",
    )(func)


def refs_option(func: F) -> F:
    return click.option(
        "--refs",
        type=click.Choice(["inline", "keep"]),
        default=None,
        help="How tool definitions write `$ref`s to defs: inline every one that is not "
        "recursive, or keep them as bundled. Default: the spec set's `server.refs` "
        "(inline when not given).",
    )(func)


def target_option(func: F) -> F:
    return click.option(
        "--target",
        default=None,
        metavar="TARGETS",
        help="What to write per spec set: python, typescript, rust, go, or several separated "
        "by commas (default: `target` in [tool.toolgen.build] of the nearest pyproject.toml, "
        "else python).",
    )(func)


def options_option(func: F) -> F:
    return click.option(
        "--option",
        "options",
        multiple=True,
        metavar="TARGET.NAME=VALUE",
        help="A setting of a target, e.g. `go.module=example.com/{package}` (the Go module "
        "path; `{package}` is each package's name). Repeatable; overrides "
        "[tool.toolgen.build.<target>] of the nearest pyproject.toml.",
    )(func)


def resolve_options(values: Sequence[str], targets: Sequence[str]) -> dict[str, str]:
    """The settings of `targets`: `[tool.toolgen.build.<target>]` tables of the nearest
    pyproject.toml, then `--option TARGET.NAME=VALUE` (each checked against what its target
    takes), by `<target>.<name>`."""
    try:
        found = load_section(find_pyproject(Path.cwd()), "build", _table_options)
    except ConfigError as exc:
        raise click.UsageError(str(exc)) from None
    try:
        for value in values:
            key, equals, setting = value.partition("=")
            if not equals:
                raise ConfigError(f"{value!r}: expected TARGET.NAME=VALUE")
            found[_option_key(key.strip(), setting)] = setting
    except ConfigError as exc:
        raise click.UsageError(f"--option {exc}") from None
    return {key: value for key, value in found.items() if key.partition(".")[0] in targets}


def _table_options(table: Mapping[str, Any]) -> dict[str, str]:
    found = {}
    for target in TARGETS:
        settings = table.get(target, {})
        if not isinstance(settings, dict):
            raise ConfigError(f"{target!r} must be a table")
        for name, value in settings.items():
            if not isinstance(value, str):
                raise ConfigError(f"{target}.{name} must be a string")
            found[_option_key(f"{target}.{name}", value)] = value
    return found


def _option_key(key: str, value: str) -> str:
    """`key` (`<target>.<name>`) when its target takes that setting and `value` will do."""
    target, _, name = key.partition(".")
    known = [f"{t.name}.{n}" for t in TARGETS.values() for n in t.options]
    option = TARGETS[target].options.get(name) if target in TARGETS else None
    if option is None:
        raise ConfigError(f"unknown option {key!r}; expected one of: {', '.join(known) or 'none'}")
    if not option.valid(value):
        raise ConfigError(f"{key}: {value!r} is not {option.help}")
    return key


def resolve_targets(value: str | None) -> tuple[str, ...]:
    """The build targets `--target` names, else `target` in the nearest pyproject.toml's
    `[tool.toolgen.build]` (a string or a list), else python; in canonical order."""
    try:
        if value is not None:
            return _targets(value)
        path = find_pyproject(Path.cwd())
        return load_section(path, "build", lambda table: _targets(table.get("target")))
    except ConfigError as exc:
        where = "--target " if value is not None else ""
        raise click.UsageError(f"{where}{exc}") from None


def _targets(value: object) -> tuple[str, ...]:
    """The targets a setting names (None: the default), in canonical order."""
    if value is None:
        return DEFAULT_TARGETS
    parts = value if isinstance(value, list) else str(value).split(",")
    names = [part.strip() for part in parts if not isinstance(part, str) or part.strip()]
    if not names or not all(name in TARGETS for name in names):
        raise ConfigError(f"target {value!r}: expected {', '.join(TARGETS)} or several")
    return tuple(target for target in TARGETS if target in names)


def build_command(
    specs: Sequence[Path],
    out: Path,
    name: str | None = None,
    refs: str | None = None,
    target: str | None = None,
    options: Sequence[str] = (),
) -> str:
    """The `toolgen build` command line that regenerates `out` from `specs`, shell-quoted."""
    words = ["toolgen", "build", *(str(s) for s in specs)]
    if out != Path(DEFAULT_OUT):
        words += ["-o", str(out)]
    if name is not None:
        words += ["--name", name]
    if refs is not None:
        words += ["--refs", refs]
    if target is not None:
        words += ["--target", target]
    for option in options:
        words += ["--option", option]
    return shlex.join(words)


SHOWN_FILES = 20
"""Files a stale `check` names one by one (the rest are counted)."""
SHOWN_DIFF_LINES = 100
"""Lines of diff a stale `check` prints unless asked for all (`--diff`)."""


def drift_summary(drift: Drift, out: Path, command: str) -> str:
    """What a stale `check` leads with: the files that differ, by kind, and the fix."""
    kinds = [("stale", drift.stale), ("new", drift.new), ("removed", drift.removed)]
    count = sum(len(paths) for _, paths in kinds)
    differ = "file differs" if count == 1 else "files differ"
    lines = [f"{display_path(out)} is stale: {count} {differ} from a fresh build."]
    if drift.unfinished:
        lines[0] = f"{display_path(out)} is stale: a build was killed before it finished."
    listed = [(kind, path) for kind, paths in kinds for path in paths]
    lines += [f"  {kind:<8} {display_path(path)}" for kind, path in listed[:SHOWN_FILES]]
    if len(listed) > SHOWN_FILES:
        lines.append(f"  ... and {len(listed) - SHOWN_FILES} more")
    lines.append(f"Fix: run `{command}` and commit the result.")
    return "\n".join(lines)


def capped(diff: str, limit: int | None) -> tuple[str, int]:
    """`diff` cut to `limit` lines (None: all of it), and how many lines were left out."""
    lines = diff.splitlines(keepends=True)
    if limit is None or len(lines) <= limit:
        return diff, 0
    return "".join(lines[:limit]), len(lines) - limit


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
    "when the server has none yet (nor handlers.py in its spec set's directory, from "
    "`toolgen init --handlers`); an existing one is never touched.",
)
@name_option
@refs_option
@target_option
@options_option
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
    refs: Refs | None,
    target: str | None,
    options: tuple[str, ...],
    force: bool,
) -> None:
    """Compile spec sets into OUT/<package>/: JSON Schema documents, MCP tool
    definitions for every protocol revision, pydantic models and a server stub
    (--target typescript: a TypeScript module for the official SDK; --target rust: a Rust
    crate for rmcp; --target go: a Go package for the official Go SDK; instead, or too).

    SPECS are spec files or directories (default: specs/). A directory whose
    subdirectories each declare a server is a directory of spec sets.
    Incremental: unchanged spec sets are skipped. All-or-nothing: on any error
    nothing in OUT changes, and files toolgen did not write are never touched.
    """
    started = time.perf_counter()
    targets = resolve_targets(target)
    settings = resolve_options(options, targets)
    progress = None if quiet else (lambda line: echo(line, err=True))
    try:
        # silence counts from the command's start
        with collector.paused(), clock(since=process_started()):
            report = run_build(
                _specs_or_default(specs),
                out,
                progress=progress,
                scaffold=scaffold,
                name=name,
                force=force,
                refs=refs,
                targets=targets,
                options=settings,
            )
    except SpecError as exc:
        fail_on_spec_errors(exc)
        return
    if report.recovered and not quiet:
        echo(f"{out}: finished what an interrupted build had started", err=True)
    if not quiet:
        elapsed = time.perf_counter() - started
        for path in report.scaffolds:
            echo(f"wrote {path}: your handlers, to fill in (never overwritten)", err=True)
        for package in report.up_to_date:
            echo(f"{out / package}: up to date", err=True)
        if report.packages:
            echo(
                f"built {', '.join(report.packages)} in {out}: {report.written} written, "
                f"{report.deleted} removed, {report.unchanged} unchanged ({elapsed:.2f}s)",
                err=True,
            )


@click.command()
@spec_arguments
@out_option
@name_option
@click.option("--diff", "full_diff", is_flag=True, help="Print the whole diff, however long.")
@refs_option
@target_option
@options_option
def check(
    specs: tuple[Path, ...],
    out: Path,
    name: str | None,
    full_diff: bool,
    refs: Refs | None,
    target: str | None,
    options: tuple[str, ...],
) -> None:
    """Exit 1 when OUT is stale (a fresh build of SPECS would write other bytes): name the
    files that differ and the command that fixes it, then the diff (the first lines of it
    unless --diff). Exit 0 when it is up to date. For CI and pre-commit.
    """
    targets = resolve_targets(target)
    settings = resolve_options(options, targets)
    try:
        with collector.paused():
            drift = run_check(
                _specs_or_default(specs),
                out,
                name=name,
                refs=refs,
                targets=targets,
                options=settings,
            )
    except SpecError as exc:
        fail_on_spec_errors(exc)
        return
    if not drift:
        echo(f"{out} is up to date.", err=True)
        return
    command = build_command(specs, out, name, refs, target, options)
    echo(drift_summary(drift, out, command), err=True)
    shown, left = capped(drift.diff, None if full_diff else SHOWN_DIFF_LINES)
    echo(shown, nl=False)
    if left:
        echo(f"... {left} more lines of diff: `toolgen check --diff` prints all.", err=True)
    sys.exit(1)


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
    type=click.Choice(["mcp", "openai", "openai-responses", "anthropic", "gemini"]),
    default="mcp",
    show_default=True,
    help="mcp: the tools/list result; openai (Chat Completions), openai-responses "
    "(Responses API), anthropic, gemini: the tool list that API accepts, with the names "
    "mapped back to MCP (`mcpNames`).",
)
@click.option(
    "--explain",
    is_flag=True,
    help="Print the loss report instead: per tool, each constraint the provider view "
    "could not pass on as written, and its size in tokens (about).",
)
@refs_option
def tools(
    specs: tuple[Path, ...], revision: str | None, fmt: str, explain: bool, refs: Refs | None
) -> None:
    """Print the tools of one spec set as JSON: the `tools/list` result body
    ({"tools": [...]}), or a provider's view of them (--format)."""
    chosen = revision or LATEST_REVISION
    if chosen not in SUPPORTED_REVISIONS:
        raise click.BadParameter(
            f"{chosen!r}; expected one of {', '.join(SUPPORTED_REVISIONS)}", param_hint="--protocol"
        )
    if explain and fmt == "mcp":
        raise click.UsageError(
            "--explain needs a provider --format (openai, openai-responses, anthropic, gemini)"
        )
    try:
        toolset = load_spec_set(_specs_or_default(specs)).with_refs(refs)
    except SpecError as exc:
        fail_on_spec_errors(exc)
        return
    if fmt == "mcp":
        echo(json_text(list_tools_result(toolset, chosen)), nl=False)
        return
    view = toolset_view(toolset, cast("Provider", fmt))  # click checked the choice
    echo(report_text(view) if explain else json_text(view.document()), nl=False)
