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
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path
from typing import Final

from toolgen.build.common import safe_note
from toolgen.build.golang.types import GoTypes, comment, comment_lines, go_string
from toolgen.build.naming import LANGUAGES
from toolgen.build.target import Rendering
from toolgen.spec.errors import Diagnostic, ErrorCode, SpecError
from toolgen.spec.ir import Tool
from toolgen.spec.protocol import EMITTED_REVISIONS

HERE = Path(__file__).parent
RUNTIME: Final = HERE / "runtime.go"
"""The runtime every package carries as `internal/toolgen` (the same text in each)."""
GO_SUM: Final = HERE / "go.sum"
"""The checksums of the modules `go.mod` requires."""
TESTED_WITH: Final = {"go": "1.25", "github.com/modelcontextprotocol/go-sdk": "v1.8.0"}
"""What the generated packages are tested with (`go.mod` requires this SDK)."""
GO_MOD: Final = """\
go 1.25.0

require (
	github.com/dlclark/regexp2 v1.12.0
	github.com/modelcontextprotocol/go-sdk v1.8.0
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	github.com/segmentio/encoding v0.5.4
	golang.org/x/text v0.14.0
)

require (
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/segmentio/asm v1.1.3 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	golang.org/x/oauth2 v0.35.0 // indirect
	golang.org/x/sync v0.22.0 // indirect
	golang.org/x/sys v0.41.0 // indirect
	golang.org/x/time v0.15.0 // indirect
)
"""
"""`go.mod` past its module line: the SDK and what the runtime reads JSON Schemas with."""
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
RULE = "// -- {} " + "-" * 100


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
    header = f"// Code generated by toolgen from {safe_note(job.source_note)}. DO NOT EDIT.\n\n"
    return [
        ("tools.go", header + Package(job, module).text()),
        ("internal/toolgen/runtime.go", header + RUNTIME.read_text(encoding="utf-8")),
        ("go.mod", f"// {job.header}\n\nmodule {module}\n\n{GO_MOD}"),
        ("go.sum", GO_SUM.read_text(encoding="utf-8")),
    ]


class Package:
    """The text of `tools.go` for one spec set."""

    def __init__(self, job: Rendering, module: str) -> None:
        self.toolset = job.toolset
        self.model = job.model
        self.module = module
        self.types = GoTypes(job.model)
        names = [tool.name for tool in job.toolset.tools]
        self.methods = LANGUAGES["go"].identifiers(names, "method")

    def text(self) -> str:
        types = self.types.declarations()
        uses = {
            word: re.search(rf"(?<![\w.]){pattern}", types) is not None
            for word, pattern in (
                ("json", r"json\."),
                ("Nullable", r"Nullable\["),
                ("Null", r"Null\b"),
            )
        }
        return (
            "".join(
                [
                    self._head(uses["json"]),
                    self._runtime_names(uses["Nullable"], uses["Null"]),
                    RULE.format("types")[:96] + "\n\n",
                    types,
                    self._server(),
                    self._client(),
                ]
            ).rstrip("\n")
            + "\n"
        )

    def _head(self, uses_json: bool) -> str:
        server = self.toolset.server
        package = server.package
        title = f" ({server.title})" if server.title else ""
        about = " ".join(comment_lines(f"{server.name}{title}"))
        lines = textwrap.wrap(
            f"Package {package} holds the MCP tools of server {about} for the official Go SDK: the "
            "types of every tool's input and output, Handlers with RegisterTools and ServeStdio "
            "for an mcp.Server, and a typed Client. "
            + " ".join(comment_lines(server.description or "")),
            width=93,
            break_long_words=False,
            break_on_hyphens=False,
        )
        imports = ['"context"', '"embed"', *(['"encoding/json"'] if uses_json else [])]
        local = go_string(f"{self.module}/internal/toolgen")
        files = [f"tools/{revision}.json" for revision in EMITTED_REVISIONS]
        if self.toolset.tools:
            files.append("schemas/*.json")
        return (
            comment(lines)
            + f"package {package}\n\nimport (\n"
            + "".join(f"\t{line}\n" for line in imports)
            + '\n\t"github.com/modelcontextprotocol/go-sdk/mcp"\n'
            + f"\n\t{local}\n)\n\n"
            "// files are the build's tools/list results and JSON Schemas, read by the runtime.\n"
            f"//\n//go:embed {' '.join(files)}\nvar files embed.FS\n\n"
            "var spec = toolgen.NewSpec(files)\n\n"
        )

    def _runtime_names(self, nullable: bool, null: bool) -> str:
        aliases = [
            ("ToolError", "is what a handler returns to fail a call with a message meant for the model."),
            ("ToolCallError", "is a call the server answered with isError."),
            ("ResultError", "is a result that breaks the tool's output schema or type."),
            ("DriftError", "is the server's tools differing from the spec, as a Client refuses a call."),
            ("Drift", "is one way the server's tools differ from the spec."),
            ("DriftPolicy", "says what a Client does when the server's tools differ from the spec."),
            ("ClientOptions", "configure a Client (none: warn about drift through slog.Default())."),
        ]  # fmt: skip
        text = "type (\n" + "".join(
            f"\t// {name} {doc}\n\t{name} = toolgen.{name}\n" for name, doc in aliases
        )
        if nullable:
            text += (
                "\t// Nullable is a member that may be absent, null or a value: the zero Nullable\n"
                "\t// is absent; Set is present, then Null is null, else Value.\n"
                "\tNullable[T any] = toolgen.Nullable[T]\n"
            )
        if null:
            text += (
                "\t// Null is the value of a schema that allows only null.\n\tNull = toolgen.Null\n"
            )
        return text + (
            ")\n\n// What a Client does when the server's tools differ from the spec.\nconst (\n"
            "\tDriftWarn   = toolgen.DriftWarn\n\tDriftFail   = toolgen.DriftFail\n"
            "\tDriftIgnore = toolgen.DriftIgnore\n)\n\n"
        )

    def _returns(self, tool: Tool) -> str:
        output = self.model.tools[tool.name].output
        return output if output is not None else "any"

    def _server(self) -> str:
        tools = self.toolset.tools
        server = self.toolset.server
        doc = [
            "Handlers has one method per tool. It takes the tool's input, already checked against its",
            "schema with its defaults filled in, and returns the tool's output, checked before it is sent.",
            "Return a *ToolError to answer the model with isError and its message; any other error",
            "answers a generic message and is logged only.",
        ]  # fmt: skip
        if any(tool.output_schema is None for tool in tools):
            doc += [
                "A tool without an output schema returns any value: a string is sent as text, content",
                "([]mcp.Content or one mcp.Content) as it is, nil as no content, anything else as JSON text.",
            ]  # fmt: skip
        methods = "".join(
            comment(tool_doc(self.methods[tool.name], tool), "\t")
            + f"\t{self.methods[tool.name]}(ctx context.Context, in {self.model.tools[tool.name].input}) "
            f"({self._returns(tool)}, error)\n"
            for tool in tools
        )
        handlers = f"interface {{\n{methods}}}" if tools else "interface{}"
        handles = "".join(
            f"\t\ttoolgen.Handle({go_string(tool.name)}, h.{self.methods[tool.name]}),\n"
            for tool in tools
        )
        register = (
            f"toolgen.Register(s, spec,\n{handles}\t)" if tools else "toolgen.Register(s, spec)"
        )
        identity = [f"Name: {go_string(server.name)}"]
        if server.title:
            identity.append(f"Title: {go_string(server.title)}")
        identity.append(f"Version: {go_string(server.version)}")
        options = (
            f"&mcp.ServerOptions{{\n\t\tInstructions: {go_string(server.instructions)},\n\t}}"
            if server.instructions
            else "nil"
        )
        return (
            RULE.format("server")[:96] + "\n\n" + comment(doc) + f"type Handlers {handlers}\n\n"
            "// RegisterTools adds every tool to s with h's methods; s then lists the spec's definitions for\n"
            "// the protocol revision of each request, then any other tools it has.\n"
            f"func RegisterTools(s *mcp.Server, h Handlers) {{\n\t{register}\n}}\n\n"
            "// ServeStdio serves the tools with h over stdin and stdout until stdin ends or ctx is done.\n"
            "// Every line gets an answer, as JSON-RPC wants: malformed JSON gets -32700 with id null.\n"
            "func ServeStdio(ctx context.Context, h Handlers) error {\n"
            f"\ts := mcp.NewServer(&mcp.Implementation{{{', '.join(identity)}}}, {options})\n"
            "\tRegisterTools(s, h)\n\treturn toolgen.ServeStdio(ctx, s)\n}\n\n"
        )  # fmt: skip

    def _client(self) -> str:
        out = [
            RULE.format("client")[:96] + "\n\n",
            "// Client calls the tools through a connected SDK session, one method per tool. Before the\n"
            "// first call it compares the server's tools with the spec (see ClientOptions); a tool the spec\n"
            "// calls safe that the server hints may destroy data is never called (*DriftError). A result\n"
            "// with isError is a *ToolCallError.\n"
            "type Client struct {\n\ttools *toolgen.Client\n}\n\n"
            "// NewClient makes a Client calling through session, with the options given (none: warn\n"
            "// about drift through slog.Default()).\n"
            "func NewClient(session *mcp.ClientSession, opts ...ClientOptions) *Client {\n"
            "\treturn &Client{tools: toolgen.NewClient(session, spec, opts...)}\n}\n\n"
            "// CheckDrift compares the server's tools with the spec now (the first call does otherwise).\n"
            "func (c *Client) CheckDrift(ctx context.Context) ([]Drift, error) {\n"
            "\treturn c.tools.CheckDrift(ctx)\n}\n\n",
        ]  # fmt: skip
        for tool in self.toolset.tools:
            method = self.methods[tool.name]
            types = self.model.tools[tool.name]
            name = go_string(tool.name)
            out.append(comment(tool_doc(method, tool)))
            if types.output is None:
                out.append(
                    f"func (c *Client) {method}(ctx context.Context, in {types.input}) (*mcp.CallToolResult, error) {{\n"
                    f"\treturn c.tools.Result(ctx, {name}, in)\n}}\n\n"
                )
            else:
                out.append(
                    f"func (c *Client) {method}(ctx context.Context, in {types.input}) ({types.output}, error) {{\n"
                    f"\treturn toolgen.Call[{types.output}](ctx, c.tools, {name}, in)\n}}\n\n"
                )
        return "".join(out)


def tool_doc(method: str, tool: Tool) -> list[str]:
    """A tool's method's doc comment: `Method: <description>. Tool <name>.`"""
    lines = comment_lines(tool.description or tool.title or "")
    name = " ".join(comment_lines(tool.name))
    if not lines:
        return [f"{method} calls tool {name}."]
    lines[0] = f"{method}: {lines[0]}"
    lines[-1] += f" Tool {name}."
    return lines
