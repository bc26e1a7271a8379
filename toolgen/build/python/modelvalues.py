"""Enums too long for a `Literal`: a `str` checked against a frozenset of the values.

A `Literal` of thousands of members makes type checkers crawl and gives datamodel-code-
generator (DCG) a megabyte-long line to format (a 128,000-value enum used to take most
of a build). So the model plan gives an enum of more than `LARGE_ENUM` strings a named
type of its own: DCG gets `{"type": "string", "x-python-type": NAME}` (it writes the bare
name) and this module writes NAME, before the classes that use it:

    PICK_INPUT_CHOICE: Final = frozenset({"v000000", ...})
    PickInputChoice = TypeAliasType(
        "PickInputChoice",
        Annotated[StrictStr, AfterValidator(_one_of(PICK_INPUT_CHOICE))],
    )

A model then accepts exactly the strings the enum allows, as the `Literal` did; callers
and type checkers see a `str`. The values are the spec's, written as escaped Python
literals: no spec text becomes code.

An enum with a value a `Literal` cannot hold (a number with a fraction, an array, an
object: `[1, [1], {"a": 1}, 1.5]`) is a value set too, of JSON values: DCG would make
it `list[int] | dict[str, int] | float`, any list, object or float. Its type is `Any`
checked against the values' JSON (each written as its JSON text in a string literal),
compared as JSON Schema compares them (`1` and `1.0` alike, `true` and `1` apart).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toolgen.build.python.modelsplice import Fragment, Import
from toolgen.build.templating import string_literal
from toolgen.build.typemodel import LARGE_ENUM

PYTHON_TYPE = "x-python-type"
"""DCG's schema extension that names a field's type (written as it is, not imported)."""

IMPORTS: tuple[Import, ...] = (
    Import("collections.abc", "Callable"),
    Import("typing", "Annotated"),
    Import("typing", "Final"),
    Import("pydantic", "AfterValidator"),
    Import("pydantic", "StrictStr"),
    Import("typing_extensions", "TypeAliasType"),
)

ONE_OF = '''
def _one_of(values: frozenset[str]) -> Callable[[str], str]:
    """A validator for an enum too long for a `Literal`: the value must be one of `values`."""

    def check(value: str) -> str:
        if value not in values:
            raise ValueError(f"{value!r} is not one of the {len(values):,} allowed values")
        return value

    return check
'''.strip()


JSON_IMPORTS: tuple[Import, ...] = (Import(None, "json"), Import("typing", "Any"))

JSON_ONE_OF = '''
def _json_key(value: Any) -> Any:
    """A hashable key, equal for values JSON Schema calls equal (`1`, `1.0`; not `true`)."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return (type(value).__name__, value)
    if isinstance(value, (int, float)):
        return ("number", value)  # (1 == 1.0, with one hash)
    if isinstance(value, list):
        return ("array", tuple(_json_key(item) for item in value))
    if isinstance(value, dict):
        return ("object", frozenset((key, _json_key(item)) for key, item in value.items()))
    return ("other", id(value))


def _json_values(texts: tuple[str, ...]) -> frozenset[Any]:
    return frozenset(_json_key(json.loads(text)) for text in texts)


def _json_one_of(values: frozenset[Any]) -> Callable[[Any], Any]:
    """A validator for an enum of JSON values: the value must equal one of them."""

    def check(value: Any) -> Any:
        if _json_key(value) not in values:
            raise ValueError(f"{value!r} is not one of the {len(values):,} allowed values")
        return value

    return check
'''.strip()


@dataclass(frozen=True)
class ValueSet:
    """One large enum: its type alias, the constant holding its values, the values."""

    name: str
    constant: str
    values: tuple[Any, ...]
    """As the enum lists them (a `null` among them is the `None` the alias allows)."""
    exact: bool = False
    """JSON values of any type (`is_json_enum`), not strings."""


_PLAIN_KEYWORDS = frozenset(
    {"type", "enum", "title", "description", "default", "examples", "deprecated", "$comment"}
    | {"readOnly", "writeOnly"}
)
"""What a large enum may say besides its values (anything else keeps the `Literal`)."""
_STRING_TYPES = ("string", ["string", "null"], ["null", "string"])


def is_large_enum(schema: Mapping[str, Any]) -> bool:
    """Whether `schema` is an enum of more than `LARGE_ENUM` strings (and maybe `null`), with
    nothing else to check."""
    values = schema.get("enum")
    if not isinstance(values, list) or len(values) <= LARGE_ENUM:
        return False
    strings = [value for value in values if value is not None]
    return (
        len(strings) > LARGE_ENUM
        and all(isinstance(value, str) for value in strings)
        and schema.get("type", "string") in _STRING_TYPES
        and _PLAIN_KEYWORDS.issuperset(schema)
    )


def is_json_enum(schema: Mapping[str, Any]) -> bool:
    """Whether `schema`'s enum has a value a `Literal` cannot hold: a float, array or object."""
    values = schema.get("enum")
    return isinstance(values, list) and any(isinstance(v, (float, list, dict)) for v in values)


def typed_by_name(schema: Mapping[str, Any], name: str) -> dict[str, Any]:
    """`schema`, a large enum, as a string of type `name` (`null` too when the enum has it
    and the type allows it): what DCG gets in its place."""
    rest = {key: value for key, value in schema.items() if key not in ("type", "enum")}
    named = {"type": "string", PYTHON_TYPE: name}
    kind = schema.get("type", ["string", "null"])
    if None in schema["enum"] and "null" in kind:
        return {**rest, "anyOf": [named, {"type": "null"}]}
    return {**rest, **named}


def constant_name(name: str) -> str:
    """UPPER_SNAKE_CASE of a CamelCase name (`PickInputChoice` → `PICK_INPUT_CHOICE`)."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name).upper()


def fragment(value_sets: Sequence[ValueSet]) -> Fragment | None:
    """The statements defining every value set (None when there are none)."""
    if not value_sets:
        return None
    helpers = [ONE_OF] if any(not v.exact for v in value_sets) else []
    imports = IMPORTS
    if any(v.exact for v in value_sets):
        helpers.append(JSON_ONE_OF)
        imports += JSON_IMPORTS
    blocks = [*helpers, *(_block(value_set) for value_set in value_sets)]
    return Fragment(tuple(blocks), (), imports)


def _block(value_set: ValueSet) -> str:
    if value_set.exact:
        return _json_block(value_set)
    values = [v for v in dict.fromkeys(value_set.values) if v is not None]  # spec order, once
    items = "".join(f"        {string_literal(value)},\n" for value in values)
    name, constant = value_set.name, value_set.constant
    return (
        f"{constant}: Final = frozenset(\n    {{\n{items}    }}\n)\n"
        f'"""The {len(values):,} values `{name}` allows."""\n'
        f"{name} = TypeAliasType(\n"
        f'    "{name}",\n'
        f"    Annotated[StrictStr, AfterValidator(_one_of({constant}))],\n"
        ")"
    )


def _json_block(value_set: ValueSet) -> str:
    texts = [json.dumps(value, ensure_ascii=False) for value in value_set.values]
    items = "".join(f"        {string_literal(text)},\n" for text in dict.fromkeys(texts))
    name, constant = value_set.name, value_set.constant
    return (
        f"{constant}: Final = _json_values(\n    (\n{items}    )\n)\n"
        f'"""The JSON values `{name}` allows."""\n'
        f"{name} = TypeAliasType(\n"
        f'    "{name}",\n'
        f"    Annotated[Any, AfterValidator(_json_one_of({constant}))],\n"
        ")"
    )
