"""The one naming service: type names shared by every target, identifiers per language."""

from __future__ import annotations

import pytest

from toolgen.build.naming import LANGUAGES, numbered, reserved_types, words
from toolgen.schema.jsonequal import json_type

IDENTIFIERS: list[tuple[str, str, dict[str, str]]] = [
    ("created_at", "field", {"rust": "created_at", "go": "CreatedAt", "typescript": "createdAt"}),
    ("userId", "field", {"rust": "user_id", "go": "UserID", "typescript": "userId"}),
    ("HTTPServer", "method", {"rust": "http_server", "go": "HTTPServer", "typescript": "httpServer"}),
    ("type", "field", {"rust": "type_", "go": "Type", "python": "type"}),
    ("class", "field", {"rust": "class", "go": "Class", "python": "class_"}),
    ("self", "method", {"rust": "self_", "go": "Self", "typescript": "self"}),
    ("3d.render", "method", {"rust": "tool_3d_render", "go": "Tool3dRender", "typescript": "tool3dRender"}),
    ("1st", "field", {"rust": "field_1st", "go": "Field1st"}),
    ("naïve", "field", {"rust": "naive", "go": "Naive"}),
    ("名前", "field", {"rust": "u540d_u524d", "go": "U540dU524d"}),
    ("--", "variant", {"rust": "Value", "go": "Value"}),
    ("in_progress", "variant", {"rust": "InProgress", "go": "InProgress", "typescript": "InProgress"}),
    ("toString", "method", {"typescript": "toStringTool", "rust": "to_string"}),
    ("then", "method", {"typescript": "thenTool"}),
    ("__proto__", "method", {"typescript": "proto"}),
    ("check_drift", "method", {"typescript": "checkDriftTool", "rust": "check_drift", "go": "CheckDriftTool"}),
    ("dispatch", "method", {"rust": "dispatch_tool", "typescript": "dispatch"}),
    ("new", "method", {"rust": "new_tool"}),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "kind", "expected"), IDENTIFIERS, ids=[f"{c[0]} {c[1]}" for c in IDENTIFIERS]
)
def test_a_name_becomes_an_identifier_in_each_languages_style(
    name: str, kind: str, expected: dict[str, str]
) -> None:
    for language, identifier in expected.items():
        assert LANGUAGES[language].identifiers([name], kind)[name] == identifier  # type: ignore[arg-type]


COLLIDING = [
    ["get-x", "get_x", "get.x", "getX", "GET_X"],
    ["fooBar", "foo_bar", "FooBar", "foo-bar", "FOO_BAR"],
    ["a", "A", "a_", "_a"],
]


@pytest.mark.parametrize("names", COLLIDING, ids=lambda names: names[0])
@pytest.mark.parametrize("language", sorted(LANGUAGES))
@pytest.mark.parametrize("kind", ["method", "field", "variant"])
def test_names_equal_after_case_conversion_stay_apart_the_first_one_plain(
    names: list[str], language: str, kind: str
) -> None:
    rules = LANGUAGES[language]
    identifiers = rules.identifiers(names, kind)  # type: ignore[arg-type]
    assert len(set(identifiers.values())) == len(names)
    assert identifiers[names[0]] == rules.identifiers(names[:1], kind)[names[0]]  # type: ignore[arg-type]
    assert identifiers == rules.identifiers(names, kind)  # type: ignore[arg-type]


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_no_identifier_is_a_keyword_or_a_reserved_member(language: str) -> None:
    rules = LANGUAGES[language]
    names = sorted(rules.keywords | rules.members)
    for kind in ("method", "field", "variant"):
        made = rules.identifiers(names, kind, taken=())  # type: ignore[arg-type]
        assert not set(made.values()) & rules.keywords
    methods = rules.identifiers(names, "method")
    assert not set(methods.values()) & rules.members


def test_an_identifier_never_takes_a_name_already_taken() -> None:
    made = LANGUAGES["rust"].identifiers(["list", "get-x"], "method", taken={"list", "get_x"})
    assert made["list"].startswith("list_") and made["get-x"] == "get_dash_x"


def test_what_each_runtime_exports_is_never_a_type_name() -> None:
    typescript = LANGUAGES["typescript"]
    assert typescript.runtime is not None
    assert {"ToolError", "JsonValue", "DriftError", "ToolClient"} <= typescript.types
    assert typescript.types <= reserved_types()
    go = LANGUAGES["go"]  # its runtime is a package of its own: the names the package declares
    assert (
        {"ToolError", "Nullable", "Null", "DriftWarn", "NewClient"} <= go.types <= reserved_types()
    )
    for language in LANGUAGES.values():
        assert language.types <= reserved_types()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("createdAt", ["created", "At"]),
        ("HTTPServer", ["HTTP", "Server"]),
        ("v2_api", ["v2", "api"]),
        ("a.b-c d", ["a", "b", "c", "d"]),
        ("\uff26\uff55\uff4c\uff4c", ["Full"]),  # fullwidth letters
    ],
)
def test_words_split_at_separators_and_case_turns(text: str, expected: list[str]) -> None:
    assert words(text) == expected


def test_spelled_words_keep_the_separators() -> None:
    assert words("get-x", spell=True) == ["get", "dash", "x"]
    assert words("a/b", spell=True) == ["a", "u002f", "b"]


@pytest.mark.parametrize(
    ("labels", "expected"),
    [
        (["Integer", "Number"], ["Integer", "Number"]),
        (["Integer", "Integer"], ["Integer", "Integer2"]),
        (["Integer", "Integer", "Integer"], ["Integer", "Integer2", "Integer3"]),
        (["Integer2", "Integer", "Integer"], ["Integer2", "Integer", "Integer3"]),
    ],
)
def test_union_labels_of_one_kind_are_told_apart_by_a_number(
    labels: list[str], expected: list[str]
) -> None:
    assert numbered(labels) == expected


@pytest.mark.parametrize(
    ("value", "kind"),
    [(1, "integer"), (1.0, "integer"), (1.5, "number"), (True, "boolean"), (None, "null"),
     ("1", "string"), ([], "array"), ({}, "object"), (10**30, "integer")],
)  # fmt: skip
def test_a_json_value_has_its_json_schema_type(value: object, kind: str) -> None:
    assert json_type(value) == kind
