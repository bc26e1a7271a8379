"""What a typed client raises when a call fails on the server's side."""

from __future__ import annotations

from typing import Any


class ToolCallError(Exception):
    """The server answered a tool call with `isError`; `text` is what the tool said.

    `result` is the SDK's `CallToolResult` as received.
    """

    def __init__(self, tool: str, text: str, result: Any = None) -> None:
        super().__init__(f"tool {tool!r} failed: {text}")
        self.tool = tool
        self.text = text
        self.result = result
