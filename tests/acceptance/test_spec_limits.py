"""Inputs past toolgen's limits fail with a located error, never a crash (issue 10).

Each case crashed build and lint before: a traceback and exit 1, the code of bad
input. The texts are generated (a 100,000-level nesting does not fit in a case
file), the expectations are codes and positions.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from toolgen import SpecError, load_toolset
from toolgen.cli import EXIT_INTERNAL_ERROR, main
from toolgen.schema.limits import MAX_INLINED_SCHEMAS, MAX_SCHEMA_DEPTH
from toolgen.spec.errors import ErrorCode
from toolgen.spec.limits import MAX_DEPTH, MAX_FILE_BYTES, MAX_INT_DIGITS, MAX_VALUES
from toolgen.spec.published import load_published
from toolgen.spec.source import read_source

HEADER = "toolgen: 1\nserver: {name: demo, version: '1.0.0'}\ntools:\n  - name: a\n"


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


ARRAY = "{{type: array, items: {ref}}}"
"""A def that is an array of the next def: two levels per def."""
NULLABLE_ITEMS = "{{type: [array, 'null'], items: {{anyOf: [{ref}, {{type: 'null'}}]}}}}"
"""Three levels per def, through the conversions that cost provider views the most stack."""
ANY_OF = "{{anyOf: [{ref}, {{type: string}}]}}"
"""Two levels per def; `toolgen diff` compared these in exponential time."""
TWICE = "{{type: object, properties: {{a: {ref}, b: {ref}}}}}"
"""Each def refers twice to the next: the inlined schema doubles with every def."""


def ref_chain(length: int, shape: str = ARRAY, leaf: str = "string", output: bool = False) -> str:
    """A spec whose tool's input (at line `length + 7`) reaches a chain of `length` defs,
    A0 → A1 → …, each of `shape`, the last one a `leaf` type; `output`: its output too."""
    lines = [f"  A{i}: " + shape.format(ref=f"{{$ref: '#/defs/A{i + 1}'}}") for i in range(length)]
    return (
        "toolgen: 1\nserver: {name: demo, version: '1.0.0'}\ndefs:\n"
        + "\n".join(lines)
        + f"\n  A{length}: {{type: {leaf}}}\ntools:\n  - name: a\n"
        + "    input: {type: object, properties: {p: {$ref: '#/defs/A0'}}}\n"
        + ("    output: {type: object, properties: {p: {$ref: '#/defs/A0'}}}\n" if output else "")
    )


DEEPEST_ARRAYS = (MAX_SCHEMA_DEPTH - 3) // 2
"""The longest `ARRAY` chain within the limit: the root, `p`, then two levels per def and
the leaf def."""


# (name, file bytes, code, line, column)
YAML_CASES: list[tuple[str, bytes, str, int, int]] = [
    # the value of x-deep is at depth 3; its 98th bracket is the 101st level
    ("nesting of 500 levels", (HEADER + "    x-deep: " + nested(500)).encode(), "limit", 5, 110),
    (
        "a schema nested 300 levels",
        (
            HEADER
            + "    input: {type: object, properties: {p: "
            + "{items: " * 150
            + "{}"
            + "}" * 150
            + "}}"
        ).encode(),
        "limit",
        5,
        # p's value opens level 6 at column 43; each `{items: ` is one level, 8 columns
        43 + 8 * 95,
    ),
    (
        "an integer literal of 4,301 digits",
        (HEADER + "    x-n: " + "1" * (MAX_INT_DIGITS + 1) + "\n").encode(),
        "limit",
        5,
        10,
    ),
    (
        "a hexadecimal literal past the same size",
        (HEADER + "    x-n: 0x" + "f" * 4000 + "\n").encode(),
        "limit",
        5,
        10,
    ),
    (
        "invalid UTF-8 on the fifth line",
        HEADER.encode() + b"    description: ab\xffc\n",
        "encoding",
        5,
        20,
    ),
    (
        "invalid UTF-8 after multi-byte characters",
        HEADER.encode() + "    description: \u00e9\u00e9".encode() + b"\xc3(\n",
        "encoding",
        5,
        20,
    ),
    (
        "a chain of defs nesting one level past the limit (crashed build)",
        ref_chain(DEEPEST_ARRAYS + 1).encode(),
        "limit",
        DEEPEST_ARRAYS + 8,
        12,
    ),
    (
        "a chain of 2,000 defs (crashed the validator)",
        ref_chain(2000, "{ref}").encode(),
        "limit",
        2007,
        12,
    ),
    (
        "defs referring twice to the next (build ran for minutes, 1 GB)",
        ref_chain(20, TWICE).encode(),
        "limit",
        27,
        12,
    ),
]


def alias_bomb(levels: int = 9) -> str:
    """Anchors of ten aliases each of the one before: level `k` expands to (10^(k+2)-1)/9
    values, so `a5` (1,111,111, line 11) is the first past a million; `levels` of them are
    well over a billion values in a few hundred bytes."""
    lines = ["    x-bomb:", "      a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for k in range(1, levels):
        lines.append(f"      a{k}: &a{k} [" + ", ".join([f"*a{k - 1}"] * 10) + "]")
    return HEADER + "\n".join(lines) + "\n"


NUMBERS = "    x-n: ["
"""Line 5 of a spec up to a list of numbers: the header holds 8 values before the list, so
the list's number `MAX_VALUES - 8` is the file's value past the limit."""


YAML_CASES += [
    ("aliases expanding past the values a file may hold (480 MB before refused)",
     alias_bomb().encode(), "limit", 11, 11),
    ("a list of 2,000,000 numbers (1.15 GB and 15 s, and called an alias bomb)",
     (HEADER + NUMBERS + "1," * 2_000_000 + "1]\n").encode(), "limit", 5,
     len(NUMBERS) + 2 * (MAX_VALUES - 9) + 1),
    ("a file one byte over the size limit",
     (HEADER + "    description: '" + "x" * MAX_FILE_BYTES + "'\n").encode(), "limit", 1, 1),
]  # fmt: skip


@pytest.mark.parametrize(
    ("data", "code", "line", "column"),
    [case[1:] for case in YAML_CASES],
    ids=[case[0] for case in YAML_CASES],
)
def test_a_spec_past_a_limit_is_a_located_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data: bytes, code: str, line: int, column: int
) -> None:
    (tmp_path / "main.yaml").write_bytes(data)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SpecError) as caught:
        load_toolset(tmp_path)
    got = [
        (d.code, d.location.line, d.location.column) for d in caught.value.diagnostics if d.location
    ]
    assert got == [(code, line, column)], [str(d) for d in caught.value.diagnostics]


DEEP_VALUE = "    x-deep: "
"""Line 5 of a `HEADER` spec up to its nested value, which starts at the next column."""


def assert_one_located_error_in_the_deep_value(diagnostics: Any) -> None:
    """What users rely on when nesting goes past what any layer reads: one error located in
    the value on line 5. Which layer stops it (toolgen's `limit`, or libyaml's own nesting
    limit, `yaml-syntax`, since PyYAML 6.0.4) is not part of that."""
    got = [
        (d.code, d.location and d.location.line, d.location and d.location.column)
        for d in diagnostics
    ]
    assert len(got) == 1, got
    code, line, column = got[0]
    assert code in {ErrorCode.LIMIT, ErrorCode.YAML_SYNTAX}, got
    assert line == 5 and column is not None and column > len(DEEP_VALUE), got


def test_nesting_of_200_000_levels_is_one_located_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """It crashed the YAML composer (a RecursionError)."""
    (tmp_path / "main.yaml").write_text(HEADER + DEEP_VALUE + nested(200_000), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SpecError) as caught:
        load_toolset(tmp_path)
    assert_one_located_error_in_the_deep_value(caught.value.diagnostics)


def test_a_chain_of_defs_within_the_limit_loads(tmp_path: Path) -> None:
    (tmp_path / "main.yaml").write_text(ref_chain(DEEPEST_ARRAYS), encoding="utf-8")
    toolset = load_toolset(tmp_path)
    assert len(toolset.tools[0].input_schema["$defs"]) == DEEPEST_ARRAYS + 1


AT_THE_LIMITS = [(DEEPEST_ARRAYS, ARRAY), (41, NULLABLE_ITEMS), (62, ANY_OF), (11, TWICE)]
"""The longest chain of each shape within the limits."""


@pytest.mark.parametrize(
    ("length", "shape"), AT_THE_LIMITS, ids=["arrays", "nullable items", "anyOf", "referred twice"]
)
def test_every_command_handles_a_schema_at_the_limits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], length: int, shape: str
) -> None:
    """Loading alone proved nothing: at the old limit, build crashed in the provider views,
    lint in its depth rule and diff in its branch matching (RecursionError, exit 3)."""
    old, new = tmp_path / "old", tmp_path / "new"
    for folder, leaf in ((old, "string"), (new, "integer")):
        text = ref_chain(length, shape, leaf, output=True)
        folder.mkdir()
        (folder / "main.yaml").write_text(text, encoding="utf-8")
    out = str(tmp_path / "out")
    commands = [
        (["build", str(old), "-o", out, "-q", "--no-scaffold"], 0),
        (["check", str(old), "-o", out], 0),
        (["lint", str(old)], 0),
        *((["tools", str(old), "--format", view], 0) for view in ("openai", "gemini")),
        (["diff", str(old), str(new)], 1),  # string -> integer deep inside: breaking
    ]
    for argv, code in commands:
        with pytest.raises(SystemExit) as caught:
            main(argv)
            raise SystemExit(0)
        assert caught.value.code == code, (argv, capsys.readouterr().err[-500:])
    assert "string → integer" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("length", "shape"), AT_THE_LIMITS, ids=["arrays", "nullable items", "anyOf", "referred twice"]
)
def test_one_def_more_is_past_the_limits(tmp_path: Path, length: int, shape: str) -> None:
    """So the chains above do test the limits."""
    (tmp_path / "main.yaml").write_text(ref_chain(length + 1, shape), encoding="utf-8")
    with pytest.raises(SpecError) as caught:
        load_toolset(tmp_path)
    assert [(d.code, d.location and d.location.line) for d in caught.value.diagnostics] == [
        ("limit", length + 8)
    ]
    assert f"{MAX_INLINED_SCHEMAS if shape == TWICE else MAX_SCHEMA_DEPTH:,}" in str(caught.value)


def test_diff_of_a_recursive_any_of_def_reports_the_change(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A JSON-like value type (a string, or a list of itself) crashed `toolgen diff` with a
    RecursionError: each branch match started a fresh comparison of the same pair."""
    spec = (
        HEADER.replace(
            "tools:",
            "defs:\n  V: {anyOf: [{type: string}, {type: array, items: "
            "{$ref: '#/defs/V'}}]}\ntools:",
        )
        + "    input: {type: object, properties: {v: {$ref: '#/defs/V'}}}\n"
    )
    for name, text in (("old", spec), ("new", spec.replace("type: string", "type: integer"))):
        (tmp_path / name).mkdir()
        (tmp_path / name / "main.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(SystemExit) as caught:
        main(["diff", str(tmp_path / "old"), str(tmp_path / "new")])
    assert caught.value.code == 1
    assert "type string → integer" in capsys.readouterr().out


def test_diff_compares_each_pair_of_any_of_branches_once_per_probe(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A chain of `anyOf` defs made `toolgen diff` exponential (20 defs: minutes)."""
    import toolgen.diff.schemas as schemas

    started: list[object] = []
    original = schemas.Comparison.__init__

    def counting(self: schemas.Comparison, *args: Any, **kwargs: Any) -> None:
        started.append(self)
        original(self, *args, **kwargs)

    monkeypatch.setattr(schemas.Comparison, "__init__", counting)
    for name, leaf in (("old", "string"), ("new", "integer")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "main.yaml").write_text(ref_chain(12, ANY_OF, leaf), encoding="utf-8")
    with pytest.raises(SystemExit):
        main(["diff", str(tmp_path / "old"), str(tmp_path / "new")])
    # each probe follows the rest of the chain once: quadratic (300), not exponential (28,000)
    assert len(started) <= 4 * 12**2


def test_nesting_up_to_the_limit_loads(tmp_path: Path) -> None:
    (tmp_path / "main.yaml").write_text(
        HEADER + "    x-deep: " + nested(MAX_DEPTH - 3), encoding="utf-8"
    )
    assert load_toolset(tmp_path).tools[0].extensions["x-deep"]


def published_chain(length: int) -> bytes:
    """A published tool whose input schema (on line 2) reaches a chain of `length` `$defs`."""
    defs = ", ".join(f'"A{i}": {{"$ref": "#/$defs/A{i + 1}"}}' for i in range(length))
    return (
        '{"tools": [{"name": "a", "inputSchema":\n  {"type": "object", "properties": {"p": '
        f'{{"$ref": "#/$defs/A0"}}}}, "$defs": {{{defs}, "A{length}": {{}}}}}}}}]}}'
    ).encode()


JSON_CASES: list[tuple[str, bytes, str, int, int]] = [
    ("a chain of 2,000 defs (crashed lint)", published_chain(2000), "limit", 2, 3),
    ("nesting of 5,000 levels", b'{"tools": ' + nested(5000).encode() + b"}", "limit", 1, 110),
    (
        "an integer of 5,000 digits",
        b'{"tools": [{"name": "a", "inputSchema": {"type": "object", "default": '
        + b"1" * 5000
        + b"}}]}",
        "limit",
        1,
        71,
    ),
    ("invalid UTF-8", b'{"tools": [\n{"name": "a\xff"}]}', "encoding", 2, 12),
    (
        "2,000,000 numbers",
        b'{"tools": [{"x": [' + b"1," * 2_000_000 + b"1]}]}",
        "limit",
        1,
        # the root, the list, the tool and x hold 4 values: number MAX_VALUES - 3 is past it
        len('{"tools": [{"x": [') + 2 * (MAX_VALUES - 4) + 1,
    ),
]


@pytest.mark.parametrize(
    ("data", "code", "line", "column"),
    [case[1:] for case in JSON_CASES],
    ids=[case[0] for case in JSON_CASES],
)
def test_published_definitions_past_a_limit_are_a_located_error(
    tmp_path: Path, data: bytes, code: str, line: int, column: int
) -> None:
    path = tmp_path / "tools.json"
    path.write_bytes(data)
    with pytest.raises(SpecError) as caught:
        load_published([path])
    got = [
        (d.code, d.location.line, d.location.column) for d in caught.value.diagnostics if d.location
    ]
    assert got == [(code, line, column)], [str(d) for d in caught.value.diagnostics]


def test_build_and_lint_exit_with_a_located_error_not_a_traceback(tmp_path: Path) -> None:
    (tmp_path / "main.yaml").write_text(HEADER + DEEP_VALUE + nested(100_000), encoding="utf-8")
    for command in (["build", str(tmp_path), "-o", str(tmp_path / "out")], ["lint", str(tmp_path)]):
        done = subprocess.run(
            [sys.executable, "-m", "toolgen", *command], capture_output=True, text=True, timeout=60
        )
        assert done.returncode in (1, 2), done.stderr
        assert "Traceback" not in done.stderr
        # build: `file:line:col: error[code]: ...`; lint: `file:line:col: code error ...`
        located = re.findall(
            r"main\.yaml:5:(\d+): (?:error\[)?([a-z-]+)", done.stderr + done.stdout
        )
        assert len(located) == 1, done.stderr + done.stdout
        column, code = located[0]
        assert code in {ErrorCode.LIMIT, ErrorCode.YAML_SYNTAX}
        assert int(column) > len(DEEP_VALUE)
    assert not (tmp_path / "out").exists()


def test_an_internal_error_has_its_own_exit_code_and_asks_for_a_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise KeyError("a bug")

    monkeypatch.setattr("toolgen.cli.build.run_build", broken)
    monkeypatch.delenv("TOOLGEN_DEBUG", raising=False)
    with pytest.raises(SystemExit) as caught:
        main(["build", str(tmp_path)])
    assert caught.value.code == EXIT_INTERNAL_ERROR
    err = capsys.readouterr().err
    assert "internal error (KeyError: 'a bug')" in err
    assert "please report" in err.lower()
    assert "Traceback" not in err


def test_provider_views_of_a_loop_of_defs_that_each_refer_twice_onward_stay_bounded(
    tmp_path: Path,
) -> None:
    """Such a loop of 10 defs passes the size limit (the loop is followed once), but Gemini's
    view unrolls recursion twice: 2^20 schemas, minutes and gigabytes (found by fuzz.py)."""
    import json

    from toolgen.providers import PROVIDERS, convert
    from toolgen.spec.protocol import LATEST_REVISION, tool_definition

    loop = ref_chain(10, TWICE).replace("\n  A10: {type: string}", "").replace("A10", "A0")
    (tmp_path / "main.yaml").write_text(loop, encoding="utf-8")
    definition = tool_definition(load_toolset(tmp_path).tools[0], LATEST_REVISION)
    for provider in PROVIDERS:
        view = convert(provider, [definition]).tools[0]
        nodes, todo = 0, [view.definition]
        while todo:
            node = todo.pop()
            nodes += isinstance(node, dict)
            todo.extend(
                node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
            )
        assert nodes <= 2 * MAX_INLINED_SCHEMAS, provider
        if provider == "gemini":
            assert any("not expanded" in loss.detail for loss in view.losses)
    assert len(json.dumps(definition)) < 2_000


def test_a_def_measured_once_still_counts_where_it_is_reached_deeper() -> None:
    """Each def is measured once, where it is first reached; reached again 40 levels deeper,
    its depth adds to those 40 levels."""
    from toolgen.schema.limits import extent_problem

    def arrays(levels: int, inner: dict[str, Any]) -> dict[str, Any]:
        for _ in range(levels):
            inner = {"type": "array", "items": inner}
        return inner

    deep = {"$defs": {"X": arrays(100, {"type": "string"})}, "type": "object"}
    ref = {"$ref": "#/$defs/X"}
    assert extent_problem({**deep, "properties": {"a": ref, "b": arrays(20, ref)}}) is None
    too_deep = extent_problem({**deep, "properties": {"a": ref, "b": arrays(40, ref)}})
    assert too_deep is not None and f"{MAX_SCHEMA_DEPTH} levels" in too_deep


@pytest.mark.parametrize(
    ("name", "text"),
    [
        (
            "fixtures.yaml",
            "values:\n  p:\n" + alias_bomb()[len(HEADER) :].replace("    x-bomb:\n", ""),
        ),
        ("main.yaml", HEADER + NUMBERS + "1," * 2_000_000 + "1]\n"),
    ],
    ids=["an alias bomb of a fixtures file", "two million numbers"],
)
def test_a_file_past_the_value_limit_is_refused_before_it_is_built(
    tmp_path: Path, name: str, text: str
) -> None:
    """Counted as the parser reads (aliases: on the node graph, each anchor once), so the
    refusal costs about the file's size, not its values' (before: 450 MB and 1.1 GB)."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    tracemalloc.start()
    try:
        with pytest.raises(SpecError) as caught:
            read_source(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert [d.code for d in caught.value.diagnostics] == [ErrorCode.LIMIT]
    assert peak < 16 * len(text) + 16 * 1024 * 1024, peak
