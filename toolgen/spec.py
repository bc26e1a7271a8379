"""The spec model: one spec file, validated and frozen (SPEC-FORMAT.md, version 1).

Structure is checked by strict pydantic models (unknown keys forbidden, no
coercion: `yes` is not a boolean, `1` is not a string); schema keywords are
checked against the JSON Schema 2020-12 metaschema. Every failure becomes a
`Diagnostic` at the exact key or value, through `SourceFile.locate`.
Cross-file rules (duplicate tools, `$ref`s, examples) belong to the resolver.
"""

from __future__ import annotations

import difflib
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from toolgen.errors import Diagnostic, ErrorCode, SpecError
from toolgen.ir import HINTS
from toolgen.schemacheck import metaschema_errors
from toolgen.source import JsonPath, SourceFile

FORMAT_VERSION = 1
TOOL_NAME_PATTERN = r"^[A-Za-z0-9_.-]{1,128}$"
SERVER_NAME_PATTERN = r"^[a-z][a-z0-9_-]{0,63}$"
YAML11_BOOLEANS = frozenset(
    {
        "y",
        "Y",
        "yes",
        "Yes",
        "YES",
        "n",
        "N",
        "no",
        "No",
        "NO",
        "on",
        "On",
        "ON",
        "off",
        "Off",
        "OFF",
    }
)


class _Strict(BaseModel):
    """Base of the spec models: strict types, unknown keys rejected, `x-` keys set aside."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, populate_by_name=False)

    @model_validator(mode="before")
    @classmethod
    def _drop_extensions(cls, data: Any) -> Any:
        if isinstance(data, dict):
            return {
                k: v for k, v in data.items() if not (isinstance(k, str) and k.startswith("x-"))
            }
        return data


class ServerSpec(_Strict):
    name: Annotated[str, Field(pattern=SERVER_NAME_PATTERN)]
    version: str
    title: str | None = None
    description: str | None = None
    instructions: str | None = None


class AnnotationsSpec(_Strict):
    readOnly: bool | None = None
    destructive: bool | None = None
    idempotent: bool | None = None
    openWorld: bool | None = None
    readOnlyHint: bool | None = None
    destructiveHint: bool | None = None
    idempotentHint: bool | None = None
    openWorldHint: bool | None = None
    title: str | None = None  # extension: MCP `annotations.title`


class ExampleSpec(_Strict):
    input: Any = None
    output: Any = None


class ToolSpec(_Strict):
    name: Annotated[str, Field(pattern=TOOL_NAME_PATTERN)]
    title: str | None = None
    description: str | None = None
    annotations: AnnotationsSpec = AnnotationsSpec()
    input: dict[str, Any] | None = None
    output: Any = None
    examples: list[ExampleSpec] = Field(default_factory=list)


class SpecFileModel(_Strict):
    toolgen: int
    server: ServerSpec | None = None
    defs: dict[str, Any] = Field(default_factory=dict)
    tools: list[ToolSpec] = Field(default_factory=list)


class SpecFile:
    """A validated spec file: its model, and the source it came from for positions."""

    def __init__(self, model: SpecFileModel, source: SourceFile) -> None:
        self.model = model
        self.source = source

    @property
    def data(self) -> Any:
        return self.source.data


_EXPECTED = {
    "string_type": "a string",
    "bool_type": "a boolean (true or false)",
    "int_type": "an integer",
    "dict_type": "a mapping",
    "model_type": "a mapping",
    "tuple_type": "a list",
    "list_type": "a list",
}


def parse_spec_file(source: SourceFile) -> SpecFile:
    """Validate one parsed file as a spec file, or raise `SpecError` with every problem."""
    data = source.data
    if not isinstance(data, dict):
        raise SpecError(
            [
                Diagnostic(
                    ErrorCode.WRONG_TYPE,
                    "a spec file must be a mapping with `toolgen: 1` at the top",
                    source.locate(()),
                )
            ]
        )
    version = data.get("toolgen")
    if "toolgen" not in data:
        raise SpecError(
            [
                Diagnostic(
                    ErrorCode.VERSION,
                    "missing `toolgen: 1`: every spec file must start with the format version",
                    source.locate(()),
                )
            ]
        )
    if type(version) is not int or version != FORMAT_VERSION:
        raise SpecError(
            [
                Diagnostic(
                    ErrorCode.VERSION,
                    f"unsupported format version {version!r}; expected `toolgen: 1`",
                    source.locate(("toolgen",)),
                )
            ]
        )
    try:
        model = SpecFileModel.model_validate(data)
    except ValidationError as exc:
        raise SpecError(_from_pydantic(exc, source)) from None
    problems = [*_hint_conflicts(model, source), *_schema_problems(data, source)]
    if problems:
        raise SpecError(problems)
    return SpecFile(model, source)


def _from_pydantic(exc: ValidationError, source: SourceFile) -> list[Diagnostic]:
    out = []
    for err in exc.errors(include_url=False):
        path: JsonPath = tuple(err["loc"])
        kind = err["type"]
        value = err.get("input")
        field = str(path[-1]) if path else ""
        if kind == "extra_forbidden":
            out.append(
                Diagnostic(
                    ErrorCode.UNKNOWN_KEY,
                    _unknown_key_message(source, path),
                    source.locate(path, key=True),
                )
            )
        elif kind == "missing":
            out.append(
                Diagnostic(
                    ErrorCode.MISSING_KEY,
                    f"missing required key {field!r}",
                    source.locate(path[:-1]),
                )
            )
        elif kind == "bool_type" and value in YAML11_BOOLEANS:
            out.append(
                Diagnostic(
                    ErrorCode.YAML11_BOOLEAN,
                    f"{field!r} must be a boolean; {value!r} is a string in YAML 1.2, write true or false",
                    source.locate(path),
                )
            )
        elif kind == "string_pattern_mismatch" and field == "name":
            rule = TOOL_NAME_PATTERN if "tools" in path else SERVER_NAME_PATTERN
            out.append(
                Diagnostic(
                    ErrorCode.INVALID_NAME,
                    f"invalid name {value!r}; expected a name matching {rule}",
                    source.locate(path),
                )
            )
        elif kind in _EXPECTED:
            out.append(
                Diagnostic(
                    ErrorCode.WRONG_TYPE,
                    f"{field!r} must be {_EXPECTED[kind]}, got {_describe(value)}",
                    source.locate(path),
                )
            )
        else:
            out.append(
                Diagnostic(ErrorCode.INVALID_VALUE, f"{field!r}: {err['msg']}", source.locate(path))
            )
    return out


def _describe(value: Any) -> str:
    names = {
        bool: "boolean",
        int: "integer",
        float: "number",
        str: "string",
        list: "list",
        dict: "mapping",
    }
    if value is None:
        return "null"
    kind = names.get(type(value), type(value).__name__)
    return f"{kind} {value!r}" if isinstance(value, (bool, int, float, str)) else kind


_ALLOWED_KEYS: dict[str, tuple[str, ...]] = {
    "file": tuple(SpecFileModel.model_fields),
    "server": tuple(ServerSpec.model_fields),
    "annotations": tuple(AnnotationsSpec.model_fields),
    "examples": tuple(ExampleSpec.model_fields),
    "tools": tuple(ToolSpec.model_fields),
}


def _unknown_key_message(source: SourceFile, path: JsonPath) -> str:
    key = str(path[-1])
    parent = next((str(p) for p in reversed(path[:-1]) if isinstance(p, str)), "file")
    allowed = _ALLOWED_KEYS.get(parent, _ALLOWED_KEYS["file"])
    message = (
        f"unknown key {key!r}; expected one of: {', '.join(allowed)} (or an `x-` extension key)"
    )
    close = difflib.get_close_matches(key, allowed, n=1)
    return f"{message}; did you mean {close[0]!r}?" if close else message


def _hint_conflicts(model: SpecFileModel, source: SourceFile) -> list[Diagnostic]:
    out = []
    for index, tool in enumerate(model.tools):
        given = tool.annotations.model_fields_set
        for short, long in HINTS:
            if short in given and long in given:
                out.append(
                    Diagnostic(
                        ErrorCode.DUPLICATE_HINT,
                        f"hint given twice, as {short!r} and {long!r}; keep one spelling",
                        source.locate(("tools", index, "annotations", long), key=True),
                    )
                )
    return out


def _schema_problems(data: dict[str, Any], source: SourceFile) -> list[Diagnostic]:
    """Check every schema in the file against the 2020-12 metaschema."""
    places: list[JsonPath] = [("defs", name) for name in data.get("defs") or {}]
    for index, tool in enumerate(data.get("tools") or ()):
        places += [
            ("tools", index, key)
            for key in ("input", "output")
            if key in tool and tool[key] is not None
        ]
    out = []
    for place in places:
        for rel, message in metaschema_errors(_get(data, place)):
            where = (*place, *rel)
            out.append(
                Diagnostic(
                    ErrorCode.INVALID_SCHEMA,
                    f"invalid JSON Schema at {'/'.join(map(str, where))}: {message}",
                    source.locate(where),
                )
            )
    return out


def _get(data: Any, path: JsonPath) -> Any:
    for part in path:
        data = data[part]
    return data
