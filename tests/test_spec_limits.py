"""Inputs past toolgen's limits fail with a located error, never a crash (issue 10).

Each case crashed build and lint before: a traceback and exit 1, the code of bad
input. The texts are generated (a 100,000-level nesting does not fit in a case
file), the expectations are codes and positions.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from toolgen import SpecError, load_toolset
from toolgen.cli import EXIT_INTERNAL_ERROR, main
from toolgen.frontend.limits import MAX_DEPTH, MAX_INT_DIGITS
from toolgen.frontend.published import load_published
from toolgen.jsonschema.limits import MAX_REF_DEPTH

HEADER = "toolgen: 1\nserver: {name: demo, version: '1.0.0'}\ntools:\n  - name: a\n"


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def ref_chain(length: int) -> str:
    lines = [f"  A{i}: {{type: array, items: {{$ref: '#/defs/A{i + 1}'}}}}" for i in range(length)]
    return (
        "toolgen: 1\nserver: {name: demo, version: '1.0.0'}\ndefs:\n"
        + "\n".join(lines)
        + f"\n  A{length}: {{type: string}}\ntools:\n  - name: a\n"
        + "    input: {type: object, properties: {p: {$ref: '#/defs/A0'}}}\n"
    )


# (name, file bytes, code, line, column)
YAML_CASES: list[tuple[str, bytes, str, int, int]] = [
    # the value of x-deep is at depth 3; its 98th bracket is the 101st level
    ("nesting of 500 levels", (HEADER + "    x-deep: " + nested(500)).encode(), "limit", 5, 110),
    (
        "nesting of 200,000 levels (crashed the YAML composer)",
        (HEADER + "    x-deep: " + nested(200_000)).encode(),
        "limit",
        5,
        110,
    ),
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
        "a chain of defs too long to compile",
        ref_chain(MAX_REF_DEPTH + 10).encode(),
        "limit",
        MAX_REF_DEPTH + 17,
        12,
    ),
]


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


def test_a_chain_of_defs_within_the_limit_loads(tmp_path: Path) -> None:
    (tmp_path / "main.yaml").write_text(ref_chain(MAX_REF_DEPTH - 10), encoding="utf-8")
    toolset = load_toolset(tmp_path)
    assert len(toolset.tools[0].input_schema["$defs"]) == MAX_REF_DEPTH - 9


def test_nesting_up_to_the_limit_loads(tmp_path: Path) -> None:
    (tmp_path / "main.yaml").write_text(
        HEADER + "    x-deep: " + nested(MAX_DEPTH - 3), encoding="utf-8"
    )
    assert load_toolset(tmp_path).tools[0].extensions["x-deep"]


JSON_CASES: list[tuple[str, bytes, str, int, int]] = [
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
    (tmp_path / "main.yaml").write_text(HEADER + "    x-deep: " + nested(100_000), encoding="utf-8")
    for command in (["build", str(tmp_path), "-o", str(tmp_path / "out")], ["lint", str(tmp_path)]):
        done = subprocess.run(
            [sys.executable, "-m", "toolgen", *command], capture_output=True, text=True, timeout=60
        )
        assert done.returncode in (1, 2), done.stderr
        assert "Traceback" not in done.stderr
        assert "main.yaml:5:110" in done.stderr + done.stdout
    assert not (tmp_path / "out").exists()


def test_an_internal_error_has_its_own_exit_code_and_asks_for_a_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import toolgen.compiler.build

    def broken(*args: object, **kwargs: object) -> None:
        raise KeyError("a bug")

    monkeypatch.setattr(toolgen.compiler.build, "build", broken)
    monkeypatch.delenv("TOOLGEN_DEBUG", raising=False)
    with pytest.raises(SystemExit) as caught:
        main(["build", str(tmp_path)])
    assert caught.value.code == EXIT_INTERNAL_ERROR
    err = capsys.readouterr().err
    assert "internal error (KeyError: 'a bug')" in err
    assert "please report" in err.lower()
    assert "Traceback" not in err
