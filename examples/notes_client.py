"""A script using the typed client `toolgen build` wrote (`generated/notes/client.py`).

    python examples/notes_client.py                  # starts examples/notes_handlers.py itself
    python examples/notes_client.py --http URL       # or talks to a running server

Every call is typed: `create_note` takes keyword arguments checked by
`CreateNoteInput` before anything is sent and returns a `CreateNoteOutput`;
`count_notes` returns an `int`; a tool's `isError` raises `ToolCallError`.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "generated"))

from notes.client import Client  # noqa: E402 - the generated package, found above

from toolgen.client import ToolCallError  # noqa: E402


async def tour(notes: Client) -> None:
    milk = await notes.create_note(title="Buy milk", tags=["shop"])
    await notes.create_note(title="Call Ada", body="About the garden.", tags=["home"])
    print(f"created {milk.id}: {milk.title!r}")
    for note in await notes.list_notes(tag="shop"):
        print(f"  [shop] {note.title}")
    print(f"{await notes.count_notes()} notes in all")
    print(f"deleted: {(await notes.delete_note(id=milk.id)).deleted}")
    try:
        await notes.get_note(id=milk.id)
    except ToolCallError as error:
        print(f"get_note failed as expected: {error.text}")


async def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--http", metavar="URL", help="a running server's /mcp endpoint")
    args = parser.parse_args(argv)
    if args.http:
        async with Client.http(args.http) as notes:
            await tour(notes)
        return
    server = [sys.executable, str(HERE / "notes_handlers.py"), "--db", ":memory:"]
    async with Client.stdio(server, drift="error") as notes:
        print(f"connected with protocol {notes.session.protocol_version}; no drift")
        await tour(notes)


if __name__ == "__main__":
    asyncio.run(main())
