"""The notes handlers (`examples/notes_handlers.py`) with one planted stateful defect each, for
`toolgen serve specs/notes --handlers tests/verify_support/planted.py:CLASS`: every single call
looks right; only a sequence of calls shows the defect."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))

from notes_handlers import (  # it puts generated/ on the path, for the models it imports
    CreateNoteInput,
    CreateNoteOutput,
    DeleteNoteInput,
    DeleteNoteOutput,
    NotesHandlers,
)


class ForgetfulNotes(NotesHandlers):
    """A created note is answered but never stored: it cannot be read back."""

    def create_note(self, args: CreateNoteInput) -> CreateNoteOutput:
        note = super().create_note(args)
        super().delete_note(DeleteNoteInput(id=note.id))
        return note


class UndeletableNotes(NotesHandlers):
    """Deleting a note says it is gone, and keeps it."""

    def delete_note(self, args: DeleteNoteInput) -> DeleteNoteOutput:
        return DeleteNoteOutput(deleted=True)
