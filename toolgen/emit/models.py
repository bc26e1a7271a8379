"""Emit `models.py`: typed pydantic v2 models for every tool input and output.

One datamodel-code-generator (DCG) run per spec set, over the combined schema
that `modelplan` builds (every class pre-named, inline objects hoisted), with
the builtin formatter (no black/isort) and no timestamp, so the same spec set
gives byte-identical text. Class names: see `toolgen.emit.modelplan`; other
code gets them from `model_class_names`, never by re-deriving them.

What the options buy: enums become `Literal`s (no enum classes to name);
`MISSING` marks an optional property left out, so a property that is not
nullable rejects `null` and `model_dump()` leaves absent properties out;
`strict_types` keeps JSON types apart (`"5"` is not an integer). Constraints
are written as `constr(...)`-style types: with `Annotated`, DCG would wrap every
constrained member of a union in a class of its own. DCG writes every spec
string (descriptions, titles, patterns, defaults, property names) as an
escaped Python literal; the header note is made printable and single-line.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from toolgen.emit.common import python_header
from toolgen.emit.modelplan import ModelPlan, build_plan, model_class_names
from toolgen.errors import Diagnostic, ErrorCode, SpecError
from toolgen.ir import ToolSet

__all__ = ["dcg_options", "model_class_names", "render_models"]

MODULE_DOC = "Pydantic models of the tool inputs and outputs (datamodel-code-generator)."


# Constraints are written as `constr(...)`-style calls, which type checkers reject as
# annotations (`Annotated` would make DCG wrap constrained union members in classes).
MYPY_NOTE = '# mypy: disable-error-code="valid-type,misc"\n'


class ModelGenerationError(RuntimeError):
    """DCG produced a module that breaks the naming contract (a bug, never bad input)."""


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
        "disable_timestamp": True,
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


def render_models(toolset: ToolSet, *, source_note: str) -> str:
    """The text of `models.py` for `toolset` (deterministic)."""
    plan = build_plan(toolset)
    header = python_header(safe_note(source_note)) + MYPY_NOTE + f'"""{MODULE_DOC}"""'
    if not plan.class_names:  # no tools: DCG refuses an empty schema
        return header + "\n"
    return _generate(plan, header, toolset)


def safe_note(note: str) -> str:
    """`note` fit for a comment on line 1: printable, one line, never an encoding cookie."""
    printable = "".join(ch if ch.isprintable() else " " for ch in note)
    return _CODING.sub("coding ", printable)


_CODING = re.compile(r"coding(?=[:=])")  # PEP 263: `coding:` on line 1 or 2 sets the encoding


def _generate(plan: ModelPlan, header: str, toolset: ToolSet) -> str:
    from datamodel_code_generator import Error, generate

    try:
        code = generate(dict(plan.schema), **dcg_options(), custom_file_header=header)
    except Error as exc:
        origin = toolset.server.origin
        raise SpecError(
            [
                Diagnostic(
                    ErrorCode.INVALID_SCHEMA,
                    f"datamodel-code-generator cannot build models from these schemas: {exc}",
                    origin.locate() if origin else None,
                )
            ]
        ) from exc
    if not isinstance(code, str):  # pragma: no cover - one module in, one module out
        raise ModelGenerationError("datamodel-code-generator returned several modules")
    code = code.lstrip("\n")
    _check_names(plan, code)
    return code


def _check_names(plan: ModelPlan, code: str) -> None:
    """Every planned class exists under its exact name (the runtime imports them)."""
    defined = {node.name for node in ast.parse(code).body if isinstance(node, ast.ClassDef)}
    missing = [name for name in plan.class_names if name not in defined]
    if missing:
        raise ModelGenerationError(f"generated models lack classes {missing}")
