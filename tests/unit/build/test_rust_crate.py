"""The Rust crate of a spec set: goldens, determinism, inert spec text, integer types.

After an intended change to the generated Rust, run
`python -m pytest tests/unit/build/test_rust_crate.py --update-goldens` and review the diff of
`tests/golden/rust/`.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import SPECS, TESTS, assert_matches_goldens, toolset_of

from toolgen import load_toolset
from toolgen.build.common import header_text
from toolgen.build.rust.crate import RUNTIME, render_rust
from toolgen.build.rust.layout import doc_comment, rust_string
from toolgen.build.rust.types import integer
from toolgen.build.target import Rendering
from toolgen.spec.ir import ToolSet

GOLDEN = TESTS / "golden" / "rust"
CASES = {"notes": SPECS / "notes", "features": TESTS / "targets" / "specs" / "features"}
SETS = [
    SPECS / "shop",
    SPECS / "conformance",
    TESTS / "targets" / "specs" / "names",
    *CASES.values(),
]


def rendered(toolset: ToolSet, note: str) -> dict[str, str]:
    return dict(render_rust(Rendering(toolset, note)))


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_generated_rust_matches_the_goldens(case: str, update_goldens: bool) -> None:
    files = rendered(load_toolset(CASES[case]), f"tests/{case}")
    del files["src/runtime.rs"]  # the template itself (next test)
    assert_matches_goldens(files, GOLDEN / case, update_goldens, "Rust")


def test_the_runtime_is_the_template_under_the_generated_header() -> None:
    files = rendered(load_toolset(SPECS / "notes"), "specs/notes")
    template = RUNTIME.read_text(encoding="utf-8")
    assert files["src/runtime.rs"] == f"// {header_text('specs/notes')}\n\n{template}"


@pytest.mark.parametrize("specs", SETS, ids=lambda p: p.name)
def test_the_same_spec_set_gives_the_same_text(specs: Path) -> None:
    assert rendered(load_toolset(specs), "x") == rendered(load_toolset(specs), "x")


HOSTILE = ['"', "\\", "\n", "\r", "\u2028", "\x00", "*/", "\u202e", 'x"); panic!("']


@pytest.mark.parametrize("text", HOSTILE, ids=repr)
def test_spec_text_lands_only_in_escaped_literals_and_comments(text: str) -> None:
    literal = rust_string(text)
    assert literal.startswith('"') and literal.endswith('"')
    inner = literal[1:-1].replace("\\\\", "")
    assert '"' not in inner.replace('\\"', "")
    assert not any(c in inner for c in "\n\r\x00\u2028\u202e")
    for line in doc_comment([f"a {text} b"], "    ").splitlines():
        assert line.startswith("    ///") and "\r" not in line and "\x00" not in line


def test_a_tools_property_names_and_descriptions_never_become_code() -> None:
    name = 'x"); panic!("'
    schema = {"type": "object", "properties": {name: {"type": "string", "description": "*/ }"}}}
    lib = rendered(toolset_of((name, schema, schema)), "x")["src/lib.rs"]
    for line in lib.splitlines():
        if "panic!(" in line:  # in a doc comment, or inside a literal with its quotes escaped
            assert line.lstrip().startswith("///") or 'panic!(\\"' in line, line


INTEGERS = [
    ((None, None), "i64"),
    ((0, None), "i64"),
    ((0, 255), "i64"),
    ((0, 2**64 - 1), "u64"),
    ((-(2**70), 2**70), "i128"),
    ((0, 2**128 - 1), "u128"),
    ((0, 2**200), "serde_json::Number"),
    ((None, 2**64), "serde_json::Number"),
]


@pytest.mark.parametrize(("bounds", "expected"), INTEGERS, ids=str)
def test_an_integer_is_the_narrowest_rust_integer_holding_every_value_its_bounds_allow(
    bounds: tuple[int | None, int | None], expected: str
) -> None:
    assert integer(*bounds) == expected


@pytest.mark.parametrize(
    ("schema", "imported"),
    [
        ({"type": "object", "additionalProperties": {"type": "string"}}, False),  # an alias
        ({"type": "object", "properties": {"a": {"type": "string"}}}, True),  # a struct
    ],
)
def test_serde_is_imported_only_where_a_type_derives_its_traits(
    schema: dict[str, object], imported: bool
) -> None:
    lib = rendered(toolset_of(("t", schema, None)), "x")["src/lib.rs"]
    assert ("use serde::{Deserialize, Serialize};" in lib) is imported
    assert "\n\n\n" not in lib


def test_an_input_only_null_fits_is_read_and_passed_as_unit_without_a_binding() -> None:
    schema = {"type": "null"}  # what a `$ref` beside `type: object` may leave of an input
    lib = rendered(toolset_of(("t", schema, None)), "x")["src/lib.rs"]
    assert "runtime::arguments::<()>(arguments)?;" in lib and "self.t(()).await" in lib
    assert "let input =" not in lib  # clippy's let_unit_value
