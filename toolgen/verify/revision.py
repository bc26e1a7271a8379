"""Everything verify checks at one protocol revision (opening, probes, listing, calls,
sequences), and `verify`, which runs that for each revision the server is checked at
within the run's budget (each tool, and each revision's sequences, gets its share)."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from toolgen.spec.ir import Tool, ToolSet
from toolgen.spec.protocol import may_destroy
from toolgen.verify.listing import LISTING_CHECKS, listing_results
from toolgen.verify.probes import describe
from toolgen.verify.results import Report, Result, broken, failed, skipped
from toolgen.verify.runner import (
    ALL,
    Budget,
    Connection,
    Options,
    connections,
    limits_result,
    opening_results,
    probe_results,
    stdout_result,
    survives,
)
from toolgen.verify.sequences import INFERRED_CHECKS, Sequences, infer
from toolgen.verify.session import result_of
from toolgen.verify.toolcalls import CALL_CHECKS, StateWatch, ToolCalls
from toolgen.verify.transport import Target


class RevisionRun:
    """The checks of one revision over one (restartable) connection."""

    def __init__(
        self,
        toolset: ToolSet,
        connection: Connection,
        options: Options,
        report: Report,
        budget: Budget,
    ) -> None:
        self.toolset = toolset
        self.connection = connection
        self.options = options
        self.report = report
        self.budget = budget
        self.revision = connection.revision

    def run(self, selected: Sequence[str]) -> list[Result]:
        try:
            out = self._run(selected)
        finally:
            self.connection.close()
        return [*out, limits_result(self.connection)]

    def _run(self, selected: Sequence[str]) -> list[Result]:
        self.connection.current()  # opened already when it was the era's probe
        out, go_on = opening_results(self.connection, self.options.protocol not in (None, ALL))
        if not go_on:
            return out + self._skip_rest(selected, out[0].message)
        probes, killers = probe_results(self.connection)
        out += probes
        out.append(survives(self.connection, "after the protocol probes", killers))
        restarted = bool(killers) and self.connection.session is not None  # by probe_results
        if out[-1].status == "failed" and not restarted and self.connection.restart() is None:
            return out + self._skip_rest(selected, "the server could not be restarted")
        listed, exchange = self.connection.current().list_tools()
        if result_of(exchange) is None:
            problem = f"tools/list got {describe(exchange)}"
            out.append(failed("listing.result-shape", problem, revision=self.revision))
        try:
            out += listing_results(self.toolset, listed, self.revision, selected)
        except Exception as exc:  # a bug of verify: an error, never a pass
            out += [broken(check, exc, revision=self.revision) for check in LISTING_CHECKS]
        entries: dict[str, list[Mapping[str, Any]]] = {}
        for d in listed:
            if isinstance(d, Mapping) and "name" in d:
                entries.setdefault(d["name"], []).append(d)
        by_name = {name: found[-1] for name, found in entries.items()}
        calls: dict[str, ToolCalls] = {}
        watch = StateWatch()
        for name in selected:
            until = self.budget.share()
            tool = self.toolset.tool(name)
            why = self._why_not_called(tool, entries.get(name, []))
            if why is not None:
                out += self._skip(name, why)
                continue
            seeds = self.options.fixtures.of(name)
            closed = self.options.allow_open_world or not reaches_out(tool, entries[name])
            try:
                calls[name] = ToolCalls(
                    tool, by_name[name], self.connection, self.options, self.report, seeds,
                    open_world=not closed, watch=watch,
                )  # fmt: skip
            except Exception as exc:  # a bug of verify: an error, never a pass
                out += [broken(check, exc, name, self.revision) for check in CALL_CHECKS]
                continue
            calls[name].until = until
            calls[name].run()
        until = self.budget.share()
        for tool_calls in calls.values():
            tool_calls.until = until
        sequences = self._sequences(calls)
        for name in calls:
            out += calls[name].results()
        out += sequences
        if self.connection.session is not None:
            out.append(survives(self.connection, "after the calls"))
        self.connection.close()
        stdout = stdout_result(self.connection)
        if stdout is not None:
            out.append(stdout)
        return out

    def _sequences(self, calls: Mapping[str, ToolCalls]) -> list[Result]:
        """The fixtures file's sequences, then the inferred ones (per `--sequences`)."""
        mode = self.options.sequences
        if mode == "off":
            return []
        runner = Sequences(calls, self.revision)
        out = [runner.pinned(sequence) for sequence in self.options.fixtures.sequences]
        if mode != "auto":
            return out
        chosen = [self.toolset.tool(name) for name in self.report.tools]
        for sequence in infer(chosen):
            creator = sequence.steps[0].tool
            try:
                out += runner.inferred(sequence)
            except Exception as exc:  # a bug of verify: an error, never a pass
                out += [broken(c, exc, creator, self.revision) for c in INFERRED_CHECKS]
        return out

    def _why_not_called(self, tool: Tool, entries: Sequence[Mapping[str, Any]]) -> str | None:
        if not entries:
            return "the server does not list this tool"
        if not self.options.allow_destructive and is_destructive(tool, entries):
            return (
                "destructive (by its hints, or by the MCP default where undeclared or not "
                "a boolean): pass --allow-destructive to call it"
            )
        return None

    def _skip(self, tool: str, why: str) -> list[Result]:
        return [skipped(check, why, tool, self.revision) for check in CALL_CHECKS]

    def _skip_rest(self, selected: Sequence[str], why: str) -> list[Result]:
        return [
            skipped(check, why, name, self.revision) for name in selected for check in CALL_CHECKS
        ]


def is_destructive(tool: Tool, entries: Sequence[Mapping[str, Any]]) -> bool:
    """Whether the spec or any listing entry of the tool's name says (or leaves to the MCP
    default) that the tool may destroy (`toolgen.spec.protocol.may_destroy`)."""
    return may_destroy(tool.annotations.to_mcp(), *(e.get("annotations", {}) for e in entries))


def reaches_out(tool: Tool, entries: Sequence[Mapping[str, Any]]) -> bool:
    """Whether the spec or any listing entry of the tool's name says, or leaves to the MCP
    default, that the tool reaches an open world of outside systems: only
    `openWorldHint: false`, a JSON boolean, in every one says it does not."""
    hints = [tool.annotations.to_mcp(), *(e.get("annotations") for e in entries)]
    return any(not isinstance(h, Mapping) or h.get("openWorldHint") is not False for h in hints)


def verify(toolset: ToolSet, target: Target, options: Options) -> Report:
    """Run every check against the server `target` reaches; `Unreachable` when it cannot
    be started or answers neither era's opening."""
    started = time.monotonic()
    selected = [t.name for t in toolset.tools if options.selects(t.name)]
    report = Report(seed=options.seed, tools=tuple(selected), fail_on=options.fail_on)
    report.locations = {t.name: t.origin.locate() for t in toolset.tools}
    whole = toolset.server.origin or (toolset.tools[0].origin if toolset.tools else None)
    if whole is not None:
        report.locations[None] = whole.locate()
    opened = connections(target, options, report)
    report.revisions = tuple(c.revision for c in opened)
    budget = Budget(started + options.budget, len(opened) * (len(selected) + 1))
    for connection in opened:
        report.extend(RevisionRun(toolset, connection, options, report, budget).run(selected))
    report.seconds = time.monotonic() - started
    return report
