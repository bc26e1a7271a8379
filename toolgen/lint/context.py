"""What rule checks see: the spec set, the options, and cached views of the raw data.

Rules look at schemas *as written* (the raw data in the source file, walked
with `toolgen.schema.walk`), so every finding points at the exact line and
column, in a def where the problem is written rather than in every tool that
bundles it. The bundled schemas of the IR are used where clients' view
matters (size, depth, what the input accepts).
"""

from __future__ import annotations

import json
import re
from collections.abc import Hashable
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

import orjson

from toolgen.lint.options import HTTP_METHODS, READ_NOUNS, RuleOptions
from toolgen.schema.pointer import pointer_tokens, walk
from toolgen.schema.walk import HOLDING, LISTED, MAPPED, SINGLE, subschema_list, walk_schemas
from toolgen.spec.errors import Location
from toolgen.spec.ir import HINTS, Origin, Tool, ToolSet
from toolgen.spec.positions import JsonPath, SourceFile

ABSOLUTE_URI = re.compile(r"^(?:[A-Za-z][A-Za-z0-9+.-]*:|//)")
_WORD_SPLIT = re.compile(r"[^A-Za-z0-9]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_LONG_HINT = dict(HINTS)
HIDDEN = re.compile(
    "[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u00ad\u034f\u061c\u115f\u1160"
    "\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f"
    "\ufeff\uffa0\ufff0-\ufffb\U0001d173-\U0001d17a\U000e0000-\U000e007f\U000e0100-\U000e01ef]"
)
"""Characters people cannot see but models read: zero-width and bidi controls, tag
characters, variation selectors, fillers and C0/C1 controls (tab and newlines allowed)."""
IN_PLACE = frozenset({"allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas"})


class SchemaNode:
    """One schema as written: in a tool's input or output, or in a def.

    A node is made for every schema of every tool and read mostly by rules that report
    nothing, so it keeps its place as a (file, path) pair and builds `origin` on demand."""

    __slots__ = ("_path", "_source", "def_name", "doc", "keyword", "part", "schema", "tool")

    schema: Any
    doc: Origin
    """What `#` in a `$ref` inside it points at: the schema document root."""
    part: str
    """`input`, `output` or `def`."""
    keyword: str | None
    """The keyword holding it (`properties`, `items`, ...), None for a root."""
    tool: str | None
    def_name: str | None

    def __init__(
        self,
        schema: Any,
        origin: Origin | tuple[SourceFile, JsonPath],
        doc: Origin,
        part: str,
        keyword: str | None,
        tool: str | None,
        def_name: str | None = None,
    ) -> None:
        self.schema = schema
        self._source, self._path = (
            (origin.source, origin.path) if isinstance(origin, Origin) else origin
        )
        self.doc = doc
        self.part = part
        self.keyword = keyword
        self.tool = tool
        self.def_name = def_name

    @property
    def origin(self) -> Origin:
        """Where the schema is written."""
        return Origin(self._source, self._path)

    def locate(self, *relative: str | int, key: bool = False) -> Location:
        """`file:line:col` of this schema, or of a value below it (as `Origin.locate`)."""
        return self._source.locate((*self._path, *relative), key=key)

    @property
    def is_root(self) -> bool:
        return self.keyword is None

    @property
    def in_place(self) -> bool:
        """Whether it applies to the same value as its parent (`allOf`, `if`, ...), so its
        `required` and `properties` may refer to properties its parent declares."""
        return self.keyword in IN_PLACE

    def required_property(self) -> bool | None:
        """Whether this schema is a property its object requires (False: an optional one);
        None when it is no property's schema."""
        if self.keyword != "properties" or len(self._path) < 2:
            return None
        parent: Any = self._source.data
        for step in self._path[:-2]:
            try:
                parent = parent[step]
            except (KeyError, IndexError, TypeError):
                return None
        required = parent.get("required") if isinstance(parent, dict) else None
        return isinstance(required, list) and self._path[-1] in required

    @property
    def describes_object(self) -> bool:
        """Whether its properties are declared here rather than refined from a parent:
        not an in-place subschema, or an `allOf`/`anyOf`/`oneOf` branch with its own `type`."""
        if not self.in_place:
            return True
        return (
            self.keyword in ("allOf", "anyOf", "oneOf")
            and isinstance(self.schema, dict)
            and "type" in self.schema
        )


class Context:
    """The spec set under lint, with lazily computed, cached views for the rules."""

    def __init__(self, toolset: ToolSet, options: RuleOptions) -> None:
        self.toolset = toolset
        self.options = options
        self._sources: dict[Path, SourceFile] = {s.path.resolve(): s for s in toolset.sources}
        self._nodes: dict[str, list[SchemaNode]] = {}
        self._may_hide: dict[str, bool] = {}
        self.memo: dict[Hashable, Any] = {}
        """Values rules compute once and share (e.g. per tool, keyed by the tool's name)."""

    # -- raw data -------------------------------------------------------------

    def raw_tool(self, tool: Tool) -> dict[str, Any]:
        data = tool.origin.value()
        return data if isinstance(data, dict) else {}

    def may_hide(self, source: SourceFile) -> bool:
        """Whether the file's data might hold a hidden character (a fast, whole-file
        pre-check; False means certainly not)."""
        found = self._may_hide.get(source.display)
        if found is None:
            text = _json_bytes(source.data)  # UTF-8: searched as bytes, never decoded whole
            # JSON escapes every C0 control, so in ASCII text DEL is the one `HIDDEN` finds.
            hidden = b"\x7f" in text if text.isascii() else bool(HIDDEN.search(_unusual(text)))
            found = hidden or any(e in text for e in (b"\\u00", b"\\b", b"\\f"))
            self._may_hide[source.display] = found
        return found

    # -- places ---------------------------------------------------------------

    @staticmethod
    def name_location(tool: Tool) -> Location:
        return tool.origin.locate("name")

    def hint_location(self, tool: Tool, short: str) -> Location:
        """Where hint `short` (e.g. `readOnly`) is written, in either spelling; else where
        it would go (the `annotations` key, or the tool's name)."""
        raw = self.raw_tool(tool)
        annotations = raw.get("annotations")
        if isinstance(annotations, dict):
            for key in (short, _LONG_HINT[short]):
                if key in annotations:
                    return tool.origin.locate("annotations", key, key=True)
            return tool.origin.locate("annotations", key=True)
        return self.name_location(tool)

    def server_location(self) -> Location | None:
        server = self.toolset.server
        if server.origin is not None:
            return server.origin.locate(key=True)
        if self.toolset.tools:
            return self.name_location(self.toolset.tools[0])
        return None

    # -- schemas as written ---------------------------------------------------

    def nodes(self, tool: Tool) -> list[SchemaNode]:
        """Every schema written in the tool's input and output (computed once)."""
        cached = self._nodes.get(tool.name)
        if cached is not None:
            return cached
        out: list[SchemaNode] = []
        for part, origin in (("input", tool.input_origin), ("output", tool.output_origin)):
            if origin is not None:
                out.extend(_walk(origin.value(), origin, origin, part, None, tool.name, None))
        self._nodes[tool.name] = out
        return out

    @cached_property
    def def_nodes(self) -> list[SchemaNode]:
        """Every schema written in the spec set's defs."""
        out: list[SchemaNode] = []
        for d in self.toolset.defs:
            root = Origin(d.origin.source, ())
            name = str(d.origin.path[-1])
            out.extend(_walk(d.schema, d.origin, root, "def", None, None, name))
        return out

    @cached_property
    def input_defs(self) -> frozenset[tuple[str, str]]:
        """Defs (file display name, def name) that some tool input reaches."""
        seen: set[tuple[str, str]] = set()
        todo = [  # (the schemas without `$ref` lead nowhere)
            node
            for tool in self.toolset.tools
            for node in self.nodes(tool)
            if node.part == "input" and isinstance(node.schema, dict) and "$ref" in node.schema
        ]
        while todo:
            node = todo.pop()
            ref = node.schema.get("$ref") if isinstance(node.schema, dict) else None
            if not isinstance(ref, str):
                continue
            target = self.resolve(ref, node)
            if target is None:
                continue
            _, origin = target
            path = origin.path
            if len(path) == 2 and path[0] == "defs":
                key = (origin.source.display, str(path[1]))
                if key not in seen:
                    seen.add(key)
                    todo.extend(
                        _walk(
                            origin.value(),
                            origin,
                            Origin(origin.source, ()),
                            "def",
                            None,
                            None,
                            key[1],
                        )
                    )
        return frozenset(seen)

    def in_input(self, node: SchemaNode) -> bool:
        """Whether a model fills this schema in (it is part of some tool's arguments)."""
        if node.part != "def":
            return node.part == "input"
        return (node.origin.source.display, node.def_name or "") in self.input_defs

    def resolve(self, ref: str, node: SchemaNode) -> tuple[Any, Origin] | None:
        """The schema a local `$ref` points at, and where it is written; None if unknown."""
        if ABSOLUTE_URI.match(ref):
            return None
        file_part, _, fragment = ref.partition("#")
        tokens = pointer_tokens("#" + fragment)
        if tokens is None:
            return None
        if file_part:
            source = self._sources.get((node.doc.source.path.parent / file_part).resolve())
            bases = [Origin(source, ())] if source else []
        else:
            bases = [node.doc, Origin(node.doc.source, ())]
        for base in bases:
            data, path = walk(base.value(), tokens)
            if len(path) == len(tokens):
                return data, base.child(*path)
        return None


def _walk(
    schema: Any,
    origin: Origin,
    doc: Origin,
    part: str,
    keyword: str | None,
    tool: str | None,
    def_name: str | None,
) -> list[SchemaNode]:
    """Every schema below and including `schema`, depth first (`walk.subschemas` order).
    This runs for every schema of every tool: iteratively, the nodes made without
    `__init__`, the keys of a schema looked at only if one holds subschemas."""
    out: list[SchemaNode] = []
    source = origin.source
    new = SchemaNode.__new__
    stack: list[tuple[Any, JsonPath, str | None]] = [(schema, origin.path, keyword)]
    while stack:
        current, path, key = stack.pop()
        made = new(SchemaNode)
        made.schema = current
        made._source = source
        made._path = path
        made.doc = doc
        made.part = part
        made.keyword = key
        made.tool = tool
        made.def_name = def_name
        out.append(made)
        if isinstance(current, dict) and not HOLDING.isdisjoint(current):
            children: list[tuple[Any, JsonPath, str | None]] = []
            for name, value in current.items():
                if name in SINGLE:
                    children.append((value, (*path, name), name))
                elif name in MAPPED and isinstance(value, dict):
                    for k, sub in value.items():
                        children.append((sub, (*path, name, k), name))
                elif name in LISTED and isinstance(value, list):
                    for i, sub in enumerate(value):
                        children.append((sub, (*path, name, i), name))
            children.reverse()
            stack.extend(children)
    return out


_USUAL = bytes(c for c in range(128) if not HIDDEN.match(chr(c)))
"""The ASCII characters `HIDDEN` does not match, as bytes."""


def _unusual(text: bytes) -> str:
    """The characters of UTF-8 `text` that are not `_USUAL`, in order: what `HIDDEN` may
    match, without searching the rest with a regular expression (a few milliseconds per
    megabyte instead of some twenty). UTF-8 writes a non-ASCII character with bytes of 128
    and more only, so deleting ASCII bytes leaves the others whole."""
    return text.translate(None, _USUAL).decode("utf-8", "surrogatepass")


def _json_bytes(data: Any) -> bytes:
    """`_json_text(data)` in UTF-8 (lone surrogates as they are): what orjson writes."""
    try:
        return orjson.dumps(data)
    except TypeError:
        return json.dumps(data, ensure_ascii=False).encode("utf-8", "surrogatepass")


def _json_text(data: Any) -> str:
    """`data` as `json.dumps(data, ensure_ascii=False)` writes it, but for the spaces after
    separators (and NaN): orjson escapes the same characters, several times faster; data it
    refuses (a key that is not a string, a huge integer, a lone surrogate) goes to `json`."""
    try:
        return orjson.dumps(data).decode()
    except TypeError:
        return json.dumps(data, ensure_ascii=False)


def has_ref(schema: Any) -> bool:
    """Whether `schema` or a schema below it uses `$ref` or `$dynamicRef`."""
    return any(
        isinstance(sub, dict) and ("$ref" in sub or "$dynamicRef" in sub)
        for _, sub in walk_schemas(schema)
    )


def count_schemas(schema: Any) -> int:
    """How many schemas `schema` holds, itself included (as `schemawalk.walk_schemas`
    yields them, but without a generator per schema)."""
    count = 0
    stack = [schema]
    while stack:
        current = stack.pop()
        count += 1
        if isinstance(current, dict):
            stack.extend(subschema_list(current))
    return count


@lru_cache(maxsize=8192)
def words(name: str) -> tuple[str, ...]:
    """The lowercase words of a name in any casing: `getUserById` → get, user, by, id."""
    out: list[str] = []
    for chunk in _WORD_SPLIT.split(name):
        out.extend(w.lower() for w in _CAMEL.findall(chunk))
    return tuple(out)


def tool_verb(tool: Tool, options: RuleOptions) -> str | None:
    """The verb of a tool (`verb`), its name weighed against its title and description."""
    return verb(tool.name, tool.description, options, _title(tool))


def lead_verb(tool: Tool, options: RuleOptions) -> str | None:
    """The known verb a tool's description starts with, else its title ("Send feedback on a
    search result")."""
    return description_verb(tool.description, options) or description_verb(_title(tool), options)


def _title(tool: Tool) -> str | None:
    return tool.title or tool.annotations.title


@lru_cache(maxsize=8192)
def verb(
    name: str, description: str | None, options: RuleOptions, title: str | None = None
) -> str | None:
    """The verb of a tool, read from its whole name and weighed against its title and
    description; None where the evidence is thin (the rules then stay silent).

    - The word of the name the description starts with is the verb, known or not
      (`simulate-research-query`, "Simulates a deep research ...": *simulate*, whose
      object is a query; `browser_navigate`, "Navigate to a URL").
    - Else the first known verb, left to right: the first word may be a namespace or the
      object's kind (`github_get_issue`, `issue_read`, `API-retrieve-a-comment`: not
      *comment*, the object). A read noun after the first word counts as a read
      (`git_status`, `git_diff_unstaged`); an HTTP method yields to a verb after it
      (`API-post-search` searches).
    - A verb found after the first word is not trusted when the description (or, when it
      starts with no known verb, the title) starts with a known verb that says otherwise, a
      read against a change or the other way round (`firecrawl_search_feedback`, "Send
      feedback on a search result")."""
    found = words(name.rsplit(".", 1)[-1])
    first = _lead_words(description)[:1]
    for word in found:
        if first and word in _stems(first[0]):
            return word
    known = options.known_verbs
    verbs = [
        (word, index)
        for index, word in enumerate(found)
        if word in known or (index > 0 and word in READ_NOUNS)
    ]
    if not verbs:
        return None
    word, index = verbs[1] if verbs[0][0] in HTTP_METHODS and len(verbs) > 1 else verbs[0]
    lead = description_verb(description, options) or description_verb(title, options)
    said = verb_class(lead, options)
    if index > 0 and said is not None and (said == "read") != (verb_class(word, options) == "read"):
        return None
    return word


def verb_class(word: str | None, options: RuleOptions) -> str | None:
    """`read`, `destructive`, `create` or `write` for a verb (read nouns are reads)."""
    if word is None:
        return None
    if word in options.read_verbs or word in READ_NOUNS:
        return "read"
    for label, verbs in (
        ("destructive", options.destructive_verbs),
        ("create", options.create_verbs),
        ("write", options.write_verbs),
    ):
        if word in verbs:
            return label
    return None


_LEAD = re.compile(r"[A-Za-z]+")


@lru_cache(maxsize=8192)
def description_verb(description: str | None, options: RuleOptions) -> str | None:
    """The known verb among a description's first three words (`Retrieves a comment`,
    `Notion | Retrieve comments` → `retrieve`)."""
    known = options.known_verbs
    for word in _lead_words(description):
        for stem in _stems(word):
            if stem in known:
                return stem
    return None


def _lead_words(description: str | None) -> list[str]:
    """The first three words of a description, lowercase ("Notion | Retrieve comments")."""
    if not description:
        return []
    return [m.group(0).lower() for m in list(_LEAD.finditer(description[:80]))[:3]]


def _stems(word: str) -> tuple[str, ...]:
    """`word` and what it may be inflected from (`retrieves`, `echoes`, `queries`)."""
    out = [word]
    if word.endswith("s"):
        out.append(word[:-1])
    if word.endswith("es"):
        out.append(word[:-2])
    if word.endswith("ies"):
        out.append(word[:-3] + "y")
    return tuple(out)
