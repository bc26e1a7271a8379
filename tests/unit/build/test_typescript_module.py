"""The TypeScript module of a spec set: names, goldens, determinism, inert spec text.

After an intended change to the generated TypeScript, run
`python -m pytest tests/unit/build/test_typescript_module.py --update-goldens` and review
the diff of `tests/golden/typescript/`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import SPECS, TESTS, assert_matches_goldens

from toolgen import load_toolset
from toolgen.build.common import header_text
from toolgen.build.python.modelplan import build_plan
from toolgen.build.target import Rendering
from toolgen.build.typescript.module import RUNTIME, TESTED_WITH, Module, _json, render_typescript
from toolgen.spec.errors import SpecError
from toolgen.spec.ir import ToolSet

GOLDEN = TESTS / "golden" / "typescript"
FEATURES = TESTS / "targets" / "specs" / "features"
CASES = {"edge": TESTS / "golden" / "specs" / "edge", "features": FEATURES}
SETS = [SPECS / "notes", SPECS / "shop", SPECS / "conformance", *CASES.values()]


def rendered(toolset: ToolSet, note: str) -> dict[str, str]:
    return dict(render_typescript(Rendering(toolset, note)))


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_generated_typescript_matches_the_goldens(case: str, update_goldens: bool) -> None:
    files = rendered(load_toolset(CASES[case]), f"tests/{case}")
    del files["runtime.ts"]  # the template itself (next test)
    assert_matches_goldens(files, GOLDEN / case, update_goldens, "TypeScript")


def test_the_runtime_is_the_template_under_the_generated_header() -> None:
    files = rendered(load_toolset(SPECS / "notes"), "specs/notes")
    template = RUNTIME.read_text(encoding="utf-8")
    assert files["runtime.ts"] == f"// {header_text('specs/notes')}\n{template}"
    assert "specs/notes" not in template


@pytest.mark.parametrize("specs", SETS, ids=lambda p: p.name)
def test_the_same_spec_set_gives_the_same_text(specs: Path) -> None:
    assert rendered(load_toolset(specs), "x") == rendered(load_toolset(specs), "x")


@pytest.mark.parametrize("specs", SETS, ids=lambda p: p.name)
def test_type_names_are_the_python_models_class_names(specs: Path) -> None:
    toolset = load_toolset(specs)
    job = Rendering(toolset, "x")
    plan = build_plan(toolset)
    for tool in toolset.tools:
        names = job.model.tools[tool.name]
        assert (names.input, names.output) == plan.tool_classes[tool.name]
    index = Module(job).text()
    for name, named in job.model.types.items():
        assert f"export type {name} = " in index
        if named.role != "inline" or name in plan.class_names:
            continue
        assert named.type.__class__.__name__ not in ("Record", "Intersection"), name


def test_methods_are_camel_case_and_collision_safe() -> None:
    methods = Module(Rendering(load_toolset(FEATURES), "x")).methods
    assert methods == {
        "scalars": "scalars",
        "collections": "collections",
        "combinators": "combinators",
        "tree": "tree",
        "odd.names": "oddNames",
        "to_string": "toStringTool",  # every object has a toString
        "pair": "pair",
        "get-x": "getX",
        "3d.render": "tool3dRender",  # a leading digit
        "nothing": "nothing",
        "pick": "pick",
        "text_only": "textOnly",
    }


def test_tools_with_the_same_words_spell_their_separators_out() -> None:
    methods = Module(
        Rendering(load_toolset(TESTS / "targets" / "specs" / "collisions"), "x")
    ).methods
    assert methods == {"get-x": "getX", "get_x": "getUnderscoreX", "get.x": "getDotX"}


def test_a_method_never_hides_a_client_member_nor_another_method(
    write_specs: Callable[..., Path],
) -> None:
    names = [
        "cancel_order",
        "check_drift",
        "sdk",
        "constructor",
        "to_string",
        "to_string_tool",
        "then",
    ]
    tools = "".join(f"  - {{name: {name}, description: d.}}\n" for name in names)
    toolset = load_toolset(write_specs({"main.yaml": f"tools:\n{tools}"}))
    methods = Module(Rendering(toolset, "x")).methods
    assert methods == {
        "cancel_order": "cancelOrder",
        "check_drift": "checkDriftTool",
        "sdk": "sdkTool",
        "constructor": "constructorTool",
        "to_string": "toStringTool",
        "to_string_tool": "toUnderscoreStringUnderscoreTool",  # spelled: toStringTool is taken
        "then": "thenTool",  # a client with a `then` method would be awaited as a promise
    }


def test_a_key_called_proto_stays_an_own_property_of_a_constant() -> None:
    assert _json({"a": {"__proto__": {"type": "string"}}}) == (
        '{\n  "a": {\n    ["__proto__"]: {\n      "type": "string"\n    }\n  }\n}'
    )


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ({"a": "x\u2028y"}, '{\n  "a": "x\\u2028y"\n}'),
        (["lone \ud800"], '[\n  "lone \\ud800"\n]'),  # orjson refuses it: written the slow way
        ({"n": 2**70}, '{\n  "n": 1180591620717411303424\n}'),
    ],
)
def test_constants_are_json_no_text_can_break(value: object, text: str) -> None:
    assert _json(value) == text


def test_the_package_json_names_the_versions_the_tests_use() -> None:
    files = rendered(load_toolset(SPECS / "shop"), "specs/shop")
    package = json.loads(files["package.json"])
    assert package["name"] == "shop-orders" and package["type"] == "module"
    assert package["peerDependencies"] == {
        "@modelcontextprotocol/client": "^2.4.0",
        "@modelcontextprotocol/server": "^2.4.0",
        "ajv": "^8.20.0",
    }
    pinned = json.loads((TESTS / "ts_support" / "package.json").read_text())["dependencies"]
    tested = {k: v for k, v in TESTED_WITH.items() if k != "node"}
    assert tested == {k: v for k, v in pinned.items() if k in tested}


PROTO_CASES = [
    ("tools:\n  - {name: toString, description: d.}\n  - {name: __proto__, description: d.}\n", 5, 12),
    ("tools:\n  - name: t\n    input: {type: object, properties: {__proto__: {type: string}}}\n", 5, 40),
    ("defs:\n  D: {type: object, properties: {a: {type: object, properties: {__proto__: {}}}}}\n"
     "tools:\n  - {name: t, output: {$ref: '#/defs/D'}}\n", 4, 65),
]  # fmt: skip
"""A tool named `__proto__`, an input property so named, one deep inside a def: (spec, line,
column) of the name."""


@pytest.mark.parametrize(("spec", "line", "column"), PROTO_CASES, ids=["tool", "input", "def"])
def test_the_name_proto_is_refused_where_it_is_written_for_typescript(
    write_specs: Callable[..., Path], spec: str, line: int, column: int
) -> None:
    toolset = load_toolset(write_specs({"main.yaml": spec}))
    with pytest.raises(SpecError) as raised:
        render_typescript(Rendering(toolset, "x"))
    [problem] = raised.value.diagnostics
    assert problem.code == "invalid-name"
    assert problem.location is not None
    where = problem.location
    assert (Path(where.file).name, where.line, where.column) == ("main.yaml", line, column)


def test_the_docs_recipe_installs_the_versions_the_module_is_tested_with() -> None:
    page = (TESTS.parent / "docs" / "typescript.md").read_text(encoding="utf-8")
    commands = "\n".join(re.findall(r"^```sh\n(.*?)^```$", page, re.M | re.S))
    pinned = dict(re.findall(r"(@?[\w/-]+)@(\d[\w.]*)", commands))
    tested = {k: v for k, v in TESTED_WITH.items() if k not in ("node", "zod")}
    assert {k: pinned.get(k) for k in tested} == tested
    assert pinned["@types/node"] == TESTED_WITH["node"]
