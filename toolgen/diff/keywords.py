"""Compare the value constraints of two schema nodes: type, enum, bounds, strings, arrays.

Each function looks at one family of keywords of an old and a new schema
object and returns `Finding`s: what changed, which keyword to point at, and
whether the change narrows or widens what the node accepts. The keywords of
a schema are a conjunction, so judging them one at a time is sound: when no
keyword narrows, the node does not narrow.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from toolgen.diff.deltas import MAYBE, NO, YES, Certainty, Kind
from toolgen.schema.jsonequal import same
from toolgen.spec.digests import canonical_json

Schema = Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Finding:
    """A change of one keyword family at one node."""

    kind: Kind
    narrows: Certainty
    widens: Certainty
    message: str
    keyword: str | None


def tightened(message: str, keyword: str, sure: Certainty = YES) -> Finding:
    return Finding(Kind.TIGHTENED, sure, NO, message, keyword)


def relaxed(message: str, keyword: str | None, sure: Certainty = YES) -> Finding:
    return Finding(Kind.RELAXED, NO, sure, message, keyword)


def show(value: Any, limit: int = 60) -> str:
    """A short display of a JSON value for messages."""
    text = canonical_json(value) if not isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


# -- type --------------------------------------------------------------------


def _types(schema: Schema) -> frozenset[str] | None:
    value = schema.get("type")
    if isinstance(value, str):
        return frozenset({value})
    if isinstance(value, list) and all(isinstance(t, str) for t in value):
        return frozenset(value)
    return None


def _covered(kind: str, types: frozenset[str]) -> bool:
    return kind in types or (kind == "integer" and "number" in types)


def _type_text(types: frozenset[str] | None) -> str:
    return "any type" if types is None else " | ".join(sorted(types))


def compare_type(old: Schema, new: Schema) -> Iterator[Finding]:
    if old.get("type") == new.get("type"):
        return
    before, after = _types(old), _types(new)
    if ("type" in old and before is None) or ("type" in new and after is None):
        yield Finding(Kind.SCHEMA, MAYBE, MAYBE, "`type` changed", "type")
        return
    removed = before is None or (after is not None and any(not _covered(t, after) for t in before))
    added = after is None or (before is not None and any(not _covered(t, before) for t in after))
    if removed or added:
        message = f"type {_type_text(before)} → {_type_text(after)}"
        yield Finding(Kind.TYPE, YES if removed else NO, YES if added else NO, message, "type")


# -- enum / const ------------------------------------------------------------


def _allowed(schema: Schema) -> dict[str, Any] | None:
    """The allowed values by canonical JSON (const and enum intersected), or None for any."""
    allowed: dict[str, Any] | None = None
    if "enum" in schema and isinstance(schema["enum"], list):
        allowed = {canonical_json(v): v for v in schema["enum"]}
    if "const" in schema:
        const = {canonical_json(schema["const"]): schema["const"]}
        allowed = const if allowed is None else {k: v for k, v in const.items() if k in allowed}
    return allowed


def compare_enum(old: Schema, new: Schema) -> Iterator[Finding]:
    if same(old.get("enum"), new.get("enum")) and same(old.get("const"), new.get("const")):
        return
    before, after = _allowed(old), _allowed(new)
    keyword = "enum" if "enum" in new or "enum" in old else "const"
    if before is None and after is not None:
        shown = ", ".join(show(v) for v in after.values())
        yield Finding(Kind.ENUM_REMOVED, YES, NO, f"now restricted to {shown}", keyword)
        return
    if after is None and before is not None:
        yield Finding(Kind.ENUM_ADDED, NO, YES, f"`{keyword}` removed: any value allowed", keyword)
        return
    assert before is not None and after is not None
    gone = [v for k, v in before.items() if k not in after]
    new_values = [v for k, v in after.items() if k not in before]
    if gone:
        shown = ", ".join(show(v) for v in gone)
        yield Finding(Kind.ENUM_REMOVED, YES, NO, f"value {shown} no longer allowed", keyword)
    if new_values:
        shown = ", ".join(show(v) for v in new_values)
        yield Finding(Kind.ENUM_ADDED, NO, YES, f"value {shown} now allowed", keyword)


# -- numeric and size bounds -------------------------------------------------

_LOWER = ("minLength", "minItems", "minProperties", "minContains")
_UPPER = ("maxLength", "maxItems", "maxProperties", "maxContains")
Bound = tuple[Any, bool, str]  # (value, exclusive, keyword)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _numeric_bound(schema: Schema, inclusive: str, exclusive: str) -> Bound | str | None:
    """The effective bound of a pair like (minimum, exclusiveMinimum); a str when unreadable."""
    found: list[Bound] = []
    flag = schema.get(exclusive)
    if inclusive in schema:
        if not _number(schema[inclusive]):
            return inclusive
        found.append((schema[inclusive], flag is True, inclusive))  # draft-04 boolean form
    if exclusive in schema and not isinstance(flag, bool):
        if not _number(flag):
            return exclusive
        found.append((flag, True, exclusive))
    if not found:
        return None
    return found[0] if len(found) == 1 else _tightest(found, lower=inclusive.startswith("min"))


def _tightest(bounds: list[Bound], *, lower: bool) -> Bound:
    def strength(b: Bound) -> tuple[Any, bool]:
        return (b[0], b[1]) if lower else (-b[0], b[1])

    return max(bounds, key=strength)


def _bound_text(bound: Bound | None) -> str:
    return "none" if bound is None else f"{bound[2]} {show(bound[0])}"


def _compare_bound(before: Bound | None, after: Bound | None, *, lower: bool) -> Finding | None:
    if before == after or (before and after and before[:2] == after[:2]):
        return None
    keyword = (after or before or (None, False, ""))[2]
    message = f"{_bound_text(before)} → {_bound_text(after)}"
    if before is None:
        return tightened(message, keyword)
    if after is None:
        return relaxed(message, keyword)
    sign = 1 if lower else -1
    old_strength = (sign * before[0], before[1])
    new_strength = (sign * after[0], after[1])
    if new_strength > old_strength:
        return tightened(message, keyword)
    return relaxed(message, keyword)


def compare_bounds(old: Schema, new: Schema) -> Iterator[Finding]:
    for inclusive, exclusive in (("minimum", "exclusiveMinimum"), ("maximum", "exclusiveMaximum")):
        if old.get(inclusive) == new.get(inclusive) and old.get(exclusive) == new.get(exclusive):
            continue
        before = _numeric_bound(old, inclusive, exclusive)
        after = _numeric_bound(new, inclusive, exclusive)
        if isinstance(before, str) or isinstance(after, str):
            yield Finding(
                Kind.CONSTRAINT_CHANGED, MAYBE, MAYBE, f"`{inclusive}` changed", inclusive
            )
            continue
        found = _compare_bound(before, after, lower=inclusive == "minimum")
        if found:
            yield found
    for keywords, lower in ((_LOWER, True), (_UPPER, False)):
        for keyword in keywords:
            yield from _size_bound(old, new, keyword, lower=lower)


def _size_bound(old: Schema, new: Schema, keyword: str, *, lower: bool) -> Iterator[Finding]:
    a, b = old.get(keyword), new.get(keyword)
    if a == b:
        return
    if (a is not None and not _number(a)) or (b is not None and not _number(b)):
        yield Finding(Kind.CONSTRAINT_CHANGED, MAYBE, MAYBE, f"`{keyword}` changed", keyword)
        return
    before = (a, False, keyword) if a is not None else None
    after = (b, False, keyword) if b is not None else None
    found = _compare_bound(before, after, lower=lower)
    if found:
        yield found


def compare_multiple_of(old: Schema, new: Schema) -> Iterator[Finding]:
    a, b = old.get("multipleOf"), new.get("multipleOf")
    if a == b:
        return
    message = f"multipleOf {show(a) if a is not None else 'none'} → {show(b) if b is not None else 'none'}"
    if a is None:
        yield tightened(message, "multipleOf")
    elif b is None:
        yield relaxed(message, "multipleOf")
    elif not (_number(a) and _number(b)) or a <= 0 or b <= 0:
        yield Finding(Kind.CONSTRAINT_CHANGED, MAYBE, MAYBE, message, "multipleOf")
    else:
        fa, fb = Fraction(a), Fraction(b)
        if (fb / fa).denominator == 1:
            yield tightened(message, "multipleOf")  # every multiple of b is one of a
        elif (fa / fb).denominator == 1:
            yield relaxed(message, "multipleOf")
        else:
            yield Finding(Kind.CONSTRAINT_CHANGED, YES, YES, message, "multipleOf")


def compare_unique(old: Schema, new: Schema) -> Iterator[Finding]:
    a, b = old.get("uniqueItems") is True, new.get("uniqueItems") is True
    if a != b:
        if b:
            yield tightened("uniqueItems now required", "uniqueItems")
        else:
            yield relaxed("uniqueItems no longer required", "uniqueItems")


def _text_keyword(keyword: str, sure: Certainty) -> Callable[[Schema, Schema], Iterator[Finding]]:
    """Compare a keyword whose values cannot be ordered (a regex, a format name)."""

    def compare(old: Schema, new: Schema) -> Iterator[Finding]:
        a, b = old.get(keyword), new.get(keyword)
        if a == b:
            return
        message = f"{keyword} {show(a) if a is not None else 'none'} → {show(b) if b is not None else 'none'}"
        if a is None:
            yield tightened(message, keyword, sure)
        elif b is None:
            yield relaxed(message, keyword, sure)
        else:
            yield Finding(Kind.CONSTRAINT_CHANGED, MAYBE, MAYBE, message, keyword)

    return compare


compare_pattern = _text_keyword("pattern", YES)
compare_format = _text_keyword("format", MAYBE)  # formats are annotations unless asserted
compare_media_type = _text_keyword("contentMediaType", MAYBE)
compare_encoding = _text_keyword("contentEncoding", MAYBE)

VALUE_COMPARISONS = (
    compare_type,
    compare_enum,
    compare_bounds,
    compare_multiple_of,
    compare_unique,
    compare_pattern,
    compare_format,
    compare_media_type,
    compare_encoding,
)
VALUE_KEYWORDS = frozenset(
    {
        "type",
        "enum",
        "const",
        "minimum",
        "exclusiveMinimum",
        "maximum",
        "exclusiveMaximum",
        "multipleOf",
        "uniqueItems",
        "pattern",
        "format",
        "contentMediaType",
        "contentEncoding",
        *_LOWER,
        *_UPPER,
    }
)
