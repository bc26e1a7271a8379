"""Emit `models.py`: the pydantic v2 models of every tool input and output.

The models read like hand-written ones: an object is a `ToolModel` subclass
with one annotated field per property; anything else (a pattern-constrained
string def, a list output) is a type alias, so `GetOrderInput(id="o_000001")`
type-checks and values stay plain, hashable `str`s. `modelplan` names every
class (scoped: `PlaceOrderInputPayment`) and hoists inline objects;
`modeltypes` writes the field types; `modelprelude` is the shared top
(`ABSENT`, `ToolModel`). A property that is not required and has no default
is `X | Absent = ABSENT`: left out, it is `ABSENT` (falsy) and left out of
dumps; `null` is `None` only where the schema allows null. So a value the
schema accepts validates, and dumps back to the same JSON.

The text is formatted with black (ruff-format compatible) and is the same for
the same spec set.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from toolgen.compiler.emit import modelprelude
from toolgen.compiler.emit.common import python_header
from toolgen.compiler.emit.modelplan import ModelPlan, build_plan, model_class_names
from toolgen.compiler.emit.modeltypes import DEFS, TypeWriter, escape, py_literal
from toolgen.core.ir import ToolSet

__all__ = ["LINE_LENGTH", "format_python", "model_class_names", "render_models"]

LINE_LENGTH = 100
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_TYPE_IMPORTS = {
    "Annotated": "typing",
    "Literal": "typing",
    "Field": "pydantic",
    "JsonValue": "pydantic",
    "StringConstraints": "pydantic",
    "TypeAliasType": "typing_extensions",
}
_BUILTINS = frozenset({"str", "int", "float", "bool", "list", "dict", "None"})


def render_models(toolset: ToolSet, *, source_note: str) -> str:
    """The text of `models.py` for `toolset` (the same for the same spec set)."""
    plan = build_plan(toolset)
    module = _Module(plan, toolset)
    body = module.statements()
    used = {name for name in _TYPE_IMPORTS if re.search(rf"\b{name}\b", "\n".join(body))}
    server = escape(toolset.server.name, '"')
    doc = f'"""Pydantic models of the tool inputs and outputs of {server}."""'
    top = "\n\n".join([python_header(source_note) + doc, _imports(used), modelprelude.PRELUDE])
    parts = [format_python(top), *(_formatted(statement) for statement in body)]
    return "\n\n\n".join(part.strip("\n") for part in parts) + "\n"


def _formatted(statement: str) -> str:
    """`statement` as black writes it: most are written so already; only those with a long
    line or a quoted forward reference go through black (which is slow on big modules)."""
    if "'" in statement or any(len(line) > LINE_LENGTH for line in statement.splitlines()):
        return format_python(statement)
    return statement


def format_python(code: str) -> str:
    """`code` as black (and so `ruff format`) writes it, at the repository's line length."""
    import black
    from black.mode import TargetVersion

    mode = black.Mode(line_length=LINE_LENGTH, target_versions={TargetVersion.PY311})
    return black.format_str(code, mode=mode)


@dataclass(frozen=True)
class _Node:
    """One top-level statement: a class or an alias, what must precede it, its text."""

    name: str
    needs: frozenset[str]
    """Names that must be defined before it runs (bases of a class, the targets of an alias)."""
    refers: frozenset[str]
    """Every module name its annotations mention."""
    text: str
    is_class: bool


class _Module:
    def __init__(self, plan: ModelPlan, toolset: ToolSet) -> None:
        self.plan = plan
        self.schemas: Mapping[str, Any] = plan.schema["$defs"]
        self.types = TypeWriter(frozenset(plan.class_names))
        self.parts = {
            name: (tool, part)
            for tool, pair in plan.tool_classes.items()
            for name, part in zip(pair, ("input", "output"), strict=True)
            if name
        }
        self.inputs = {pair[0] for pair in plan.tool_classes.values()}
        self.objects = {name for name in plan.class_names if self._is_object(name)}
        self.taken = _BUILTINS | set(_TYPE_IMPORTS) | set(modelprelude.NAMES)
        self.taken |= set(plan.class_names)

    # -- order ------------------------------------------------------------------------

    def statements(self) -> list[str]:
        """Every class and alias, each after what it needs, then the rebuild calls of the
        classes that mention names defined after them."""
        order = [name for unit in self.plan.units for name in unit.classes]
        nodes = {name: self._node(name) for name in order}
        done: list[str] = []

        def emit(name: str, visiting: frozenset[str]) -> None:
            # The aliases a class mentions go first when they can: fewer forward references.
            for ref in sorted(nodes[name].refers, key=order.index):
                waits = ref not in done and ref not in visiting and not nodes[ref].is_class
                if waits and nodes[ref].needs <= set(done):
                    emit(ref, visiting | {name})
            if name not in done and nodes[name].needs <= set(done):
                done.append(name)

        waiting = list(order)
        while waiting:
            for name in waiting:
                emit(name, frozenset())
            stuck = [name for name in waiting if name not in done]
            if len(stuck) == len(waiting):  # an alias that refers to itself: quote its value
                nodes[stuck[0]] = self._node(stuck[0], quoted=True)
                done.append(stuck[0])
                stuck = stuck[1:]
            waiting = stuck
        position = {name: index for index, name in enumerate(done)}
        texts = [nodes[name].text for name in done]
        late = [
            name
            for name in done
            if nodes[name].is_class
            and any(position.get(ref, -1) > position[name] for ref in nodes[name].refers)
        ]
        rebuilds = "\n".join(f"{name}.model_rebuild()" for name in late)
        return [*texts, rebuilds] if rebuilds else texts

    # -- one statement -----------------------------------------------------------------

    def _node(self, name: str, *, quoted: bool = False) -> _Node:
        self.types.refs = set()
        if name in self.objects:
            text, bases = self._class(name)
            return _Node(name, frozenset(bases), frozenset(self.types.refs), text, True)
        value = self.types.annotation(self.schemas[name])
        refs = frozenset(self.types.refs)
        literal = f"'{escape(value, chr(39))}'" if quoted else value
        text = f'{name} = TypeAliasType("{name}", {literal})'
        doc = self._doc(name)
        if doc:
            text += "\n" + _docstring(doc, "")
        return _Node(name, refs, refs, text, False)

    def _class(self, name: str) -> tuple[str, list[str]]:
        schema = self.schemas[name]
        merged = _Object()
        bases: list[str] = []
        self._collect(schema, merged, bases)
        lines = [f"class {name}({', '.join(bases) or 'ToolModel'}):"]
        doc = self._doc(name)
        if doc:
            lines += [_docstring(doc, "    "), ""]  # black: a blank line after a class docstring
        extra = self._extra(schema, has_base=bool(bases))
        if extra:
            lines.append(f'    model_config = ConfigDict(extra="{extra}")')
        if extra == "allow":
            values = self.types.values(schema)
            if values != "JsonValue":
                lines.append(f"    __pydantic_extra__: dict[str, {values}] = Field(init=False)")
        lines.extend(self._fields(merged))
        if lines[-1] == "":
            lines.pop()
        if len(lines) == 1:
            lines.append("    pass")
        return "\n".join(lines), bases

    def _collect(
        self,
        schema: Any,
        into: _Object,
        bases: list[str],
        is_object: Callable[[str], bool] | None = None,
    ) -> None:
        """Gather the properties of `schema` and of its `allOf` parts; object defs it is
        made of become base classes."""
        if not isinstance(schema, dict):
            return
        is_object = is_object or self.objects.__contains__
        ref = schema.get("$ref")
        if isinstance(ref, str):
            target = ref[len(DEFS) :]
            if target in self.schemas and is_object(target) and target not in bases:
                bases.append(target)
            return
        for part in schema.get("allOf") or ():
            self._collect(part, into, bases, is_object)
        properties = schema.get("properties")
        if isinstance(properties, dict):
            into.properties.update(properties)
        required = schema.get("required")
        if isinstance(required, list):
            into.required.update(r for r in required if isinstance(r, str))

    def _extra(self, schema: Mapping[str, Any], *, has_base: bool) -> str | None:
        """`extra` of a class when it differs from what it inherits (`forbid` from ToolModel)."""
        said = {"additionalProperties", "patternProperties", "unevaluatedProperties"}
        if has_base and said.isdisjoint(schema):
            return None
        extra = schema.get("additionalProperties", schema.get("unevaluatedProperties"))
        closed = extra is False and "patternProperties" not in schema
        if closed:
            return "forbid" if has_base else None
        return "allow"

    def _fields(self, merged: _Object) -> list[str]:
        names: set[str] = set()
        lines = []
        for prop, schema in merged.properties.items():
            python = self._python_name(prop, names)
            names.add(python)
            lines.append(self._field(prop, python, schema, required=prop in merged.required))
        return lines

    def _field(self, prop: str, python: str, schema: Any, *, required: bool) -> str:
        """One field: `name: type`, `= default` when that is all, else `= Field(...)`."""
        annotation = self.types.annotation(schema)
        arguments: list[str] = []
        if not required and isinstance(schema, dict) and "default" in schema:
            arguments.append(self._default(annotation, schema["default"]))
        elif not required:
            annotation = _absent_or(annotation)
            arguments.append("default=ABSENT")
        description = schema.get("description") if isinstance(schema, dict) else None
        if isinstance(description, str) and description.strip():
            arguments.append(f"description={py_literal(description)}")
        if python != prop:
            alias = py_literal(prop)
            arguments += [f"validation_alias={alias}", f"serialization_alias={alias}"]
        line = f"    {python}: {annotation}"
        if len(arguments) == 1 and arguments[0].startswith("default=") and "[" not in arguments[0]:
            return f"{line} = {arguments[0].removeprefix('default=')}"
        return f"{line} = Field({', '.join(arguments)})" if arguments else line

    def _default(self, annotation: str, value: Any) -> str:
        """The `Field` argument giving a property its schema default (an object default of
        a model field is built by the model, so it is a model, not a dict)."""
        if isinstance(value, dict) and annotation in self.objects:
            return f"default_factory=lambda: {annotation}.model_validate({py_literal(value)})"
        return f"default={py_literal(value)}"

    def _python_name(self, prop: str, taken: set[str]) -> str:
        """A field name for property `prop`: itself when it is a plain identifier that
        shadows nothing; else cleaned up (the JSON name becomes its alias)."""
        name = re.sub(r"\W", "_", prop, flags=re.ASCII).lstrip("_") or "field"
        if name[0].isdigit():
            name = "field_" + name
        while (
            keyword.iskeyword(name)
            or name in self.taken
            or name in _MODEL_ATTRIBUTES
            or name.startswith(("model_validate", "model_dump"))
            or name in taken
        ):
            name += "_"
        return name

    def _doc(self, name: str) -> str | None:
        description = (
            self.schemas[name].get("description") if isinstance(self.schemas[name], dict) else None
        )
        if isinstance(description, str) and description.strip():
            return description
        if name in self.parts:
            tool, part = self.parts[name]
            what = "Arguments" if part == "input" else "Result"
            return f"{what} of the `{tool}` tool."
        return None

    def _is_object(self, name: str, seen: frozenset[str] = frozenset()) -> bool:
        """Whether class `name` is a model class (else a type alias)."""
        if name in seen:
            return False
        seen |= {name}
        schema = self.schemas[name]
        if not isinstance(schema, dict) or "$ref" in schema:
            return False
        kind = schema.get("type")
        if "properties" in schema or (kind == "object" and "allOf" in schema):
            return True
        if "allOf" in schema:  # of objects (a subclass), or of one typed part (an alias)
            merged, bases = _Object(), list[str]()
            self._collect(schema, merged, bases, lambda target: self._is_object(target, seen))
            return bool(merged.properties or bases)
        if name in self.parts:  # a tool's input or output object is always a class
            return kind == "object" or (isinstance(kind, list) and "object" in kind)
        return kind == "object" and schema.get("additionalProperties") is False


@dataclass
class _Object:
    """The properties of a class, gathered from its schema and its `allOf` parts."""

    properties: dict[str, Any] = field(default_factory=dict)
    required: set[str] = field(default_factory=set)


def _imports(used: Iterable[str]) -> str:
    """The import block (isort order: `__future__`, standard library, third party) for the
    prelude and the type names the classes use."""
    wanted: dict[str, set[str]] = {m: set(n) for m, n in modelprelude.IMPORTS.items()}
    for name in used:
        wanted.setdefault(_TYPE_IMPORTS[name], set()).add(name)
    stdlib = [m for m in wanted if m in ("enum", "typing")]
    third = [m for m in wanted if m not in stdlib]
    blocks = ["from __future__ import annotations", _import_lines(stdlib, wanted)]
    return "\n\n".join([*blocks, _import_lines(third, wanted)])


def _absent_or(annotation: str) -> str:
    """`annotation | Absent`, `None` kept last (`str | Absent | None`)."""
    if annotation == "None":
        return "Absent | None"
    if annotation.endswith(" | None"):
        return annotation.removesuffix(" | None") + " | Absent | None"
    return annotation + " | Absent"


def _import_lines(modules: Sequence[str], wanted: Mapping[str, set[str]]) -> str:
    lines = [f"import {m}" for m in sorted(modules) if not wanted[m]]
    lines += [
        f"from {m} import {', '.join(_isort_names(wanted[m]))}"
        for m in sorted(modules)
        if wanted[m]
    ]
    return "\n".join(lines)


def _isort_names(names: Iterable[str]) -> list[str]:
    """isort's order within one `from` import: CONSTANTS, Classes, then functions."""

    def kind(name: str) -> int:
        if name.isupper() and len(name) > 1:
            return 0
        return 1 if name[:1].isupper() else 2

    return sorted(names, key=lambda n: (kind(n), n.lower(), n))


def _docstring(text: str, indent: str) -> str:
    """`text` as a docstring at `indent`: printable, never ending the literal early."""
    lines = [line.rstrip() for line in text.strip().replace("\t", "    ").splitlines()]
    quote = '"' if '""' in text else ""  # escape every quote where three could meet
    body = ("\n" + indent).join(escape(line, quote) for line in lines)
    if not quote and body.endswith('"'):
        body = body[:-1] + '\\"'
    if len(lines) > 1:
        body = body.replace("\n" + indent + "\n", "\n\n")
        return f'{indent}"""{body}\n{indent}"""'
    return f'{indent}"""{body}"""'


def _model_attributes() -> frozenset[str]:
    from pydantic import BaseModel

    return frozenset(dir(BaseModel))


_MODEL_ATTRIBUTES = _model_attributes()
