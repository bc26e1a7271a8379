"""Emit the Rust crate of a spec set: `Cargo.toml`, `src/lib.rs`, `src/runtime.rs`, `src/spec.json`.

`lib.rs` holds everything particular to the spec set: the types of every tool's input and
output and of its defs (`types.declarations`), the `Handlers` trait (one async method per
tool), `serve_stdio`, and the typed `Client`. `runtime.rs` is the same text in every crate:
the server on the official Rust SDK (`rmcp`), the JSON Schema checks (`jsonschema`) and the
client's calls. `spec.json` carries the spec's server block and each tool's schemas; the
listings are the build's own `tools/<revision>.json`, included as they are.

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
    CALL_WIDTH,
    INDENT,
    doc_comment,
    fits,
    listed,
    rust_string,
    signature,
    width,
)
from toolgen.build.rust.types import MAP, VALUE, declarations
from toolgen.build.target import Rendering
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
        ("src/lib.rs", Crate(job).text()),
        ("src/runtime.rs", f"// {job.header}\n\n{runtime}"),
        ("src/spec.json", spec_json(job)),
    ]


def cargo_toml(job: Rendering) -> str:
    """The crate's manifest: a library named after the spec set's package, its dependencies at
    the versions it was tested with. Doc tests are off: descriptions are not Rust."""
    server = job.toolset.server
    version = server.version if _SEMVER.match(server.version) else "0.0.0"
    v = TESTED_WITH
    return f"""\
# {job.header}
[package]
name = "{server.package}"
version = "{version}"
edition = "2024"
rust-version = "{v["rust"]}"
publish = false

[lib]
doctest = false

[dependencies]
futures = "{v["futures"]}"
jsonschema = {{ version = "{v["jsonschema"]}", default-features = false }}
rmcp = {{ version = "{v["rmcp"]}", default-features = false, features = ["client", "server"] }}
serde = {{ version = "{v["serde"]}", features = ["derive"] }}
serde_json = "{v["serde_json"]}"
tokio = {{ version = "{v["tokio"]}", features = ["io-std", "io-util", "sync"] }}
"""


def spec_json(job: Rendering) -> str:
    """The spec's server block and each tool's schemas, as the runtime reads them."""
    tools: list[dict[str, Any]] = []
    for tool in job.toolset.tools:
        entry: dict[str, Any] = {"name": tool.name, "input": tool.input_schema}
        if tool.output_schema is not None:
            entry["output"] = tool.output_schema
        tools.append(entry)
    return json_text({"server": server_block(job.toolset.server), "tools": tools})


class Crate:
    """The text of `lib.rs` for one spec set."""

    def __init__(self, job: Rendering) -> None:
        self.job = job
        self.toolset = job.toolset
        self.model = job.model
        self.methods = RUST.identifiers([tool.name for tool in job.toolset.tools], "method")

    def text(self) -> str:
        server = self.toolset.server
        printed = declarations(self.model)
        intro = (server.description or server.title or server.name).strip()
        imports = [
            *(["use std::collections::BTreeMap;\n"] if MAP in printed.uses else []),
            "use std::future::Future;\n\n",
            "use serde::{Deserialize, Serialize};\n",
            *(["use serde_json::Value;\n"] if VALUE in printed.uses else []),
        ]
        return "".join(
            [
                doc_comment(
                    [
                        f"The MCP tools of server {server.name}: {intro}",
                        "",
                        self.job.header,
                        "",
                        "Implement [`Handlers`] and serve it with [`serve_stdio`]; call a server",
                        "with [`Client`].",
                    ],
                    "",
                    "//!",
                ),
                "\n",
                "mod runtime;\n\n",
                *imports,
                "\npub use runtime::{ClientError, Drift, DriftPolicy, ServeError, Server, SpecError, ToolError};\n\n",
                printed.text,
                self._handlers(),
                self._spec(),
                self._dispatch(),
                self._client(),
            ]
        )

    # -- server -------------------------------------------------------------------------------

    def _returns(self, tool: Tool) -> str:
        output = self.model.tools[tool.name].output
        return output if output is not None else "serde_json::Value"

    def _handlers(self) -> str:
        about = [
            f"The tools of server {_doc_text(self.toolset.server.name)}, one method per tool.",
            "",
            "Each takes the tool's input (already checked against its schema) and returns its",
            "output (checked before it is sent). Return [`ToolError::new`] for a failure the",
            "model should read; [`ToolError::internal`] keeps the cause in the server's log. A",
            "tool without an output schema returns any JSON value, sent as text (a string as",
            "itself).",
        ]
        out = [doc_comment(about, ""), "pub trait Handlers: Send + Sync + 'static {\n"]
        for index, tool in enumerate(self.toolset.tools):
            if index:
                out.append("\n")
            method = self.methods[tool.name]
            input_ = self.model.tools[tool.name].input
            returns = f"impl Future<Output = Result<{self._returns(tool)}, ToolError>> + Send"
            out.append(doc_comment(_tool_doc(tool), INDENT))
            out.append(signature(f"fn {method}", ["&self", f"input: {input_}"], returns, INDENT))
        return "".join(out) + "}\n\n"

    def _spec(self) -> str:
        listings = "".join(
            f'{INDENT * 2}("{rev}", include_str!("../tools/{rev}.json")),\n'
            for rev in EMITTED_REVISIONS
        )
        return (
            "static SPEC: runtime::Spec = runtime::Spec {\n"
            f'{INDENT}spec: include_str!("spec.json"),\n'
            f"{INDENT}listings: &[\n{listings}{INDENT}],\n"
            "};\n\n"
        )

    def _dispatch(self) -> str:
        arms = []
        for tool in self.toolset.tools:
            chain = f"self.{self.methods[tool.name]}(input).await"
            call = f"{INDENT * 4}let output = {chain};\n"
            if not fits(call.rstrip("\n")) or width(chain) > CALL_WIDTH:
                call = (
                    f"{INDENT * 4}let output = self\n"
                    f"{INDENT * 5}.{self.methods[tool.name]}(input)\n{INDENT * 5}.await;\n"
                )
            arms.append(
                f"{INDENT * 3}{rust_string(tool.name)} => {{\n"
                f"{INDENT * 4}let input = runtime::arguments(arguments)?;\n"
                f"{call}{INDENT * 4}runtime::output(output)\n"
                f"{INDENT * 3}}}\n"
            )
        return (
            "impl<H: Handlers> runtime::Dispatch for H {\n"
            f"{INDENT}const SPEC: &'static runtime::Spec = &SPEC;\n\n"
            f"{INDENT}async fn dispatch(\n"
            f"{INDENT * 2}&self,\n"
            f"{INDENT * 2}name: &str,\n"
            f"{INDENT * 2}arguments: serde_json::Value,\n"
            f"{INDENT}) -> Result<serde_json::Value, runtime::Failure> {{\n"
            f"{INDENT * 2}match name {{\n"
            + "".join(arms)
            + f"{INDENT * 3}_ => Err(runtime::Failure::UnknownTool),\n"
            f"{INDENT * 2}}}\n"
            f"{INDENT}}}\n"
            "}\n\n"
            "/// Serve `handlers` over stdio until the input ends: a malformed line is answered\n"
            "/// `-32700` with `id: null`, a batch is refused.\n"
            "pub async fn serve_stdio<H: Handlers>(handlers: H) -> Result<(), ServeError> {\n"
            f"{INDENT}runtime::serve_stdio(handlers).await\n"
            "}\n\n"
        )

    # -- client -------------------------------------------------------------------------------

    def _client(self) -> str:
        name = _doc_text(self.toolset.server.name)
        about = [
            f"A typed client of server {name}, over a connected `rmcp` client's peer.",
            "",
            "The first call compares the server's `tools/list` with the spec; a tool the spec",
            "calls safe that the server hints may destroy data is never called.",
        ]
        out = [
            doc_comment(about, ""),
            "pub struct Client(runtime::ToolClient);\n\n",
            "impl Client {\n",
            f"{INDENT}/// A client over `peer` (`rmcp::service::RunningService::peer`).\n",
            f"{INDENT}pub fn new(\n",
            f"{INDENT * 2}peer: rmcp::service::Peer<rmcp::service::RoleClient>,\n",
            f"{INDENT * 2}policy: DriftPolicy,\n",
            f"{INDENT}) -> Result<Self, SpecError> {{\n",
            f"{INDENT * 2}runtime::ToolClient::new(peer, &SPEC, policy).map(Self)\n",
            f"{INDENT}}}\n\n",
            f"{INDENT}/// How the server's tools differ from the spec (asked at the first call).\n",
            f"{INDENT}pub async fn drift(&self) -> Result<&[Drift], ClientError> {{\n",
            f"{INDENT * 2}self.0.drift().await\n",
            f"{INDENT}}}\n",
        ]
        for tool in self.toolset.tools:
            out.append("\n" + doc_comment(_tool_doc(tool), INDENT))
            out.append(self._client_method(tool))
        return "".join(out) + "}\n"

    def _client_method(self, tool: Tool) -> str:
        types = self.model.tools[tool.name]
        method = self.methods[tool.name]
        if types.output is None:
            returns, call = "rmcp::model::CallToolResult", "result"
        else:
            returns, call = types.output, "call"
        tail = f" -> Result<{returns}, ClientError> {{"
        head = listed(f"pub async fn {method}", ["&self", f"input: &{types.input}"], tail, INDENT)
        chain = f"self.0.{call}({rust_string(tool.name)}, input).await"
        body = f"{INDENT * 2}{chain}"
        if not fits(body) or width(chain) > CALL_WIDTH:
            args = [rust_string(tool.name), "input"]
            body = (
                f"{INDENT * 2}self.0\n"
                + listed(f".{call}", args, "", INDENT * 3, call=True)
                + f"{INDENT * 3}.await"
            )
        return f"{head}{body}\n{INDENT}}}\n"


def _tool_doc(tool: Tool) -> list[str]:
    text = (tool.description or tool.title or "").strip()
    return (
        [text, "", f"Tool `{_doc_text(tool.name)}`."]
        if text
        else [f"Tool `{_doc_text(tool.name)}`."]
    )


def _doc_text(text: str) -> str:
    """`text` on one line of a doc comment."""
    return " ".join(text.split())
