"""`toolgen diff` and `toolgen digest`: option parsing only; the work is in `toolgen.diff`.

Exit codes of `diff`: 0 when nothing reaches `--fail-on` (default: a breaking
change, safety regressions included), 1 when something does, 2 for usage
errors and input that does not load.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from toolgen.cli.common import echo
from toolgen.cli.reportfile import OUTPUT, check_report_path, write_report
from toolgen.diff.config import FAIL_ON
from toolgen.diff.report import FORMATS
from toolgen.report.terminal import print_spec_errors
from toolgen.spec.errors import SpecError
from toolgen.spec.protocol import EMITTED_REVISIONS, LATEST_REVISION

DEFAULT_OLD = "git:HEAD:specs"
DEFAULT_NEW = "specs"


def _load_failed(exc: SpecError, done: str = "compared") -> None:
    """Print every diagnostic (no traceback) and exit 2: the input does not load."""
    print_spec_errors(exc.diagnostics)
    count = len(exc.diagnostics)
    echo(f"{count} error{'s' if count != 1 else ''}; nothing was {done}.", err=True)
    sys.exit(2)


@click.command()
@click.argument("old", required=False)
@click.argument("new", default=DEFAULT_NEW)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(FORMATS),
    default="text",
    show_default=True,
    help="text: path:line:col: CODE label message [tool]; json; sarif (2.1.0); github (workflow annotations); markdown (a pull request comment).",
)
@click.option(
    "--fail-on",
    type=click.Choice(FAIL_ON),
    default=None,
    help="What makes the run fail (exit 1): breaking changes (default; safety regressions are breaking), safety regressions only, any change, never.",
)
@OUTPUT
@click.option(
    "--config",
    "config_path",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="A pyproject.toml to read [tool.toolgen.diff] from (default: the nearest one above the working directory).",
)
@click.option("--isolated", is_flag=True, help="Ignore configuration files.")
def diff(
    old: str | None,
    new: str,
    output_format: str,
    fail_on: str | None,
    output: Path | None,
    config_path: Path | None,
    isolated: bool,
) -> None:
    """Tell whether NEW breaks clients of OLD, or makes a tool less safe.

    OLD and NEW are spec sets (a directory, a directory of spec sets, or a
    file), published definitions (a tools/list JSON file or a directory of
    Tool JSON files), or either at a git revision: git:REV:PATH (e.g.
    git:origin/main:specs/shop), read from the repository of the working
    directory without touching the working tree. Defaults: git:HEAD:specs
    and specs, i.e. what the working tree changes (before specs/ is
    committed, every server is new).

    Each change has a stable code (the "Diff changes" page of the docs). A
    major bump of server.version accepts the breaking changes it covers: they
    become notes. Configure in pyproject.toml under [tool.toolgen.diff]
    (fail-on; accept-major-bump; ignore entries with a code, an optional tool
    pattern and a reason).

    Exit codes: 0 nothing reaches --fail-on, 1 something does, 2 usage
    errors or input that does not load.
    """
    if output is not None:
        check_report_path(output)
    from toolgen.diff.config import check_fail_on, load_config
    from toolgen.report.config import ConfigError, find_pyproject

    try:
        config = load_config(None if isolated else config_path or find_pyproject(Path.cwd()))
        if fail_on is not None:
            config = config.with_fail_on(check_fail_on(fail_on))
    except ConfigError as exc:
        raise click.UsageError(str(exc)) from None

    from toolgen.diff.report import render, summary
    from toolgen.diff.run import run_diff

    try:
        report = run_diff(old or DEFAULT_OLD, new, config, old_absent_ok=old is None)
    except SpecError as exc:
        _load_failed(exc)
        return
    if report.old_absent:
        echo(
            f"{DEFAULT_OLD}: nothing at revision HEAD yet (not committed); every server is new.",
            err=True,
        )
    text = render(report, output_format)
    if output is not None:
        write_report(output, text)
    else:
        echo(text, nl=False)
    if output_format == "text" or output is not None:
        echo(summary(report), err=True, nl=False)
    if config.fails(report.changes):
        sys.exit(1)


@click.command()
@click.argument("path", default=DEFAULT_NEW)
@click.option(
    "--protocol",
    type=click.Choice(EMITTED_REVISIONS),
    default=LATEST_REVISION,
    show_default=True,
    help="The revision whose tool definitions are digested (spec sets; published definitions are digested as they are).",
)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="text: `DIGEST  NAME` lines, the set's digest last; json: {servers: [...]}.",
)
def digest(path: str, protocol: str, output_format: str) -> None:
    """Print the canonical digest of every tool and of the tool set.

    PATH is a spec set, published definitions or git:REV:PATH (default:
    specs). A tool's digest is sha256 over its Tool object (as served for
    --protocol) in RFC 8785 canonical JSON: key order and formatting never
    change it. Clients pin these to notice definitions changing under them.
    """
    from toolgen.diff.digests import digest_servers, render_digests

    try:
        servers = digest_servers(path, protocol)
    except SpecError as exc:
        _load_failed(exc, "digested")
        return
    echo(render_digests(servers, output_format), nl=False)
