"""JSON Schema 2020-12 checks and validators that never touch the network.

Every place that checks a schema or compiles a validator goes through here,
so no user-supplied `$schema` or `$ref` can make toolgen fetch anything.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Final

import jsonschema_rs

from toolgen.schema.pointer import JsonPath

JSON_SCHEMA_DIALECT: Final = "https://json-schema.org/draft/2020-12/schema"
"""The one dialect a spec's schemas are written in."""

KNOWN_DIALECTS = frozenset(
    f"{scheme}://json-schema.org/{draft}{tail}"
    for scheme in ("http", "https")
    for draft in (
        "draft-04/schema",
        "draft-06/schema",
        "draft-07/schema",
        "draft/2019-09/schema",
        "draft/2020-12/schema",
    )
    for tail in ("", "#")
)
"""Dialects whose metaschemas jsonschema-rs has built in (checked without any fetch)."""


def metaschema_errors(schema: Any, *, published: bool = False) -> Iterator[tuple[JsonPath, str]]:
    """(path inside `schema`, message) for what breaks its metaschema.

    In a spec, a `$schema` naming another dialect is itself the error: toolgen
    schemas are 2020-12. In `published` tool definitions (someone else's server)
    a known dialect is checked against its own metaschema and an unknown one as
    2020-12. Either way no metaschema is ever looked up remotely.
    """
    dialect = schema.get("$schema", JSON_SCHEMA_DIALECT) if isinstance(schema, dict) else None
    if dialect is not None and dialect != JSON_SCHEMA_DIALECT:
        if not published:
            yield (
                ("$schema",),
                f"toolgen schemas are JSON Schema 2020-12: remove `$schema` or set it to {JSON_SCHEMA_DIALECT}",
            )
            return
        if dialect not in KNOWN_DIALECTS:
            schema = {k: v for k, v in schema.items() if k != "$schema"}
    try:
        jsonschema_rs.meta.validate(schema)
    except jsonschema_rs.ValidationError as exc:
        path = tuple(exc.instance_path)
        yield path, _explain(schema, path) or exc.message
    except jsonschema_rs.ReferencingError as exc:
        yield (), f"cannot check schema: {exc}"


def compile_validator(schema: Mapping[str, Any] | bool) -> Any:
    """A compiled 2020-12 validator that resolves no remote references."""
    body: Any = schema if isinstance(schema, bool) else dict(schema)
    return jsonschema_rs.Draft202012Validator(body, offline=True)


JSON_TYPES = ("array", "boolean", "integer", "null", "number", "object", "string")


def _explain(schema: Any, path: JsonPath) -> str | None:
    """A plainer message than the metaschema's for the mistakes people make most: an
    unknown `type` name reads "not valid under any of the schemas listed in anyOf"."""
    if not path or path[-1] != "type":
        return None
    value: Any = schema
    for part in path:
        value = value[part]
    names = value if isinstance(value, list) else [value]
    wrong = [name for name in names if name not in JSON_TYPES]
    if not wrong:
        return None
    return (
        f"{wrong[0]!r} is not a JSON Schema type; expected one of {', '.join(JSON_TYPES)}"
        " (or a list of them)"
    )
