"""Shape plain JSON values against a bundled schema: fill in defaults, drop absent nulls.

Two small conveniences that make Python handlers natural to write:

- `apply_defaults`: arguments a client left out get the schema's `default`
  (objects' `properties`, through local `$ref`s, `allOf` and array items), so
  a handler taking a plain dict sees the same values a pydantic model would.
- `prune_nulls`: Python writes "absent" as `None`; a result object whose
  optional property is `None` but whose schema does not accept `null` has
  that key removed (required or nullable properties are left alone), so a
  pydantic model dump with unset optional fields conforms.

Both copy on write and never touch the caller's value. Only the local
references the resolver produces (`#/...` JSON pointers) are followed.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from toolgen.schema.pointer import resolve_pointer
from toolgen.schema.walk import walk_schemas


def has_defaults(schema: Mapping[str, Any]) -> bool:
    """Whether any subschema declares a `default` (else `apply_defaults` is a no-op)."""
    return any(isinstance(sub, dict) and "default" in sub for _, sub in walk_schemas(schema))


def _branches(schema: Any, root: Mapping[str, Any], depth: int = 0) -> list[Mapping[str, Any]]:
    """`schema` and what it always applies too (`$ref` targets, `allOf` branches)."""
    if not isinstance(schema, Mapping) or depth > 32:
        return []
    found = [schema]
    ref = schema.get("$ref")
    if isinstance(ref, str):
        found += _branches(resolve_pointer(root, ref), root, depth + 1)
    for branch in schema.get("allOf", ()) if isinstance(schema.get("allOf"), list) else ():
        found += _branches(branch, root, depth + 1)
    return found


def apply_defaults(schema: Mapping[str, Any], value: Any, root: Mapping[str, Any]) -> Any:
    """`value` with every missing property that has a `default` filled in (copied)."""
    branches = _branches(schema, root)
    if isinstance(value, dict):
        out = value
        for branch in branches:
            properties = branch.get("properties")
            if not isinstance(properties, Mapping):
                continue
            for name, sub in properties.items():
                if name not in out:
                    if isinstance(sub, Mapping) and "default" in sub:
                        out = out if out is not value else dict(value)
                        out[name] = copy.deepcopy(sub["default"])
                    continue
                new = apply_defaults(sub, out[name], root)
                if new is not out[name]:
                    out = out if out is not value else dict(value)
                    out[name] = new
        return out
    if isinstance(value, list):
        items = [b["items"] for b in branches if isinstance(b.get("items"), Mapping)]
        if not items:
            return value
        new_list = list(value)
        changed = False
        for index, element in enumerate(value):
            new = element
            for item_schema in items:
                new = apply_defaults(item_schema, new, root)
            if new is not element:
                new_list[index] = new
                changed = True
        return new_list if changed else value
    return value


def allows_null(schema: Any, root: Mapping[str, Any], depth: int = 0) -> bool:
    """Whether `null` can be valid here (conservatively: true when unsure)."""
    if schema is True or not isinstance(schema, Mapping) or depth > 32:
        return schema is not False
    kind = schema.get("type")
    if isinstance(kind, str) and kind != "null":
        return False
    if isinstance(kind, list) and "null" not in kind:
        return False
    if "const" in schema and schema["const"] is not None:
        return False
    if isinstance(schema.get("enum"), list) and None not in schema["enum"]:
        return False
    ref = schema.get("$ref")
    if isinstance(ref, str) and not allows_null(resolve_pointer(root, ref), root, depth + 1):
        return False
    for branch in schema.get("allOf", ()) if isinstance(schema.get("allOf"), list) else ():
        if not allows_null(branch, root, depth + 1):
            return False
    for key in ("anyOf", "oneOf"):
        options = schema.get(key)
        if isinstance(options, list) and not any(allows_null(o, root, depth + 1) for o in options):
            return False
    return True


def prune_nulls(schema: Mapping[str, Any], value: Any, root: Mapping[str, Any]) -> Any:
    """`value` without optional, non-nullable properties whose value is `None`."""
    branches = _branches(schema, root)
    if isinstance(value, dict):
        required: set[str] = set()
        properties: dict[str, Any] = {}
        for branch in branches:
            if isinstance(branch.get("required"), list):
                required.update(branch["required"])
            if isinstance(branch.get("properties"), Mapping):
                properties.update(branch["properties"])
        out = value
        for name, element in value.items():
            sub = properties.get(name)
            if sub is None:
                continue
            if element is None:
                if name not in required and not allows_null(sub, root):
                    out = out if out is not value else dict(value)
                    del out[name]
                continue
            new = prune_nulls(sub, element, root)
            if new is not element:
                out = out if out is not value else dict(value)
                out[name] = new
        return out
    if isinstance(value, list):
        items = [b["items"] for b in branches if isinstance(b.get("items"), Mapping)]
        if not items:
            return value
        new_list = [prune_nulls(items[0], element, root) for element in value]
        changed = any(n is not o for n, o in zip(new_list, value, strict=True))
        return new_list if changed else value
    return value
