"""`toolgen serve` run by a person: on a terminal it says what it serves, where, and how to
stop it, on stderr; stdout carries protocol only, and a pipe gets no such line."""

from __future__ import annotations

import os
import pty
import subprocess
import sys

from conftest import SPECS


def serve_stdio(*, stderr_on_terminal: bool) -> tuple[str, str]:
    """(stdout, stderr) of `toolgen serve --mock` over stdio, its input closed at once."""
    command = [sys.executable, "-m", "toolgen", "serve", str(SPECS / "notes"), "--mock"]
    if not stderr_on_terminal:
        done = subprocess.run(command, input=b"", capture_output=True, timeout=60, check=True)
        return done.stdout.decode(), done.stderr.decode()
    leader, follower = pty.openpty()
    with subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=follower
    ) as process:
        os.close(follower)
        out, _ = process.communicate(b"", timeout=60)
        assert process.returncode == 0
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the terminal closed with the process
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    return out.decode(), b"".join(chunks).decode()


def test_serve_on_a_terminal_says_what_where_and_how_to_stop_on_stderr_only() -> None:
    out, err = serve_stdio(stderr_on_terminal=True)
    assert out == ""
    [line] = err.splitlines()
    assert "notes" in line
    assert "stdio" in line
    assert "Ctrl-C" in line


def test_serve_into_a_pipe_prints_nothing_beside_the_protocol() -> None:
    assert serve_stdio(stderr_on_terminal=False) == ("", "")
