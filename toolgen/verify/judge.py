"""Judging one `tools/call` answer against the rules for valid and for invalid input."""

from __future__ import annotations

from typing import Any, Final

import orjson

from toolgen.schema.validation import SchemaValidator, describe
from toolgen.spec.ir import Tool
from toolgen.spec.protocol import WRAP_KEY, has_structured_output, tool_definition, wraps_output
from toolgen.verify.generate import Failure
from toolgen.verify.official import official_problem, official_validator
from toolgen.verify.probes import INVALID_PARAMS, error_code, show
from toolgen.verify.transport import Exchange

VALIDATION_AS_RESULT: Final = "2025-11-25"
"""From this revision on, invalid arguments must be `isError` results (not -32602)."""


class Judge:
    """The call rules for one tool at one revision."""

    def __init__(self, tool: Tool, revision: str, timeout: float) -> None:
        self.tool = tool
        self.revision = revision
        self.timeout = timeout
        schema = tool_definition(tool, revision).get("outputSchema")
        self.output = SchemaValidator(schema) if schema is not None else None
        self.structured = has_structured_output(revision)
        self.wrapped = wraps_output(tool, revision)
        self.official = official_validator(revision, "CallToolResult") is not None

    def gone(self, exchange: Exchange, detail: str) -> Failure | None:
        """The server did not answer at all (went away or hung), or over verify's limits."""
        if exchange.refused is not None:
            return Failure("call.answers", f"no reply verify reads: {exchange.refused}")
        if exchange.closed:
            return Failure("call.answers", f"the server went away: {detail}")
        if exchange.timed_out:
            return Failure("call.answers", f"no reply within {self.timeout:g} s")
        if exchange.reply is None:
            status = f" (HTTP {exchange.status})" if exchange.status is not None else ""
            return Failure("call.answers", f"no JSON-RPC reply{status}")
        return None

    def valid_input(self, exchange: Exchange, detail: str = "") -> Failure | None:
        """None when a valid input was answered as the rules require."""
        failure = self.gone(exchange, detail)
        if failure is not None:
            return failure
        reply = exchange.reply
        if error_code(reply) is not None:
            return Failure(
                "call.valid-input", f"valid input got a JSON-RPC error: {show(reply['error'])}"
            )
        result = reply.get("result") if isinstance(reply, dict) else None
        if not isinstance(result, dict):
            return Failure("call.result-shape", f"the reply has no result object: {show(reply)}")
        problem = self._shape(result)
        if problem is not None:
            return Failure("call.result-shape", problem)
        if result.get("isError") is True:
            return None
        return self._structured(result) or self._text_fallback(result)

    def invalid_input(self, exchange: Exchange, detail: str = "") -> Failure | None:
        """None when an invalid input was refused as the rules require."""
        failure = self.gone(exchange, detail)
        if failure is not None:
            return failure
        reply = exchange.reply
        code = error_code(reply)
        if code is not None:
            if code == INVALID_PARAMS and self.revision < VALIDATION_AS_RESULT:
                return None
            allowed = (
                "an isError result the model can act on"
                if self.revision >= VALIDATION_AS_RESULT
                else f"an isError result or error {INVALID_PARAMS}"
            )
            return Failure(
                "call.invalid-input-error",
                f"invalid input got JSON-RPC error {show(reply['error'])}; at {self.revision} "
                f"invalid arguments are {allowed}",
            )
        result = reply.get("result") if isinstance(reply, dict) else None
        if isinstance(result, dict) and result.get("isError") is True:
            return None
        return Failure("call.invalid-input", f"invalid input was accepted: {show(result)}")

    def _shape(self, result: dict[str, Any]) -> str | None:
        if self.official:
            return official_problem(self.revision, "CallToolResult", result)
        content = result.get("content")
        if not isinstance(content, list) or not all(
            isinstance(b, dict) and isinstance(b.get("type"), str) for b in content
        ):
            return f"`content` is not a list of content blocks: {show(content)}"
        if "isError" in result and not isinstance(result["isError"], bool):
            return f"`isError` is not a boolean: {show(result['isError'])}"
        return None

    def _structured(self, result: dict[str, Any]) -> Failure | None:
        if self.output is None or not self.structured:
            return None
        if "structuredContent" not in result:
            return Failure(
                "call.structured-content",
                "the tool declares an output schema but the result has no structuredContent",
            )
        issues = self.output.issues(result["structuredContent"])
        if issues:
            return Failure(
                "call.structured-content",
                f"structuredContent breaks the output schema: {describe(issues)}",
            )
        return None

    def _text_fallback(self, result: dict[str, Any]) -> Failure | None:
        if "structuredContent" not in result:
            return None
        structured = result["structuredContent"]
        mirrors = [structured]
        if self.wrapped and isinstance(structured, dict) and WRAP_KEY in structured:
            mirrors.append(structured[WRAP_KEY])  # the wrapped value alone (the SDK's way)
        content = result.get("content")
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "text":
                if block.get("text") in [m for m in mirrors if isinstance(m, str)]:
                    return None  # a string result mirrored as it is (toolgen's runtime does)
                try:
                    if orjson.loads(block.get("text", "")) in mirrors:
                        return None
                except (orjson.JSONDecodeError, TypeError):
                    continue
        return Failure(
            "call.text-fallback",
            "no text block carries the structuredContent as JSON (clients without "
            "structured output see nothing)",
        )
