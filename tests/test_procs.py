"""bgfast.procs: the worker-pool driver of tournaments and rollouts.

The end-to-end promises (kill -9 of a worker or of the parent, Ctrl-C) are tested
through the commands in test_store_resume.py and test_rollout_robust.py; these tests
pin the driver's own contract.
"""
from __future__ import annotations

import os
import re
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bgfast.procs import JobWindow, WorkerPool

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="uses fork and SIGKILL")

_STATE: dict[str, object] = {}


class Died(Exception):
    def __init__(self, lost: list[object]) -> None:
        super().__init__(f"lost {lost}")
        self.lost = lost


def square(x: int) -> int:
    return x * x


def sleep_then(job: tuple[float, int]) -> int:
    time.sleep(job[0])
    return job[1]


def kill_self_on(job: int) -> int:
    if job == 3:
        os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(0.2)
    return job


def kill_self_once_on(job: tuple[str, int]) -> int:
    """Job 3 kills its worker the first time it is played (the marker file remembers)."""
    marker, number = job
    if number == 3 and not os.path.exists(marker):
        open(marker, "w").close()
        os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(0.05)
    return number


def raise_on(job: int) -> int:
    if job == 1:
        raise KeyError("job 1 fails on purpose")
    return job


def remember(value: str) -> None:
    _STATE["init"] = value


def worker_view(_: int) -> tuple[object, bool, int]:
    return _STATE.get("init"), signal.getsignal(signal.SIGINT) == signal.SIG_IGN, os.getpid()


def blocked_signals(_: int) -> set[int]:
    return set(signal.pthread_sigmask(signal.SIG_BLOCK, []))


def died(lost: list[object]) -> Died:
    return Died(lost)


def test_ordered_results_come_in_submission_order() -> None:
    jobs = [(0.3, 0), (0.0, 1), (0.1, 2), (0.0, 3)]
    with WorkerPool(sleep_then, jobs, workers=2, ordered=True, on_worker_death=died) as pool:
        assert list(pool.results()) == [0, 1, 2, 3]


def test_unordered_results_come_as_the_jobs_finish() -> None:
    jobs = [(2.0, 0), (0.0, 1)]
    with WorkerPool(sleep_then, jobs, workers=2, on_worker_death=died) as pool:
        assert list(pool.results()) == [1, 0]


def test_no_more_jobs_than_the_window_are_taken_before_results_are_read() -> None:
    taken: list[int] = []

    def jobs() -> Iterator[int]:
        for i in range(20):
            taken.append(i)
            yield i

    with WorkerPool(square, jobs(), workers=2, window=3, ordered=True, on_worker_death=died) as pool:
        assert taken == [0, 1, 2]  # submitted (and the workers forked) when the pool is made
        results = pool.results()
        assert next(results) == 0 and len(taken) <= 4
        assert list(results) == [i * i for i in range(1, 20)]


def test_workers_run_the_initializer_and_ignore_ctrl_c() -> None:
    with WorkerPool(worker_view, range(4), workers=2, initializer=remember, initargs=("set",),
                    on_worker_death=died) as pool:
        views = list(pool.results())
    assert {(init, ignored) for init, ignored, _ in views} == {("set", True)}
    assert os.getpid() not in {pid for _, _, pid in views}
    assert "init" not in _STATE  # the initializer ran in the workers only


def test_ctrl_c_and_sigterm_are_held_back_only_while_the_workers_are_forked() -> None:
    before = set(signal.pthread_sigmask(signal.SIG_BLOCK, []))
    with WorkerPool(blocked_signals, range(4), workers=2, on_worker_death=died) as pool:
        masks = list(pool.results())
    assert all(not {signal.SIGINT, signal.SIGTERM} & mask for mask in masks)  # each worker takes them again
    assert set(signal.pthread_sigmask(signal.SIG_BLOCK, [])) == before         # and so does the parent


def test_a_job_that_raises_raises_the_same_exception_in_the_parent() -> None:
    with WorkerPool(raise_on, range(4), workers=2, ordered=True, on_worker_death=died) as pool:
        results = pool.results()
        assert next(results) == 0
        with pytest.raises(KeyError, match="job 1 fails on purpose"):
            next(results)


def test_a_worker_that_dies_raises_the_callers_exception_naming_the_jobs_in_flight() -> None:
    start = time.monotonic()
    with pytest.raises(Died) as info, WorkerPool(kill_self_on, range(8), workers=2, window=4, ordered=True,
                                                  on_worker_death=died) as pool:
        list(pool.results())
    assert 3 in info.value.lost and info.value.lost == sorted(info.value.lost)
    assert time.monotonic() - start < 30


def test_with_retries_a_job_whose_worker_died_is_played_again_in_its_place(tmp_path: Path) -> None:
    retried: list[tuple[object, int, str]] = []
    marker = str(tmp_path / "killed")
    with WorkerPool(kill_self_once_on, [(marker, i) for i in range(10)], workers=2, window=4, ordered=True,
                    on_worker_death=died, retries=2,
                    on_retry=lambda job, attempt, reason: retried.append((job, attempt, reason))) as pool:
        assert list(pool.results()) == list(range(10))
    assert len(retried) == 1
    job, attempt, reason = retried[0]
    assert job == (marker, 3) and attempt == 1
    assert re.fullmatch(r"worker pid \d+ killed by SIGKILL", reason)


def test_a_job_that_kills_its_worker_every_time_raises_after_its_retries() -> None:
    retried: list[tuple[object, int]] = []
    with pytest.raises(Died) as info, WorkerPool(kill_self_on, range(8), workers=2, window=4, ordered=True,
                                                  on_worker_death=died, retries=2,
                                                  on_retry=lambda job, n, _why: retried.append((job, n))) as pool:
        results = pool.results()
        assert [next(results) for _ in range(3)] == [0, 1, 2]
        list(results)
    assert info.value.lost == [3] and retried == [(3, 1), (3, 2)]


def test_closing_before_the_last_result_ends_the_workers_at_once() -> None:
    pool = WorkerPool(sleep_then, [(0.0, 0)] + [(60.0, i) for i in range(1, 6)], workers=2, ordered=True,
                      on_worker_death=died)
    processes = list(pool._executor._processes.values())  # type: ignore[attr-defined]
    assert next(pool.results()) == 0
    start = time.monotonic()
    pool.close()
    # The executor's own thread reaps the workers too: while it does, is_alive() can still
    # say True for a process already ended (waitpid's ECHILD), so give the exit codes a moment.
    while any(p.is_alive() for p in processes) and time.monotonic() - start < 10:
        time.sleep(0.05)
    assert time.monotonic() - start < 10
    assert processes and all(p.exitcode is not None for p in processes)


def test_a_job_window_over_plain_futures_keeps_its_size_and_the_order() -> None:
    class Done:
        def __init__(self, value: int) -> None:
            self.value = value

        def result(self) -> int:
            return self.value

    in_flight: list[int] = []
    window: JobWindow[int, int] = JobWindow(range(5), lambda job: Done(job * 10), 2)
    for result in window.results():
        in_flight.append(len(window.pending))
        assert result % 10 == 0
    assert window.drained and max(in_flight) <= 1
