"""The quick pre-checks the load runs before its full schema checks agree with them.

`DefExtents.within_limits` (defs measured once for every tool that bundles them),
`has_schema_problem` and the closed-object pre-check of `unsatisfiable_required` may only
skip the full check where it would find nothing. Random schemas, seeded: each case is a
generated def graph or schema, compared with the full check.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from toolgen.schema.limits import (
    DefExtents,
    extent_problem,
    has_schema_problem,
    schema_problems,
)
from toolgen.spec.model import unsatisfiable_required

SEEDS = range(300)


def _random_defs(rng: random.Random, count: int, acyclic: bool) -> dict[str, Any]:
    """Defs D0..Dn that refer to each other (to later defs only when `acyclic`)."""
    defs: dict[str, Any] = {}
    for index in range(count):
        targets = range(index + 1, count) if acyclic else range(count)
        defs[f"D{index}"] = _random_schema(rng, [f"D{t}" for t in targets], rng.randint(1, 3))
    return defs


def _random_schema(rng: random.Random, names: list[str], depth: int) -> Any:
    if depth == 0 or rng.random() < 0.2:
        if names and rng.random() < 0.6:
            return {"$ref": f"#/$defs/{rng.choice(names)}"}
        return rng.choice([{"type": "string"}, True, {"type": "integer"}])
    shape = rng.choice(["object", "array", "anyOf", "ref+"])
    sub = [_random_schema(rng, names, depth - 1) for _ in range(rng.randint(1, 3))]
    if shape == "object":
        return {"type": "object", "properties": {f"p{i}": s for i, s in enumerate(sub)}}
    if shape == "array":
        return {"type": "array", "items": sub[0]}
    if shape == "anyOf":
        return {"anyOf": sub}
    ref = {"$ref": f"#/$defs/{rng.choice(names)}"} if names else {}
    return {**ref, "description": "x", "items": sub[0]}


@pytest.mark.parametrize("seed", SEEDS)
def test_defs_measured_once_never_hide_a_schema_past_the_limits(seed: int) -> None:
    rng = random.Random(seed)
    acyclic = seed % 3 != 0
    defs = _random_defs(rng, rng.randint(1, 8), acyclic)
    extents = DefExtents(defs)
    depth, size = rng.randint(3, 12), rng.randint(5, 80)
    for _ in range(4):  # several tools bundling the same defs share the memo
        root = _random_schema(rng, list(defs), 3)
        root = root if isinstance(root, dict) else {"type": "object"}
        root = {**root, "$defs": dict(defs)}
        problem = extent_problem(root, depth, size)
        if extents.within_limits(root, depth, size):
            assert problem is None
        elif acyclic:
            assert problem is not None  # without a loop of defs, only a real problem is unsure


def test_a_def_is_not_taken_from_the_memo_for_a_schema_that_holds_another_def_of_its_name() -> None:
    small = {"type": "string"}
    extents = DefExtents({"A": small})
    assert extents.within_limits({"$ref": "#/$defs/A", "$defs": {"A": small}}, 3, 10)
    deep: Any = {"type": "string"}
    for _ in range(5):
        deep = {"type": "array", "items": deep}
    other = {"$ref": "#/$defs/A", "$defs": {"A": deep}}
    assert not extents.within_limits(other, 3, 10)
    assert extent_problem(other, 3, 10) is not None


def _random_keyword_schema(rng: random.Random, depth: int) -> Any:
    node: dict[str, Any] = {}
    roll = rng.random()
    if roll < 0.1:
        node["pattern"] = rng.choice(["^a+$", "(", "[a-z]{2}", "(?<=x)y"])
    elif roll < 0.15:
        node["patternProperties"] = {rng.choice(["^x", "("]): {"type": "string"}}
    elif roll < 0.2:
        node["$dynamicRef"] = "#meta"
    elif roll < 0.25:
        node["$dynamicAnchor"] = "meta"
    if rng.random() < 0.4:
        node["additionalProperties"] = False
        node["required"] = rng.sample(["a", "b", "c"], rng.randint(0, 2))
    if depth and rng.random() < 0.8:
        key = rng.choice(["properties", "items", "not", "if", "allOf", "$defs"])
        subs = [_random_keyword_schema(rng, depth - 1) for _ in range(rng.randint(1, 3))]
        if key in ("properties", "$defs"):
            names = ["a", "b", "not", "if"]
            node[key] = {names[i % len(names)]: s for i, s in enumerate(subs)}
        elif key == "allOf":
            node[key] = subs
        else:
            node[key] = subs[0]
    return node


@pytest.mark.parametrize("seed", SEEDS)
def test_the_quick_schema_checks_pass_only_what_the_full_checks_pass(seed: int) -> None:
    schema = _random_keyword_schema(random.Random(seed), 4)
    problems = list(schema_problems(schema))
    if not has_schema_problem(schema):
        assert problems == []
    unsatisfiable = [path for path, _ in unsatisfiable_required(schema)]
    assert unsatisfiable == list(_unsatisfiable_without_precheck(schema))


def _unsatisfiable_without_precheck(schema: Any) -> Any:
    from toolgen.schema.walk import walk_schemas

    for path, sub in walk_schemas(schema):
        if "not" in path or "if" in path:
            continue
        if not isinstance(sub, dict) or sub.get("additionalProperties") is not False:
            continue
        if "patternProperties" in sub or not isinstance(sub.get("required"), list):
            continue
        properties = sub.get("properties") or {}
        for index, name in enumerate(sub["required"]):
            if name not in properties:
                yield (*path, "required", index)


def test_a_schema_with_a_refused_pattern_or_a_dynamic_ref_is_checked_in_full() -> None:
    assert has_schema_problem({"properties": {"a": {"pattern": "("}}})
    assert has_schema_problem({"items": {"$dynamicRef": "#meta"}})
    assert not has_schema_problem({"properties": {"a": {"pattern": "^a+$"}}})


TEXTS = {
    "controls and latin-1": "".join(chr(i) for i in range(0x100)),
    "separators and tags": "a\u2028b\u2029c\ufeffd\U000e0001e\u200bf",
    "escapes written out": '\\b \\f \\u0041 \\\\ "quoted"',
}


@pytest.mark.parametrize("name", list(TEXTS), ids=list(TEXTS))
def test_the_hidden_character_precheck_reads_text_escaped_as_json_writes_it(name: str) -> None:
    from toolgen.lint.context import _json_text

    text = TEXTS[name]
    data = {text: [text, 1, 2.5, True, None, {"k": text}]}
    expected = json.dumps(data, ensure_ascii=False).replace(", ", ",").replace(": ", ":")
    assert _json_text(data) == expected


def test_data_orjson_refuses_is_written_by_json() -> None:
    from toolgen.lint.context import _json_text

    for data in ({1: "x"}, {"a": 2**70}, {"a": "\ud800"}):
        assert _json_text(data) == json.dumps(data, ensure_ascii=False)


@pytest.mark.parametrize("seed", SEEDS)
def test_sharing_ref_rewrite_equals_the_copying_one_and_copies_only_what_changes(seed: int) -> None:
    from toolgen.schema.walk import map_refs, share_refs

    rng = random.Random(seed)
    schema = _random_schema(rng, ["A", "B"], rng.randint(1, 4))
    seen: list[tuple[str, Any]] = []

    def rewrite(ref: str, path: Any) -> str:
        seen.append((ref, path))
        return ref if ref.endswith("B") else ref + "X"  # refs to B stay as written

    copied = map_refs(schema, rewrite)
    calls = list(seen)
    seen.clear()
    shared = share_refs(schema, rewrite)
    assert shared == copied
    assert seen == calls  # the same refs, at the same paths, in the same order
    if '"$ref": "#/$defs/A"' not in json.dumps(schema):
        assert shared is schema  # nothing rewritten: nothing copied
