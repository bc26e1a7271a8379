"""Emit the Go package of a spec set: `tools.go`, its runtime, `go.mod` and `go.sum`.

`tools.go` holds everything particular to the spec set: the types of every tool's input and
output and of its defs (`types.GoTypes`), the `Handlers` interface with `RegisterTools` and
`ServeStdio` for an SDK `mcp.Server`, and the typed `Client`. It embeds the build's own
`tools/<revision>.json` and `schemas/`, which the runtime (`internal/toolgen`, the same text in
every package) serves and checks values against. The module path is the target option
`go.module` (default: the package name; `{package}` in it stands for the package name).

Names come from the naming service (`toolgen.build.naming`): type names are those of the type
model, the same in every target; a tool's method (in `Handlers` and `Client`) is its name in
Go's style (`create_note` → `CreateNote`, `3d` → `Tool3d`). Every spec string reaches the
output as a Go string literal (`types.go_string`) or inside a `//` comment
(`types.comment_lines`): no spec text becomes code.

`tools.go` and `go.mod` are laid out by the templates beside this module (`tools.go.jinja`,
`go.mod.jinja`); the type declarations (`types`) and the wrapped package comment are printed
here and reach the template as text.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path
from typing import Final

from toolgen.build.common import safe_note
from toolgen.build.golang.types import GoTypes, comment_lines, go_string
from toolgen.build.naming import LANGUAGES
from toolgen.build.target import Rendering
from toolgen.build.templating import render
from toolgen.spec.errors import Diagnostic, ErrorCode, SpecError
from toolgen.spec.ir import Server, Tool
from toolgen.spec.protocol import EMITTED_REVISIONS

HERE = Path(__file__).parent
RUNTIME: Final = HERE / "runtime.go"
"""The runtime every package carries as `internal/toolgen` (the same text in each)."""
GO_SUM: Final = HERE / "go.sum"
"""The checksums of the modules `go.mod` requires."""
MODULE_OPTION: Final = "module"
GO_KEYWORDS: Final = frozenset(
    [
        "break",
        "case",
        "chan",
        "const",
        "continue",
        "default",
        "defer",
        "else",
        "fallthrough",
        "for",
        "func",
        "go",
        "goto",
        "if",
        "import",
        "interface",
        "map",
        "package",
        "range",
        "return",
        "select",
        "struct",
        "switch",
        "type",
        "var",
    ]
)
GO_STANDARD: Final = frozenset(
    [
        "archive",
        "arena",
        "bufio",
        "builtin",
        "bytes",
        "cmd",
        "cmp",
        "compress",
        "container",
        "context",
        "crypto",
        "database",
        "debug",
        "embed",
        "encoding",
        "errors",
        "expvar",
        "flag",
        "fmt",
        "go",
        "hash",
        "html",
        "image",
        "index",
        "internal",
        "io",
        "iter",
        "log",
        "maps",
        "math",
        "mime",
        "net",
        "os",
        "path",
        "plugin",
        "reflect",
        "regexp",
        "runtime",
        "simd",
        "slices",
        "sort",
        "strconv",
        "strings",
        "structs",
        "sync",
        "syscall",
        "testing",
        "text",
        "time",
        "unicode",
        "unique",
        "unsafe",
        "vendor",
        "weak",
    ]
)
"""The first elements of the standard library's import paths: a module path starting with one
would be shadowed by it."""
_IDENTIFIER = re.compile(r"[^\W\d]\w*\Z")
_MODULE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._~-]*(/[A-Za-z0-9][A-Za-z0-9._~-]*)*\Z")
"""A module path: slash-separated elements of letters, digits and `._~-`."""


def check_go(job: Rendering) -> None:
    """Refuse a package name that is no Go package name, or a module path the standard
    library would shadow, at the name that chose it."""
    server = job.toolset.server
    package = server.package
    module = module_path(job)
    key = "package" if server.python_package else "name"
    where = server.origin.locate(key) if server.origin else None
    if not _IDENTIFIER.match(package) or package in GO_KEYWORDS or package == "_":
        message = (
            f"the Go package name {package!r} is not a Go identifier or is a Go keyword; "
            "give the server a `package:` that is"
        )
        raise SpecError([Diagnostic(ErrorCode.INVALID_NAME, message, where)])
    if module.split("/")[0] in GO_STANDARD:
        message = (
            f"the Go module path {module!r} is one of Go's standard library, which would hide "
            "it; choose one with `--option go.module=example.com/{package}` (or give the "
            "server another `package:`)"
        )
        raise SpecError([Diagnostic(ErrorCode.SHADOWED_PACKAGE, message, where)])


def module_path(job: Rendering) -> str:
    """The Go module path of the package (the option `go.module`, `{package}` filled in)."""
    package = job.toolset.server.package
    return job.options.get(f"go.{MODULE_OPTION}", "{package}").replace("{package}", package)


def valid_module(value: str) -> bool:
    """Whether `value` (with `{package}` standing for a package name) is a module path."""
    return _MODULE.match(value.replace("{package}", "p")) is not None


def render_go(job: Rendering) -> list[tuple[str, str]]:
    """The files of the spec set's Go package, relative to `OUT/<package>/`."""
    module = module_path(job)
    generated = f"// Code generated by toolgen from {safe_note(job.source_note)}. DO NOT EDIT."
    return [
        ("tools.go", tools_go(job, module, generated)),
        ("internal/toolgen/runtime.go", f"{generated}\n\n{RUNTIME.read_text(encoding='utf-8')}"),
        ("go.mod", render("golang/go.mod.jinja", header=job.header, module=module)),
        ("go.sum", GO_SUM.read_text(encoding="utf-8")),
    ]


def tools_go(job: Rendering, module: str, generated: str) -> str:
    """The text of `tools.go` (`tools.go.jinja`): the declarations printed by `GoTypes`, the
    package comment wrapped here, every spec string a Go literal or comment line already."""
    toolset, model = job.toolset, job.model
    server = toolset.server
    types = GoTypes(model).declarations()
    methods = LANGUAGES["go"].identifiers([tool.name for tool in toolset.tools], "method")
    embeds = [f"tools/{revision}.json" for revision in EMITTED_REVISIONS]
    return render(
        "golang/tools.go.jinja",
        generated=generated,
        about=package_doc(server),
        package=server.package,
        json=_uses(types, r"json\."),
        runtime=go_string(f"{module}/internal/toolgen"),
        embeds=[*embeds, "schemas/*.json"] if toolset.tools else embeds,
        nullable=_uses(types, r"Nullable\["),
        null=_uses(types, r"Null\b"),
        types=types,
        unstructured=any(tool.output_schema is None for tool in toolset.tools),
        tools=[
            {
                "name": go_string(tool.name),
                "method": methods[tool.name],
                "doc": tool_doc(methods[tool.name], tool),
                "input": model.tools[tool.name].input,
                "output": model.tools[tool.name].output,
            }
            for tool in toolset.tools
        ],
        server={
            "name": go_string(server.name),
            "title": go_string(server.title) if server.title else "",
            "version": go_string(server.version),
            "instructions": go_string(server.instructions) if server.instructions else "",
        },
    )


def _uses(types: str, pattern: str) -> bool:
    """Whether the declarations name what `pattern` matches (not as part of a longer name)."""
    return re.search(rf"(?<![\w.]){pattern}", types) is not None


def package_doc(server: Server) -> list[str]:
    """The lines of the package comment, wrapped to 96 columns."""
    title = f" ({server.title})" if server.title else ""
    about = " ".join(comment_lines(f"{server.name}{title}"))
    return textwrap.wrap(
        f"Package {server.package} holds the MCP tools of server {about} for the official Go "
        "SDK: the types of every tool's input and output, Handlers with RegisterTools and "
        "ServeStdio for an mcp.Server, and a typed Client. "
        + " ".join(comment_lines(server.description or "")),
        width=93,
        break_long_words=False,
        break_on_hyphens=False,
    )


def tool_doc(method: str, tool: Tool) -> list[str]:
    """A tool's method's doc comment: `Method: <description>. Tool <name>.`"""
    lines = comment_lines(tool.description or tool.title or "")
    name = " ".join(comment_lines(tool.name))
    if not lines:
        return [f"{method} calls tool {name}."]
    lines[0] = f"{method}: {lines[0]}"
    lines[-1] += f" Tool {name}."
    return lines
