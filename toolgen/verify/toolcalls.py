"""Calling one tool: examples, boundary values, generated inputs (shrunk), invalid inputs.

Every call check gets one result per tool: failed with the first (for
generated inputs: the smallest) input that breaks it, else passed with how
many inputs were tried. A call the server dies or hangs on is a failure, and
the server is restarted for the next input.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from toolgen.schema.validation import SchemaValidator
from toolgen.spec.ir import Tool
from toolgen.verify.generate import Failure, explore, strategy_for
from toolgen.verify.inputs import Case, base_input, boundary_cases, invalid_cases
from toolgen.verify.judge import Judge
from toolgen.verify.params import annotated, param_headers
from toolgen.verify.results import Report, Result, failed, passed, skipped
from toolgen.verify.runner import Connection, Options
from toolgen.verify.transport import Exchange

CALL_CHECKS: Final = (
    "call.answers",
    "call.result-shape",
    "call.structured-content",
    "call.text-fallback",
    "call.invalid-input",
)


@dataclass(slots=True)
class _Found:
    failure: Failure
    input: Any
    source: str


class ToolCalls:
    """The call checks of one tool."""

    def __init__(
        self, tool: Tool, connection: Connection, options: Options, report: Report
    ) -> None:
        self.tool = tool
        self.connection = connection
        self.options = options
        self.report = report
        self.judge = Judge(tool, connection.revision, options.timeout)
        self.validator = SchemaValidator(tool.input_schema)
        self.params = annotated(tool.input_schema)
        self.found: dict[str, _Found] = {}
        self.valid_tried = 0
        self.invalid_tried = 0
        self.error_results = 0
        self.notes: list[str] = []
        self.dead = False

    def run(self) -> list[Result]:
        schema = dict(self.tool.input_schema)
        examples = [e.input for e in self.tool.examples if e.has_input]
        explicit = [Case(value, f"example {i + 1}") for i, value in enumerate(examples)]
        base = base_input(schema, examples, self.validator)
        if base is not None:
            explicit += boundary_cases(schema, base, self.validator)
        for case in explicit:
            self._valid(case)
        self._generated(schema)
        if base is not None:
            for case in invalid_cases(schema, base, self.validator):
                self._invalid(case)
        else:
            self.notes.append("no valid base input to break (no example; sampling failed)")
        return self._results()

    # -- calling ---------------------------------------------------------------------------

    def _call(self, arguments: Any) -> tuple[Exchange, str]:
        """Call the tool; restart the server when the call killed or hung it."""
        if self.dead:
            return Exchange(closed=True), "the server could not be restarted"
        session = self.connection.current()
        headers = param_headers(self.params, arguments) if self.params else None
        exchange = session.call_tool(self.tool.name, arguments, headers)
        self.report.calls += 1
        detail = ""
        if exchange.closed or exchange.timed_out or not session.transport.alive():
            detail = session.transport.describe_exit()
            if self.connection.restart() is None:
                self.dead = True
        return exchange, detail

    def _check_valid(self, arguments: Any) -> Failure | None:
        exchange, detail = self._call(arguments)
        self.valid_tried += 1
        result = exchange.reply.get("result") if isinstance(exchange.reply, dict) else None
        if isinstance(result, dict) and result.get("isError") is True:
            self.error_results += 1
        return self.judge.valid_input(exchange, detail)

    def _valid(self, case: Case) -> None:
        failure = self._check_valid(case.arguments)
        if failure is not None:
            self.found.setdefault(failure.check, _Found(failure, case.arguments, case.source))

    def _invalid(self, case: Case) -> None:
        exchange, detail = self._call(case.arguments)
        self.invalid_tried += 1
        failure = self.judge.invalid_input(exchange, detail)
        if failure is not None:
            self.found.setdefault(failure.check, _Found(failure, case.arguments, case.source))

    def _generated(self, schema: dict[str, Any]) -> None:
        if self.options.cases <= 0 or self.dead:
            return
        strategy = strategy_for(schema, self.validator.is_valid)
        if isinstance(strategy, str):
            self.notes.append(
                f"no generated inputs: the generator cannot use this schema ({strategy})"
            )
            return
        exploration = explore(
            strategy, self._check_valid, cases=self.options.cases, seed=self.options.seed
        )
        if exploration.unavailable:
            self.notes.append(f"generation stopped: {exploration.unavailable}")
        if exploration.failure is not None:
            source = f"generated input (seed {self.options.seed}), shrunk"
            found = _Found(exploration.failure, exploration.input, source)
            self.found.setdefault(exploration.failure.check, found)

    # -- results ---------------------------------------------------------------------------

    def _results(self) -> list[Result]:
        revision = self.connection.revision
        name = self.tool.name
        out: list[Result] = []
        tried = f"{self.valid_tried} valid inputs"
        if self.error_results:
            tried += f" ({self.error_results} answered isError)"
        note = "; " + "; ".join(self.notes) if self.notes else ""
        for check in CALL_CHECKS:
            found = self.found.get(check)
            if found is not None:
                message = f"{found.failure.message} [{found.source}]"
                out.append(failed(check, message, name, revision, found.input))
            elif check == "call.structured-content" and not self.judge.structured:
                out.append(skipped(check, f"{revision} has no structured output", name, revision))
            elif check == "call.structured-content" and self.judge.output is None:
                out.append(skipped(check, "the tool declares no output schema", name, revision))
            elif check == "call.invalid-input":
                if self.invalid_tried:
                    out.append(
                        passed(
                            check, f"{self.invalid_tried} invalid inputs refused", name, revision
                        )
                    )
                else:
                    out.append(
                        skipped(check, "no invalid input could be built" + note, name, revision)
                    )
            else:
                out.append(passed(check, tried + note, name, revision))
        return out
