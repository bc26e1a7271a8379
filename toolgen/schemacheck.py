"""JSON Schema 2020-12 checks and validators that never touch the network.

Every place that checks a schema or compiles a validator goes through here,
so no user-supplied `$schema` or `$ref` can make toolgen fetch anything.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import jsonschema_rs

from toolgen.protocol import JSON_SCHEMA_DIALECT
from toolgen.source import JsonPath


def metaschema_errors(schema: Any) -> Iterator[tuple[JsonPath, str]]:
    """(path inside `schema`, message) for what breaks the 2020-12 metaschema.

    A `$schema` naming another dialect is itself the error: toolgen schemas are
    2020-12, and an unknown metaschema would otherwise be looked up remotely.
    """
    if (
        isinstance(schema, dict)
        and schema.get("$schema", JSON_SCHEMA_DIALECT) != JSON_SCHEMA_DIALECT
    ):
        yield (
            ("$schema",),
            f"toolgen schemas are JSON Schema 2020-12: remove `$schema` or set it to {JSON_SCHEMA_DIALECT}",
        )
        return
    try:
        jsonschema_rs.meta.validate(schema)
    except jsonschema_rs.ValidationError as exc:
        yield tuple(exc.instance_path), exc.message
    except jsonschema_rs.ReferencingError as exc:
        yield (), f"cannot check schema: {exc}"


def compile_validator(schema: Mapping[str, Any] | bool) -> Any:
    """A compiled 2020-12 validator that resolves no remote references."""
    body: Any = schema if isinstance(schema, bool) else dict(schema)
    return jsonschema_rs.Draft202012Validator(body, offline=True)
