"""Annotation rules (TG1xx): contradictions, implications, risky defaults, names vs hints.

MCP semantics (defaults when absent): readOnlyHint false, destructiveHint
true, idempotentHint false, openWorldHint true; destructive and idempotent
only mean something when readOnly is false. Hints are not security, but
clients decide on them whether to ask a person before a call.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from toolgen.lint.context import Context, lead_verb, tool_verb, verb_class, words
from toolgen.lint.model import Category, Hit
from toolgen.lint.options import LOOKUP_WRITE_VERBS
from toolgen.lint.registry import rule
from toolgen.report.findings import Severity
from toolgen.spec.ir import Tool

A = Category.ANNOTATIONS
_KEYED = re.compile(
    r"\bensures?\b|\balready exists?\b|\bif (?:it )?(?:does not|doesn't) exist", re.I
)
"""A description saying the create is keyed: calling it again changes nothing."""
_SIDE_EFFECT = re.compile(
    r"\boverwrit(?:e|es|ing|ten)\b"
    r"|(?:^|[.!?]\s+|\n\s*)(?:downloads?|stores?|saves?|writes?|caches?)\b"
    r"|\b(?:downloads?|stores?|saves?|writes?|caches?|overwrites?)\s+(?:it|them|the|a|an|its|"
    r"their|this|these|each|every|all|objects|files?|results?|output)\b"
    r"|\b(?:is|are|be|been|gets?)\s+(?:written|saved|stored|cached|downloaded|overwritten)\b",
    re.I,
)
"""A description saying the tool leaves something behind (a file, a cache, fetched refs):
a sentence that starts with such a verb, the verb with its object, the passive ("will be
written to a file"), or any word of overwriting; then a read verb in its name does not make
it read-only."""
_DESTINATION = frozenset(["output", "out", "dest", "destination", "save", "target", "export"])
_PLACE = frozenset(["path", "file", "filename", "filepath", "dir", "directory", "folder"])
"""An input property named a destination and a place (`output_path`, `savePath`, `dest_dir`)
says where the tool writes."""
_SET_NOUNS = frozenset(
    ["association", "associations", "link", "links", "member", "members", "membership", "memberships", "relation", "relations",
     "relationship", "relationships", "permission", "permissions", "role", "roles",
     "reaction", "reactions", "assignee", "assignees", "reviewer", "reviewers",
     "collaborator", "collaborators", "subscription", "subscriptions"]
)  # fmt: skip
"""Links between things that exist, which a create puts into a set where a second one
changes nothing (an association of two records exists or does not)."""
_EACH_CALL = re.compile(r"\b(?:each time|every call|each call)\b", re.I)
_NEW = re.compile(r"\b(?:new|another)\s+([A-Za-z]+)(?:\s+([A-Za-z]+))?", re.I)
_PREPOSITIONS = frozenset(["to", "into", "on", "in", "for", "from", "with", "of", "at", "by"])


@rule("TG101", "read-only-destructive", A, Severity.ERROR)
def read_only_destructive(tool: Tool, ctx: Context) -> Iterator[Hit]:
    """A tool is marked both read-only and destructive.

    What it does: Flags a tool with `readOnly: true` and `destructive: true`.

    Why: The hints contradict each other. A read-only tool changes nothing, so it
    cannot destroy anything; clients that trust `readOnly` skip the confirmation
    they would ask for a destructive call. One of the two is wrong, and if it is
    `readOnly`, a tool that deletes data runs without anyone being asked.

    Example:

        annotations: {readOnly: true, destructive: true}    # TG101

    Drop `destructive` from a tool that only reads, or set `readOnly: false`.
    """
    a = tool.annotations
    if a.read_only is True and a.destructive is True:
        yield Hit(
            "tool is marked read-only and destructive; a read-only tool changes nothing",
            ctx.hint_location(tool, "destructive"),
        )


@rule("TG102", "read-only-not-idempotent", A, Severity.INFO, default=False)
def read_only_not_idempotent(tool: Tool, ctx: Context) -> Iterator[Hit]:
    """A read-only tool is declared not idempotent (opt-in rule).

    What it does: Flags a tool with `readOnly: true` and `idempotent: false`.
    Opt-in, severity info: MCP says `idempotentHint` means something only when
    the tool is not read-only, so clients ignore it here and the declaration is
    harmless (the GitHub MCP server declares it on 57 read-only tools).

    Why: Read-only implies idempotent (Smithy models the same implication
    between its `readonly` and `idempotent` traits); a hint that says the
    opposite is noise a reader has to think about.

    Example:

        annotations: {readOnly: true, idempotent: false}    # TG102

    Leave `idempotent` out for read-only tools, or set it to `true`.
    """
    a = tool.annotations
    if a.read_only is True and a.idempotent is False:
        yield Hit(
            "read-only tool is declared not idempotent; read-only implies idempotent",
            ctx.hint_location(tool, "idempotent"),
        )


@rule("TG103", "destructive-undeclared", A, Severity.WARNING)
def destructive_undeclared(tool: Tool, ctx: Context) -> Iterator[Hit]:
    """A tool that may write does not declare whether it is destructive.

    What it does: Flags a tool that is not marked read-only and has no
    `destructive` hint.

    Why: When the hint is absent, MCP clients assume `destructiveHint: true`.
    Either the tool really destroys data and should say so, or it does not and
    every call is treated as dangerous (and confirmed) for nothing. Say which.

    Example:

        name: add_label
        annotations: {readOnly: false}                      # TG103

    Add `destructive: false` (or `true`).
    """
    a = tool.annotations
    if a.read_only is not True and a.destructive is None:
        yield Hit(
            "`destructive` is not declared; MCP clients then assume the tool is destructive",
            ctx.hint_location(tool, "destructive"),
        )


@rule("TG104", "open-world-undeclared", A, Severity.WARNING)
def open_world_undeclared(tool: Tool, ctx: Context) -> Iterator[Hit]:
    """A tool does not declare whether it reaches outside systems.

    What it does: Flags a tool without an `openWorld` hint.

    Why: When the hint is absent, MCP clients assume `openWorldHint: true`: the
    tool talks to an open set of outside entities (the web, other people's
    data). That is the risky assumption; a tool that only works on its own
    closed data should say so, and one that does not should say that too.

    Example:

        annotations: {readOnly: true}                       # TG104

    Add `openWorld: false` (or `true`).
    """
    if tool.annotations.open_world is None:
        yield Hit(
            "`openWorld` is not declared; MCP clients then assume the tool reaches outside systems",
            ctx.hint_location(tool, "openWorld"),
        )


@rule("TG105", "write-name-read-only", A, Severity.ERROR)
def write_name_read_only(tool: Tool, ctx: Context) -> Iterator[Hit]:
    """A tool whose name says it changes data is marked read-only.

    What it does: Flags a tool with `readOnly: true` whose name's verb is a
    destructive, create or write verb (`delete_`, `remove_`, `create_`,
    `update_`, `set_`, ...). The whole name is read, with the description: the
    word of the name the description starts with is the verb, known or not
    (`simulate-research-query`, "Simulates ...": *query* is its object); else the
    first known verb, left to right, as the first word may be a namespace or the
    object's kind (`issue_write`, `API-retrieve-a-comment`: the verb is
    *retrieve*, *comment* is its object); an HTTP method yields to a verb after it
    (`API-post-search`); a verb found after the first word yields to a description
    (or, when the description starts with no known verb, a title) that starts with
    a verb saying otherwise. Where that leaves no verb, the name rules say nothing.
    Verbs that also name lookups (`resolve`, `run`, `execute`, `trigger`, `sync`,
    `apply`, `manage`) are not trusted here: `resolve-library-id` reads.
    The verb lists are configurable (`destructive-verbs`, `create-verbs`,
    `write-verbs`, and `extend-...` to add to them).

    Why: This is the safety bug no type checker finds: a tool marked read-only
    that deletes or changes data runs without confirmation in clients that trust
    the hint.

    Example:

        name: delete_note
        annotations: {readOnly: true}                       # TG105

    Set `readOnly: false` and declare `destructive`.
    """
    word = tool_verb(tool, ctx.options)
    if word in LOOKUP_WRITE_VERBS:
        return  # `resolve-library-id`, `run_query`: these verbs also name lookups
    if tool.annotations.read_only is True and verb_class(word, ctx.options) not in (None, "read"):
        yield Hit(
            f"name verb {word!r} says the tool changes data, but it is marked read-only",
            ctx.hint_location(tool, "readOnly"),
        )


@rule("TG106", "destructive-name-not-destructive", A, Severity.WARNING)
def destructive_name_not_destructive(tool: Tool, ctx: Context) -> Iterator[Hit]:
    """A tool whose name says it deletes is declared not destructive.

    What it does: Flags a tool with `destructive: false` whose name's verb is a
    destructive verb (`delete_`, `remove_`, `drop_`, `purge_`, ...; configurable
    with `destructive-verbs` / `extend-destructive-verbs`).

    Why: Clients ask before destructive calls. A delete that is declared harmless
    is not confirmed. If the removal really is harmless (it can be undone), say
    so in a suppression with a reason.

    Example:

        name: purge_cache
        annotations: {readOnly: false, destructive: false}  # TG106

    Set `destructive: true`.
    """
    word = tool_verb(tool, ctx.options)
    a = tool.annotations
    if (
        verb_class(word, ctx.options) == "destructive"
        and a.read_only is not True
        and a.destructive is False
    ):
        yield Hit(
            f"name verb {word!r} says the tool deletes or overwrites, but it is declared not destructive",
            ctx.hint_location(tool, "destructive"),
        )


@rule("TG107", "read-name-not-read-only", A, Severity.WARNING)
def read_name_not_read_only(tool: Tool, ctx: Context) -> Iterator[Hit]:
    """A tool whose name says it reads is not marked read-only.

    What it does: Flags a tool whose name's verb is a read verb (`get_`,
    `list_`, `search_`, `read_`, ...; configurable with `read-verbs` /
    `extend-read-verbs`; also `status`, `log`, `diff`, `history`, `blame` after the
    first word, as in `git_status`) without `readOnly: true`, unless the tool says it
    changes something: its description (or, failing that, its title) starts with a
    verb that changes data ("Submit feedback on a search"), its description says it
    leaves something behind (it stores, saves, writes, caches, downloads or
    overwrites: "Stores the paper locally", "may overwrite existing files"), or an
    input property names where it writes (`output_path`, `savePath`, `dest_dir`,
    `overwrite`: `export_csv` writes a file).

    Why: Without the hint, clients treat the call as a possible write (and,
    since `destructive` defaults to true, as a destructive one) and ask a person
    to confirm every lookup. If the tool does write, its name misleads the model.

    Example:

        name: get_note
        annotations: {openWorld: false}                     # TG107

    Add `readOnly: true`, or rename the tool after what it changes.
    """
    word = tool_verb(tool, ctx.options)
    if verb_class(word, ctx.options) != "read" or tool.annotations.read_only is True:
        return
    if _writes(tool, ctx):
        return  # `firecrawl_search_feedback`, "Send feedback ..."; `download_paper`, "Stores ..."
    yield Hit(
        f"name verb {word!r} says the tool only reads, but it is not marked read-only",
        ctx.hint_location(tool, "readOnly"),
    )


@rule("TG108", "create-name-idempotent", A, Severity.WARNING)
def create_name_idempotent(tool: Tool, ctx: Context) -> Iterator[Hit]:
    """A tool whose name says it creates something is declared idempotent.

    What it does: Flags a tool with `idempotent: true` whose name's verb is a
    create verb (`create_`, `add_`, `insert_`, `send_`, ...; configurable with
    `create-verbs` / `extend-create-verbs`).

    A tool whose description says the create is keyed ("or ensure it exists",
    "if it does not exist", "already exists") is not flagged, nor one whose verb
    may add to a set, where a repeat changes nothing (`add`, `attach`, `link`,
    `tag`, `assign`, ...; `repeatable-verbs` / `extend-repeatable-verbs`:
    `git_add` stages a path, `add_label` labels a pull request) unless its
    description says each call makes something new ("Add a new comment": *new* or *another*
    before what the name adds, its words after the verb up to a preposition, so
    `add_team_to_project`, "... when a new project needs a team", is not flagged;
    or "each time", "every call"); so is a create of links between things that
    exist (`batch-create-associations`: a name whose words after the verb name
    associations, links, members, roles, reactions, reviewers, ...).

    Why: Creating usually makes a new thing per call: calling it twice gives two
    notes, two orders, two emails. Clients retry idempotent calls freely, which
    here duplicates data. If the tool is keyed (create-if-absent), suppress this
    with that reason.

    Example:

        name: create_order
        annotations: {readOnly: false, destructive: false, idempotent: true}  # TG108

    Set `idempotent: false`.
    """
    word = tool_verb(tool, ctx.options)
    a = tool.annotations
    if (
        verb_class(word, ctx.options) == "create"
        and a.read_only is not True
        and a.idempotent is True
        and not _KEYED.search(tool.description or "")
        and (not _repeatable(tool.name, word, ctx) or _makes_new(tool, word))
    ):
        yield Hit(
            f"name verb {word!r} says each call creates something, but the tool is declared idempotent",
            ctx.hint_location(tool, "idempotent"),
        )


@rule("TG109", "annotations-title-mismatch", A, Severity.WARNING)
def annotations_title_mismatch(tool: Tool, ctx: Context) -> Iterator[Hit]:
    """`annotations.title` differs from the tool's `title`.

    What it does: Flags a tool that has both a `title` and an `annotations.title`
    with different text.

    Why: MCP has two places for a display name. Clients prefer `title`, then
    `annotations.title`, then `name`, but not all clients read both, so people
    see different names for the same tool depending on the client.

    Example:

        title: Delete a note
        annotations: {title: Remove note}                   # TG109

    Keep one title, or make them equal.
    """
    title, other = tool.title, tool.annotations.title
    if title is not None and other is not None and title.strip() != other.strip():
        yield Hit(
            f"annotations.title {other!r} differs from title {title!r}",
            tool.origin.locate("annotations", "title"),
        )


@rule("TG110", "read-name-destructive", A, Severity.WARNING)
def read_name_destructive(tool: Tool, ctx: Context) -> Iterator[Hit]:
    """A tool whose name says it reads is declared destructive.

    What it does: Flags a tool with `destructive: true` (and not read-only) whose
    name's verb is a read verb (`search_`, `get_`, `list_`, ...), unless the tool
    says it changes something (as for TG107: `export_csv`, "may overwrite existing
    files", is destructive, not a read).

    Why: A search or a lookup that destroys data is almost always a copied
    annotation block: clients then ask a person to confirm every lookup, and
    people learn to click through the confirmations that matter. If the tool
    really deletes, its name hides that from the model.

    Example:

        name: search_issues
        annotations: {readOnly: false, destructive: true}   # TG110

    Set `readOnly: true` (and drop `destructive`), or rename the tool.
    """
    word = tool_verb(tool, ctx.options)
    a = tool.annotations
    if verb_class(word, ctx.options) != "read" or a.read_only is True or a.destructive is not True:
        return
    if _writes(tool, ctx):
        return
    yield Hit(
        f"name verb {word!r} says the tool only reads, but it is declared destructive",
        ctx.hint_location(tool, "destructive"),
    )


REVIEWED_HINTS = ("readOnly", "destructive", "openWorld")
"""The hints OpenAI's app review asks for, each with a written justification."""


@rule("TG111", "hint-without-reason", A, Severity.WARNING, default=False)
def hint_without_reason(tool: Tool, ctx: Context) -> Iterator[Hit]:
    """A hint app review asks for is not declared with a reason (opt-in rule).

    What it does: Flags each of `readOnly`, `destructive` and `openWorld` that a
    tool does not declare, or declares without a reason in
    `annotations.reasons`. Select it (`extend-select = ["TG111"]`) when the
    server goes through a review that asks for them, such as OpenAI's app review.

    Why: A reviewer (and a person deciding whether to allow a tool) needs to
    know why a tool claims to be harmless, not only that it does. The reasons
    are emitted as `annotation-reasons.json` by `toolgen build`.

    Example:

        annotations:
          readOnly: false
          destructive: false                                # TG111 (no reason)
          openWorld: false                                  # TG111 (no reason)
          reasons: {readOnly: Creates a note in the user's notebook.}

    Add a reason for each hint under `annotations.reasons`.
    """
    a = tool.annotations
    for short in REVIEWED_HINTS:
        value = getattr(a, {"readOnly": "read_only", "openWorld": "open_world"}.get(short, short))
        if value is None:
            yield Hit(
                f"`{short}` is not declared; review asks for it with a reason",
                ctx.hint_location(tool, short),
            )
        elif short not in a.reasons:
            yield Hit(
                f"`{short}: {str(value).lower()}` has no reason in `annotations.reasons`",
                ctx.hint_location(tool, short),
            )


def _writes(tool: Tool, ctx: Context) -> bool:
    """Whether the title, the description or the input schema says the tool changes
    something, whatever its name's verb: the title or description starts with a verb that
    changes data, the description says it leaves something behind (`_SIDE_EFFECT`), or an
    input property names where it writes (`output_path`, `overwrite`)."""
    if verb_class(lead_verb(tool, ctx.options), ctx.options) not in (None, "read"):
        return True
    if _SIDE_EFFECT.search(tool.description or ""):
        return True
    properties = tool.input_schema.get("properties")
    for name in properties if isinstance(properties, dict) else ():
        found = words(name)
        if "overwrite" in found or (
            len(found) == 2 and found[0] in _DESTINATION and found[1] in _PLACE
        ):
            return True
    return False


def _makes_new(tool: Tool, word: str | None) -> bool:
    """Whether the description says each call makes something new: "each time" or "every
    call", or `new` or `another` before what the name adds (its words after the verb, up to
    a preposition): `add_issue_comment`, "Add a new comment"; not `add_team_to_project`,
    "... when a new project needs a team", where the project is where the team goes."""
    text = tool.description or ""
    if _EACH_CALL.search(text):
        return True
    found = words(tool.name)
    start = found.index(word) + 1 if word in found else len(found)
    objects: set[str] = set()
    for name_word in found[start:]:
        if name_word in _PREPOSITIONS:
            break
        objects.add(name_word)
    return any(
        {w.lower() for w in m.groups() if w} & objects
        or {w.lower()[:-1] for w in m.groups() if w and w.endswith("s")} & objects
        for m in _NEW.finditer(text)
    )


def _repeatable(name: str, word: str | None, ctx: Context) -> bool:
    """Whether a create named so may put something into a set, where doing it twice changes
    nothing: a repeatable verb (`git_add`), or a create of links (`batch-create-associations`)."""
    if word in ctx.options.repeatable_verbs:
        return True
    found = words(name)
    return word in found and any(w in _SET_NOUNS for w in found[found.index(word) + 1 :])
