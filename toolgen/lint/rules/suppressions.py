"""Suppression rules (TG0xx), reported by the engine (`toolgen.lint.suppress`), not by checks."""

from __future__ import annotations

from toolgen.lint.model import Category
from toolgen.lint.registry import rule
from toolgen.report.findings import Severity

S = Category.SUPPRESSIONS


@rule("TG001", "suppression-without-reason", S, Severity.ERROR, scope="engine")
def suppression_without_reason() -> None:
    """A suppression does not say why.

    What it does: Flags an entry of `x-toolgen-lint.ignore` (on a tool or on the
    `server` block) without a non-empty `reason`. The suppression still applies.

    Why: A finding is silenced for a reason the next reader needs: "removal can be
    undone from the trash" is a decision; a bare code is a hidden problem.

    Example:

        x-toolgen-lint:
          ignore: [TG106]                                   # TG001

    Write `ignore: [{code: TG106, reason: "notes go to the trash"}]`.
    """


@rule("TG002", "unused-suppression", S, Severity.WARNING, scope="engine")
def unused_suppression() -> None:
    """A suppression suppresses nothing.

    What it does: Flags an entry of `x-toolgen-lint.ignore` whose rule is selected
    but reported nothing it could silence.

    Why: The problem was fixed (or never there); the stale suppression would hide
    it if it came back. Entries for rules that are not selected are not flagged.

    Example:

        - name: get_note
          annotations: {readOnly: true, openWorld: false}
          x-toolgen-lint:
            ignore: [{code: TG107, reason: legacy}]         # TG002

    Remove the entry.
    """


@rule("TG003", "invalid-suppression", S, Severity.ERROR, scope="engine")
def invalid_suppression() -> None:
    """A suppression cannot be read.

    What it does: Flags an `x-toolgen-lint` value that is not of the documented
    shape (`{ignore: [{code: CODE, reason: TEXT}, ...]}`), or that names a rule
    that does not exist.

    Why: A suppression that toolgen cannot read silences nothing, and the author
    thinks it does.

    Example:

        x-toolgen-lint:
          ignore: [{code: TG999, reason: typo}]             # TG003

    Use an existing rule code or name (`toolgen rules` lists them).
    """
