"""Class names for the generated models: CamelCase, scoped, never numbered by accident.

Every name matches `[A-Z][A-Za-z0-9]*`, which datamodel-code-generator keeps
verbatim, and none is a name the generated module imports. See
`toolgen.build.python.modelplan` for where each kind of name is used.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

CLASS_NAME = re.compile(r"[A-Z][A-Za-z0-9]*\Z")

# fmt: off
RESERVED: frozenset[str] = frozenset((
    "AliasChoices", "Annotated", "Any", "AnyUrl", "AwareDatetime", "Base64Bytes", "Base64Str",
    "BaseModel", "ClassVar", "ConfigDict", "Date", "DateTime", "Decimal", "Dict", "Duration",
    "EmailStr", "EncodedBytes", "Enum", "Field", "Final", "FrozenSet", "FutureDate",
    "FutureDatetime", "GetCoreSchemaHandler", "IPv4Address", "IPv4Network", "IPv6Address",
    "IPv6Network", "IntEnum", "IntNumber", "Iterator", "Json", "JsonValue", "List", "Literal", "MISSING",
    "Mapping", "Meta", "Model", "MultipleOf", "NaiveDatetime", "NameEmail", "NegativeFloat",
    "NegativeInt", "NonNegativeFloat", "NonNegativeInt", "NonPositiveFloat", "NonPositiveInt",
    "None", "OMITTED", "Omitted", "Optional", "PastDate", "PastDatetime", "Path",
    "PositiveFloat", "PositiveInt", "RootModel", "SecretStr", "Sequence", "SerializationInfo",
    "SerializeAsAny", "SerializerFunctionWrapHandler", "Set", "StrEnum", "StrictBool",
    "StrictBytes", "StrictFloat", "StrictInt", "StrictStr", "StringConstraints", "Struct",
    "SupportsIndex", "Time", "ToolModel", "Tuple", "TypeAdapter", "TypeAlias", "TypeAliasType",
    "ULID", "UNSET", "UUID", "Union", "UnsetType", "ValidationInfo",
    "ValidatorFunctionWrapHandler",
))
"""Names the generated module may import, or that DCG renames: never class names."""
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


@dataclass
class Names:
    """The class names claimed so far in one module."""

    taken: set[str] = field(default_factory=lambda: set(RESERVED))

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
