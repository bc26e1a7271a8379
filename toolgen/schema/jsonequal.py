"""JSON values: their JSON Schema type, and their equality, which Python's `==` gets wrong in
one way: `True == 1` and `False == 0`, so `{"const": true}` equals `{"const": 1}` and `[1]`
equals `[true]`.

In JSON, and so in JSON Schema, `true` and `1` are different values (a schema with
`const: 1` refuses `true`). Numbers compare by value: `1` and `1.0` are one JSON number
(and one canonical form, RFC 8785). A change from one to the other must not look like
no change to `toolgen diff`.
"""

from __future__ import annotations

import json
from typing import Any

import orjson


def same(a: Any, b: Any) -> bool:
    """Whether two JSON values are equal as JSON: `==`, with booleans never equal to
    numbers at any depth."""
    if a is b:
        return True
    if a != b:
        return False
    try:  # the same text is the same value (orjson writes true and 1 apart), in C
        if orjson.dumps(a) == orjson.dumps(b):
            return True
    except TypeError:  # an integer beyond 64 bits, a key that is not a string
        pass
    return _no_bool_for_number(a, b)  # keys in another order, or 1 where 1.0 was


def canonical(value: Any) -> bytes:
    """`value` as JSON text with sorted keys: a key for finding equal values in a dict. Two
    values with the same text are `same`; the converse holds but for a number written `1`
    in one and `1.0` in the other."""
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except TypeError:  # an integer beyond 64 bits, a key that is not a string
        return json.dumps(value, sort_keys=True, default=str).encode()


def _no_bool_for_number(a: Any, b: Any) -> bool:
    """For two values that are `==`: whether no boolean stands where the other has a number."""
    if type(a) is bool or type(b) is bool:
        return type(a) is type(b)
    if isinstance(a, dict) and isinstance(b, dict):
        return all(_no_bool_for_number(value, b[key]) for key, value in a.items())
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return all(map(_no_bool_for_number, a, b))
    return True


def json_type(value: Any) -> str:
    """The JSON Schema type of a JSON value; a number with no fractional part is an
    `integer`, as JSON Schema 2020-12 counts it (`1.0` is an integer)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"
