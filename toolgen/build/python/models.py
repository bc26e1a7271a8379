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
`typemodel.LARGE_ENUM`: a checked `str`, see `modelvalues`); every class derives
from the prelude's `ToolModel` (one shared config); `strict_types` keeps JSON
types apart (`"5"` is not an integer). DCG's `MISSING` for a property left out
becomes the prelude's falsy `OMITTED` (see `modelshape`, `modelprelude`): a
property that is not nullable rejects `null`, and dumps leave absent properties
out. Formats are not enforced (the plan drops them): a `uri` is the `str` it
came as. DCG writes every spec string (descriptions, titles, patterns,
defaults, property names) as an escaped Python literal; the header note is
made printable and single-line.

Each unit of the plan (all defs; each tool) can be generated apart from the others:
`modelsplice` cuts a DCG run's module into per-unit fragments and splices fragments
into the module, so a big spec set's units are shared out between worker processes
(`modeljobs`) and the text is the same whichever run made each fragment (a unit whose
import DCG aliases module-wide is made again alone).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from datamodel_code_generator import (
    Error,
    InputFileType,
    LiteralType,
    PythonVersion,
    TargetPydanticVersion,
    generate,
)
from datamodel_code_generator.enums import DataModelType, StrictTypes
from datamodel_code_generator.format import Formatter

from toolgen.build.common import python_header
from toolgen.build.naming import field_aliases
from toolgen.build.python import dcgfixes, modelprelude, modelvalues
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

__all__ = ["ModelGenerationError", "dcg_options", "model_class_names", "render_models"]

MODULE_DOC = "Pydantic models of the tool inputs and outputs (datamodel-code-generator)."


PRELUDE = Fragment((modelprelude.PRELUDE,), (), modelprelude.IMPORTS)


def dcg_options() -> dict[str, Any]:
    """The DCG options of every build (the CLI equivalent is in the tests' measurement)."""
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
    plan: ModelPlan | None = None,
    fragments: Mapping[int, Fragment] | None = None,
) -> str:
    """The text of `models.py` for `toolset` (deterministic); `fragments` are those of every
    unit of `plan` when the caller made them (`modeljobs`), else they are made here."""
    plan = plan or build_plan(toolset)
    header = python_header(source_note) + f'"""{MODULE_DOC}"""'
    if not plan.class_names:  # no tools: DCG refuses an empty schema
        return header + "\n"
    if fragments is None:
        origin = toolset.server.origin
        fragments = generate_fragments(
            plan, range(len(plan.units)), origin.locate() if origin else None
        )
    values = modelvalues.fragment(plan.value_sets)  # made every time: no DCG run
    units = [fragments[index] for index in range(len(plan.units))]
    return splice(header, [values, *units] if values else units, PRELUDE)


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


def generate_fragments(
    plan: ModelPlan, units: Sequence[int], where: Location | None
) -> dict[int, Fragment]:
    """Fragments of `units` from one DCG run over their classes and the defs they use (an
    error DCG raises is reported at `where`, the spec set's server block)."""
    own = [name for index in units for name in plan.units[index].classes]
    wanted = set(own) | set(_Context(plan).of(own))
    classes = plan.schema["$defs"]
    schema = {
        "$schema": SCHEMA_DIALECT,
        "$defs": {name: classes[name] for name in plan.class_names if name in wanted},
    }
    names = (
        prop
        for _, sub in walk_schemas(schema)
        if isinstance(sub, dict) and isinstance(sub.get("properties"), dict)
        for prop in sub["properties"]
    )
    try:
        with dcgfixes.faster():
            code = generate(
                schema,
                **dcg_options(),
                aliases=field_aliases(names),
                custom_file_header="# units",
            )
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


def _own_imports(fragment: Fragment) -> Fragment:
    """`fragment` without the import of the base class (the prelude defines it) and of
    `StrictInt` (its uses are the prelude's integer now, see `modelshape`)."""
    imports = tuple(
        i
        for i in fragment.imports
        if i.module != modelprelude.BASE_MODULE and i.name != modelprelude.DCG_INTEGER
    )
    return Fragment(fragment.blocks, fragment.rebuilds, imports)
