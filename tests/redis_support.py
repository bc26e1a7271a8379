"""A real Redis server for the tests of the shared store: Debian's `redis-server`, started
on a free loopback port with nothing saved to disk, stopped at the end.

Tests that need it take the `redis_url` fixture (import it into the test module); they
are skipped, saying why, where no `redis-server` is installed (`.ci/run` installs it).
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Iterator

import pytest

START_GUARD = 20.0
"""Seconds for Redis to answer a PING: a guard against a hang, not a timing assertion."""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    """`redis://127.0.0.1:PORT/0` of a Redis server of this test module's own."""
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.skip("redis-server is not installed (apt-get install redis-server)")
    port = _free_port()
    process = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + START_GUARD
        while not _answers(port):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"redis-server did not start on port {port}")
            time.sleep(0.02)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.terminate()
        try:
            process.wait(START_GUARD)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
