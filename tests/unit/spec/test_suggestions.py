"""What a spec error suggests: the keyword a misspelt key meant, the def a reference meant."""

from __future__ import annotations

import pytest

from toolgen.schema.keywords import misspelt
from toolgen.spec.resolver import closest

KEYS = [
    ("requried", "required"),
    ("minimun", "minimum"),
    ("maxLenght", "maxLength"),
    ("additonalProperties", "additionalProperties"),
    ("Required", "required"),
    ("example", "examples"),
    ("required", None),  # a keyword
    ("x-requried", None),  # an extension
    ("nullable", None),  # far from every keyword: lint's TG315 warns
    ("typ", None),  # too short to tell from another keyword
    ("discriminator", None),
]


@pytest.mark.parametrize(("key", "meant"), KEYS)
def test_a_key_one_typo_from_a_keyword_names_it(key: str, meant: str | None) -> None:
    assert misspelt(key) == meant


DEFS = [
    ("NoteID", ["Note", "NoteId"], "NoteId"),
    ("Notes", ["Note", "Tag"], "Note"),
    ("Zebra", ["Note", "Tag"], None),
    ("Note", [], None),
]


@pytest.mark.parametrize(("name", "names", "meant"), DEFS)
def test_a_reference_to_a_missing_def_names_the_nearest(
    name: str, names: list[str], meant: str | None
) -> None:
    assert closest(name, names) == meant
