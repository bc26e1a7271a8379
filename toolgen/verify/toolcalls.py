"""Calling one tool: fixtures, examples, boundary values, generated inputs (shrunk), invalid
inputs, and the steps of stateful sequences.

Every call check gets one result per tool: failed with the first (for generated
inputs: the smallest) input that breaks it; else passed, when at least one call
succeeded (a result that is not `isError`); else `not-exercised`, with why (every
call answered `isError`, no input could be built, the tool requires tasks). A
call the server dies or hangs on is a failure, and the server is restarted for
the next input. An exception of verify itself makes the tool's unjudged checks
`error`, never `passed`.

Long-running tools (`execution.taskSupport` optional or required) wait six times
`--timeout` for each answer; every call asks for progress notifications, each
of which renews the wait, up to six times `--timeout` in all (a call still
progressing then is cancelled and not judged). A fixtures file may set a tool's
own timeout.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

import orjson

from toolgen.schema.validation import SchemaValidator
from toolgen.spec.ir import Tool
from toolgen.spec.protocol import header_params
from toolgen.verify.fixtures import ToolFixtures
from toolgen.verify.generate import Failure, explore, strategy_for
from toolgen.verify.inputs import (
    MISSING,
    Case,
    base_input,
    boundary_cases,
    invalid_cases,
    leaf_values,
    replaced,
    seeded,
    value_at,
)
from toolgen.verify.judge import Judge
from toolgen.verify.params import param_headers
from toolgen.verify.probes import METHOD_NOT_FOUND, describe, error_code, show
from toolgen.verify.results import (
    Report,
    Result,
    broken,
    failed,
    not_exercised,
    passed,
    skipped,
)
from toolgen.verify.runner import Connection, Options
from toolgen.verify.session import result_of
from toolgen.verify.transport import Exchange

CALL_CHECKS: Final = (
    "call.answers",
    "call.valid-input",
    "call.result-shape",
    "call.structured-content",
    "call.text-fallback",
    "call.invalid-input",
    "call.invalid-input-error",
)
TASK_CHECK: Final = "call.task-required"
LONG_RUNNING: Final = 6
"""How many times `--timeout` a long-running tool's call (or a progressing one) may take."""
TASKS_REVISION: Final = "2025-11-25"
"""The revision whose core protocol has tasks (later: an extension)."""


def task_support(tool: Tool, listed: Mapping[str, Any]) -> str | None:
    """`execution.taskSupport` as the listing or else the spec says."""
    for execution in (listed.get("execution"), tool.execution):
        if isinstance(execution, Mapping) and isinstance(execution.get("taskSupport"), str):
            return str(execution["taskSupport"])
    return None


@dataclass(slots=True)
class _Found:
    failure: Failure
    input: Any
    source: str


@dataclass(frozen=True, slots=True)
class Outcome:
    """A judged call: its `structuredContent` (unwrapped; None without one), whether the tool
    refused (an `isError` result or a JSON-RPC error), and whether it was answered as the
    call rules require (a broken call's failure is already recorded)."""

    structured: Any
    refused: bool
    answered: bool
    said: str
    """What came back, for messages."""


class ToolCalls:
    """The call checks of one tool at one revision."""

    def __init__(
        self,
        tool: Tool,
        listed: Mapping[str, Any],
        connection: Connection,
        options: Options,
        report: Report,
        seeds: ToolFixtures,
    ) -> None:
        self.tool = tool
        self.connection = connection
        self.options = options
        self.report = report
        support = task_support(tool, listed)
        self.task_required = support == "required"
        longest = options.timeout * LONG_RUNNING
        long_running = support in ("optional", "required")
        self.timeout = seeds.timeout or (longest if long_running else options.timeout)
        self.longest = max(self.timeout, longest)
        self.judge = Judge(tool, connection.revision, self.timeout)
        self.validator = SchemaValidator(tool.input_schema)
        self.params = header_params(tool.input_schema)
        schema = dict(tool.input_schema)
        self.pins = dict(seeds.values)
        examples = [e.input for e in tool.examples if e.has_input]
        hints: dict[str, list[Any]] = {}
        for example in examples:
            for path, value in leaf_values(example):
                if value not in hints.setdefault(path, []):
                    hints[path].append(value)
        self.pinned_schema = seeded(schema, self.pins)
        self.generated_schema = seeded(schema, self.pins, hints)
        self.explicit = [Case(v, f"fixture {i + 1}") for i, v in enumerate(seeds.arguments)]
        self.explicit += [
            Case(self.with_pins(v), f"example {i + 1}") for i, v in enumerate(examples)
        ]
        candidates = [case.arguments for case in self.explicit]
        self.base = base_input(self.pinned_schema, candidates, self.validator)
        self.found: dict[str, _Found] = {}
        self.valid_tried = 0
        self.invalid_tried = 0
        self.succeeded = 0
        self.refusals = 0
        self.abandoned = 0
        self.first_refusal = ""
        self.notes: list[str] = []
        self.dead = False
        self.crash: Exception | None = None
        self.task_result: Result | None = None

    def with_pins(self, arguments: Any) -> Any:
        """`arguments` with each fixture-pinned property (given, or required at the top) set
        to its first fixture value."""
        if not isinstance(arguments, dict):
            return arguments
        out: Any = arguments
        required = self.tool.input_schema.get("required", [])
        for dotted, values in self.pins.items():
            path = tuple(dotted.split("."))
            if value_at(out, path) is not MISSING or (len(path) == 1 and path[0] in required):
                out = replaced(out, path, values[0])
        return out

    def run(self) -> None:
        """Make every call; an exception of verify itself is kept for the results."""
        try:
            self._run()
        except Exception as exc:  # a bug of verify: reported as an error, never a pass
            self.crash = exc

    def _run(self) -> None:
        if self.task_required:
            self.task_result = self._task_required()
            return
        if self.base is not None:
            self.explicit += boundary_cases(self.pinned_schema, self.base, self.validator)
        for case in self.explicit:
            self._valid(case)
        self._generated()
        if self.base is not None:
            for case in invalid_cases(dict(self.tool.input_schema), self.base, self.validator):
                self._invalid(case)
        else:
            self.notes.append("no valid base input to break (no example; sampling failed)")

    # -- calling ---------------------------------------------------------------------------

    def _call(self, arguments: Any) -> tuple[Exchange, str]:
        """Call the tool; restart the server when the call killed or hung it."""
        if self.dead:
            return Exchange(closed=True), "the server could not be restarted"
        session = self.connection.current()
        headers = param_headers(self.params, arguments) if self.params else None
        exchange = session.call_tool(self.tool.name, arguments, headers, self.timeout, self.longest)
        self.report.calls += 1
        detail = ""
        hung = exchange.timed_out and not exchange.progressed
        if exchange.closed or hung or not session.transport.alive():
            detail = session.transport.describe_exit()
            if self.connection.restart() is None:
                self.dead = True
        return exchange, detail

    def _judged(self, arguments: Any) -> tuple[Exchange, Failure | None]:
        """A call of valid input, judged, and counted (successes, refusals, abandoned)."""
        exchange, detail = self._call(arguments)
        if exchange.timed_out and exchange.progressed:
            self.abandoned += 1
            return exchange, None
        self.valid_tried += 1
        result = result_of(exchange)
        if result is not None and result.get("isError") is True:
            self.refusals += 1
            self.first_refusal = self.first_refusal or _text_of(result)
        elif result is not None:
            self.succeeded += 1
        return exchange, self.judge.valid_input(exchange, detail)

    def _check_valid(self, arguments: Any) -> Failure | None:
        return self._judged(arguments)[1]

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

    def _generated(self) -> None:
        if self.options.cases <= 0 or self.dead:
            return
        strategy = strategy_for(self.generated_schema, self.validator.is_valid)
        if isinstance(strategy, str):
            self.notes.append(
                f"no generated inputs: the generator cannot use this schema ({strategy})"
            )
            return
        exploration = explore(
            strategy, self._check_valid, cases=self.options.cases, seed=self.options.seed
        )
        if exploration.crash is not None:
            raise exploration.crash
        if exploration.unavailable:
            self.notes.append(f"generation stopped: {exploration.unavailable}")
        if exploration.failure is not None:
            source = f"generated input (seed {self.options.seed}), shrunk"
            found = _Found(exploration.failure, exploration.input, source)
            self.found.setdefault(exploration.failure.check, found)

    def step(self, arguments: Any, source: str) -> Outcome:
        """One step of a sequence: a call judged like every other (a broken rule is recorded
        under this tool's call checks, from `source`)."""
        exchange, failure = self._judged(arguments)
        if failure is not None:
            self.found.setdefault(failure.check, _Found(failure, arguments, source))
        result = result_of(exchange)
        refused = error_code(exchange.reply) is not None or (
            result is not None and result.get("isError") is True
        )
        structured = result.get("structuredContent") if result is not None else None
        if self.judge.wrapped and isinstance(structured, dict):
            structured = structured.get("result")
        elif structured is None and result is not None and not self.judge.structured:
            structured = _json_text(result)  # a revision without structured output
        answered = failure is None or failure.check not in ("call.answers", "call.result-shape")
        if exchange.timed_out and exchange.progressed:
            answered = False
        said = describe(exchange) if result is None else show(result, 160)
        return Outcome(structured, refused, answered and exchange.answered, said)

    def _task_required(self) -> Result:
        """A plain call of a tool that requires tasks must get -32601 (2025-11-25)."""
        name, revision = self.tool.name, self.connection.revision
        if revision != TASKS_REVISION:
            why = f"{revision} has no tasks in the core protocol"
            return skipped(TASK_CHECK, why, name, revision)
        opening = result_of(self.connection.opening) or {}
        tasks = opening.get("capabilities", {}).get("tasks", {})
        call = tasks.get("requests", {}).get("tools", {}).get("call") if tasks else None
        if not isinstance(call, dict):
            why = "the server does not declare the tasks.requests.tools.call capability"
            return skipped(TASK_CHECK, why, name, revision)
        arguments = self.base if self.base is not None else {}
        exchange, _ = self._call(arguments)
        if error_code(exchange.reply) == METHOD_NOT_FOUND:
            return passed(TASK_CHECK, f"a plain call got error {METHOD_NOT_FOUND}", name, revision)
        message = f"a plain call got {describe(exchange)}; expected error {METHOD_NOT_FOUND}"
        return failed(TASK_CHECK, message, name, revision, arguments)

    # -- results ---------------------------------------------------------------------------

    def results(self) -> list[Result]:
        revision = self.connection.revision
        name = self.tool.name
        if self.task_required and self.crash is None:
            why = (
                "the tool requires task-augmented calls (execution.taskSupport: required); "
                "verify makes plain calls only"
            )
            assert self.task_result is not None
            return [self.task_result] + [
                not_exercised(check, why, name, revision) for check in CALL_CHECKS
            ]
        out: list[Result] = []
        note = "; " + "; ".join(self.notes) if self.notes else ""
        unexercised = self._unexercised()
        for check in CALL_CHECKS:
            found = self.found.get(check)
            if found is not None:
                message = f"{found.failure.message} [{found.source}]"
                out.append(failed(check, message, name, revision, found.input))
            elif self.crash is not None:
                out.append(broken(check, self.crash, name, revision))
            elif check == "call.structured-content" and not self.judge.structured:
                out.append(skipped(check, f"{revision} has no structured output", name, revision))
            elif check == "call.structured-content" and self.judge.output is None:
                out.append(skipped(check, "the tool declares no output schema", name, revision))
            elif check.startswith("call.invalid-input") and not self.invalid_tried:
                out.append(skipped(check, "no invalid input could be built" + note, name, revision))
            elif unexercised is not None:
                out.append(not_exercised(check, unexercised + note, name, revision))
            elif check.startswith("call.invalid-input"):
                refused = f"{self.invalid_tried} invalid inputs refused"
                out.append(passed(check, refused, name, revision))
            else:
                out.append(passed(check, self._tried() + note, name, revision))
        return out

    def _tried(self) -> str:
        tried = f"{self.valid_tried} valid inputs, {self.succeeded} succeeded"
        if self.refusals:
            tried += f", {self.refusals} answered isError"
        if self.abandoned:
            tried += f"; {self.abandoned} still running at {self.longest:g} s were cancelled"
        return tried

    def _unexercised(self) -> str | None:
        """Why no call succeeded (None: some did)."""
        if self.succeeded:
            return None
        if not self.valid_tried and not self.abandoned:
            return "no valid input could be built or generated"
        if self.refusals and self.refusals == self.valid_tried:
            return (
                f"every call answered isError ({self.refusals} calls), e.g. "
                f"{show(self.first_refusal, 160)}: give real values in a fixtures file"
            )
        if self.abandoned and not self.valid_tried:
            return f"every call was still running after {self.longest:g} s"
        return f"no call succeeded ({self._tried()})"


def _json_text(result: dict[str, Any]) -> Any:
    """The JSON value a result's first text block holds (None when it holds none)."""
    try:
        return orjson.loads(_text_of(result))
    except orjson.JSONDecodeError:
        return None


def _text_of(result: dict[str, Any]) -> str:
    """The first text block of a result (what a tool says when it refuses)."""
    content = result.get("content")
    for block in content if isinstance(content, list) else []:
        if isinstance(block, dict) and isinstance(block.get("text"), str):
            return str(block["text"])
    return show(result, 160)
