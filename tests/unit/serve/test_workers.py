"""The worker threads of sync handlers: a job never waits behind a busy thread, the threads
of a burst end when they stay idle, and a job never waits for a thread that is ending."""

from __future__ import annotations

import threading
import time
from functools import partial

import pytest
from conftest import wait_until

from toolgen.serve import calls
from toolgen.serve.calls import Workers


def _threads() -> set[threading.Thread]:
    return {t for t in threading.enumerate() if t.name == "toolgen-handler"}


def test_a_job_gets_a_thread_while_every_other_thread_is_busy() -> None:
    workers = Workers()
    release = threading.Event()
    ran = threading.Event()
    for _ in range(4):
        workers.run(lambda: release.wait(10))
    workers.run(ran.set)
    try:
        assert ran.wait(10)
    finally:
        release.set()


def test_the_threads_of_a_burst_end_when_idle_and_the_next_job_still_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(calls, "IDLE_SECONDS", 0.05)
    before = _threads()  # (other tests' idle threads)
    workers = Workers()
    release = threading.Event()
    for _ in range(6):
        workers.run(lambda: release.wait(10))
    assert wait_until(lambda: len(_threads() - before) == 6)
    release.set()
    assert wait_until(lambda: not _threads() - before)
    ran = threading.Event()
    workers.run(ran.set)
    assert ran.wait(10)


def test_jobs_queued_while_threads_retire_all_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(calls, "IDLE_SECONDS", 0.001)  # retiring all the time
    workers = Workers()
    done: list[int] = []
    lock = threading.Lock()

    def job(n: int) -> None:
        with lock:
            done.append(n)

    for wave in range(40):
        for i in range(3):
            workers.run(partial(job, wave * 10 + i))
        assert wait_until(partial(lambda count: len(done) == count, (wave + 1) * 3))
        time.sleep(0.002 * (wave % 3))
    assert sorted(done) == sorted(w * 10 + i for w in range(40) for i in range(3))
