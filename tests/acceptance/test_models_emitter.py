"""The pydantic models emitter: importable, faithful to the schemas, scoped names, inert text."""

from __future__ import annotations

import ast
import importlib.util
import json
import re
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from conftest import CORPUS, ROOT, SPECS, toolset_of
from pydantic import BaseModel, TypeAdapter, ValidationError

import toolgen
from toolgen import load_toolset
from toolgen.build.python.modelplan import build_plan
from toolgen.build.python.models import model_class_names, render_models
from toolgen.spec.ir import ToolSet

# A spec set with every constraint kind, nested objects with clashing property
# names, a recursive def, nullability and defaults.
CONSTRAINTS_SPEC = """
defs:
  Sku: {type: string, pattern: "^[A-Z]{3}-[0-9]{4}$"}
  Category:
    type: object
    properties:
      name: {type: string, minLength: 1}
      children: {type: array, items: {$ref: "#/defs/Category"}}
    required: [name]
    additionalProperties: false
tools:
  - name: place_order
    input:
      type: object
      properties:
        sku: {$ref: "#/defs/Sku"}
        quantity: {type: integer, minimum: 1, maximum: 10}
        method: {type: string, enum: [card, cash]}
        note: {type: [string, "null"], maxLength: 20}
        coupon: {type: string, minLength: 4}
        tags: {type: array, maxItems: 2, items: {type: string, minLength: 2}}
        gift: {type: boolean, default: false}
        address:
          type: object
          properties:
            method: {type: string, enum: [post, courier]}
            zip: {type: string, pattern: "^[0-9]{5}$"}
          required: [zip]
          additionalProperties: false
      required: [sku, quantity, method]
      additionalProperties: false
    output:
      type: object
      properties:
        order_id: {type: string}
        method: {type: string, enum: [express, standard]}
        category: {$ref: "#/defs/Category"}
      required: [order_id]
  - name: rename_category
    input: {$ref: "#/defs/Category"}
  - name: shop.cancel-order
    input:
      type: object
      properties:
        method: {type: string, enum: [soft, hard]}
        address: {type: object, properties: {city: {type: string}}}
    output: {type: array, items: {type: integer, minimum: 0}}
"""

VALID_ORDER = {"sku": "ABC-1234", "quantity": 2, "method": "card"}


def import_module(code: str, directory: Path, name: str) -> ModuleType:
    """Write `code` as `<name>.py` under `directory` and import it."""
    path = directory / f"{name}.py"
    path.write_text(code, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # pydantic resolves forward references through sys.modules
    spec.loader.exec_module(module)
    return module


PRELUDE_NAMES = ("Omitted", "ToolModel")


def class_names(code: str) -> list[str]:
    """The classes of a models module, without the prelude's."""
    return [
        node.name
        for node in ast.parse(code).body
        if isinstance(node, ast.ClassDef) and node.name not in PRELUDE_NAMES
    ]


def alias_names(code: str) -> list[str]:
    """The type aliases (`X = TypeAliasType("X", ...)`) of a models module."""
    return [
        node.targets[0].id
        for node in ast.parse(code).body
        if isinstance(node, ast.Assign)
        and isinstance(node.targets[0], ast.Name)
        and isinstance(node.value, ast.Call)
        and ast.unparse(node.value.func) == "TypeAliasType"
    ]


def corpus_toolset() -> ToolSet:
    files = sorted(CORPUS.glob("*.json"))
    tools = [json.loads(path.read_text(encoding="utf-8")) for path in files]
    return toolset_of(*((t["name"], t["inputSchema"], t.get("outputSchema")) for t in tools))


@pytest.fixture(scope="module")
def notes() -> ToolSet:
    return load_toolset(SPECS / "notes")


@pytest.fixture(scope="module")
def notes_models(notes: ToolSet, tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    code = render_models(notes, source_note="specs/notes")
    return import_module(code, tmp_path_factory.mktemp("notes"), "notes_models_under_test")


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> tuple[ToolSet, ModuleType]:
    root = tmp_path_factory.mktemp("shop")
    (root / "shop.yaml").write_text(
        "toolgen: 1\nserver: {name: shop, version: '1.0.0'}\n" + CONSTRAINTS_SPEC, encoding="utf-8"
    )
    toolset = load_toolset(root)
    module = import_module(
        render_models(toolset, source_note="shop"), root, "shop_models_under_test"
    )
    return toolset, module


def model(module: ModuleType, toolset: ToolSet, tool: str, part: str) -> TypeAdapter[Any]:
    """The validator of a tool's input or output: its class, or its type alias."""
    input_class, output_class = model_class_names(toolset)[tool]
    name = input_class if part == "input" else output_class
    assert name is not None
    return TypeAdapter(getattr(module, name))


# -- the notes example ----------------------------------------------------------


def test_generated_module_starts_with_the_generated_header_naming_its_source(
    notes: ToolSet,
) -> None:
    first = render_models(notes, source_note="specs/notes").splitlines()[0]
    assert first.startswith("# Generated by toolgen from specs/notes.")


def test_generated_module_defines_input_and_output_classes_for_every_tool(
    notes: ToolSet, notes_models: ModuleType
) -> None:
    names = model_class_names(notes)
    assert names["create_note"] == ("CreateNoteInput", "CreateNoteOutput")
    assert names["count_notes"] == ("CountNotesInput", "CountNotesOutput")
    for input_class, output_class in names.values():
        assert issubclass(getattr(notes_models, input_class), BaseModel)
        assert output_class is not None
        assert hasattr(notes_models, output_class)


NOTES_EXAMPLES = [
    (tool.name, index)
    for tool in load_toolset(SPECS / "notes").tools
    for index in range(len(tool.examples))
]


@pytest.mark.parametrize(("tool", "index"), NOTES_EXAMPLES)
def test_models_accept_every_example_of_the_notes_specs(
    notes: ToolSet, notes_models: ModuleType, tool: str, index: int
) -> None:
    example = notes.tool(tool).examples[index]
    if example.has_input:
        model(notes_models, notes, tool, "input").validate_python(example.input)
    if example.has_output:
        adapter = model(notes_models, notes, tool, "output")
        output = adapter.validate_python(example.output)
        assert adapter.dump_python(output, mode="json") == example.output


def test_defs_become_one_class_or_alias_each_under_their_own_names(notes: ToolSet) -> None:
    code = render_models(notes, source_note="specs/notes")
    names = class_names(code) + alias_names(code)
    for def_name in ("Note", "NoteId", "Tag", "TagTree"):
        assert names.count(def_name) == 1
    assert len(names) == len(set(names))


def test_output_that_is_a_def_subclasses_the_def_class(notes_models: ModuleType) -> None:
    assert issubclass(notes_models.CreateNoteOutput, notes_models.Note)
    assert issubclass(notes_models.TagTreeOutput, notes_models.TagTree)


def test_non_object_outputs_and_scalar_defs_are_type_aliases_of_plain_values(
    notes: ToolSet, notes_models: ModuleType
) -> None:
    code = render_models(notes, source_note="specs/notes")
    assert {"ListNotesOutput", "CountNotesOutput", "NoteId", "Tag"} <= set(alias_names(code))
    assert "RootModel" not in code
    count = TypeAdapter(notes_models.CountNotesOutput)
    assert count.validate_python(3) == 3
    with pytest.raises(ValidationError):
        count.validate_python(-1)
    note = notes_models.GetNoteInput(id="n_0000abcd")
    assert {note.id: 1} == {"n_0000abcd": 1}  # ids are plain hashable str
    with pytest.raises(ValidationError):
        notes_models.GetNoteInput(id="not an id")


def test_recursive_def_validates_at_every_depth(notes_models: ModuleType) -> None:
    deep = {"tag": "a", "children": [{"tag": "b", "children": [{"tag": "c"}]}]}
    assert notes_models.TagTreeOutput.model_validate(deep).model_dump(mode="json") == deep
    with pytest.raises(ValidationError):
        notes_models.TagTreeOutput.model_validate(
            {"tag": "a", "children": [{"tag": "b", "children": [{"tag": "NOT A TAG"}]}]}
        )


def test_defaults_are_filled_in(notes_models: ModuleType) -> None:
    assert notes_models.ListNotesInput().limit == 20
    assert notes_models.CreateNoteInput(title="x").tags == []


def test_rendering_twice_gives_identical_text(notes: ToolSet) -> None:
    again = load_toolset(SPECS / "notes")
    assert render_models(notes, source_note="specs/notes") == render_models(
        again, source_note="specs/notes"
    )


# -- constraints ------------------------------------------------------------------

REJECTED = [
    ("pattern", "place_order", "input", {**VALID_ORDER, "sku": "abc-1234"}),
    (
        "pattern in a nested object",
        "place_order",
        "input",
        {**VALID_ORDER, "address": {"zip": "1"}},
    ),
    ("minLength", "place_order", "input", {**VALID_ORDER, "coupon": "abc"}),
    ("maxLength", "place_order", "input", {**VALID_ORDER, "note": "x" * 21}),
    ("minLength of array items", "place_order", "input", {**VALID_ORDER, "tags": ["a"]}),
    ("maxItems", "place_order", "input", {**VALID_ORDER, "tags": ["ab", "cd", "ef"]}),
    ("minimum", "place_order", "input", {**VALID_ORDER, "quantity": 0}),
    ("maximum", "place_order", "input", {**VALID_ORDER, "quantity": 11}),
    ("enum", "place_order", "input", {**VALID_ORDER, "method": "cheque"}),
    (
        "enum in a nested object",
        "place_order",
        "input",
        {**VALID_ORDER, "address": {"zip": "12345", "method": "card"}},
    ),
    ("additionalProperties false", "place_order", "input", {**VALID_ORDER, "extra": 1}),
    (
        "additionalProperties false, nested",
        "place_order",
        "input",
        {**VALID_ORDER, "address": {"zip": "12345", "x": 1}},
    ),
    ("required", "place_order", "input", {"sku": "ABC-1234", "quantity": 2}),
    ("wrong type: string for integer", "place_order", "input", {**VALID_ORDER, "quantity": "2"}),
    ("wrong type: integer for string", "place_order", "input", {**VALID_ORDER, "coupon": 12345}),
    ("wrong type: integer for boolean", "place_order", "input", {**VALID_ORDER, "gift": 1}),
    ("null where not nullable", "place_order", "input", {**VALID_ORDER, "coupon": None}),
    (
        "required in a recursive def",
        "place_order",
        "output",
        {"order_id": "o", "category": {"name": "a", "children": [{}]}},
    ),
    (
        "minLength in a recursive def",
        "place_order",
        "output",
        {"order_id": "o", "category": {"name": "a", "children": [{"name": ""}]}},
    ),
    ("minimum of a root array's items", "shop.cancel-order", "output", [1, -1]),
    ("wrong type of a root array", "shop.cancel-order", "output", {"x": 1}),
]


@pytest.mark.parametrize(
    ("tool", "part", "value"), [case[1:] for case in REJECTED], ids=[case[0] for case in REJECTED]
)
def test_models_reject_values_that_break_a_constraint(
    shop: tuple[ToolSet, ModuleType], tool: str, part: str, value: Any
) -> None:
    toolset, module = shop
    with pytest.raises(ValidationError):
        model(module, toolset, tool, part).validate_python(value)


ACCEPTED = [
    (
        "place_order",
        "input",
        {**VALID_ORDER, "note": None, "tags": ["ab"], "gift": False, "address": {"zip": "12345"}},
    ),
    (
        "place_order",
        "output",
        {"order_id": "o", "extra": True, "category": {"name": "a", "children": [{"name": "b"}]}},
    ),
    ("shop.cancel-order", "input", {"method": "soft", "address": {"city": "x"}, "other": 1}),
    ("shop.cancel-order", "output", [0, 1]),
]


@pytest.mark.parametrize(("tool", "part", "value"), ACCEPTED)
def test_models_accept_values_their_schema_accepts_and_dump_them_unchanged(
    shop: tuple[ToolSet, ModuleType], tool: str, part: str, value: Any
) -> None:
    toolset, module = shop
    adapter = model(module, toolset, tool, part)
    parsed = adapter.validate_python(value)
    assert adapter.dump_python(parsed, mode="json") == value
    assert adapter.validate_json(adapter.dump_json(parsed)) == parsed


def test_same_property_names_in_different_tools_get_classes_scoped_by_tool(
    shop: tuple[ToolSet, ModuleType],
) -> None:
    toolset, module = shop
    assert model_class_names(toolset)["shop.cancel-order"] == (
        "ShopCancelOrderInput",
        "ShopCancelOrderOutput",
    )
    assert issubclass(module.PlaceOrderInputAddress, BaseModel)
    assert issubclass(module.ShopCancelOrderInputAddress, BaseModel)
    assert issubclass(module.Category, BaseModel)
    assert issubclass(module.RenameCategoryInput, module.Category)
    code = Path(module.__file__ or "").read_text(encoding="utf-8")
    assert not [name for name in class_names(code) if re.search(r"\d$", name)]


# -- naming -----------------------------------------------------------------------

OBJECT: dict[str, Any] = {"type": "object"}


def test_tool_names_with_dots_and_dashes_become_camel_case() -> None:
    names = model_class_names(toolset_of(("a.b-c", OBJECT, OBJECT), ("place_order", OBJECT, None)))
    assert names == {"a.b-c": ("ABCInput", "ABCOutput"), "place_order": ("PlaceOrderInput", None)}


def test_tools_whose_camel_case_collides_get_distinct_deterministic_names() -> None:
    tools = [(name, OBJECT, None) for name in ("get_x", "get-x", "get.x", "getX", "3d")]
    names = {tool: pair[0] for tool, pair in model_class_names(toolset_of(*tools)).items()}
    assert names["get_x"] == "GetXInput"
    assert names["get-x"] == "GetDashXInput"
    assert names["get.x"] == "GetDotXInput"
    assert re.fullmatch(r"GetX[0-9A-F]{8}Input", names["getX"])
    assert names["3d"] == "Tool3dInput"
    assert names == {t: p[0] for t, p in model_class_names(toolset_of(*tools)).items()}


def test_def_named_like_a_tool_class_or_an_import_is_renamed() -> None:
    schema = {
        "type": "object",
        "properties": {
            "a": {"$ref": "#/$defs/GetXInput"},
            "b": {"$ref": "#/$defs/BaseModel"},
            "c": {"$ref": "#/$defs/note_id"},
        },
        "$defs": {
            "GetXInput": {"type": "string"},
            "BaseModel": {"type": "integer"},
            "note_id": {"type": "string"},
        },
    }
    plan = build_plan(toolset_of(("get_x", schema, None)))
    assert {"GetXInput", "GetXInputDef", "BaseModelDef", "NoteId"} <= set(plan.class_names)
    assert "BaseModel" not in plan.class_names


def test_object_branches_of_a_union_are_named_by_what_sets_them_apart() -> None:
    branch = lambda *required: {  # noqa: E731
        "type": "object",
        "properties": {name: {"type": "string"} for name in ("id", "name", "value")},
        "required": [*required, "value"],
    }
    schema = {
        "type": "object",
        "properties": {
            "ref": {"oneOf": [branch("id"), branch("name")]},
            "pet": {
                "anyOf": [
                    {"type": "object", "properties": {"kind": {"const": "cat"}}},
                    {"type": "object", "properties": {"kind": {"const": "dog"}}},
                ]
            },
            "maybe": {"anyOf": [{"type": "object", "properties": {"a": {}}}, {"type": "null"}]},
        },
    }
    plan = build_plan(toolset_of(("t", schema, None)))
    assert {"TInputRefId", "TInputRefName", "TInputPetCat", "TInputPetDog", "TInputMaybe"} <= set(
        plan.class_names
    )


def test_github_corpus_gives_one_input_class_per_tool_and_no_numbered_names(
    tmp_path: Path,
) -> None:
    toolset = corpus_toolset()
    code = render_models(toolset, source_note="corpus")
    names = class_names(code)
    inputs = [pair[0] for pair in model_class_names(toolset).values()]
    assert len(toolset.tools) == len(set(inputs)) == 117
    assert set(inputs) <= set(names)
    assert len(names) == len(set(names))
    planned = set(build_plan(toolset).class_names)
    assert set(names) | set(alias_names(code)) == planned  # DCG invented no name
    assert [name for name in names if re.search(r"\d$", name)] == []
    module = import_module(code, tmp_path, "corpus_models_under_test")
    actions = module.ActionsListInput
    actions.model_validate({"method": "list_workflows", "owner": "o", "repo": "r"})
    with pytest.raises(ValidationError):
        actions.model_validate({"method": "list_workflow", "owner": "o", "repo": "r"})


# -- hostile text -------------------------------------------------------------------

HOSTILE = (
    "end \"\"\" and ''' {{ jinja }} {% block %} \\ back\\nslash\n"
    "real newline\r\n\x00 nul \x1b[31m esc \u2028 sep # comment\n"
    '"; __import__("pathlib").Path("PWNED").touch() #'
)


def test_hostile_spec_text_is_escaped_and_the_module_imports_without_executing_it(
    tmp_path: Path,
) -> None:
    schema = {
        "type": "object",
        "description": HOSTILE,
        "title": HOSTILE,
        "properties": {
            "text": {"type": "string", "description": HOSTILE, "default": HOSTILE},
            "pattern": {"type": "string", "pattern": "^[\"'\\\\]+$", "description": HOSTILE},
            HOSTILE: {"type": "object", "description": HOSTILE, "properties": {"x": {}}},
            "choice": {"enum": [HOSTILE, "plain"]},
        },
        "$defs": {HOSTILE: {"type": "string", "description": HOSTILE}},
    }
    note = 'specs\n__import__("os").system("touch PWNED")\x00 # -*- coding: utf-7 -*-'
    code = render_models(
        toolset_of(("evil", schema, {"$ref": "#/$defs/" + HOSTILE})), source_note=note
    )
    assert code.splitlines()[0].startswith("# Generated by toolgen from specs __import__")
    assert "coding:" not in "\n".join(code.splitlines()[:2])
    (tmp_path / "hostile_models.py").write_text(code, encoding="utf-8")
    probe = textwrap.dedent(
        """
        import json, hostile_models as m
        fields = m.EvilInput.model_fields
        print(json.dumps([
            fields["text"].description, fields["text"].default,
            m.EvilInput.model_validate({"pattern": "\\"'\\\\"}).pattern,
            [f.alias for f in fields.values()],
        ]))
        """
    )
    run = subprocess.run(
        [sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert run.returncode == 0, run.stderr
    description, default, pattern_value, aliases = json.loads(run.stdout)
    assert description == default == HOSTILE
    assert pattern_value == "\"'\\"
    assert HOSTILE in aliases
    assert not (tmp_path / "PWNED").exists()


def test_spec_set_without_tools_gives_an_importable_module(tmp_path: Path) -> None:
    code = render_models(toolset_of(), source_note="empty")
    assert code.startswith("# Generated by toolgen from empty.")
    import_module(code, tmp_path, "empty_models_under_test")


# -- what a person expects of hand-written models ------------------------------------


def test_an_absent_property_is_falsy_and_left_out_of_dumps_while_null_is_kept(
    shop: tuple[ToolSet, ModuleType],
) -> None:
    toolset, module = shop
    cls = getattr(module, model_class_names(toolset)["place_order"][0])
    absent = cls.model_validate(VALID_ORDER)
    assert absent.note is module.OMITTED and not absent.note
    assert "note" not in absent.model_dump() and "note" not in absent.model_dump(mode="json")
    assert '"note"' not in absent.model_dump_json()
    null = cls.model_validate({**VALID_ORDER, "note": None})
    assert null.note is None and null.model_dump(mode="json")["note"] is None
    text = cls.model_validate({**VALID_ORDER, "coupon": module.OMITTED.value})
    assert text.coupon == "OMITTED" and text.coupon is not module.OMITTED  # no JSON value is absent


def test_a_json_name_that_is_not_a_python_name_is_built_by_python_name_and_dumped_by_json_name(
    tmp_path: Path,
) -> None:
    schema = {"type": "object", "properties": {"class": {"type": "string"}, "x-y": {}}}
    module = import_module(
        render_models(toolset_of(("t", schema, None)), source_note="t"), tmp_path, "alias_models"
    )
    built = module.TInput(class_="a")
    assert built.model_dump() == {"class": "a"}
    assert module.TInput.model_validate({"class": "a"}) == built


FORMATS = {
    "uri": "https://Example.COM",
    "uuid": "not-checked",
    "date-time": "2026-11-22T10:00:00+01:00",
    "date": "22 Nov",
    "email": "no at sign",
    "made-up-format": "anything",
}


def test_formats_are_not_enforced_and_values_dump_back_unchanged(tmp_path: Path) -> None:
    schema = {
        "type": "object",
        "properties": {name: {"type": "string", "format": name} for name in FORMATS},
    }
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an unknown format used to leak DCG's UserWarning
        code = render_models(toolset_of(("t", schema, None)), source_note="t")
    module = import_module(code, tmp_path, "format_models")
    parsed = module.TInput.model_validate(FORMATS)
    assert parsed.model_dump(mode="json") == FORMATS
    assert all(type(getattr(parsed, name.replace("-", "_"))) is str for name in FORMATS)


def test_generated_models_are_ruff_format_and_ruff_check_clean(tmp_path: Path) -> None:
    for name in ("notes", "shop", "conformance"):
        toolset = load_toolset(SPECS / name)
        code = render_models(toolset, source_note=name)
        (tmp_path / f"{name}_models.py").write_text(code, encoding="utf-8")
    root = ROOT
    config = ["--config", str(root / "pyproject.toml")]
    for command in (["format", "--check", "--diff"], ["check", "--no-cache"]):
        run = subprocess.run(
            [sys.executable, "-m", "ruff", *command, *config, str(tmp_path)],
            capture_output=True,
            text=True,
            check=False,
            timeout=120,
        )
        assert run.returncode == 0, run.stdout + run.stderr


@pytest.mark.parametrize("revision", ["2025-06-18", "2026-07-28"])
def test_the_runtime_sends_a_generated_model_with_absent_properties_left_out(
    notes_models: ModuleType, revision: str
) -> None:
    runtime = toolgen.load(SPECS / "notes")
    note = notes_models.GetNoteOutput(id="n_0000abcd", title="T")
    result = runtime.call_result("get_note", note, revision)
    assert result["structuredContent"] == {"id": "n_0000abcd", "title": "T"}
    listed = runtime.call_result(
        "list_notes", [note, notes_models.Note(**note.model_dump())], revision
    )
    body = listed["structuredContent"]
    assert (body if revision >= "2026-07-28" else body["result"]) == [
        {"id": "n_0000abcd", "title": "T"}
    ] * 2


def test_an_input_like_a_def_but_for_true_where_the_def_has_1_gets_its_own_class(
    tmp_path: Path,
) -> None:
    (tmp_path / "flags.yaml").write_text(
        textwrap.dedent(
            """\
            toolgen: 1
            server: {name: flags, version: '1.0.0'}
            defs:
              One: {type: object, properties: {v: {const: 1}}, required: [v]}
            tools:
              - name: set_true
                description: Set the flag to true.
                annotations: {readOnly: false, destructive: false, idempotent: true, openWorld: false}
                input: {type: object, properties: {v: {const: true}}, required: [v]}
              - name: set_one
                description: Set the flag to one.
                annotations: {readOnly: false, destructive: false, idempotent: true, openWorld: false}
                input: {$ref: '#/defs/One'}
            """
        ),
        encoding="utf-8",
    )
    toolset = load_toolset(tmp_path)
    module = import_module(render_models(toolset, source_note="flags"), tmp_path, "flags_models")
    flag, one = (model(module, toolset, tool, "input") for tool in ("set_true", "set_one"))
    assert flag.json_schema()["properties"]["v"]["const"] is True
    assert one.json_schema()["properties"]["v"]["const"] == 1
