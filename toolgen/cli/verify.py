"""`toolgen verify`: check a running MCP server, in any language, against a spec set."""

from __future__ import annotations

import fnmatch
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from toolgen.cli.common import echo
from toolgen.cli.reportfile import OUTPUT, check_report_path, write_report
from toolgen.limits import VERIFY_TIMEOUT
from toolgen.spec.errors import SpecError
from toolgen.spec.protocol import SUPPORTED_REVISIONS

if TYPE_CHECKING:
    from toolgen.verify.transport import Target


def _fail_usage(lines: list[str]) -> None:
    for line in lines:
        echo(line, err=True)
    sys.exit(2)


@click.command()
@click.argument("specs", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--server",
    metavar='"CMD ARGS..."',
    help="Start this command and speak MCP over its stdin/stdout.",
)
@click.option(
    "--url",
    metavar="URL",
    help="Speak Streamable HTTP to this endpoint (e.g. http://127.0.0.1:8000/mcp).",
)
@click.option(
    "--header",
    "headers",
    multiple=True,
    metavar="NAME: VALUE",
    help="With --url: send this HTTP header with every request (repeatable), e.g. for auth.",
)
@click.option(
    "--protocol",
    type=click.Choice([*SUPPORTED_REVISIONS, "all"]),
    help="Check this revision, or all of them (default: the newest of each era the server offers).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "junit", "sarif"]),
    default="text",
    show_default=True,
    help="text for people, json, junit for test dashboards, sarif for code scanning.",
)
@click.option(
    "--fail-on",
    type=click.Choice(["must", "should", "may"]),
    default="must",
    show_default=True,
    help="Fail the run on failures at this level of the rules, or a stricter one.",
)
@OUTPUT
@click.option(
    "--cases",
    type=click.IntRange(min=0),
    default=20,
    show_default=True,
    help="Generated inputs per tool (besides examples, boundary values and invalid inputs).",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the input generator.")
@click.option(
    "--allow-destructive",
    is_flag=True,
    help="Also call tools that may destroy data (destructive hints, or undeclared hints).",
)
@click.option(
    "--allow-open-world",
    is_flag=True,
    help="Also send generated inputs to tools that reach outside systems (open-world hints, or "
    "undeclared); by default they get only the spec's examples and the fixtures' values.",
)
@click.option(
    "--only", multiple=True, metavar="TOOL", help="Check only these tools (fnmatch; repeatable)."
)
@click.option(
    "--exclude", multiple=True, metavar="TOOL", help="Leave these tools out (fnmatch; repeatable)."
)
@click.option(
    "--baseline",
    type=click.Path(path_type=Path, dir_okay=False),
    help="YAML file of expected failures, each with a reason.",
)
@click.option(
    "--fixtures",
    type=click.Path(path_type=Path, dir_okay=False),
    help="YAML or JSON file of real values per property and tool, and pinned sequences.",
)
@click.option(
    "--sequences",
    type=click.Choice(["auto", "pinned", "off"]),
    default="auto",
    show_default=True,
    help="Stateful sequences: the fixtures file's and the inferred ones, only the former, none.",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0.1),
    default=VERIFY_TIMEOUT,
    show_default=True,
    help="Seconds to wait for any one answer.",
)
@click.option(
    "--budget",
    type=click.FloatRange(min=1),
    default=600.0,
    show_default=True,
    help="Seconds the whole run may take: each tool gets its share, and no call starts after.",
)
def verify(
    specs: tuple[Path, ...],
    server: str | None,
    url: str | None,
    headers: tuple[str, ...],
    protocol: str | None,
    fmt: str,
    fail_on: str,
    output: Path | None,
    cases: int,
    seed: int,
    allow_destructive: bool,
    allow_open_world: bool,
    only: tuple[str, ...],
    exclude: tuple[str, ...],
    baseline: Path | None,
    fixtures: Path | None,
    sequences: str,
    timeout: float,
    budget: float,
) -> None:
    """Check a live MCP server against SPECS (a spec set; default specs/): the protocol
    (handshake, ping, notifications, malformed JSON, batches, unknown methods and tools),
    the listing (tools, hints, schemas by meaning), calls (fixtures, examples, boundary
    values, generated inputs with shrinking, invalid inputs) and stateful sequences
    (create, read, update, delete). Destructive tools are skipped unless
    --allow-destructive; open-world tools get only the spec's examples and the fixtures'
    values unless --allow-open-world.

    Every check enforces a rule of the MCP specification, JSON-RPC 2.0 or the spec set,
    at a level (must, should, may). Exit 0 when no failure reaches --fail-on's level
    (default: must), 1 when one does or verify itself broke, 2 for usage errors or a
    server that cannot be started or reached. Checks and rules: the "Verify checks" page
    of the docs.
    """
    if (server is None) == (url is None):
        raise click.UsageError('give exactly one of --server "CMD ARGS..." and --url URL')
    if headers and url is None:
        raise click.UsageError("--header needs --url")
    if output is not None:
        check_report_path(output)
    from toolgen.spec.pipeline import load_spec_set
    from toolgen.verify import baseline as baselines
    from toolgen.verify.fixtures import Fixtures, load_fixtures
    from toolgen.verify.generate import GeneratorMissing, load_generator
    from toolgen.verify.reports import headline, render
    from toolgen.verify.revision import verify as run_verify
    from toolgen.verify.runner import Options
    from toolgen.verify.transport import Unreachable

    try:
        toolset = load_spec_set(list(specs) or [Path("specs")])
        entries = baselines.load_baseline(baseline) if baseline is not None else []
        given = load_fixtures(fixtures, toolset) if fixtures is not None else Fixtures()
    except SpecError as exc:
        _fail_usage([str(d) for d in exc.diagnostics])
    _check_patterns([t.name for t in toolset.tools], only, exclude)
    try:
        load_generator()
        target = _target(server, url, headers)
        options = Options(
            protocol, cases, seed, allow_destructive, only, exclude, timeout, given, sequences,
            fail_on, budget, allow_open_world,
        )  # fmt: skip
        report = run_verify(toolset, target, options)
    except (Unreachable, GeneratorMissing) as exc:
        _fail_usage([f"toolgen verify: {exc}"])
    report.results = baselines.apply_baseline(report.results, entries)
    text = render(report, fmt)
    if output is not None:
        write_report(output, text)
    else:
        echo(text, nl=False)
    if fmt != "text" or output is not None:
        echo(headline(report), err=True)
    sys.exit(0 if report.ok else 1)


def _check_patterns(names: list[str], only: tuple[str, ...], exclude: tuple[str, ...]) -> None:
    """A usage error for an --only or --exclude pattern that matches no tool of the spec set:
    a typo would otherwise check nothing, or call a tool meant to be left out."""
    for option, patterns in (("--only", only), ("--exclude", exclude)):
        for pattern in patterns:
            if not any(fnmatch.fnmatchcase(name, pattern) for name in names):
                known = ", ".join(sorted(names)[:20]) + (", ..." if len(names) > 20 else "")
                raise click.BadParameter(
                    f"{pattern!r} matches no tool of the spec set (its tools: {known})",
                    param_hint=option,
                )


def _target(server: str | None, url: str | None, headers: tuple[str, ...]) -> Target:
    from toolgen.verify.http import HttpTarget
    from toolgen.verify.stdio import StdioTarget

    if server is not None:
        return StdioTarget(server)
    assert url is not None
    parsed = {}
    for header in headers:
        name, sep, value = header.partition(":")
        if not sep or not name.strip():
            raise click.BadParameter(f"{header!r} is not NAME: VALUE", param_hint="--header")
        parsed[name.strip()] = value.strip()
    return HttpTarget(url, parsed)
