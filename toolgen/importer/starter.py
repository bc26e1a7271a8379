"""`toolgen init`: a starter spec set whose comments teach the format.

It builds, lints without a finding and serves as it is (`--mock`, or with the
optional handlers module). Written through the one writer: nothing is
overwritten that toolgen did not write.
"""

from __future__ import annotations

from pathlib import Path

from toolgen.build.python.package import scaffold_path
from toolgen.importer.output import write_spec_set
from toolgen.spec.ir import Server
from toolgen.spec.naming import server_name
from toolgen.version import DOCS_URL

SPEC = """\
# A toolgen spec set: the tools of one MCP server, described once.
# Every key is explained at {docs}spec-format/
#   toolgen lint {root}            check hints, names, schemas, descriptions
#   toolgen serve {root} --mock    serve it now, answering from the examples
#   toolgen build {root}           JSON Schemas, tool definitions, models, a server stub
toolgen: 1                         # the format version: every spec file starts with it

server:                            # at most one file of a spec set has this block
  {name_line}# [a-z][a-z0-9_-]*; also the Python package name (- becomes _)
  version: 0.1.0
  title: {title}
  instructions: |                  # sent to clients when they connect
    Use get_greeting to greet someone and count_words to count the words of a text.

defs:                              # named JSON Schemas that tools share: "#/defs/NAME"
  Language:
    type: string
    enum: [en, fr, de]
    description: The language of the greeting.

tools:
  - name: get_greeting             # ^[A-Za-z0-9_.-]{{1,128}}$, unique in the spec set
    title: Get a greeting          # for people; the description is for the model
    description: Return a greeting for a person, in the language asked for.
    annotations:                   # the MCP behaviour hints; one left out is "not declared"
      readOnly: true               # it changes nothing,
      idempotent: true             # so calling it twice is the same as once,
      openWorld: false             # and it reaches nothing outside this server
    input:                         # JSON Schema 2020-12; the root is always an object
      type: object
      properties:
        name: {{type: string, minLength: 1, description: Who to greet.}}
        language: {{$ref: "#/defs/Language", default: en}}
      required: [name]
      additionalProperties: false  # arguments the tool does not know are refused
    output:                        # results are checked and sent as structuredContent
      type: object
      properties:
        greeting: {{type: string, description: The greeting.}}
      required: [greeting]
      additionalProperties: false
    examples:                      # checked against the schemas; `serve --mock` answers with them
      - input: {{name: Ada}}
        output: {{greeting: "Hello, Ada!"}}

  - name: count_words
    title: Count words
    description: Count the words of a text (runs of characters between spaces).
    annotations: {{readOnly: true, idempotent: true, openWorld: false}}
    input:
      type: object
      properties:
        text: {{type: string, description: The text to count the words of.}}
      required: [text]
      additionalProperties: false
    output:                        # any root: clients before 2026-07-28 get {{"result": ...}}
      type: integer
      minimum: 0
    examples:
      - input: {{text: one two three}}
        output: 3
"""

HANDLERS = '''\
"""Handlers of the {name} spec set: one method per tool, taking the validated arguments.

    toolgen serve {root} --handlers {root}/handlers.py:Handlers
"""

from __future__ import annotations

from typing import Any

GREETINGS = {{"en": "Hello", "fr": "Bonjour", "de": "Hallo"}}


class Handlers:
    def get_greeting(self, args: dict[str, Any]) -> dict[str, str]:
        """`language` has its default (en) filled in when the client leaves it out."""
        return {{"greeting": f"{{GREETINGS[args['language']]}}, {{args['name']}}!"}}

    def count_words(self, args: dict[str, Any]) -> int:
        return len(args["text"].split())
'''


def starter_files(root: Path, *, handlers: bool = False) -> dict[str, str]:
    """The files of a starter spec set in directory `root` (name → text)."""
    name = server_name(root.resolve().name, "hello")
    title = name.replace("-", " ").replace("_", " ").capitalize()
    shown = root.as_posix()
    name_line = f"name: {name}".ljust(33)  # the comments stay in one column
    files = {
        f"{name}.yaml": SPEC.format(
            root=shown, docs=DOCS_URL, name=name, name_line=name_line, title=title
        )
    }
    if handlers:
        files["handlers.py"] = HANDLERS.format(root=shown, name=name)
    return files


def write_starter(
    root: Path, *, handlers: bool = False, force: bool = False, out: Path = Path("generated")
) -> tuple[list[Path], Path | None]:
    """Write the starter spec set into `root` (all or nothing): the paths written, and the
    server's handler file when `toolgen build` into `out` already wrote one (a server has
    one handler file, so `handlers` then writes none). `force`: replace an earlier starter
    there even when edited since."""
    package = Server(server_name(root.resolve().name, "hello"), "0.1.0").package
    built = out / scaffold_path(package)
    theirs = built if handlers and built.is_file() else None
    files = starter_files(root, handlers=handlers and theirs is None)
    write_spec_set(
        root, files, "Written by toolgen init; the files are yours to edit.", force=force
    )
    return [root / name for name in files], theirs
