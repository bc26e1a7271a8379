"""Emit the Rust crate of a spec set: `Cargo.toml`, `src/lib.rs`, `src/runtime.rs`, `src/spec.json`.

`lib.rs` holds everything particular to the spec set: the types of every tool's input and
output and of its defs (`types.declarations`), the `Handlers` trait (one async method per
tool), `serve_stdio`, and the typed `Client`. `runtime.rs` is the same text in every crate:
the server on the official Rust SDK (`rmcp`), the JSON Schema checks (`jsonschema`) and the
client's calls. `spec.json` carries the spec's server block and each tool's schemas; the
listings are the build's own `tools/<revision>.json`, included as they are.

`lib.rs` and `Cargo.toml` are laid out by the templates beside this module (`lib.rs.jinja`,
`Cargo.toml.jinja`); the type expressions and the few lines whose layout rustfmt chooses by
their width are printed here (`types`, `layout`) and reach the template as text.

Names come from the naming service (`toolgen.build.naming`): type names are those of the type
model, the same in every target; a tool's method is its name in snake case (`get-x` →
`get_x`, `3d` → `tool_3d`), with `_tool` appended where it would be a member of the client
(`new` → `new_tool`). Spec text reaches `lib.rs` only in string literals and doc comments.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Final

from toolgen.build.common import json_text, server_block
from toolgen.build.naming import LANGUAGES
from toolgen.build.rust.layout import (
    INDENT,
    awaited,
    doc_comment,
    doc_line,
    function,
    generic,
    rust_string,
)
from toolgen.build.rust.types import MAP, SERDE, VALUE, declarations, only_null
from toolgen.build.target import Rendering
from toolgen.build.templating import render
from toolgen.build.typemodel import Ref, ToolTypes, TypeModel
from toolgen.spec.ir import Tool
from toolgen.spec.protocol import EMITTED_REVISIONS

TESTED_WITH: Final = {
    "rust": "1.88",
    "futures": "0.3.34",
    "jsonschema": "0.61.2",
    "rmcp": "3.11.0",
    "serde": "1.0.229",
    "serde_json": "1.0.154",
    "tokio": "1.54.1",
}
"""What the generated crates are tested with (the test workspace's `Cargo.lock` pins the same)."""
RUNTIME: Final = Path(__file__).with_name("runtime.rs")
"""The runtime every crate carries (the same text in each)."""
_SEMVER = re.compile(
    r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?\Z"
)
RUST = LANGUAGES["rust"]


def render_rust(job: Rendering) -> list[tuple[str, str]]:
    """The files of the spec set's crate, relative to `OUT/<package>/`."""
    runtime = RUNTIME.read_text(encoding="utf-8")
    return [
        ("Cargo.toml", cargo_toml(job)),
        ("src/lib.rs", lib_rs(job)),
        ("src/runtime.rs", f"// {job.header}\n\n{runtime}"),
        ("src/spec.json", spec_json(job)),
    ]


def cargo_toml(job: Rendering) -> str:
    """The crate's manifest (`Cargo.toml.jinja`): a library named after the spec set's package,
    its dependencies at the versions it was tested with. Doc tests are off: descriptions are
    not Rust."""
    server = job.toolset.server
    return render(
        "rust/Cargo.toml.jinja",
        header=job.header,
        package=server.package,
        version=server.version if _SEMVER.match(server.version) else "0.0.0",
        tested_with=TESTED_WITH,
    )


def spec_json(job: Rendering) -> str:
    """The spec's server block and each tool's schemas, as the runtime reads them."""
    tools: list[dict[str, Any]] = []
    for tool in job.toolset.tools:
        entry: dict[str, Any] = {"name": tool.name, "input": tool.input_schema}
        if tool.output_schema is not None:
            entry["output"] = tool.output_schema
        tools.append(entry)
    return json_text({"server": server_block(job.toolset.server), "tools": tools})


def lib_rs(job: Rendering) -> str:
    """The text of `lib.rs` (`lib.rs.jinja`, beside this module)."""
    server = job.toolset.server
    printed = declarations(job.model)
    methods = RUST.identifiers([tool.name for tool in job.toolset.tools], "method")
    intro = (server.description or server.title or server.name).strip()
    return render(
        "rust/lib.rs.jinja",
        about=doc_comment([f"The MCP tools of server {server.name}: {intro}"], "", "//!"),
        header=job.header,
        server_name=doc_line(server.name),
        map=MAP in printed.uses,
        value=VALUE in printed.uses,
        serde=SERDE in printed.uses,
        types=printed.text,
        tools=[
            _tool(tool, job.model.tools[tool.name], methods[tool.name], job.model)
            for tool in job.toolset.tools
        ],
        revisions=EMITTED_REVISIONS,
    )


def _tool(tool: Tool, types: ToolTypes, method: str, model: TypeModel) -> dict[str, str]:
    """What the template writes of one tool: its spec text escaped, and the lines whose layout
    depends on its names laid out as rustfmt would (without their last line break)."""
    name = rust_string(tool.name)
    if only_null(model, Ref(types.input)):  # no object fits the input
        read, passed = "runtime::arguments::<()>(arguments)?;", "()"  # no binding of `()`
    else:
        read, passed = "let input = runtime::arguments(arguments)?;", "input"
    if types.output is None:  # any JSON value; the client gets the whole result
        output, result, call = "serde_json::Value", "rmcp::model::CallToolResult", "result"
    else:
        output, result, call = types.output, types.output, "call"
    returns = generic("impl Future", generic("Output = Result", output, "ToolError"))
    client = ["&self", f"input: &{types.input}"]
    return {
        "name": name,
        "doc": doc_comment(_tool_doc(tool), INDENT),
        "signature": function(
            f"fn {method}", ["&self", f"input: {types.input}"], returns, " + Send;", INDENT
        ).removesuffix("\n"),
        "read": read,
        "dispatch": awaited("self", method, [passed], INDENT * 4, "let output = ", ";"),
        "client": function(
            f"pub async fn {method}", client, generic("Result", result, "ClientError"), " {", INDENT
        ).removesuffix("\n"),
        "call": awaited("self.0", call, [name, "input"], INDENT * 2),
    }


def _tool_doc(tool: Tool) -> list[str]:
    text = (tool.description or tool.title or "").strip()
    about = f"Tool `{doc_line(tool.name)}`."
    return [text, "", about] if text else [about]
