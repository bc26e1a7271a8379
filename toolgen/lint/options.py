"""Settings that rules read: verb lists and thresholds, with their defaults.

Each is configurable in `[tool.toolgen.lint]` (see `toolgen.lint.config`);
the kebab-case key is the field name with `_` → `-`.
"""

from __future__ import annotations

from dataclasses import dataclass

DESTRUCTIVE_VERBS = frozenset(
    [
        "delete",
        "remove",
        "drop",
        "purge",
        "destroy",
        "erase",
        "wipe",
        "truncate",
        "revoke",
        "terminate",
        "kill",
        "reset",
        "clear",
        "overwrite",
        "uninstall",
        "unlink",
        "evict",
        "expunge",
    ]
)
"""A tool whose name starts with one of these removes or overwrites data."""

READ_VERBS = frozenset(
    [
        "get",
        "list",
        "search",
        "read",
        "find",
        "fetch",
        "query",
        "describe",
        "show",
        "view",
        "lookup",
        "count",
        "inspect",
        "retrieve",
        "browse",
        "export",
        "peek",
        "stat",
    ]
)
"""A tool whose name starts with one of these only reads. Not `download`: a server on the
user's machine that downloads saves what it fetched (`download_paper`, `download_figma_images`)."""

CREATE_VERBS = frozenset(
    [
        "create",
        "add",
        "append",
        "insert",
        "post",
        "send",
        "submit",
        "push",
        "enqueue",
        "new",
        "register",
        "publish",
        "fork",
        "comment",
        "reply",
        "invite",
    ]
)
"""A tool whose name starts with one of these makes something new on every call."""

WRITE_VERBS = frozenset(
    [
        "update",
        "set",
        "edit",
        "modify",
        "patch",
        "put",
        "write",
        "rename",
        "move",
        "merge",
        "assign",
        "unassign",
        "upload",
        "replace",
        "save",
        "enable",
        "disable",
        "close",
        "reopen",
        "lock",
        "unlock",
        "approve",
        "reject",
        "resolve",
        "unresolve",
        "trigger",
        "run",
        "execute",
        "cancel",
        "manage",
        "install",
        "import",
        "mark",
        "star",
        "unstar",
        "sync",
        "apply",
        "commit",
        "restore",
        "rerun",
        "dismiss",
        "transfer",
    ]
)
"""A tool whose name starts with one of these changes state (besides the two lists above)."""

REPEATABLE_VERBS = frozenset(
    [
        "add",
        "attach",
        "link",
        "tag",
        "label",
        "assign",
        "star",
        "pin",
        "follow",
        "subscribe",
        "grant",
        "include",
    ]
)
"""Verbs that may put something into a set, where doing it twice changes nothing
(`git_add` stages a path, `add_label` labels a pull request): TG108 does not call such a tool
wrong for being idempotent unless its description says each call makes something new."""

READ_NOUNS = frozenset(["status", "log", "logs", "diff", "history", "blame"])
"""Words that name a read when they follow a namespace or noun (`git_status`, `git_log`,
`git_diff_unstaged`); as a first word (`log_event`) they are not taken for a verb."""

LOOKUP_WRITE_VERBS = frozenset(
    ["resolve", "trigger", "run", "rerun", "execute", "sync", "apply", "manage"]
)
"""Write verbs that also name lookups and computations (`resolve-library-id`,
`run_query`, `execute_sql` on a read replica): TG105, an error, does not trust them."""

HTTP_METHODS = frozenset(["post", "put", "patch"])
"""Verbs that OpenAPI-generated names start with; a known verb after one says what the
tool does (`API-post-search` searches)."""

TARGETS: dict[str, tuple[str, ...]] = {
    "openai-strict": ("TG501", "TG503", "TG504"),
    "anthropic": ("TG501", "TG502"),
    "gemini": ("TG501", "TG505"),
}
"""Model APIs `--target` (or `target = [...]`) checks portability to, and their rules."""

NAME_STYLES = ("auto", "snake_case", "kebab-case", "camelCase", "PascalCase")


@dataclass(frozen=True, slots=True)
class RuleOptions:
    """What rules can be told; every field has a key in `[tool.toolgen.lint]`."""

    destructive_verbs: frozenset[str] = DESTRUCTIVE_VERBS
    read_verbs: frozenset[str] = READ_VERBS
    create_verbs: frozenset[str] = CREATE_VERBS
    write_verbs: frozenset[str] = WRITE_VERBS
    repeatable_verbs: frozenset[str] = REPEATABLE_VERBS
    name_style: str = "auto"
    max_name_length: int = 64
    max_tools: int = 128
    max_schema_depth: int = 10
    max_schema_nodes: int = 200
    max_description_length: int = 1024
    targets: frozenset[str] = frozenset()
    """The `target`s selected; portability rules selected without one check all targets."""

    @property
    def mutating_verbs(self) -> frozenset[str]:
        return self.destructive_verbs | self.create_verbs | self.write_verbs

    @property
    def known_verbs(self) -> frozenset[str]:
        return self.mutating_verbs | self.read_verbs


VERB_LISTS = ("destructive", "read", "create", "write", "repeatable")
INT_OPTIONS = (
    "max_name_length",
    "max_tools",
    "max_schema_depth",
    "max_schema_nodes",
    "max_description_length",
)
