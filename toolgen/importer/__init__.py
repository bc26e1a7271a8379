"""`toolgen import`: bring an existing server's tools into a spec set.

Published tools (files, or a live server listed over stdio or Streamable HTTP)
become one readable YAML spec file: schemas converted to 2020-12, shared
definitions hoisted into `defs`, invalid tools repaired with a warning each.
The import is then read back through the frontend and compared with what the
server published, so every tool either emits exactly what the server
published or carries a warning saying why not. Deterministic: the same
tools always give the same bytes. Written through the one writer
(`toolgen.build.writer`): all or nothing, never over a file toolgen did
not write.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from toolgen.importer.convert import Conversion, ImportWarning, ServerInfo, spec_document
from toolgen.importer.output import write_spec_set
from toolgen.importer.sources import Published, read_files
from toolgen.importer.verify import explain_differences, read_back, unreadable_tools
from toolgen.importer.yamlout import dump_yaml
from toolgen.spec.errors import SpecError
from toolgen.spec.protocol import EMITTED_REVISIONS
from toolgen.spec.text import visible
from toolgen.version import DOCS_URL

__all__ = [
    "ImportResult",
    "ImportWarning",
    "Published",
    "ServerInfo",
    "import_published",
    "read_files",
    "write_import",
]

COMPARED_REVISION = "2025-11-25"
"""The revision an import is checked against when the source's is unknown: the one whose
Tool has every field (`icons`, `execution`, `_meta`, `outputSchema`, `title`)."""
HEADER = """\
# Imported by `toolgen import` from {origin}.
# This spec set is yours now: edit it, `toolgen lint` it, `toolgen build` it.
# The format: {docs}spec-format/
"""


@dataclass(frozen=True)
class ImportResult:
    """One imported spec file and what the import found."""

    file_name: str
    text: str
    warnings: tuple[ImportWarning, ...]
    tools: int
    identical: int
    """Tools whose definitions (for `revision`) are exactly what the server published,
    but for a declared older dialect converted to 2020-12."""
    revision: str
    converted: dict[str, int]
    """Older dialect → how many schemas were converted from it."""
    server: str | None


def import_published(published: Published, *, name: str | None = None) -> ImportResult:
    """The spec file for `published`, checked by reading it back. `name` names the server
    (a `server` block is written when the source has one or `name` is given)."""
    server = published.server
    if name is not None:
        server = ServerInfo(
            name=name,
            version=server.version if server else "0.0.0",
            title=server.title if server else None,
            description=server.description if server else None,
            instructions=server.instructions if server else None,
        )
    conversion, file_name, text = _document(published, server)
    try:
        toolset = read_back(text, file_name)
    except SpecError:  # a case the repairs do not know: those tools lose their schemas
        unreadable = unreadable_tools(published.tools)
        if not unreadable:
            raise
        conversion, file_name, text = _document(published, server, unreadable)
        toolset = read_back(text, file_name)
    revision = published.revision if published.revision in EMITTED_REVISIONS else COMPARED_REVISION
    identical = explain_differences(conversion, published.tools, toolset, revision)
    return ImportResult(
        file_name=file_name,
        text=text,
        warnings=tuple(conversion.warnings),
        tools=len(toolset.tools),
        identical=identical,
        revision=revision,
        converted=dict(conversion.converted_dialects),
        server=conversion.document.get("server", {}).get("name"),
    )


def _document(
    published: Published, server: ServerInfo | None, unreadable: dict[int, str] | None = None
) -> tuple[Conversion, str, str]:
    """The conversion, the spec file's name, and its text."""
    conversion = spec_document(published.tools, server, unreadable)
    block = conversion.document.get("server")
    file_name = f"{block['name']}.yaml" if block else "tools.yaml"
    text = HEADER.format(origin=visible(published.origin, keep=""), docs=DOCS_URL) + dump_yaml(
        conversion.document
    )
    return conversion, file_name, text


def write_import(result: ImportResult, out: Path, *, force: bool = False) -> Path:
    """Write the imported spec file into directory `out` (all or nothing); its path.
    `force`: replace an earlier import there even when edited since."""
    write_spec_set(
        out,
        {result.file_name: result.text},
        "Imported by toolgen import; the spec files are yours to edit.",
        force=force,
    )
    return out.resolve() / result.file_name
