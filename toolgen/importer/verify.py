"""Check an import by building it: every tool that reads differently must be explained.

The imported document is read back through the real frontend (YAML reader,
format checks, resolver), and each tool's definition for the source's revision
is compared with what the server published. A tool that differs and got no
warning yet gets one naming the first place it differs, so no change goes
unexplained. A document the frontend refuses is a case the repairs do not
know: `unreadable_tools` finds the tools to import without their schemas.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from toolgen.importer.convert import Conversion, ImportWarning, spec_document
from toolgen.importer.yamlout import dump_yaml
from toolgen.schema.dialects import DRAFT_2020_12, dialect_of
from toolgen.spec.errors import SpecError
from toolgen.spec.ir import ToolSet
from toolgen.spec.model import parse_spec_file
from toolgen.spec.protocol import has_execution, has_icons, has_structured_output, tool_definition
from toolgen.spec.resolver import resolve
from toolgen.spec.source import parse_source


def read_back(text: str, name: str) -> ToolSet:
    """The `ToolSet` toolgen reads from an imported spec file's `text`."""
    source = parse_source(text, Path(name), name)
    return resolve([parse_spec_file(source)], "imported", typos=False)


def unreadable_tools(tools: Sequence[Any]) -> dict[int, str]:
    """Index → the frontend's first complaint, for each tool whose import on its own does
    not load (what the repairs missed: a last resort, tried only when an import fails)."""
    found: dict[int, str] = {}
    for index, raw in enumerate(tools):
        if not isinstance(raw, dict):
            continue
        try:
            read_back(dump_yaml(spec_document([raw]).document), "tools.yaml")
        except SpecError as exc:
            found[index] = exc.diagnostics[0].message if exc.diagnostics else "refused"
    return found


def explain_differences(
    conversion: Conversion, published: Sequence[Any], toolset: ToolSet, revision: str
) -> int:
    """Warn for each tool that differs from `published` without a warning; the number identical."""
    warned = {w.tool for w in conversion.warnings}
    originals = [raw for raw in published if isinstance(raw, dict)]
    identical = 0
    for raw, tool in zip(originals, toolset.tools, strict=True):
        # The import is compared with its refs as written: a build inlines them later, a
        # choice of the build (`server.refs`) that changes no tool's meaning.
        where = first_difference(
            expected_definition(raw, revision),
            tool_definition(replace(tool, refs="keep"), revision),
        )
        if where is None:
            identical += 1
        elif tool.name not in warned:
            message = f"reads differently after import at {where or '(the tool)'}"
            conversion.warnings.append(ImportWarning(tool.name, message))
    return identical


def expected_definition(raw: dict[str, Any], revision: str) -> dict[str, Any]:
    """What a faithful import emits for `raw` in `revision`: the fields that revision has,
    with a declared older dialect (converted to 2020-12) no longer declared."""
    keep = {"name", "description", "inputSchema", "annotations"}
    if has_structured_output(revision):
        keep |= {"title", "outputSchema", "_meta"}
    if has_icons(revision):
        keep.add("icons")
    if has_execution(revision):
        keep.add("execution")
    out = {k: v for k, v in raw.items() if k in keep}
    for part in ("inputSchema", "outputSchema"):
        schema = out.get(part)
        if isinstance(schema, dict) and dialect_of(schema) not in (DRAFT_2020_12, None):
            out[part] = {k: v for k, v in schema.items() if k != "$schema"}
    return out


def first_difference(expected: Any, actual: Any, path: str = "") -> str | None:
    """The first JSON path where two JSON values differ (object key order aside), or None."""
    return next(_differences(expected, actual, path), None)


def _differences(expected: Any, actual: Any, path: str) -> Iterator[str]:
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in sorted(set(expected) | set(actual), key=str):
            if key not in expected or key not in actual:
                yield f"{path}/{key}".lstrip("/")
            else:
                yield from _differences(expected[key], actual[key], f"{path}/{key}")
    elif isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
        for index, (a, b) in enumerate(zip(expected, actual, strict=True)):
            yield from _differences(a, b, f"{path}/{index}")
    elif expected != actual or type(expected) is not type(actual):
        yield path.lstrip("/")
