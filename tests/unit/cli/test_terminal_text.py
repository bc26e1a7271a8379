"""What the command line prints never carries a terminal escape sequence from a spec or a
server: control characters but newline and tab are shown as `\\uXXXX`, which inside JSON
is JSON's own escape, so printed JSON still parses to the same value."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from toolgen.cli import cli
from toolgen.spec.text import visible

ATTACKS = ["\x1b]0;owned\x07", "\x1b[2J", "\x9b2J", "\r", "\x00", "\ud800"]


@pytest.mark.parametrize("attack", ATTACKS)
def test_visible_text_holds_no_control_character(attack: str) -> None:
    shown = visible(f"a{attack}b\n\tc")
    assert shown.endswith("b\n\tc")
    assert all(ch in "\n\t" or (ch.isprintable() and ch < "\ud800") for ch in shown)


def test_printed_json_keeps_its_value_without_raw_control_characters(
    write_specs: Callable[..., Path],
) -> None:
    description = "clear\x9b2J screen"  # a C1 CSI: JSON may carry it raw, a terminal acts
    root = write_specs(
        {"main.yaml": f"tools:\n  - name: t\n    description: {json.dumps(description)}\n"}
    )
    result = CliRunner().invoke(cli, ["tools", str(root)])
    assert result.exit_code == 0, result.output
    assert "\x9b" not in result.stdout
    assert json.loads(result.stdout)["tools"][0]["description"] == description
