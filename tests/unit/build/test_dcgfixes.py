"""toolgen's stand-ins for helpers of DCG's builtin formatter return exactly what DCG's own do,
and are in place only while toolgen calls DCG."""

from __future__ import annotations

import ast
import tokenize
import warnings
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import SPECS
from datamodel_code_generator import _builtin_formatter as formatter
from datamodel_code_generator import generate
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from toolgen import load_toolset
from toolgen.build.python import dcgfixes
from toolgen.build.python.modelplan import SCHEMA_DIALECT, build_plan
from toolgen.build.python.models import dcg_options, generate_fragments


def string_tokens(tokens: Iterator[tokenize.TokenInfo]) -> list[tuple[str, Any, Any]]:
    """The string tokens of `tokens`, with where they start and end."""
    return [(t.string, t.start, t.end) for t in tokens if t.type == tokenize.STRING]


def assert_same_as_dcg(code: str) -> None:
    """Quote normalization, string tokens and the blank-line pass agree with DCG's own."""
    quotes = formatter._normalize_string_quotes(code)  # DCG's own, outside `faster`
    strings = string_tokens(formatter._string_tokens(code))
    blank_lines = formatter._normalize_top_level_blank_lines(code)
    assert dcgfixes.normalize_string_quotes(code) == quotes
    assert string_tokens(dcgfixes.string_tokens(code)) == strings
    with dcgfixes.faster():  # the blank-line pass calls our `_string_tokens` in there
        assert formatter._normalize_top_level_blank_lines(code) == blank_lines


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab \r\n\x0c\x0b\x1c\u2028\t"), max_size=40))
def test_the_linear_line_splitter_returns_what_dcgs_own_returns(source: str) -> None:
    assert dcgfixes.split_lines(source) == formatter._splitlines_no_ff(source)


def test_the_stand_ins_are_in_dcgs_formatter_only_while_toolgen_calls_it() -> None:
    own = (
        formatter._splitlines_no_ff,
        formatter._normalize_string_quotes,
        formatter._string_tokens,
    )
    assert dcgfixes.split_lines not in own
    with dcgfixes.faster():
        assert formatter._splitlines_no_ff is dcgfixes.split_lines
        assert formatter._normalize_string_quotes is dcgfixes.normalize_string_quotes
        assert formatter._string_tokens is dcgfixes.string_tokens
    assert (
        formatter._splitlines_no_ff,
        formatter._normalize_string_quotes,
        formatter._string_tokens,
    ) == own
    plan = build_plan(load_toolset(SPECS / "notes"))
    generate_fragments(plan, [0, 1], None)  # a build's own call puts DCG's back after it too
    assert formatter._string_tokens is own[2]


BODY = st.text(alphabet=st.sampled_from("ab'\"\\#\n é"), max_size=12)
LITERAL = st.builds(
    lambda prefix, quote, body: f"{prefix}{quote}{body}{quote}",
    st.sampled_from(["", "r", "R", "b", "u", "rb", "Br", "f"]),
    st.sampled_from(["'", '"', "'''", '"""']),
    BODY,
)
LINE = st.one_of(
    st.builds(lambda literal: f"x = {literal}", LITERAL),
    st.builds(lambda a, b: f"x = [{a}, {b}]  # {a}", LITERAL, LITERAL),
    st.builds(lambda literal: f"class A:\n    {literal}\n    y: int = 1\n", LITERAL),
    st.builds(lambda text: f"# {text}", BODY.filter(lambda text: "\n" not in text)),
    st.sampled_from(["", "def f():\n    return 1", "if 1:\n\tpass", "z = (1 +\\\n 2)"]),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(LINE, max_size=6))
def test_string_literals_are_found_and_requoted_as_dcg_does_in_any_valid_module(
    lines: list[str],
) -> None:
    code = "\n".join(lines)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escapes in generated literals
            ast.parse(code)
    except SyntaxError:
        assume(False)
    assert_same_as_dcg(code)


@pytest.mark.parametrize(
    "code",
    [
        "x = 'it''s'  # 'a \"b\"'",
        "x = '\\''\ny = '\\\\'\nz = r'\\d+'\nw = ''",
        "class A:\n    '''Doc's\n\n    more'''\n\n\n\n\nclass B:\n    pass",
        "x = f'{y}'",  # f-strings: DCG's own code decides
        "x = 'a'\n\ty = 1",  # a tab: DCG's own code decides
        "x = (1 +\\\n 2)",  # a backslash continuation: DCG's own code decides
        "x = ''''''\ny = \"\"\"\"\"\"\nz = '''a''b'''",  # Python < 3.11.4 found none with *+
        "x = 'a'\r\ny = 'b'",
        "if'x'in'xy':pass",
        "y = 0 or'a'",
    ],
)
def test_awkward_modules_give_what_dcg_gives(code: str) -> None:
    assert_same_as_dcg(code)


def test_code_only_tokenize_can_read_is_left_to_dcgs_own_helpers() -> None:
    for code in ["x = f'{y}'", "x = 'a'\n\ty = 1", "x = (1 +\\\n 2)", "x = 'a\r'", "x = '"]:
        assert dcgfixes.string_literals(code) is None


@pytest.mark.parametrize("spec_set", ["notes", "shop", "conformance"])
def test_dcgs_unformatted_models_of_the_repository_specs_give_what_dcg_gives(
    spec_set: str,
) -> None:
    plan = build_plan(load_toolset(SPECS / spec_set))
    schema = {"$schema": SCHEMA_DIALECT, "$defs": plan.schema["$defs"]}
    code = generate(schema, **{**dcg_options(), "formatters": []})
    assert isinstance(code, str) and "='" in code  # single quotes left for the formatter
    assert dcgfixes.string_literals(code) is not None  # the fast path, not the fallback
    assert_same_as_dcg(code)
