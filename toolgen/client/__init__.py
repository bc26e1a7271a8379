"""The runtime of the typed clients `toolgen build` writes (`OUT/<package>/client.py`).

    from notes.client import Client

    async with Client.stdio(["python", "-m", "notes.server", "app:Handlers"]) as notes:
        note = await notes.create_note(title="Milk", tags=["shop"])   # a CreateNoteOutput
        count = await notes.count_notes()                              # an int

A generated `Client` subclasses `ToolClient` with one typed async method per tool.
Arguments are checked by the tool's Input model before anything is sent; an
`isError` result raises `ToolCallError`; at connect the server's `tools/list` is
compared with the spec (`Drift`, reported as the `drift` policy says). Everything
on the wire goes through the official MCP SDK's `ClientSession`. `blocking(...)`
drives a client from synchronous code (`toolgen.client.sync`).

Each generated `models.py` defines the "absent" value of its package, `OMITTED`: in the
models a property the JSON leaves out, in the client an optional argument a caller did not
give (it is not sent).
"""

from __future__ import annotations

from toolgen.client.base import DriftPolicy, ToolClient, call_model, call_result, call_value
from toolgen.client.drift import Drift, DriftError, DriftWarning
from toolgen.client.errors import ToolCallError
from toolgen.client.sync import Blocking, blocking

__all__ = [
    "Blocking",
    "Drift",
    "DriftError",
    "DriftPolicy",
    "DriftWarning",
    "ToolCallError",
    "ToolClient",
    "blocking",
    "call_model",
    "call_result",
    "call_value",
]
