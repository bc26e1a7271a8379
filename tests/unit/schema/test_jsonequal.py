"""JSON equality (`core.jsonequal.same`) is equality of canonical JSON: `true` is not `1`,
`1.0` is `1`, and key order does not count."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from toolgen.schema.jsonequal import same
from toolgen.spec.digests import canonical_json

scalars = st.sampled_from([None, True, False, 0, 1, 2, 0.0, 1.0, 1.5, "1", "true", ""])
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from("abc"), inner, max_size=3)
    ),
    max_leaves=8,
)


def reordered(value: Any) -> Any:
    """The same value with every object's keys in reverse order."""
    if isinstance(value, dict):
        return {key: reordered(value[key]) for key in reversed(list(value))}
    if isinstance(value, list):
        return [reordered(item) for item in value]
    return value


@settings(max_examples=500, deadline=None)
@given(values, values)
def test_two_values_are_the_same_exactly_when_their_canonical_json_is(a: Any, b: Any) -> None:
    assert same(a, b) == (canonical_json(a) == canonical_json(b))


@settings(max_examples=200, deadline=None)
@given(values)
def test_key_order_does_not_count(value: Any) -> None:
    assert same(value, reordered(value))


def test_booleans_are_not_numbers_at_any_depth_but_integers_and_floats_may_be_equal() -> None:
    assert not same({"enum": [1, 2]}, {"enum": [True, 2]})
    assert not same([{"const": False}], [{"const": 0}])
    assert same({"minimum": 1}, {"minimum": 1.0})
    assert same({"a": 2**70}, {"a": 2**70})  # beyond what orjson writes
