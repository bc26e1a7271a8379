"""`toolgen lint` and `toolgen rules`: option parsing only; the work is in the library.

Exit codes of `lint`: 0 when no finding reaches the fail level, 1 when one
does, 2 for usage errors (bad options or configuration) and for input that
does not load (its spec errors are printed as findings too).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import cast

import click

from toolgen.cli.common import echo
from toolgen.cli.reportfile import OUTPUT, check_report_path, write_report
from toolgen.report.formats import FORMATS


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--format",
    "output_format",
    type=click.Choice(FORMATS),
    default="text",
    show_default=True,
    help="text: path:line:col: CODE severity message [tool]; json; sarif (2.1.0); github (workflow annotations).",
)
@OUTPUT
@click.option(
    "--select",
    multiple=True,
    metavar="RULES",
    help="Rules to run, replacing the configured selection: codes, names, code prefixes (TG1), categories or ALL. Comma-separated or repeated.",
)
@click.option("--extend-select", multiple=True, metavar="RULES", help="Rules to add.")
@click.option("--ignore", multiple=True, metavar="RULES", help="Rules to leave out.")
@click.option(
    "--severity",
    multiple=True,
    metavar="CODE=LEVEL",
    help="Override a rule's severity (error, warning, info). Repeatable.",
)
@click.option(
    "--fail-on",
    type=click.Choice(["error", "warning", "info", "never"]),
    default=None,
    help="Lowest severity that makes the run fail (exit 1). Default: error, or the configured value.",
)
@click.option(
    "--config",
    "config_path",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="A pyproject.toml to read [tool.toolgen.lint] from (default: the nearest one above the working directory).",
)
@click.option("--isolated", is_flag=True, help="Ignore configuration files.")
@click.option(
    "--source",
    "kind",
    type=click.Choice(["auto", "spec", "published"]),
    default="auto",
    show_default=True,
    help="What PATHS are: spec sets, or published tool definitions (a tools/list JSON file or a directory of Tool JSON files). auto: .json files and directories of them are published definitions.",
)
@click.option(
    "--statistics", is_flag=True, help="Print counts per rule instead of the findings (text)."
)
@click.option(
    "--target",
    multiple=True,
    metavar="API",
    help="Also check that the tools work with this model API: openai-strict, anthropic, gemini "
    "(the TG5xx portability rules). Comma-separated or repeated.",
)
@click.option("--explain", metavar="CODE", help="Print the documentation of a rule and exit.")
def lint(
    paths: tuple[Path, ...],
    output_format: str,
    output: Path | None,
    select: tuple[str, ...],
    extend_select: tuple[str, ...],
    ignore: tuple[str, ...],
    severity: tuple[str, ...],
    fail_on: str | None,
    config_path: Path | None,
    isolated: bool,
    kind: str,
    statistics: bool,
    explain: str | None,
    target: tuple[str, ...],
) -> None:
    """Lint MCP tools: annotation correctness, names, schema quality, descriptions.

    PATHS are spec sets (default: specs/) or published tool definitions: a
    tools/list JSON file, or a directory of Tool JSON files, such as another
    server's. Findings point at file:line:col. Configure in pyproject.toml
    under [tool.toolgen.lint]; silence one tool's finding in the spec with
    `x-toolgen-lint: {ignore: [{code: CODE, reason: ...}]}`.

    Exit codes: 0 no finding at the fail level, 1 some, 2 usage errors or
    input that does not load. `toolgen rules` lists the rules.
    """
    from toolgen.lint.config import load_config, with_overrides
    from toolgen.lint.registry import find_rule
    from toolgen.report.config import ConfigError, find_pyproject

    if explain is not None:
        from toolgen.lint.docs import explain as explain_rule

        found = find_rule(explain)
        if found is None:
            raise click.BadParameter(
                f"no rule {explain!r}; see `toolgen rules`", param_hint="--explain"
            )
        echo(explain_rule(found), nl=False)
        return
    try:
        base = load_config(None if isolated else config_path or find_pyproject(Path.cwd()))
        config = with_overrides(
            base,
            select=select or None,
            extend_select=extend_select,
            ignore=ignore,
            severity=severity,
            fail_on=fail_on,
            target=target,
        )
    except ConfigError as exc:
        raise click.UsageError(str(exc)) from None

    from toolgen.lint.docs import sarif_rules
    from toolgen.lint.runner import SourceKind, lint_paths
    from toolgen.report.formats import render, summary
    from toolgen.report.formats import statistics as stats_text

    if output is not None:
        check_report_path(output)
    run = lint_paths(paths, config, cast(SourceKind, kind))
    findings = run.findings
    if statistics and output_format == "text":
        report = stats_text(findings)
    else:
        report = render(findings, output_format, sarif_rules())
    if output is not None:
        write_report(output, report)
    else:
        echo(report, nl=False)
    if output_format == "text" or output is not None:
        checked = f"{run.tools} tool{'s' if run.tools != 1 else ''}"
        echo(f"{summary(findings)} in {checked}.", err=True)
    if run.load_failed:
        sys.exit(2)
    if any(config.fails(f.severity) for f in findings):
        sys.exit(1)


@click.command()
@click.argument("code", required=False)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "markdown", "table", "json"]),
    default="text",
    show_default=True,
    help="text: one line per rule; markdown: the full documentation; table: a Markdown table; json.",
)
def rules(code: str | None, output_format: str) -> None:
    """List every lint rule (code, name, category, default severity), or explain CODE."""
    from toolgen.lint import docs
    from toolgen.lint.registry import find_rule

    if code is not None:
        found = find_rule(code)
        if found is None:
            raise click.BadParameter(f"no rule {code!r}", param_hint="CODE")
        if output_format == "json":
            echo(docs.rules_json([found]), nl=False)
        else:
            echo(docs.explain(found), nl=False)
        return
    if output_format == "markdown":
        echo(docs.rules_markdown(), nl=False)
    elif output_format == "table":
        echo(docs.rules_table(), nl=False)
    elif output_format == "json":
        echo(docs.rules_json(), nl=False)
    else:
        echo(docs.rules_text(), nl=False)
