"""Validators for the official MCP types (`CallToolResult`, `ListToolsResult`, ...).

Built from the vendored official schema of each revision (`toolgen/spec/mcp-schema`),
in that schema's own dialect (draft-07 for 2025-06-18), offline. Revisions without a
vendored schema (2025-03-26) get no validator: callers fall back to lighter checks.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import jsonschema_rs

from toolgen.spec.protocol import EMITTED_REVISIONS, official_schema


@cache
def official_validator(revision: str, name: str) -> Any:
    """A validator of the official type `name` at `revision`, or None when not vendored."""
    if revision not in EMITTED_REVISIONS:
        return None
    document = official_schema(revision)
    defs_key = "$defs" if "$defs" in document else "definitions"
    if name not in document[defs_key]:
        return None
    schema = {
        "$schema": document["$schema"],
        "$ref": f"#/{defs_key}/{name}",
        defs_key: document[defs_key],
    }
    return jsonschema_rs.validator_for(schema, offline=True)


def official_problem(revision: str, name: str, value: Any) -> str | None:
    """Why `value` is not a valid `name` at `revision` (None: valid, or no schema here)."""
    validator = official_validator(revision, name)
    if validator is None or validator.is_valid(value):
        return None
    error = next(iter(validator.iter_errors(value)))
    where = "/".join(str(p) for p in error.instance_path) or "(root)"
    message = " ".join(error.message.split())
    if len(message) > 200:
        message = message[:199] + "…"
    return f"not a valid {name} ({revision}): at {where}: {message}"
