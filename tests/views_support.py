"""What the providers accept, written down from their documentation, to check views against.

- OpenAI strict mode (Structured Outputs guide; the `openai` SDK's
  `FunctionDefinition`: names `a-z A-Z 0-9 _ -`, at most 64): the keywords
  below, every object with `additionalProperties: false` and all properties
  required, no root `anyOf`.
- Gemini: checked with the `google-genai` SDK's own pydantic models (which
  forbid unknown fields), plus the OpenAPI subset the Gemini API documents (no
  `$ref`/`$defs`/`additionalProperties`, one type per schema, string enums).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

OPENAI_STRICT_KEYWORDS = frozenset(
    {
        "type", "description", "enum", "const", "anyOf", "$ref", "$defs", "properties",
        "required", "additionalProperties", "items", "minItems", "maxItems", "pattern",
        "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
    }
)  # fmt: skip
OPENAI_STRICT_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
)
GEMINI_KEYWORDS = frozenset(
    {
        "type", "format", "description", "nullable", "enum", "maxItems", "minItems",
        "properties", "required", "minProperties", "maxProperties", "minLength", "maxLength",
        "pattern", "example", "anyOf", "default", "items", "minimum", "maximum", "title",
    }
)  # fmt: skip
CORPUS = Path(__file__).parent / "data" / "corpus"


def openai_strict_problems(schema: Any, path: str = "") -> list[str]:
    """Everything in `schema` that OpenAI strict mode refuses."""
    if not isinstance(schema, dict):
        return [f"{path}: not a schema object"]
    problems = [f"{path}/{k}: keyword" for k in schema if k not in OPENAI_STRICT_KEYWORDS]
    if schema.get("format") is not None and schema["format"] not in OPENAI_STRICT_FORMATS:
        problems.append(f"{path}/format: {schema['format']}")
    kinds = schema.get("type")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    if not ({"type", "anyOf", "$ref", "enum", "const"} & schema.keys()):
        problems.append(f"{path}: no type")
    if "object" in kinds:
        props = schema.get("properties", {})
        if schema.get("additionalProperties") is not False:
            problems.append(f"{path}: object not closed")
        if sorted(schema.get("required", [])) != sorted(props):
            problems.append(f"{path}: not every property required")
        for name, sub in props.items():
            problems += openai_strict_problems(sub, f"{path}/properties/{name}")
    if "array" in kinds:
        problems += openai_strict_problems(schema.get("items"), f"{path}/items")
    for i, sub in enumerate(schema.get("anyOf", [])):
        problems += openai_strict_problems(sub, f"{path}/anyOf/{i}")
    for name, sub in schema.get("$defs", {}).items():
        problems += openai_strict_problems(sub, f"{path}/$defs/{name}")
    return problems


def gemini_subset_problems(schema: Any, path: str = "") -> list[str]:
    """Everything in a Gemini `parameters` schema outside the documented OpenAPI subset."""
    if not isinstance(schema, dict):
        return [f"{path}: not a schema object"]
    problems = [f"{path}/{k}: keyword" for k in schema if k not in GEMINI_KEYWORDS]
    if "type" in schema and not isinstance(schema["type"], str):
        problems.append(f"{path}: type list")
    if "enum" in schema and not all(isinstance(v, str) for v in schema["enum"]):
        problems.append(f"{path}: enum of non-strings")
    if schema.get("type") == "array" and "items" not in schema:
        problems.append(f"{path}: array without items")
    for name, sub in schema.get("properties", {}).items():
        problems += gemini_subset_problems(sub, f"{path}/properties/{name}")
    if "items" in schema:
        problems += gemini_subset_problems(schema["items"], f"{path}/items")
    for i, sub in enumerate(schema.get("anyOf", [])):
        problems += gemini_subset_problems(sub, f"{path}/anyOf/{i}")
    return problems


def corpus_files() -> list[Path]:
    """The JSON files of the corpus the views were built against (not `heldout/`, the
    servers kept apart to measure lint on)."""
    return [
        p for p in sorted(CORPUS.rglob("*.json")) if "heldout" not in p.relative_to(CORPUS).parts
    ]


def corpus_tools() -> list[dict[str, Any]]:
    """Every published tool of the vendored corpus (each server's tools are one list)."""
    tools: list[dict[str, Any]] = []
    for path in corpus_files():
        data = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(data, dict) and isinstance(data.get("tools"), list):
            tools.extend(data["tools"])
        elif isinstance(data, dict) and "inputSchema" in data:
            tools.append(data)
    return tools


def corpus_servers() -> dict[str, list[dict[str, Any]]]:
    """The corpus by server (a directory, or a `tools/list` file)."""
    servers: dict[str, list[dict[str, Any]]] = {}
    for path in corpus_files():
        data = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(data, dict) and isinstance(data.get("tools"), list):
            servers[path.stem] = data["tools"]
        elif isinstance(data, dict) and "inputSchema" in data:
            servers.setdefault(path.parent.name, []).append(data)
    return servers
