"""Emit `models.py`: typed pydantic v2 models for every tool input and output.

One datamodel-code-generator (DCG) run per spec set, over the combined schema
that `modelplan` builds (every class pre-named, inline objects hoisted), with no
timestamp, so the same spec set gives byte-identical text. Class names: see
`toolgen.build.python.modelplan`; other code gets them from
`model_class_names`, never by re-deriving them.

What the options buy: fields are `Annotated[T, Field(...)]` with the
constraints in `Field` and defaults by `=` (`use_annotated`,
`field_constraints`); a def or output that is not an object is a type alias
(`NoteId = TypeAliasType("NoteId", Annotated[str, Field(pattern=...)])`), so
ids are plain hashable `str`s; enums become `Literal`s (longer than
`modelvalues.LARGE_ENUM`: a checked `str`, see `modelvalues`); every class derives
from the prelude's `ToolModel` (one shared config); `strict_types` keeps JSON
types apart (`"5"` is not an integer). DCG's `MISSING` for a property left out
becomes the prelude's falsy `OMITTED` (see `modelshape`, `modelprelude`): a
property that is not nullable rejects `null`, and dumps leave absent properties
out. Formats are not enforced (the plan drops them): a `uri` is the `str` it
came as. DCG writes every spec string (descriptions, titles, patterns,
defaults, property names) as an escaped Python literal; the header note is
made printable and single-line.

Incremental: each unit of the plan (all defs; each tool) is keyed by a hash of
its schemas, the schemas of the defs it refers to and the generator's
versions. With a cache (`toolgen.build.cache`), only units not found in it go
through DCG, in one run (with the defs they refer to); `modelsplice` cuts that
run's module into per-unit fragments and splices all fragments into the
module. Without a cache every unit is generated, the same way, so a rebuild
from a cache gives byte-identical text. A unit's fragment is what DCG makes of
the unit alone (a run over several units gives the same text, except where DCG
aliases an import module-wide: those units are made again alone).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from toolgen.build.common import python_header
from toolgen.build.python import modelprelude, modelvalues
from toolgen.build.python.modelplan import (
    DEFS,
    SCHEMA_DIALECT,
    ModelPlan,
    build_plan,
    model_class_names,
)
from toolgen.build.python.modelshape import reshape
from toolgen.build.python.modelsplice import Fragment, ModelGenerationError, splice, split
from toolgen.schema.walk import walk_schemas
from toolgen.spec.errors import Diagnostic, ErrorCode, Location, SpecError
from toolgen.spec.ir import ToolSet

if TYPE_CHECKING:
    from toolgen.build.cache import Cache

__all__ = ["ModelGenerationError", "dcg_options", "model_class_names", "render_models"]

MODULE_DOC = "Pydantic models of the tool inputs and outputs (datamodel-code-generator)."


PRELUDE = Fragment((modelprelude.PRELUDE,), (), modelprelude.IMPORTS)


def dcg_options() -> dict[str, Any]:
    """The DCG options of every build (the CLI equivalent is in the tests' measurement)."""
    from datamodel_code_generator import (
        InputFileType,
        LiteralType,
        PythonVersion,
        TargetPydanticVersion,
    )
    from datamodel_code_generator.enums import DataModelType, StrictTypes
    from datamodel_code_generator.format import Formatter

    return {
        "input_file_type": InputFileType.JsonSchema,
        "output_model_type": DataModelType.PydanticV2BaseModel,
        "target_python_version": PythonVersion.PY_311,
        "target_pydantic_version": TargetPydanticVersion.V2_14,
        "formatters": [Formatter.BUILTIN],
        "builtin_format_line_length": 100,  # ruff's setting here, wherever the build runs
        "disable_timestamp": True,
        "use_annotated": True,
        "field_constraints": True,
        "use_type_alias": True,
        "base_class": f"{modelprelude.BASE_MODULE}.{modelprelude.BASE_CLASS}",
        "use_single_line_docstring": True,
        "skip_root_model": True,
        "enum_field_as_literal": LiteralType.All,
        "use_missing_sentinel": True,
        "strict_nullable": True,
        "strict_types": [StrictTypes.str, StrictTypes.int, StrictTypes.float, StrictTypes.bool],
        "use_double_quotes": True,
        "use_schema_description": True,
        "keep_model_order": True,
        "allow_remote_refs": False,
        # pydantic's EmailStr needs the email-validator package: keep emails plain strings.
        "type_mappings": ["string+email=string", "string+idn-email=string"],
    }


def render_models(
    toolset: ToolSet,
    *,
    source_note: str,
    cache: Cache | None = None,
    plan: ModelPlan | None = None,
    keys: Sequence[str] | None = None,
) -> str:
    """The text of `models.py` for `toolset` (deterministic, with or without `cache`); `keys`
    are the plan's `unit_keys` when the caller has them."""
    plan = plan or build_plan(toolset)
    header = python_header(source_note) + f'"""{MODULE_DOC}"""'
    if not plan.class_names:  # no tools: DCG refuses an empty schema
        return header + "\n"
    keys = unit_keys(plan) if keys is None else keys
    fragments = _cached(cache, keys) if cache is not None else {}
    missing = [index for index in range(len(keys)) if index not in fragments]
    if missing:
        origin = toolset.server.origin
        made = generate_fragments(plan, missing, origin.locate() if origin else None)
        fragments.update(made)
        for index in missing:
            if cache is not None:
                cache.put(keys[index], made[index].to_json())
    values = modelvalues.fragment(plan.value_sets)  # made every time: no DCG run
    units = [fragments[index] for index in range(len(keys))]
    return splice(header, [values, *units] if values else units, PRELUDE)


def _cached(cache: Cache, keys: Sequence[str]) -> dict[int, Fragment]:
    """The fragments found in `cache`, by unit index (a damaged entry is made again)."""
    found: dict[int, Fragment] = {}
    for index, key in enumerate(keys):
        value = cache.get(key)
        if value is not None:
            with contextlib.suppress(ValueError):
                found[index] = Fragment.from_json(value)
    return found


def unit_keys(plan: ModelPlan) -> list[str]:
    """A content hash per unit: its class schemas, those of the classes they refer to outside
    the unit, and everything else the generated text depends on."""
    classes = plan.schema["$defs"]
    context = _Context(plan)
    salt = _salt()
    keys = []
    for unit in plan.units:
        parts = [[name, classes[name]] for name in (*unit.classes, *context.of(unit.classes))]
        text = json.dumps([salt, parts], ensure_ascii=False, separators=(",", ":"))
        keys.append(hashlib.sha256(text.encode()).hexdigest())
    return keys


class _Context:
    """The classes a group of classes refers to outside itself (the defs they use)."""

    def __init__(self, plan: ModelPlan) -> None:
        self.classes = plan.schema["$defs"]
        self.position = {name: index for index, name in enumerate(plan.class_names)}
        self.refs: dict[str, set[str]] = {}

    def of(self, names: Sequence[str]) -> list[str]:
        """The classes outside `names` that `names` refer to, directly or not, in plan order."""
        inside = set(names)
        seen: set[str] = set()
        todo = list(names)
        while todo:
            for ref in self._refs(todo.pop()):
                if ref not in seen and ref not in inside:
                    seen.add(ref)
                    todo.append(ref)
        return sorted(seen, key=self.position.__getitem__)

    def _refs(self, name: str) -> set[str]:
        if name not in self.refs:
            refs = (
                s.get("$ref") for _, s in walk_schemas(self.classes[name]) if isinstance(s, dict)
            )
            self.refs[name] = {
                ref[len(DEFS) :]
                for ref in refs
                if isinstance(ref, str)
                and ref.startswith(DEFS)
                and ref[len(DEFS) :] in self.classes
            }
        return self.refs[name]


def _salt() -> list[str]:
    """What a fragment depends on besides its schemas: DCG, Python, this code (and its
    DCG options)."""
    from importlib.metadata import version

    from toolgen.build.python import modelshape, modelsplice
    from toolgen.spec.parsecache import code_salt

    return [
        "models",
        version("datamodel-code-generator"),
        sys.version.split()[0],
        code_salt(__file__, modelsplice.__file__, modelshape.__file__, modelprelude.__file__),
    ]


def generate_fragments(
    plan: ModelPlan, units: Sequence[int], where: Location | None
) -> dict[int, Fragment]:
    """Fragments of `units` from one DCG run over their classes and the defs they use (an
    error DCG raises is reported at `where`, the spec set's server block)."""
    from datamodel_code_generator import Error, generate

    own = [name for index in units for name in plan.units[index].classes]
    wanted = set(own) | set(_Context(plan).of(own))
    classes = plan.schema["$defs"]
    schema = {
        "$schema": SCHEMA_DIALECT,
        "$defs": {name: classes[name] for name in plan.class_names if name in wanted},
    }
    try:
        code = generate(schema, **dcg_options(), custom_file_header="# units")
    except Error as exc:
        raise SpecError(
            [
                Diagnostic(
                    ErrorCode.INVALID_SCHEMA,
                    f"datamodel-code-generator cannot build models from these schemas: {exc}",
                    where,
                )
            ]
        ) from exc
    if not isinstance(code, str):  # pragma: no cover - one module in, one module out
        raise ModelGenerationError("datamodel-code-generator returned several modules")
    unit_of = {name: index for index, unit in enumerate(plan.units) for name in unit.classes}
    fragments, defined = split(reshape(code), unit_of)
    absent = [name for name in own if name not in defined]
    if absent:
        raise ModelGenerationError(f"generated models lack classes {absent}")
    made = {index: _own_imports(fragments.get(index, Fragment((), (), ()))) for index in units}
    # DCG aliases an import for the whole module when some field is named like it
    # (`date: date` gives `from datetime import date as date_aliased`): the units using
    # an aliased import are made again alone, so that no unit's text depends on another's.
    if len(units) > 1:
        for index in [i for i in units if any(imp.alias for imp in made[i].imports)]:
            made.update(generate_fragments(plan, [index], where))
    return made


WARM_UP_SCHEMA: dict[str, Any] = {
    "$schema": SCHEMA_DIALECT,
    "$defs": {
        "Item": {
            "type": "object",
            "description": "An object with constrained, enumerated and referenced fields.",
            "properties": {
                "name": {"type": "string", "maxLength": 3, "description": "A name."},
                "kind": {"enum": ["a", "b"]},
                "counts": {"$ref": "#/$defs/Counts"},
            },
            "required": ["name"],
            "additionalProperties": False,
        },
        "Counts": {"type": "array", "items": {"type": "integer", "minimum": 0}},
    },
}


def warm_up() -> None:
    """One small DCG run: a process's first run pays DCG's imports and template compilation
    (about half a second), which a forked child can pay before it has work."""
    from datamodel_code_generator import generate

    generate(WARM_UP_SCHEMA, **dcg_options())


def _own_imports(fragment: Fragment) -> Fragment:
    """`fragment` without the import of the base class (the prelude defines it)."""
    imports = tuple(i for i in fragment.imports if i.module != modelprelude.BASE_MODULE)
    return Fragment(fragment.blocks, fragment.rebuilds, imports)
