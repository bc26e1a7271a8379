"""The notes tools on the official MCP SDK's `MCPServer`, beside the server's own
resource, prompt and tool (`toolgen.sdk.add_tools`).

    python examples/sdk_server.py --db notes.sqlite3        # stdio, both MCP eras

`tools/list` shows `server_time` (the server's own tool) and the six notes tools with
their exact spec definitions; `resources/read notes://readme` and the `summarize`
prompt are the server's own, untouched.
"""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime
from pathlib import Path

from mcp.server.mcpserver import MCPServer

sys.path.insert(0, str(Path(__file__).resolve().parent))

from notes_handlers import NotesHandlers

from toolgen.sdk import add_tools

SPECS = Path(__file__).resolve().parent.parent / "specs" / "notes"


def build_server(db: str = ":memory:") -> MCPServer:
    """An `MCPServer` with its own resource, prompt and tool, plus the notes spec's tools."""
    server = MCPServer("notes-on-sdk", version="1.0.0")

    @server.resource("notes://readme", mime_type="text/markdown")
    def readme() -> str:
        """How to use this server."""
        return "# Notes\nCreate notes with `create_note`, find them with `list_notes`."

    @server.prompt()
    def summarize(tag: str) -> str:
        """Ask the model to summarize the notes with one tag."""
        return f"Call list_notes with tag={tag!r}, then summarize the notes in three lines."

    @server.tool()
    def server_time() -> str:
        """The server's current time (UTC, ISO 8601)."""
        return datetime.now(UTC).isoformat(timespec="seconds")

    add_tools(server, SPECS, NotesHandlers(db))
    return server


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default=":memory:", help="SQLite database file")
    args = parser.parse_args(argv)
    build_server(args.db).run("stdio")


if __name__ == "__main__":
    main()
