"""Handlers for `spec/demo.yaml`, used by the raw-frame tests (`--handlers FILE:Handlers`)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from toolgen.runtime import ToolError
from toolgen.serve.context import current_call


class TypedInput(BaseModel):
    model_config = ConfigDict(populate_by_name=True)
    first_name: str = Field(alias="first-name")


class TypedOutput(BaseModel):
    greeting: str
    nickname: str | None = None


class Handlers:
    def echo(self, args: dict[str, Any]) -> dict[str, Any]:
        print("stray print from a handler")  # must land on stderr, never on the protocol stream
        return {"text": args["text"] * args["times"], "times": args["times"], "note": None}

    async def slow(self, args: dict[str, Any]) -> dict[str, Any]:
        await asyncio.sleep(args["seconds"])
        return {"slept": args["seconds"]}

    def slow_sync(self, args: dict[str, Any]) -> dict[str, Any]:
        time.sleep(args["seconds"])
        return {"slept": args["seconds"]}

    def boom(self) -> None:
        raise RuntimeError("secret internal detail")

    def refuse(self) -> None:
        raise ToolError("Nothing to refuse today")

    def bad_output(self) -> dict[str, Any]:
        return {"count": "many"}

    async def count(self) -> int:
        return 3

    def hello(self) -> str:
        return "Hello!"

    def typed(self, args: TypedInput) -> TypedOutput:
        return TypedOutput(greeting=f"Hi {args.first_name}")

    async def report(self) -> dict[str, Any]:
        _report()
        await asyncio.sleep(0)
        return {"done": True}

    def report_sync(self) -> dict[str, Any]:
        _report()
        return {"done": True}


def _report() -> None:
    call = current_call()
    call.progress(1, 2, "half way")
    call.log("debug", "a detail")
    call.log("info", "working")
