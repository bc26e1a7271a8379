"""Real handlers for the notes server (`specs/notes`): notes kept in an SQLite database.

They implement the generated interface `generated/notes/server.py` with the
generated models, so `generated/` plus this file is a complete MCP server:

    python examples/notes_handlers.py --db notes.sqlite3      # stdio, both MCP eras

(or `toolgen serve specs/notes --handlers examples/notes_handlers.py:NotesHandlers`,
which serves the YAML specs directly with the same handlers).
"""

from __future__ import annotations

import argparse
import os
import secrets
import sqlite3
import sys
import threading
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "generated"))

from notes.models import (
    CountNotesInput,
    CreateNoteInput,
    CreateNoteOutput,
    DeleteNoteInput,
    DeleteNoteOutput,
    GetNoteInput,
    GetNoteOutput,
    ListNotesInput,
    ListNotesOutput,
    Note,
    TagTreeInput,
    TagTreeOutput,
)
from notes.server import Handlers, ToolError, serve

SCHEMA = """
CREATE TABLE IF NOT EXISTS notes (
    seq   INTEGER PRIMARY KEY AUTOINCREMENT,
    id    TEXT NOT NULL UNIQUE,
    title TEXT NOT NULL,
    body  TEXT
);
CREATE TABLE IF NOT EXISTS tags (
    note_id TEXT NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
    tag     TEXT NOT NULL,
    PRIMARY KEY (note_id, tag)
);
"""
ALL_TAGS = "all"
"""The root of `tag_tree` when no `root` is asked for: every top-level tag is its child."""


class NotesHandlers(Handlers):
    """The notes tools over one SQLite database (sync handlers: the runtime runs them in
    worker threads, so one connection is shared under a lock)."""

    def __init__(self, path: str | os.PathLike[str] = ":memory:") -> None:
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA foreign_keys = ON")
        self._db.executescript(SCHEMA)
        self._lock = threading.Lock()

    def create_note(self, args: CreateNoteInput) -> CreateNoteOutput:
        note_id = f"n_{secrets.token_hex(4)}"
        body = args.body if isinstance(args.body, str) else None
        tags = sorted(set(args.tags))
        with self._lock:
            self._db.execute("BEGIN")
            self._db.execute(
                "INSERT INTO notes (id, title, body) VALUES (?, ?, ?)", (note_id, args.title, body)
            )
            self._db.executemany(
                "INSERT INTO tags (note_id, tag) VALUES (?, ?)", [(note_id, t) for t in tags]
            )
            self._db.execute("COMMIT")
        return CreateNoteOutput.model_validate(_note(note_id, args.title, body, tags))

    def get_note(self, args: GetNoteInput) -> GetNoteOutput:
        found = self._notes("WHERE n.id = ?", (args.id,), limit=1)
        if not found:
            raise ToolError(f"There is no note {args.id}; list_notes shows the notes.")
        return GetNoteOutput.model_validate(found[0])

    def list_notes(self, args: ListNotesInput) -> ListNotesOutput:
        if args.tag:  # OMITTED is falsy
            where = "WHERE n.id IN (SELECT note_id FROM tags WHERE tag = ?)"
            notes = self._notes(where, (args.tag,), limit=args.limit)
        else:
            notes = self._notes("", (), limit=args.limit)
        return [Note.model_validate(n) for n in notes]

    def count_notes(self, args: CountNotesInput) -> int:
        with self._lock:
            (count,) = self._db.execute("SELECT COUNT(*) FROM notes").fetchone()
        return int(count)

    def delete_note(self, args: DeleteNoteInput) -> DeleteNoteOutput:
        with self._lock:
            cursor = self._db.execute("DELETE FROM notes WHERE id = ?", (args.id,))
        return DeleteNoteOutput(deleted=cursor.rowcount > 0)

    def tag_tree(self, args: TagTreeInput) -> TagTreeOutput:
        """Tags nest by prefix: `home-garden` is a child of `home`."""
        with self._lock:
            tags = [
                row[0] for row in self._db.execute("SELECT DISTINCT tag FROM tags ORDER BY tag")
            ]
        root = args.root or None
        tree = _tree(root or ALL_TAGS, tags, top=root is None)
        return TagTreeOutput.model_validate(tree)

    def _notes(self, where: str, params: tuple[Any, ...], *, limit: int) -> list[dict[str, Any]]:
        query = f"SELECT n.id, n.title, n.body FROM notes n {where} ORDER BY n.seq DESC LIMIT ?"
        with self._lock:
            rows = self._db.execute(query, (*params, limit)).fetchall()
            tags: dict[str, list[str]] = {row[0]: [] for row in rows}
            marks = ",".join("?" * len(tags))
            for note_id, tag in self._db.execute(
                f"SELECT note_id, tag FROM tags WHERE note_id IN ({marks}) ORDER BY tag", list(tags)
            ):
                tags[note_id].append(tag)
        return [_note(note_id, title, body, tags[note_id]) for note_id, title, body in rows]


def _note(note_id: str, title: str, body: str | None, tags: list[str]) -> dict[str, Any]:
    note: dict[str, Any] = {"id": note_id, "title": title, "tags": tags}
    if body is not None:
        note["body"] = body
    return note


def _tree(tag: str, tags: list[str], *, top: bool) -> dict[str, Any]:
    """`tag` with its children: the tags one `-`-segment longer (or, at the top, every tag
    without a parent in `tags`)."""
    if top:
        children = [t for t in tags if not any(t.startswith(p + "-") for p in tags if p != t)]
    else:
        below = [t for t in tags if t.startswith(tag + "-")]
        children = [t for t in below if not any(t.startswith(p + "-") for p in below if p != t)]
    node: dict[str, Any] = {"tag": tag}
    if children:
        node["children"] = [_tree(child, tags, top=False) for child in children]
    return node


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="The notes MCP server (stdio).")
    parser.add_argument(
        "--db",
        default=os.environ.get("NOTES_DB", "notes.sqlite3"),
        help="SQLite database file (default: $NOTES_DB or notes.sqlite3; ':memory:' for none)",
    )
    options = parser.parse_args(argv)
    serve(NotesHandlers(options.db))


if __name__ == "__main__":
    main()
