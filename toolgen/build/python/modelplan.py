"""Plan the pydantic models of a spec set: every class name, and the one schema DCG reads.

datamodel-code-generator (DCG) names classes after property names and numbers
the clashes (`Method1`, `Method2`). So DCG gets a combined schema in which each
class already has its final name: one `$defs` entry per class, and nothing DCG
would make a class or type alias of left inline. Each entry is the models' view
of a schema (`toolgen.build.python.modelview`: a few shapes, what pydantic can
check), and every member that DCG would make a class or alias of where it is used
is hoisted out into an entry of its own: an object class anywhere; a constrained
value (a bound, a pattern) anywhere but as a property, whose `Field` holds it.

Naming (helpers in `toolgen.build.naming`):

- Tools: `<Tool>Input` / `<Tool>Output`, `<Tool>` being the CamelCase of the
  tool name split at `_`, `.` and `-` (`place_order` → `PlaceOrder`, `a.b-c`
  → `ABC`; a leading digit gets the prefix `Tool`). When two tools give the
  same CamelCase, the first in spec-set order keeps it and a later one spells
  its separators out (`get-x` → `GetDashX`, `get.x` → `GetDotX`, `get_x` →
  `GetUnderscoreX`), else gets an 8-digit hash of its name appended. Tool
  classes are named first: they are the contract with the server stubs.
- Defs: one class each, under the def's bundled name when that is already a
  class name (`Note`), else its CamelCase (`note_id` → `NoteId`), plus `Def`
  when a tool class or an imported name (`BaseModel`, `Field`) has it.
- Hoisted members: owner class + path, a property by its CamelCase
  (`CreateNoteInput` + `address` → `CreateNoteInputAddress`), array items
  `Item`, map values `Value`, union branches by `naming.branch_labels`.
  A name still taken gets an 8-digit hash of its schema path: no counters.

An enum of more than `typemodel.LARGE_ENUM` strings is a `str` checked against a
frozenset (`toolgen.build.python.modelvalues`), not a `Literal`: the plan names it
(`PickInputChoice`, as a hoisted object would be named) and tells DCG its type by name.

Patterns read `\\d`, `\\w`, `\\s` as ECMA-262 does, as the runtime does
(`toolgen.build.python.modelregex`). Formats are left out of the plan: the runtime does
not enforce them, so neither do the models (a `date-time` is a `str`, a `uri` is not rewritten on dump).

A tool part that is exactly an object def (`output: {$ref: "#/defs/Note"}`,
which the resolver inlines) becomes a subclass of the def's class.

Units: the classes are grouped into one unit for all defs and one per tool
(its input and output classes with the objects hoisted out of them). A tool's
classes refer only to its own classes and to def classes, so each unit can be
generated apart from the others (see `toolgen.build.python.models`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from toolgen.build.naming import Names, branch_labels, camel, hash8, reserved_types
from toolgen.build.python.modelregex import ecma_pattern
from toolgen.build.python.modelvalues import (
    PYTHON_TYPE,
    ValueSet,
    constant_name,
    is_json_enum,
    is_large_enum,
    typed_by_name,
)
from toolgen.build.python.modelview import (
    ANNOTATIONS,
    NUMBER,
    STRING,
    as_class,
    is_class,
    view,
)
from toolgen.build.typemodel import TypeModel, all_defs, build_model
from toolgen.schema.jsonequal import same
from toolgen.schema.validation import SchemaValidator
from toolgen.schema.walk import map_refs
from toolgen.spec.ir import ToolSet
from toolgen.spec.resolver import def_name

DEFS = "#/$defs/"
SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"

# Keywords about one use of a schema, not the schema: they stay beside the `$ref`
# that replaces a hoisted object.
USE_SITE_KEYS = ("description", "default", "examples", "deprecated", "readOnly", "writeOnly")

_PLAIN = frozenset(
    {"type", "items", "additionalProperties", "anyOf", "oneOf", "enum", "$ref", PYTHON_TYPE}
    | set(ANNOTATIONS)
)
"""What a view may say and stay in place anywhere: types, enums, references, unions."""
_SCALAR_TYPES = ("string", "integer", "number", "boolean")
_SCALAR_KEYWORDS = set(STRING) | set(NUMBER) | {"type", "title", "description", "examples"}

_EXTRA_KEYWORDS = frozenset({"additionalProperties", "patternProperties"})


@dataclass(frozen=True)
class Unit:
    """Classes generated together: all defs' (`tool` None) or one tool's."""

    tool: str | None
    classes: tuple[str, ...]


@dataclass(frozen=True)
class ModelPlan:
    """The classes of one `models.py` and the combined schema DCG gets."""

    tool_classes: Mapping[str, tuple[str, str | None]]
    """Tool name → (input class, output class or None)."""
    schema: Mapping[str, Any]
    class_names: tuple[str, ...]
    """Every class of the plan (tools, defs, hoisted objects), in schema order."""
    units: tuple[Unit, ...]
    """The defs' unit (when there are defs) then one per tool, in spec-set order."""
    value_sets: tuple[ValueSet, ...] = ()
    """The enums too long for a `Literal`, in plan order (see `modelvalues`)."""


def model_class_names(
    toolset: ToolSet, plan: ModelPlan | None = None
) -> dict[str, tuple[str, str | None]]:
    """Tool name → (input class, output class or None): the one place these names are made."""
    return dict((plan or build_plan(toolset)).tool_classes)


def build_plan(toolset: ToolSet, model: TypeModel | None = None) -> ModelPlan:
    """Name every class and build the combined schema (deterministic for the same IR).

    Classes take the names of the spec set's type model (`model`, read here when not given):
    its tool and def types, and its inline types by the place they are used. Classes the
    model has no name for (constrained items DCG would otherwise name) get names of their
    own, never one of the model's. The models, server and client emitters all need the
    plan: a build plans once and hands it to each (`plan=`); called alone, each emitter
    plans for itself."""
    return _Planner(toolset, model or build_model(toolset)).plan()


class _Planner:
    def __init__(self, toolset: ToolSet, model: TypeModel) -> None:
        self.toolset = toolset
        self.model = model
        self.names = Names(taken=set(reserved_types()) | set(model.types))
        self.classes: dict[str, Any] = {}  # class name -> schema, in output order
        self.def_schemas: dict[str, Any] = {}  # bundled def name -> schema (bundled refs)
        self.def_classes: dict[str, str] = {}  # bundled def name -> class name
        self.rewritten_defs: dict[str, Any] = {}  # bundled def name -> schema (class refs)
        self.by_class: dict[str, Any] = {}  # class name -> its def's schema (class refs)
        self.def_views: dict[str, Any] = {}  # bundled def name -> the models' view of it
        self.unit: list[str] = []  # the classes of the unit being planned
        self.value_sets: list[ValueSet] = []

    def plan(self) -> ModelPlan:
        tools = self.toolset.tools
        tool_classes = {
            name: (types.input, types.output) for name, types in self.model.tools.items()
        }
        self.def_schemas = all_defs(self.toolset)
        self.def_classes = dict(self.model.defs)
        self.rewritten_defs = {name: self._rewrite(s) for name, s in self.def_schemas.items()}
        self.by_class = {self.def_classes[n]: s for n, s in self.rewritten_defs.items()}
        self.def_views = {
            n: self._view(s, self.def_classes[n]) for n, s in self.rewritten_defs.items()
        }
        # Order: tool classes, defs, then hoisted objects as they are met.
        for input_class, output_class in tool_classes.values():
            self.classes.update(dict.fromkeys(c for c in (input_class, output_class) if c))
        self.classes.update(dict.fromkeys(self.def_classes.values()))
        units: list[Unit] = []
        for tool in tools:
            input_class, output_class = tool_classes[tool.name]
            self.unit = [input_class]
            self._root(input_class, tool.input_schema, f"{tool.name}:input", whole=True)
            if output_class and tool.output_schema is not None:
                self.unit.append(output_class)
                key = f"{tool.name}:output"
                self._root(output_class, tool.output_schema, key, whole=tool.output_is_object)
            units.append(Unit(tool.name, tuple(self.unit)))
        self.unit = list(self.def_classes.values())
        for name, schema in self.def_views.items():
            owner = self.def_classes[name]
            self.classes[owner] = _open(self._body(schema, owner, f"def:{name}", root=True))
        if self.unit:
            units.insert(0, Unit(None, tuple(self.unit)))
        schema = {"$schema": SCHEMA_DIALECT, "$defs": self.classes}
        return ModelPlan(
            tool_classes, schema, tuple(self.classes), tuple(units), tuple(self.value_sets)
        )

    def _rewrite(self, schema: Any) -> Any:
        """`schema` with refs to bundled defs pointed at their classes."""

        def rewrite(ref: str, _path: object) -> str:
            name = def_name(ref)
            target = self.def_classes.get(name) if name is not None else None
            return DEFS + target if target else ref

        return map_refs(schema, rewrite)

    def _view(self, schema: Any, own: str | None = None) -> Any:
        """What the models say of `schema` (`modelview`), the schema of class `own` when it
        is a def's; `{}` where no value is valid."""

        def resolve(ref: str) -> Any:
            return self.by_class.get(ref.removeprefix(DEFS))

        seen = view(schema, resolve, self._accepts, own and DEFS + own)
        return {} if seen is False else seen

    def _accepts(self, schema: Mapping[str, Any], value: Any) -> bool:
        """Whether `schema` (refs to classes) accepts `value`, as the runtime would judge."""
        try:
            return SchemaValidator({**schema, "$defs": self.by_class}).is_valid(value)
        except ValueError:  # a reference it cannot resolve here
            return False

    def _root(self, owner: str, schema: Mapping[str, Any], key: str, *, whole: bool) -> None:
        """Class `owner` of a tool's input or output (`whole`: an object, so a class)."""
        body = self._rewrite({k: v for k, v in schema.items() if k != "$defs"})
        for name, def_schema in self.rewritten_defs.items():
            if is_class(self.def_views[name]) and same(body, def_schema):
                self.classes[owner] = {"allOf": [{"$ref": DEFS + self.def_classes[name]}]}
                return
        seen = as_class(self._view(body)) if whole else self._view(body)
        self.classes[owner] = _open(self._body(seen, owner, key, root=True))

    # -- hoisting -------------------------------------------------------------

    def _body(self, schema: Any, owner: str, key: str, *, root: bool = False) -> Any:
        """A copy of the view `schema`, the body of class `owner`, with what DCG would make
        a class of hoisted and named (`root`: `schema` is all of `owner`, which is a type
        alias when not an object)."""
        if not isinstance(schema, dict):
            return schema
        schema = _nullable_scalar(schema)
        if is_large_enum(schema) or is_json_enum(schema):
            return self._value_set(schema, owner + "Values" if root else owner, key)
        out: dict[str, Any] = {}
        for word, value in schema.items():
            at = f"{key}/{word}"
            if word == "properties":
                out[word] = {
                    prop: self._member(
                        sub, owner + (camel(prop) or "Property"), f"{at}/{prop}", field=True
                    )
                    for prop, sub in value.items()
                }
            elif word == "patternProperties":  # one key pattern (see `modelview`)
                out[word] = {
                    ecma_pattern(p): self._member(s, owner + "Value", f"{at}/{p}")
                    for p, s in value.items()
                }
            elif word == "additionalProperties" and isinstance(value, dict):
                out[word] = self._member(value, owner + "Value", at)
            elif word == "items":
                out[word] = self._member(value, owner + "Item", at)
            elif word in ("anyOf", "oneOf"):
                out[word] = self._branches(value, owner, at)
            elif word == "pattern":
                out[word] = ecma_pattern(value)  # `\\d` as the runtime reads it
            else:
                out[word] = value
        return out

    def _value_set(self, schema: Mapping[str, Any], name: str, key: str) -> dict[str, Any]:
        """`schema`, a large enum, as a string of the value set it names (see `modelvalues`)."""
        name = self.model.sites.get(key) or self.names.claim([name], key)
        constant = constant_name(name) + "_VALUES"
        if any(v.constant == constant for v in self.value_sets):
            constant += "_" + hash8(key)
        if is_json_enum(schema):
            self.value_sets.append(ValueSet(name, constant, tuple(schema["enum"]), exact=True))
            rest = {k: v for k, v in schema.items() if k not in ("type", "enum")}
            return {**rest, "type": "number", PYTHON_TYPE: name}  # (DCG writes the name)
        self.value_sets.append(ValueSet(name, constant, tuple(schema["enum"])))
        return typed_by_name(schema, name)

    def _branches(self, branches: list[Any], owner: str, key: str) -> list[Any]:
        """Union branches; with several object branches each is named by its label."""
        objects = [i for i, sub in enumerate(branches) if is_class(sub)]
        labels: dict[int, str] = {}
        if len(objects) > 1:
            labels = dict(zip(objects, branch_labels([branches[i] for i in objects]), strict=True))
        return [
            self._member(sub, owner + labels.get(i, ""), f"{key}/{i}")
            for i, sub in enumerate(branches)
        ]

    def _member(self, schema: Any, name: str, key: str, *, field: bool = False) -> Any:
        """The view `schema` where it is used: hoisted into a class or type alias `name` when
        DCG would make one of it there (an object class; constraints where no `Field` of a
        property holds them), else written in place."""
        if not (is_class(schema) or (not field and _constrained(schema))):
            return self._body(schema, name, key)
        owner = self.model.sites.get(key) or self.names.claim([name, name + "Value"], key)
        self.unit.append(owner)
        body = {k: v for k, v in schema.items() if k != "default"}
        self.classes[owner] = None  # its place comes before the classes of its members
        self.classes[owner] = _open(self._body(body, owner, key, root=True))
        return {"$ref": DEFS + owner, **{k: schema[k] for k in USE_SITE_KEYS if k in schema}}


def _constrained(schema: Any) -> bool:
    """Whether a view says more than a type (a bound, a pattern, a key pattern): DCG writes
    that into a `Field` of a property, else makes a class or alias of it."""
    return isinstance(schema, dict) and not _PLAIN.issuperset(schema)


def _open(schema: Any) -> Any:
    """An object class body that says nothing on extra properties allows them (JSON Schema's
    default), which DCG only writes as `extra="allow"` when told so explicitly."""
    if not isinstance(schema, dict) or "$ref" in schema or "allOf" in schema:
        return schema
    if schema.get("type") != "object" and "properties" not in schema:
        return schema
    if _EXTRA_KEYWORDS.isdisjoint(schema):
        return {**schema, "additionalProperties": True}
    return schema


def _nullable_scalar(schema: dict[str, Any]) -> dict[str, Any]:
    """`anyOf: [S, {type: null}]` (or oneOf) as `S` with `null` added to its type, when `S` is
    a plain scalar schema (the same values; DCG then writes `Annotated[str | None, Field(...)]`
    rather than an alias for `S`)."""
    for word in ("anyOf", "oneOf"):
        branches = schema.get(word)
        if not (isinstance(branches, list) and len(branches) == 2):
            continue
        nulls = [b for b in branches if b == {"type": "null"}]
        other = [b for b in branches if b != {"type": "null"}]
        if len(nulls) != 1 or len(other) != 1 or not isinstance(other[0], dict):
            continue
        branch = other[0]
        rest = {k: v for k, v in schema.items() if k != word}
        if (
            branch.get("type") in _SCALAR_TYPES
            and _SCALAR_KEYWORDS.issuperset(branch)
            and rest.keys().isdisjoint(branch)
            and rest.keys().isdisjoint(("type", "enum", "const"))
        ):
            return {**rest, **branch, "type": [branch["type"], "null"]}
    return schema
