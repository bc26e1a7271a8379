"""The command line's exit codes: what a shell and CI see."""

from __future__ import annotations

from pathlib import Path
from typing import NoReturn

import pytest
from conftest import SPECS

from toolgen.cli import EXIT_INTERRUPTED, main


def interrupt(*args: object, **kwargs: object) -> NoReturn:
    raise KeyboardInterrupt


def test_ctrl_c_during_a_build_exits_130_without_aborted(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("toolgen.cli.build.run_build", interrupt)
    with pytest.raises(SystemExit) as exit_info:
        main(["build", str(SPECS / "notes"), "-o", str(tmp_path / "out")])
    assert exit_info.value.code == EXIT_INTERRUPTED == 130
    assert "Aborted!" not in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("argv", "code"),
    [
        (["no-such-command"], 2),
        (["build", "--no-such-option"], 2),
        (["--version"], 0),
        (["rules"], 0),
    ],
)
def test_usage_errors_exit_2_and_success_exits_0(argv: list[str], code: int) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
        raise SystemExit(0)  # a command that returns normally
    assert (exit_info.value.code or 0) == code


@pytest.mark.parametrize("command", [["call", "t", "--server", "x"], ["rules"]])
def test_a_bad_message_limit_is_a_usage_error_before_any_command_runs(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    monkeypatch.setenv("TOOLGEN_MAX_MESSAGE", "64MiB")
    with pytest.raises(SystemExit) as exit_info:
        main(command)
    assert exit_info.value.code == 2
    assert "TOOLGEN_MAX_MESSAGE" in capsys.readouterr().err
