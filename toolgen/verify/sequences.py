"""Stateful sequences: create -> read -> update -> read -> delete -> read fails.

**Inference.** A tool's output property and another tool's required input
property name the same thing when both are the same def (`$ref` to one
definition) or have the same name and the same scalar type (`id: string` and
`id: string`). A *create* tool is one that is not read-only and whose output
names such a value that it does not itself require; the tools that require the
value are *reads* (read-only), *deletes* (destructive) and *updates* (the
rest). Each create tool with a read gets one sequence, in the spec's order:
create, read, then each update followed by a read, then the first delete
followed by a read that must fail. Every step's input is the tool's usual base
input (fixtures, examples, a sample) with the created value put in, read from
the create step's `structuredContent` (before 2025-06-18: from the JSON its
text block holds).

**Judging.** Every step is a call like any other: a broken call rule is
reported under that tool's `call.*` checks. Then `sequence.read-back` (a read
after a create or update succeeds), `sequence.values` (it shows the values
written, for fields the schemas name the same; lists compared as sets) and
`sequence.deleted` (a read after the delete fails). These are inferred, so
their level is `should`; pin a sequence in the fixtures file to hold it as a
`must` (`sequence.expected`).

**Shrinking.** A failing inferred sequence is cut to the failing step, then
steps are left out one at a time (never the create, never the failing step)
as long as the same check still fails: the report shows the shortest sequence
found. Pinned sequences are reported as written.

Steps that call a destructive tool (by the spec's or the listing's hints) run
only with `--allow-destructive`; without it, an inferred sequence loses those
steps, a pinned one is skipped. `--sequences pinned` runs only the fixtures
file's, `--sequences off` none.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from toolgen.spec.ir import Tool
from toolgen.verify.fixtures import NO_OUTPUT, Pinned, resolve
from toolgen.verify.inputs import flat
from toolgen.verify.results import Result, failed, not_exercised, passed, skipped
from toolgen.verify.toolcalls import ToolCalls
from toolgen.verify.transport import dumps

CREATE: Final = "create"
READ: Final = "read"
UPDATE: Final = "update"
DELETE: Final = "delete"
INFERRED_CHECKS: Final = ("sequence.read-back", "sequence.values", "sequence.deleted")
PINNED_CHECK: Final = "sequence.expected"
SHRINK_RUNS: Final = 12
"""The most re-runs spent shrinking one failing sequence."""


@dataclass(frozen=True, slots=True)
class Planned:
    """One step of an inferred sequence: the tool, its role, and the input property that
    takes the created value (None for the create step)."""

    tool: str
    role: str
    link: str | None = None


@dataclass(frozen=True, slots=True)
class Inferred:
    key: str
    """The create tool's output property that names the item."""
    steps: tuple[Planned, ...]

    @property
    def name(self) -> str:
        return " -> ".join(step.tool for step in self.steps)


def _signature(schema: Any, root: Mapping[str, Any]) -> tuple[str, str] | None:
    """What a scalar property is: the def it refers to, else its type (None: not a scalar)."""
    if not isinstance(schema, Mapping):
        return None
    ref = schema.get("$ref")
    target = flat(schema, root)
    kind = target.get("type")
    if kind not in ("string", "integer", "number"):
        return None
    return ("ref", ref) if isinstance(ref, str) else ("type", str(kind))


def _properties(schema: Any) -> dict[str, tuple[str, str]]:
    """The scalar top-level properties of an object schema, with their signatures."""
    if not isinstance(schema, Mapping):
        return {}
    root = flat(schema, schema)
    props = root.get("properties")
    out = {}
    for name, sub in props.items() if isinstance(props, Mapping) else []:
        signature = _signature(sub, schema)
        if signature is not None:
            out[name] = signature
    return out


def _required(tool: Tool) -> dict[str, tuple[str, str]]:
    schema = tool.input_schema
    required = flat(schema, schema).get("required", [])
    return {k: v for k, v in _properties(schema).items() if k in required}


def _same(out_name: str, out_sig: tuple[str, str], in_name: str, in_sig: tuple[str, str]) -> bool:
    return out_sig == in_sig and (out_sig[0] == "ref" or out_name == in_name)


def _role(tool: Tool) -> str:
    hints = tool.annotations.effective()
    if hints["readOnlyHint"] is True:
        return READ
    return DELETE if hints["destructiveHint"] is True else UPDATE


def infer(tools: Sequence[Tool]) -> list[Inferred]:
    """The sequences the schemas of `tools` imply (see the module docs)."""
    required = {tool.name: _required(tool) for tool in tools}
    found = []
    for creator in tools:
        if _role(creator) == READ or creator.output_schema is None:
            continue
        own = required[creator.name]
        for key, signature in _properties(creator.output_schema).items():
            if any(_same(key, signature, name, sig) for name, sig in own.items()):
                continue  # it consumes the value: an update or a read, not a create
            links: dict[str, list[Planned]] = {READ: [], UPDATE: [], DELETE: []}
            for tool in tools:
                if tool is creator:
                    continue
                for name, sig in required[tool.name].items():
                    if _same(key, signature, name, sig):
                        links[_role(tool)].append(Planned(tool.name, _role(tool), name))
                        break
            if not links[READ]:
                continue
            read = links[READ][0]
            steps = [Planned(creator.name, CREATE), read]
            for update in links[UPDATE]:
                steps += [update, read]
            if links[DELETE]:
                steps += [links[DELETE][0], read]
            found.append(Inferred(key, tuple(steps)))
            break
    return found


@dataclass(slots=True)
class _Run:
    """What one run of an inferred sequence found: per check, the first failure (step index,
    message) or whether it was judged at all; else why it stopped."""

    failures: dict[str, tuple[int, str]]
    judged: set[str]
    stopped: str | None
    inputs: list[dict[str, Any]]


class Sequences:
    """The sequences of one revision, over the tools' `ToolCalls` (a tool without one, not
    listed or destructive without --allow-destructive, cannot be a step)."""

    def __init__(self, calls: Mapping[str, ToolCalls], revision: str) -> None:
        self.calls = calls
        self.revision = revision

    # -- inferred --------------------------------------------------------------------------

    def inferred(self, sequence: Inferred) -> list[Result]:
        creator = sequence.steps[0].tool
        steps = list(sequence.steps)
        missing = sorted({s.tool for s in steps if s.tool not in self.calls})
        for index in range(len(steps) - 1, 0, -1):  # a left-out update/delete takes its read
            if steps[index].role in (UPDATE, DELETE) and steps[index].tool in missing:
                del steps[index : index + 2]
        name = " -> ".join(s.tool for s in steps)
        if any(s.tool not in self.calls for s in steps):
            why = f"{', '.join(missing)} not called (not listed, or destructive)"
            return [skipped(c, f"{name}: {why}", creator, self.revision) for c in INFERRED_CHECKS]
        first = self._run(sequence.key, steps)
        out = []
        for check in INFERRED_CHECKS:
            if check in first.failures:
                shortest, at, message, inputs = self._shrink(sequence.key, steps, check, first)
                label = " -> ".join(s.tool for s in shortest)
                text = f"{label}: step {at + 1} {message}"
                out.append(failed(check, text, creator, self.revision, inputs))
            elif check in first.judged:
                out.append(passed(check, f"{name}: as expected", creator, self.revision))
            elif first.stopped is not None:
                message = f"{name}: {first.stopped}"
                out.append(not_exercised(check, message, creator, self.revision))
            else:
                out.append(
                    skipped(check, f"{name}: {_unjudged(check, missing)}", creator, self.revision)
                )
        return out

    def _run(self, key: str, steps: Sequence[Planned]) -> _Run:
        run = _Run({}, set(), None, [])
        value: Any = None
        written: dict[str, Any] = {}
        deleted_at: int | None = None
        for index, step in enumerate(steps):
            calls = self.calls[step.tool]
            arguments = calls.base if calls.base is not None else {}
            if step.link is not None and isinstance(arguments, dict):
                arguments = {**arguments, step.link: value}
            run.inputs.append({"call": step.tool, "arguments": arguments})
            where = f"step {index + 1} {step.tool}"
            if not calls.validator.is_valid(arguments):
                run.stopped = f"{where}: no valid input with the created value"
                return run
            source = f"sequence step {index + 1} of {' -> '.join(s.tool for s in steps)}"
            outcome = calls.step(arguments, source)
            if not outcome.answered:
                broke = "broke a call rule (see its call.* checks)"
                run.stopped = f"{where} {broke if outcome.called else outcome.said}"
                return run
            if step.role != READ:
                if outcome.refused:
                    run.stopped = f"{where} refused: {outcome.said}"
                    return run
                if step.role == CREATE:
                    value = (
                        outcome.structured.get(key)
                        if isinstance(outcome.structured, dict)
                        else None
                    )
                    if value is None:
                        run.stopped = f"{where} returned no `{key}` in structuredContent"
                        return run
                if step.role == DELETE:
                    deleted_at = index
                    continue
                written = {**written, **_fields(outcome.structured), **_fields(arguments)}
                continue
            if deleted_at is not None:
                run.judged.add("sequence.deleted")
                if not outcome.refused:
                    message = f"reads the item deleted at step {deleted_at + 1}: {outcome.said}"
                    run.failures.setdefault("sequence.deleted", (index, message))
                continue
            run.judged.add("sequence.read-back")
            if outcome.refused:
                run.failures.setdefault(
                    "sequence.read-back", (index, f"cannot read the item: {outcome.said}")
                )
                continue
            run.judged.add("sequence.values")
            difference = _difference(written, outcome.structured)
            if difference is not None:
                run.failures.setdefault("sequence.values", (index, difference))
        return run

    def _shrink(
        self, key: str, steps: list[Planned], check: str, first: _Run
    ) -> tuple[list[Planned], int, str, list[dict[str, Any]]]:
        """The shortest run found that still fails `check`: (steps, failing index, message,
        the steps' inputs)."""
        at, message = first.failures[check]
        best = steps[: at + 1]
        inputs = first.inputs[: at + 1]
        runs = 0
        shrunk = True
        while shrunk and runs < SHRINK_RUNS:
            shrunk = False
            for index in range(1, len(best) - 1):
                candidate = best[:index] + best[index + 1 :]
                runs += 1
                again = self._run(key, candidate)
                found = again.failures.get(check)
                if found is not None and found[0] == len(candidate) - 1:
                    best, (at, message), inputs = candidate, found, again.inputs
                    shrunk = True
                    break
                if runs >= SHRINK_RUNS:
                    break
        return best, at, message, inputs

    # -- pinned ----------------------------------------------------------------------------

    def pinned(self, sequence: Pinned) -> Result:
        tool = sequence.steps[0].tool
        label = f"{sequence.name} ({sequence.where})"
        absent = sorted({s.tool for s in sequence.steps if s.tool not in self.calls})
        if absent:
            why = f"{label}: {', '.join(absent)} not called (not listed, or destructive)"
            return skipped(PINNED_CHECK, why, tool, self.revision)
        outputs: dict[int, Any] = {}
        inputs: list[dict[str, Any]] = []
        for number, step in enumerate(sequence.steps, 1):
            calls = self.calls[step.tool]
            where = f"{label}: step {number} {step.tool}"
            try:
                arguments = resolve(step.arguments, outputs)
            except KeyError as exc:
                message = f"{where}: {exc.args[0]} names nothing that step returned"
                return failed(PINNED_CHECK, message, tool, self.revision, inputs)
            inputs.append({"call": step.tool, "arguments": arguments})
            if not calls.validator.is_valid(arguments):
                message = f"{where}: the arguments are not a valid input: {_short(arguments)}"
                return failed(PINNED_CHECK, message, tool, self.revision, inputs)
            outcome = calls.step(arguments, f"sequence {sequence.name!r} step {number}")
            if not outcome.answered:
                broke = "broke a call rule (see its call.* checks)"
                why = f"{where} {broke if outcome.called else outcome.said}"
                return not_exercised(PINNED_CHECK, why, tool, self.revision)
            outputs[number] = outcome.structured
            problem = None
            if outcome.refused != step.error:
                want = "to fail" if step.error else "to succeed"
                problem = f"expected {want}, got {outcome.said}"
            elif step.output is not NO_OUTPUT and not _matches(outcome.structured, step.output):
                problem = (
                    f"structuredContent {_short(outcome.structured)} does not match the "
                    f"expected {_short(step.output)}"
                )
            if problem is not None:
                return failed(PINNED_CHECK, f"{where}: {problem}", tool, self.revision, inputs)
        count = len(sequence.steps)
        return passed(PINNED_CHECK, f"{label}: {count} steps as expected", tool, self.revision)


def _unjudged(check: str, missing: list[str]) -> str:
    """Why a check of a sequence that ran was never judged."""
    if check == "sequence.values":
        return "every read failed (see sequence.read-back)"
    if missing:
        return f"no delete step: {', '.join(missing)} not called (not listed, or destructive)"
    return "no tool deletes the item"


def _fields(value: Any) -> dict[str, Any]:
    return dict(value) if isinstance(value, dict) else {}


def _difference(written: Mapping[str, Any], read: Any) -> str | None:
    """The first field the read shows differently from what was written (None: none)."""
    if not isinstance(read, dict):
        return None
    for name, value in read.items():
        if name in written and not _same_value(written[name], value):
            return f"shows {name} = {_short(value)}, but {_short(written[name])} was written"
    return None


def _same_value(written: Any, read: Any) -> bool:
    """Equal as JSON, lists as sets (servers sort and deduplicate), objects by the fields
    both have."""
    if isinstance(written, dict) and isinstance(read, dict):
        return all(_same_value(written[k], read[k]) for k in written.keys() & read.keys())
    if isinstance(written, list) and isinstance(read, list):
        return {dumps(v, sort_keys=True) for v in written} == {
            dumps(v, sort_keys=True) for v in read
        }
    if isinstance(written, bool) or isinstance(read, bool):
        return written is read
    return bool(written == read)


def _matches(actual: Any, expected: Any) -> bool:
    """Whether `actual` has what `expected` lists: objects by the expected keys, lists item by
    item (same length), anything else equal."""
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(
            k in actual and _matches(actual[k], v) for k, v in expected.items()
        )
    if isinstance(expected, list):
        return (
            isinstance(actual, list)
            and len(actual) == len(expected)
            and all(_matches(a, e) for a, e in zip(actual, expected, strict=True))
        )
    return bool(actual == expected) and isinstance(actual, bool) == isinstance(expected, bool)


def _short(value: Any) -> str:
    text = dumps(value).decode()
    return text if len(text) <= 120 else text[:119] + "…"
