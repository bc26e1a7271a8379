"""The handler thread pool: workers a burst of calls started end when they stay idle, and a
job never waits for a worker that is ending."""

from __future__ import annotations

import threading
import time

from conftest import wait_until

from toolgen.serve.handlers import DaemonThreadPool


def _workers() -> int:
    return sum(t.name == "toolgen-handler" and t.is_alive() for t in threading.enumerate())


def test_the_workers_of_a_burst_end_when_idle_and_the_next_call_still_runs() -> None:
    before = _workers()
    pool = DaemonThreadPool(max_workers=6, idle_seconds=0.05)
    release = threading.Event()
    burst = [pool.submit(release.wait, 10) for _ in range(6)]
    assert wait_until(lambda: _workers() - before == 6)
    release.set()
    assert all(f.result(10) for f in burst)
    assert wait_until(lambda: _workers() == before)
    assert pool.submit(lambda: 42).result(10) == 42


def test_jobs_queued_while_workers_retire_all_run() -> None:
    pool = DaemonThreadPool(max_workers=3, idle_seconds=0.001)  # retiring all the time
    done: list[int] = []
    lock = threading.Lock()

    def job(n: int) -> None:
        with lock:
            done.append(n)

    for wave in range(40):
        futures = [pool.submit(job, wave * 10 + i) for i in range(3)]
        for future in futures:
            future.result(10)
        time.sleep(0.002 * (wave % 3))
    assert sorted(done) == sorted(w * 10 + i for w in range(40) for i in range(3))
