"""Worker processes: the one driver of the process pools that tournaments and rollouts use.

:class:`WorkerPool` plays jobs in worker processes (a
:class:`~concurrent.futures.ProcessPoolExecutor`, forked where the platform can),
keeping at most a window of jobs in flight, and yields their results in
submission order or as they finish.  It keeps the promises both callers make:

* the workers ignore SIGINT: Ctrl-C is the parent's business, and its
  :class:`KeyboardInterrupt` closes the pool;
* the workers end when the parent dies, even by ``kill -9`` (:func:`exit_with_parent`);
* a worker that dies (killed, out of memory) breaks the pool, which
  :class:`~concurrent.futures.ProcessPoolExecutor` notices where a
  ``multiprocessing.Pool`` would start a new worker and wait forever for the lost
  job: the pool raises the exception the caller's ``on_worker_death`` makes of the
  jobs that were in flight;
* :meth:`WorkerPool.close` shuts down cleanly once every result was collected, and
  otherwise at once: the waiting jobs are cancelled and the running ones terminated.

:class:`JobWindow` is the bounded window alone, for any kind of future with a
``result()`` method (the tournament's Dask backend uses it with Dask's futures).

>>> with WorkerPool(abs, [-3, 1, -2], workers=2, ordered=True,
...                 on_worker_death=lambda lost: RuntimeError(f"lost {lost}")) as pool:
...     list(pool.results())
[3, 1, 2]
"""
from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Generic, Protocol, TypeVar

__all__ = ["JobWindow", "Pending", "WorkerPool", "exit_with_parent"]

J = TypeVar("J")
R = TypeVar("R")
R_co = TypeVar("R_co", covariant=True)


class Pending(Protocol[R_co]):
    """A job in flight: anything with a blocking ``result()`` (a concurrent or Dask future)."""

    def result(self) -> R_co: ...


_END: Any = object()


class JobWindow(Generic[J, R]):
    """Jobs submitted at most ``size`` at a time, their results collected in order.

    :param jobs: the jobs, read lazily (a generator is fine).
    :param submit: starts one job and returns its future.
    :param size: the most jobs in flight at once.
    :param wait_any: for results in completion order, a function that blocks until
        at least one of the given futures is finished and returns the finished ones;
        ``None`` gives the results in submission order.
    """

    def __init__(self, jobs: Iterable[J], submit: Callable[[J], Pending[R]], size: int, *,
                 wait_any: Callable[[list[Pending[R]]], Iterable[Pending[R]]] | None = None) -> None:
        self._todo = iter(jobs)
        self._submit = submit
        self._size = size
        self._wait_any = wait_any
        self._exhausted = False
        self.pending: dict[Pending[R], J] = {}
        """The jobs in flight by their futures, oldest first."""

    def fill(self) -> None:
        """Submit jobs until the window is full or none is left."""
        while len(self.pending) < self._size and not self._exhausted:
            job = next(self._todo, _END)
            if job is _END:
                self._exhausted = True
                return
            self.pending[self._submit(job)] = job

    @property
    def drained(self) -> bool:
        """True when every job was submitted and every result collected."""
        return self._exhausted and not self.pending

    def results(self) -> Iterator[R]:
        """Each job's result; the window is refilled after each batch of finished jobs.

        A job's exception is raised as it is, and the job stays in :attr:`pending`.
        """
        self.fill()
        while self.pending:
            if self._wait_any is None:
                done = [next(iter(self.pending))]
            else:
                finished = set(self._wait_any(list(self.pending)))
                done = [future for future in self.pending if future in finished]
            for future in done:
                result = future.result()
                del self.pending[future]
                yield result
            self.fill()


def _first_completed(futures: list[Pending[R]]) -> Iterable[Pending[R]]:
    return wait(futures, return_when=FIRST_COMPLETED).done  # type: ignore[arg-type]


def _start_worker(parent: int, initializer: Callable[..., object] | None, initargs: tuple[Any, ...]) -> None:
    """A worker's first act: leave SIGINT to the parent, die with it, then the caller's initializer."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    exit_with_parent(parent)
    if initializer is not None:
        initializer(*initargs)


class WorkerPool(Generic[J, R]):
    """``run(job)`` for each job in worker processes; the workers start (fork) at once.

    Use it as a context manager, or call :meth:`close` in a ``finally``.

    :param run: a module-level function of one job (it is pickled by name).
    :param jobs: the jobs, read lazily, each pickled to a worker.
    :param workers: the number of worker processes.
    :param on_worker_death: makes the exception to raise when a worker died, from the
        jobs that were in flight then (in submission order; they have no result).
    :param initializer: run with ``initargs`` once in each worker before its first job;
        with the fork start method they are inherited, not pickled.
    :param ordered: yield results in submission order (default: as they finish).
    :param window: the most jobs in flight (default ``2 * workers + 2``: every worker
        busy, and a job ready for each when it finishes).
    """

    def __init__(self, run: Callable[[J], R], jobs: Iterable[J], *, workers: int,
                 on_worker_death: Callable[[list[J]], BaseException],
                 initializer: Callable[..., object] | None = None, initargs: tuple[Any, ...] = (),
                 ordered: bool = False, window: int | None = None) -> None:
        methods = multiprocessing.get_all_start_methods()
        context = multiprocessing.get_context("fork" if "fork" in methods else None)
        self._executor = ProcessPoolExecutor(workers, mp_context=context, initializer=_start_worker,
                                             initargs=(os.getpid(), initializer, initargs))
        self._run = run
        self._on_worker_death = on_worker_death
        self._closed = False
        self._jobs: JobWindow[J, R] = JobWindow(jobs, self._submit, window or 2 * workers + 2,
                                                wait_any=None if ordered else _first_completed)
        try:
            self._jobs.fill()  # forks the workers now, before the caller starts any thread
        except BrokenProcessPool:
            self.close()
            raise self._died() from None
        except BaseException:  # e.g. Ctrl-C while they start: stop the ones started
            self.close()
            raise

    def _submit(self, job: J) -> Future[R]:
        return self._executor.submit(self._run, job)

    def _died(self) -> BaseException:
        return self._on_worker_death(list(self._jobs.pending.values()))

    def results(self) -> Iterator[R]:
        """The jobs' results, in submission or completion order (see ``ordered``).

        :raises: a job's exception as it is; the ``on_worker_death`` exception when a
            worker died.
        """
        try:
            yield from self._jobs.results()
        except BrokenProcessPool:  # from a result, or from submit once the pool is broken
            raise self._died() from None

    def close(self) -> None:
        """Shut the pool down: cleanly when every result was collected, else at once."""
        if self._closed:
            return
        self._closed = True
        if self._jobs.drained:
            self._executor.shutdown(wait=True)
        else:
            _terminate(self._executor)

    def __enter__(self) -> WorkerPool[J, R]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _terminate(executor: ProcessPoolExecutor) -> None:
    """Stop a process pool at once: cancel what waits, end what runs."""
    # No public way to end running jobs before Python 3.14's terminate_workers(): the worker
    # processes are read from the executor before shutdown() lets go of them.
    processes = list((getattr(executor, "_processes", None) or {}).values())
    executor.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        process.join(5)


def exit_with_parent(parent: int) -> None:
    """Make this worker end when the parent dies (even by kill -9)."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            if libc.prctl(1, signal.SIGKILL) == 0:  # PR_SET_PDEATHSIG
                if os.getppid() != parent:  # the parent died before prctl
                    os._exit(1)
                return
        except (OSError, AttributeError):  # pragma: no cover
            pass

    def watch() -> None:  # pragma: no cover - portable fallback
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(1)

    threading.Thread(target=watch, name="bgfast-parent-watch", daemon=True).start()
