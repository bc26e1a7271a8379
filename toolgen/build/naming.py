"""Names in generated code: the one naming service of every target.

**Type names** are the same in every language: a tool's `<Tool>Input` and `<Tool>Output`,
each def's name, each named inline type (see `toolgen.build.typemodel`). They are CamelCase
(`[A-Z][A-Za-z0-9]*`, which datamodel-code-generator keeps verbatim) and never a name that
any target's module declares, imports or relies on (`RESERVED_TYPES`), so that a type has one
name whichever targets a build writes. `toolgen.build.python.modelplan` says where each kind of
type name comes from.

**Identifiers** of methods, fields and enum variants follow each language's rules, kept as data
in `LANGUAGES`: the case style, the keywords, and the names a tool's method must not take (the
members of the generated client, of every object). One collision rule serves every kind: the
first name (in spec order) gets the plain form; a later one that would be equal spells its
separators out (`get-x` → `get_dash_x` beside `get_x`), else gets a hash of its source name.
"""

from __future__ import annotations

import functools
import hashlib
import keyword
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal

CLASS_NAME = re.compile(r"[A-Z][A-Za-z0-9]*\Z")

# fmt: off
RESERVED: frozenset[str] = frozenset((
    "AliasChoices", "Annotated", "Any", "AnyUrl", "AwareDatetime", "Base64Bytes", "Base64Str",
    "BaseModel", "ClassVar", "ConfigDict", "Date", "DateTime", "Decimal", "Dict", "Duration",
    "EmailStr", "EncodedBytes", "Enum", "Field", "Final", "FrozenSet", "FutureDate",
    "FutureDatetime", "GetCoreSchemaHandler", "IPv4Address", "IPv4Network", "IPv6Address",
    "IPv6Network", "IntEnum", "IntNumber", "Integral", "Iterator", "Json", "JsonValue", "List", "Literal", "MISSING",
    "Mapping", "Meta", "Model", "MultipleOf", "NaiveDatetime", "NameEmail", "NegativeFloat",
    "NegativeInt", "NonNegativeFloat", "NonNegativeInt", "NonPositiveFloat", "NonPositiveInt",
    "None", "OMITTED", "Omittable", "Omitted", "Optional", "PastDate", "PastDatetime", "Path",
    "PositiveFloat", "PositiveInt", "RootModel", "SecretStr", "Sequence", "SerializationInfo",
    "SerializeAsAny", "SerializerFunctionWrapHandler", "Set", "StrEnum", "StrictBool",
    "StrictBytes", "StrictFloat", "StrictInt", "StrictStr", "StringConstraints", "Struct",
    "SupportsIndex", "Time", "ToolModel", "Tuple", "TypeAdapter", "TypeAlias", "TypeAliasType",
    "TypeVar", "ULID", "UNSET", "UUID", "Union", "UnsetType", "ValidationInfo",
    "ValidatorFunctionWrapHandler",
))
"""Names the generated Python module may import, or that DCG renames: never type names."""
# fmt: on

SEPARATOR_WORDS = {"_": "Underscore", ".": "Dot", "-": "Dash"}


def camel(text: str) -> str:
    """CamelCase of `text` split at anything but ASCII letters and digits (`a.b-c` → `ABC`)."""
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[^A-Za-z0-9]+", text))


def spelled(name: str) -> str:
    """CamelCase with the separators written as words (`get-x` → `GetDashX`)."""
    parts = re.split(r"([^A-Za-z0-9])", name)
    return "".join(SEPARATOR_WORDS[p] if p in SEPARATOR_WORDS else camel(p) for p in parts)


def class_name(base: str, prefix: str) -> str:
    """`base` fit to start a class name: a leading digit (or nothing) gets `prefix`."""
    return base if base[:1].isalpha() else prefix + base


def hash8(text: str) -> str:
    """Eight hex digits of `text`'s SHA-256: a stable, order-independent tie-breaker."""
    return hashlib.sha256(text.encode()).hexdigest()[:8].upper()


def _reserved() -> set[str]:
    return set(reserved_types())


@dataclass
class Names:
    """The class names claimed so far in one module."""

    taken: set[str] = field(default_factory=lambda: _reserved())

    def free(self, name: str) -> bool:
        return CLASS_NAME.match(name) is not None and name not in self.taken

    def claim(self, candidates: Iterable[str], key: str) -> str:
        """The first free candidate; else the last one plus a hash of `key` (unique per place)."""
        last = ""
        for candidate in candidates:
            last = candidate
            if self.free(candidate):
                self.taken.add(candidate)
                return candidate
        salt = key
        while not self.free(last + hash8(salt)):
            salt += "'"
        self.taken.add(last + hash8(salt))
        return last + hash8(salt)


def tool_bases(tool_names: Sequence[str], names: Names) -> dict[str, str]:
    """Tool name → the stem of its `<stem>Input` / `<stem>Output` classes.

    The first tool (in spec-set order) with a given CamelCase gets it; each later
    one spells its separators out, else gets a hash of its name appended.
    """
    bases: dict[str, str] = {}

    def take(tool: str, base: str) -> bool:
        pair = (base + "Input", base + "Output")
        if not all(names.free(name) for name in pair):
            return False
        names.taken.update(pair)
        bases[tool] = base
        return True

    plain = {tool: class_name(camel(tool), "Tool") for tool in tool_names}
    for tool in tool_names:
        take(tool, plain[tool])
    for tool in tool_names:
        if tool in bases or take(tool, class_name(spelled(tool), "Tool")):
            continue
        salt = tool
        while not take(tool, plain[tool] + hash8(salt)):
            salt += "'"
    return bases


def def_classes(def_names: Iterable[str], names: Names) -> dict[str, str]:
    """Def name → its class name, claimed in the order given: the name itself when it is
    already a class name (`Note`), else its CamelCase (`note_id` → `NoteId`), plus `Def`
    when a tool class or an imported name has it."""
    classes = {}
    for name in def_names:
        base = class_name(camel(name), "Def")
        exact = [name] if CLASS_NAME.match(name) else []
        classes[name] = names.claim([*exact, base, base + "Def"], f"def:{name}")
    return classes


def field_aliases(property_names: Iterable[str]) -> dict[str, str]:
    """Property name → the Python name of its field, for every name that Python's parser
    would fold (NFKC: U+FF41 fullwidth a → `a`, U+212A Kelvin sign → `K`, U+017F long s → `s`).

    datamodel-code-generator keeps such a name as the field's identifier without an
    alias, so the model would read the folded name (`a`) and lose the JSON one. Each gets
    an ASCII name spelling its code points (U+FF41 → `uff41`, `x-` U+FF41 → `x_uff41`), never
    one of `property_names` (and so never another field's), and with it an alias.
    """
    names = set(property_names)
    taken = names | {unicodedata.normalize("NFKC", name) for name in names}
    aliases: dict[str, str] = {}
    for name in sorted(names):
        if unicodedata.normalize("NFKC", name) == name:
            continue
        spelled = re.sub(r"[^A-Za-z0-9_]", lambda c: f"_u{ord(c[0]):04x}_", name)
        python = re.sub(r"_+", "_", spelled).strip("_")
        python = python if python[:1].isalpha() else "u" + python
        while python in taken:
            python += "_"
        taken.add(python)
        aliases[name] = python
    return aliases


def branch_labels(branches: Sequence[Mapping[str, Any]]) -> list[str]:
    """Distinct labels for the object branches of one union.

    By `title`; else by the value of a property every branch pins with `const`
    (`type: {const: cat}` → `Cat`); else by the required properties that set a
    branch apart (`NodeId`); else by position (`Option1`, `Option2`).
    """
    for labeler in (_title_label, _tag_label, _required_label):
        labels = [labeler(branch, branches) for branch in branches]
        if all(labels) and len(set(labels)) == len(labels):
            return labels
    return [f"Option{i + 1}" for i in range(len(branches))]


def _title_label(branch: Mapping[str, Any], _branches: Sequence[Mapping[str, Any]]) -> str:
    title = branch.get("title")
    return camel(title) if isinstance(title, str) else ""


def _tag_label(branch: Mapping[str, Any], branches: Sequence[Mapping[str, Any]]) -> str:
    for prop in sorted(branch.get("properties") or {}):
        if all(_pinned(b, prop) is not None for b in branches):
            return camel(_pinned(branch, prop) or "")
    return ""


def _pinned(branch: Mapping[str, Any], prop: str) -> str | None:
    """The one string value `prop` may take in `branch`, if it is pinned to one."""
    schema = (branch.get("properties") or {}).get(prop)
    if not isinstance(schema, dict):
        return None
    if isinstance(schema.get("const"), str):
        return str(schema["const"])
    enum = schema.get("enum")
    if isinstance(enum, list) and len(enum) == 1 and isinstance(enum[0], str):
        return enum[0]
    return None


def _required_label(branch: Mapping[str, Any], branches: Sequence[Mapping[str, Any]]) -> str:
    shared = set.intersection(*(set(_required(b)) for b in branches))
    return "".join(camel(name) for name in _required(branch) if name not in shared)


def _required(schema: Mapping[str, Any]) -> list[str]:
    required = schema.get("required")
    return [str(name) for name in required] if isinstance(required, list) else []


# -- identifiers, per language ---------------------------------------------------------------

Case = Literal["snake", "camel", "pascal"]
Kind = Literal["method", "field", "variant"]

_PREFIXES: Final[Mapping[Kind, str]] = {"method": "tool", "field": "field", "variant": "value"}
"""The word that starts an identifier whose name starts with a digit (or has no letters)."""
_SPELLED: Final = {"_": "underscore", ".": "dot", "-": "dash", " ": "space"}
_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z0-9]+|[0-9]+")
_BUILD_DIR: Final = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Language:
    """One target language's naming rules (data: every target's rules are in `LANGUAGES`)."""

    name: str
    cases: Mapping[Kind, Case]
    """The case style of each kind of identifier the language's printer asks for."""
    keywords: frozenset[str]
    """Words an identifier cannot be: `_` is appended (`type` → `type_`)."""
    members: frozenset[str] = frozenset()
    """What a tool's method must not be (members of the generated client, of every object):
    `suffix` is appended."""
    suffix: str = "Tool"
    own_types: frozenset[str] = frozenset()
    """Names the printed module declares or imports, besides its runtime's."""
    runtime: str | None = None
    """The runtime file copied into every module (relative to `toolgen/build/`): the names it
    exports (`exports` finds them) are never type names either."""
    exports: str = ""
    initialisms: frozenset[str] = frozenset()
    """Words written all in capitals in a pascal or camel identifier (`UserID`)."""

    @functools.cached_property
    def types(self) -> frozenset[str]:
        """Every name a type of the spec set must not take in this language."""
        if self.runtime is None:
            return self.own_types
        text = (_BUILD_DIR / self.runtime).read_text(encoding="utf-8")
        return self.own_types | frozenset(re.findall(self.exports, text, re.MULTILINE))

    def identifiers(
        self, names: Iterable[str], kind: Kind, taken: Iterable[str] = ()
    ) -> dict[str, str]:
        """Source name → an identifier of `kind`, unique among them and never in `taken`,
        claimed in the order given (the collision rule in the module docstring)."""
        claimed = set(taken)
        out: dict[str, str] = {}
        for name in names:
            plain = self._identifier(words(name), kind)
            candidates = [plain, self._identifier(words(name, spell=True), kind)]
            chosen = next((c for c in candidates if c not in claimed), None)
            salt = name
            while chosen is None or chosen in claimed:
                chosen = self._identifier([*words(name), hash8(salt)], kind)
                salt += "'"
            claimed.add(chosen)
            out[name] = chosen
        return out

    def _identifier(self, parts: list[str], kind: Kind) -> str:
        case = self.cases[kind]
        if not parts or parts[0][0].isdigit():
            parts = [_PREFIXES[kind], *parts]
        text = cased(parts, case, self.initialisms)
        if kind == "method" and text in self.members:
            text += self.suffix
        return text + "_" if text in self.keywords else text


def numbered(labels: Sequence[str]) -> list[str]:
    """`labels` made distinct by numbering repeats from the second (`Integer`, `Integer2`):
    the branches of a union named by their kind, two of one kind among them."""
    out: list[str] = []
    for label in labels:
        chosen, count = label, 1
        while chosen in out:
            count += 1
            chosen = f"{label}{count}"
        out.append(chosen)
    return out


def words(text: str, *, spell: bool = False) -> list[str]:
    """The words of a name: runs of ASCII letters and digits split where the case turns
    (`createdAt` → `created`, `At`; `HTTPServer` → `HTTP`, `Server`), accents dropped (`é` →
    `e`), other letters and digits spelled by code point (`名` → `u540d`). With `spell`,
    separators are words too (`-` → `dash`), so that `get-x` and `get_x` differ."""
    folded = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    out: list[str] = []
    for run in re.findall(r"[A-Za-z0-9]+|[^A-Za-z0-9]", folded):
        if run.isascii() and run.isalnum():
            out += _WORD.findall(run)
        elif unicodedata.category(run)[0] in "LN":
            out.append(f"u{ord(run):04x}")
        elif spell:
            out.append(_SPELLED.get(run, f"u{ord(run):04x}"))
    return out


def cased(parts: Sequence[str], case: Case, initialisms: frozenset[str] = frozenset()) -> str:
    """`parts` joined in `case`: `snake_case`, `camelCase` or `PascalCase`."""
    if case == "snake":
        return "_".join(part.lower() for part in parts)

    def capital(part: str) -> str:
        return part.upper() if part.upper() in initialisms else part[:1].upper() + part[1:].lower()

    joined = "".join(capital(part) for part in parts)
    if case == "pascal" or not parts:
        return joined
    first = parts[0].lower()
    return first + joined[len(capital(parts[0])) :]


# fmt: off
_TS_KEYWORDS: Final[frozenset[str]] = frozenset()  # any word is a member or method name
_RUST_KEYWORDS: Final = frozenset((
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum",
    "extern", "false", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod",
    "move", "mut", "pub", "ref", "return", "self", "Self", "static", "struct", "super", "trait",
    "true", "type", "unsafe", "use", "where", "while", "abstract", "become", "box", "do",
    "final", "macro", "override", "priv", "try", "typeof", "unsized", "virtual", "yield",
))
_GO_INITIALISMS: Final = frozenset((
    "ACL", "API", "ASCII", "CPU", "CSS", "DNS", "EOF", "GUID", "HTML", "HTTP", "HTTPS", "ID",
    "IP", "JSON", "LHS", "QPS", "RAM", "RHS", "RPC", "SLA", "SMTP", "SQL", "SSH", "TCP", "TLS",
    "TTL", "UDP", "UI", "UID", "UUID", "URI", "URL", "UTF8", "VM", "XML", "XMPP", "XSRF", "XSS",
))
"""The words Go writes in capitals (the list golint and staticcheck use)."""

LANGUAGES: Final[Mapping[str, Language]] = {
    "python": Language(
        "python",
        cases={"method": "snake", "field": "snake", "variant": "pascal"},
        keywords=frozenset(keyword.kwlist),
        own_types=RESERVED,
    ),
    "typescript": Language(
        "typescript",
        cases={"method": "camel", "field": "camel", "variant": "pascal"},
        keywords=_TS_KEYWORDS,
        members=frozenset((
            "constructor", "hasOwnProperty", "isPrototypeOf", "propertyIsEnumerable",
            "toLocaleString", "toString", "valueOf", "__proto__", "__defineGetter__",
            "__defineSetter__", "__lookupGetter__", "__lookupSetter__", "then",
            "sdk", "drift", "checkDrift", "close",
        )),
        own_types=frozenset((
            "Array", "CallToolResult", "Client", "ClientOptions", "Handlers", "LISTED_SCHEMAS",
            "LISTINGS", "McpServer", "Promise", "Readonly", "Record", "RegisteredTool",
            "RegisteredTools", "SCHEMAS", "SERVER", "SdkClient", "ServerContext", "TOOLS",
            "ToolName",
        )),
        runtime="typescript/runtime.ts",
        exports=r"^export (?:declare )?(?:abstract )?(?:type|interface|class|function|const|let|enum) ([A-Za-z_$][\w$]*)",
    ),
    "rust": Language(
        "rust",
        cases={"method": "snake", "field": "snake", "variant": "pascal"},
        keywords=_RUST_KEYWORDS,
        members=frozenset(("new", "drift", "dispatch")),
        suffix="_tool",
        own_types=frozenset((
            "BTreeMap", "Box", "Client", "ClientError", "Deserialize", "Drift", "DriftPolicy",
            "Err", "Future", "Handlers", "None", "Ok", "Option", "Result", "SPEC", "Self", "Send",
            "Serialize", "ServeError", "Server", "Some", "SpecError", "String", "Sync",
            "ToolError", "Value", "Vec",
        )),
    ),
    "go": Language(
        "go",
        cases={"method": "pascal", "field": "pascal", "variant": "pascal"},
        keywords=frozenset(),  # exported identifiers start with a capital: never a keyword
        members=frozenset(("CheckDrift",)),
        own_types=frozenset((
            "Client", "ClientOptions", "Drift", "DriftError", "DriftFail", "DriftIgnore",
            "DriftPolicy", "DriftWarn", "Handlers", "NewClient", "Null", "Nullable",
            "RegisterTools", "ResultError", "ServeStdio", "ToolCallError", "ToolError",
        )),
        initialisms=_GO_INITIALISMS,
    ),
}
"""Every target language's naming rules."""
# fmt: on


@functools.cache
def reserved_types() -> frozenset[str]:
    """Names no type takes, in any language (so a type's name is the same in every target)."""
    return frozenset().union(*(language.types for language in LANGUAGES.values()))
