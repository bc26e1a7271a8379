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
own timeout. After a call that got no answer in time (hung, or still progressing)
the tool is not called again, and no call starts once the tool's share of the
run's budget is spent (`runner.Budget`); its results say so.

Calls can damage what a server keeps for all tools (a file, a database). After
each successful call of a tool that may write, tools that passed before are called
again (`StateWatch`): when all of them fail now, that call is reported as suspected
(`call.state-intact`, with its input), and a tool whose calls all fail afterwards
is not told to get real values from a fixtures file.
"""

from __future__ import annotations

import math
import time
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

STATE_CHECK: Final = "call.state-intact"
CANARIES: Final = 3
"""Tools that passed, called again after each successful call of a writing tool."""
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
OPEN_WORLD: Final = (
    "open world (by its hints, or by the MCP default where undeclared): called only with the "
    "spec's examples and the fixtures file's values; --allow-open-world sends generated inputs"
)
TASKS_REVISION: Final = "2025-11-25"
"""The revision whose core protocol has tasks (later: an extension)."""


def task_support(tool: Tool, listed: Mapping[str, Any]) -> str | None:
    """`execution.taskSupport` as the listing or else the spec says."""
    for execution in (listed.get("execution"), tool.execution):
        if isinstance(execution, Mapping) and isinstance(execution.get("taskSupport"), str):
            return str(execution["taskSupport"])
    return None


@dataclass(frozen=True, slots=True)
class Damage:
    """A call after which every tool that passed before failed."""

    tool: str
    arguments: Any
    said: str
    """What the tools called again answered."""


class StateWatch:
    """The tools that passed at one revision, each with the input that first succeeded (up
    to `CANARIES` of them, read-only and closed-world: such a call, made again, succeeds
    again unless what the server keeps has changed), and the damage found, if any."""

    def __init__(self) -> None:
        self.canaries: list[tuple[ToolCalls, Any]] = []
        self.damage: Damage | None = None

    def add(self, calls: ToolCalls, arguments: Any) -> None:
        if len(self.canaries) < CANARIES and all(c is not calls for c, _ in self.canaries):
            self.canaries.append((calls, arguments))

    def failing(self) -> str | None:
        """What the tools that passed answer now, when every one of them fails (None: some
        still passes, or none can be called)."""
        said = []
        for calls, arguments in self.canaries:
            if calls.stopped is not None or calls.dead:
                continue
            exchange, _ = calls.call(arguments)
            result = result_of(exchange)
            if result is not None and result.get("isError") is not True:
                return None
            got = describe(exchange) if result is None else show(result, 160)
            said.append(f"{calls.tool.name} {show(arguments, 80)} got {got}")
        return "; ".join(said) or None


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
    """What came back, for messages (or why no call was made)."""
    called: bool = True


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
        open_world: bool = False,
        watch: StateWatch | None = None,
    ) -> None:
        self.tool = tool
        self.watch = watch if watch is not None else StateWatch()
        declared = [tool.annotations.to_mcp(), listed.get("annotations")]
        self.writes = not all(
            isinstance(h, Mapping) and h.get("readOnlyHint") is True for h in declared
        )
        self.steady = not self.writes and all(
            isinstance(h, Mapping) and h.get("openWorldHint") is False for h in declared
        )
        """Read-only and closed-world: a call that succeeded succeeds again while the
        server's state stays as it was."""
        self.state_checks = 0
        self.damaged: Damage | None = None
        """The damage found after one of this tool's calls."""
        self.after_damage: Damage | None = None
        """The damage found before this tool's calls began."""
        self.open_world = open_world
        """Called only with the spec's examples and the fixtures file's values: no input
        verify makes up (a URL, a host) reaches a tool that reaches outside systems."""
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
        given = {path: values[0] for path, values in self.pins.items() if "." not in path}
        if open_world and given and given not in candidates and self.validator.is_valid(given):
            self.explicit.append(Case(given, "fixture values"))
            candidates.append(given)
        if open_world:
            self.base = next((c for c in candidates if self.validator.is_valid(c)), None)
        else:
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
        self.until = math.inf
        """When the tool's share of the run's budget ends (`time.monotonic()`)."""
        self.stopped: str | None = None
        """Why the tool is not called again (a call got no answer in time)."""
        self.cut: str | None = None
        """Why calls were left out for the budget."""

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
        self.after_damage = self.watch.damage
        try:
            self._run()
        except Exception as exc:  # a bug of verify: reported as an error, never a pass
            self.crash = exc

    def _run(self) -> None:
        if self.task_required:
            self.task_result = self._task_required()
            return
        if self.open_world:
            self.notes.append(OPEN_WORLD)
            for case in self.explicit:
                self._valid(case)
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

    def may_call(self) -> bool:
        """Whether another call may start: none after one got no answer in time, nor once
        the tool's share of the budget is spent."""
        if self.stopped is not None:
            return False
        if time.monotonic() < self.until:
            return True
        if self.cut is None:
            self.cut = f"its share of the run's budget (--budget {self.options.budget:g} s) ran out"
            self.report.cut.append(self.tool.name)
        return False

    def call(self, arguments: Any) -> tuple[Exchange, str]:
        """Call the tool; restart the server when the call killed or hung it."""
        if self.dead:
            return Exchange(closed=True), "the server could not be restarted"
        session = self.connection.current()
        headers = param_headers(self.params, arguments) if self.params else None
        exchange = session.call_tool(self.tool.name, arguments, headers, self.timeout, self.longest)
        self.report.calls += 1
        detail = ""
        if exchange.timed_out:
            waited = self.longest if exchange.progressed else self.timeout
            self.stopped = f"not called again after a call got no answer in {waited:g} s"
        hung = exchange.timed_out and not exchange.progressed
        if exchange.closed or hung or not session.transport.alive():
            detail = session.transport.describe_exit()
            if self.connection.restart() is None:
                self.dead = True
        return exchange, detail

    def _judged(self, arguments: Any) -> tuple[Exchange, Failure | None]:
        """A call of valid input, judged, and counted (successes, refusals, abandoned)."""
        exchange, detail = self.call(arguments)
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
            if self.steady:
                self.watch.add(self, arguments)
            elif self.writes:
                self._check_state(arguments)
        return exchange, self.judge.valid_input(exchange, detail)

    def _check_state(self, arguments: Any) -> None:
        """Call the tools that passed again after a successful call of this writing tool."""
        if self.watch.damage is not None or not self.watch.canaries:
            return
        said = self.watch.failing()
        self.state_checks += 1
        if said is not None:
            self.damaged = self.watch.damage = Damage(self.tool.name, arguments, said)

    def _check_valid(self, arguments: Any) -> Failure | None:
        return self._judged(arguments)[1] if self.may_call() else None

    def _valid(self, case: Case) -> None:
        failure = self._check_valid(case.arguments)
        if failure is not None:
            self.found.setdefault(failure.check, _Found(failure, case.arguments, case.source))

    def _invalid(self, case: Case) -> None:
        if not self.may_call():
            return
        exchange, detail = self.call(case.arguments)
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
        if not self.may_call():
            return Outcome(None, False, False, f"not called: {self.stopped or self.cut}", False)
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
        if not self.may_call():
            return skipped(TASK_CHECK, f"not called: {self.cut}", name, revision)
        exchange, _ = self.call(arguments)
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
        notes = [*self.notes, *(why for why in (self.stopped, self.cut) if why)]
        note = "; " + "; ".join(notes) if notes else ""
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
                built = "sent" if self.stopped or self.cut or self.open_world else "could be built"
                out.append(skipped(check, f"no invalid input {built}{note}", name, revision))
            elif unexercised is not None:
                out.append(not_exercised(check, unexercised + note, name, revision))
            elif check.startswith("call.invalid-input"):
                refused = f"{self.invalid_tried} invalid inputs refused"
                out.append(passed(check, refused, name, revision))
            else:
                out.append(passed(check, self._tried() + note, name, revision))
        if self.damaged is not None:
            message = (
                f"after this call, every tool that passed before fails ({self.damaged.said}): "
                "the call may have damaged what the server keeps"
            )
            out.append(failed(STATE_CHECK, message, name, revision, self.damaged.arguments))
        elif self.state_checks:
            others = ", ".join(c.tool.name for c, _ in self.watch.canaries)
            message = f"{others}, which passed before, still pass after its calls ({self.state_checks} checked)"
            out.append(passed(STATE_CHECK, message, name, revision))
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
            if self.cut or self.open_world:
                return "no call made"
            return "no valid input could be built or generated"
        if self.refusals and self.refusals == self.valid_tried:
            refused = f"every call answered isError ({self.refusals} calls), e.g. "
            refused += show(self.first_refusal, 160)
            if self.after_damage is not None:
                return (
                    f"{refused}, after a call of {self.after_damage.tool} that the tools that "
                    f"passed before fail after too (see {STATE_CHECK}): what the server keeps "
                    "may be damaged"
                )
            return f"{refused}: give real values in a fixtures file"
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
