"""Worker processes: the one driver of the process pools that tournaments and rollouts use.

:class:`WorkerPool` plays jobs in worker processes (a
:class:`~concurrent.futures.ProcessPoolExecutor`, forked where the platform can),
keeping at most a window of jobs in flight, and yields their results in
submission order or as they finish.  It keeps the promises both callers make:

* the workers ignore SIGINT and take SIGTERM's default action: Ctrl-C (or a SIGTERM the
  rollout and tournament commands turn into one) is the parent's business, and its
  :class:`KeyboardInterrupt` closes the pool;
* the workers end when the parent dies, even by ``kill -9`` (:func:`exit_with_parent`);
* a worker that dies (killed, out of memory) breaks the pool, which
  :class:`~concurrent.futures.ProcessPoolExecutor` notices where a
  ``multiprocessing.Pool`` would start a new worker and wait forever for the lost
  job.  With ``retries``, the pool then starts new workers and plays again the jobs
  that were lost, counting a death against the job the dead worker was playing (each
  worker notes its job in shared memory); a job that was being played when its worker
  died more than ``retries`` times (or, without ``retries``, any death) raises the
  exception the caller's ``on_worker_death`` makes of the jobs lost;
* :meth:`WorkerPool.close` shuts down cleanly once every result was collected, and
  otherwise at once: the waiting jobs are cancelled and the running ones terminated.

:class:`JobWindow` is the bounded window alone, for any kind of future with a
``result()`` method (the Dask backends of tournaments and rollouts use it with Dask's
futures).  Those backends share the rest of their Dask side here too: :func:`dask_client`
(a local cluster of quiet workers, or a scheduler's address) and
:func:`check_bots_on_workers` (every bot named can be built on every worker).

>>> with WorkerPool(abs, [-3, 1, -2], workers=2, ordered=True,
...                 on_worker_death=lambda lost: RuntimeError(f"lost {lost}")) as pool:
...     list(pool.results())
[3, 1, 2]
"""
from __future__ import annotations

import contextlib
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

__all__ = ["QUIET_WORKER_CONFIG", "JobWindow", "Pending", "WorkerPool", "check_bots_on_workers", "dask_client",
           "dask_workers", "exit_with_parent", "require_dask"]

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

    def resubmit(self, lost: Callable[[J], bool]) -> None:
        """Submit again the jobs in flight that ``lost`` picks, each keeping its place in line."""
        self.pending = {(self._submit(job) if lost(job) else future): job for future, job in self.pending.items()}

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


_SLOT: list[Any] = []
"""In a worker: ``[board, slot]``, its place on the pool's board of jobs in play."""


_FORK_SIGNALS = {signal.SIGINT, signal.SIGTERM}


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Hold SIGINT and SIGTERM back while workers are forked: a worker starts with the
    parent's Python handlers (a Ctrl-C or SIGTERM there would print the parent's
    traceback) and takes them only once :func:`_start_worker` has set its own."""
    if not hasattr(signal, "pthread_sigmask"):      # no fork without it either
        yield
        return
    signal.pthread_sigmask(signal.SIG_BLOCK, _FORK_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _FORK_SIGNALS)


def _start_worker(parent: int, board: Any, initializer: Callable[..., object] | None,
                  initargs: tuple[Any, ...]) -> None:
    """A worker's first act: leave SIGINT to the parent, die with it, take a slot on the
    board of jobs in play, then the caller's initializer."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the parent's handler: a pool ends its workers so
    if hasattr(signal, "pthread_sigmask"):         # held back while it was forked (_signals_held)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _FORK_SIGNALS)
    exit_with_parent(parent)
    with board.get_lock():
        slot = next(i for i in range(0, len(board), 2) if board[i] == 0)
        board[slot] = os.getpid()
        board[slot + 1] = -1
    _SLOT[:] = [board, slot]
    if initializer is not None:
        initializer(*initargs)


def _play(run: Callable[[J], R], number: int, job: J) -> R:
    """Run job ``number`` in a worker, its number on the board while it plays."""
    board, slot = _SLOT
    board[slot + 1] = number
    result = run(job)
    board[slot + 1] = -1
    return result


def _kept(future: Any) -> bool:
    """Whether a job's future survived the pool's breaking: finished, with a result or its own error."""
    return bool(future.done() and not future.cancelled() and not isinstance(future.exception(), BrokenProcessPool))


def _exit_reason(code: int | None) -> str:
    """How a worker process ended, from its exit code."""
    if code is not None and code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


class WorkerPool(Generic[J, R]):
    """``run(job)`` for each job in worker processes; the workers start (fork) at once.

    Use it as a context manager, or call :meth:`close` in a ``finally``.

    :param run: a module-level function of one job (it is pickled by name).
    :param jobs: the jobs, read lazily, each pickled to a worker.
    :param workers: the number of worker processes.
    :param on_worker_death: makes the exception to raise when a worker died, from the
        jobs lost then (in submission order; they have no result): every job in flight
        without ``retries``, else the jobs whose worker died more than ``retries`` times.
    :param initializer: run with ``initargs`` once in each worker before its first job;
        with the fork start method they are inherited, not pickled.
    :param ordered: yield results in submission order (default: as they finish).
    :param window: the most jobs in flight (default ``2 * workers + 2``: every worker
        busy, and a job ready for each when it finishes).
    :param retries: how many times a job is played again after its worker died (the
        other jobs lost with the pool are played again without counting).
    :param on_retry: told ``(job, attempt, reason)`` before a job is played again:
        ``attempt`` counts from 1, ``reason`` says how its worker ended.
    :param on_restart: called before new workers start after a death, e.g. to give them
        fresh queues (a worker killed, or ended by the pool, may hold a queue's lock).
    """

    def __init__(self, run: Callable[[J], R], jobs: Iterable[J], *, workers: int,
                 on_worker_death: Callable[[list[J]], BaseException],
                 initializer: Callable[..., object] | None = None, initargs: tuple[Any, ...] = (),
                 ordered: bool = False, window: int | None = None, retries: int = 0,
                 on_retry: Callable[[J, int, str], object] | None = None,
                 on_restart: Callable[[], object] | None = None) -> None:
        methods = multiprocessing.get_all_start_methods()
        self._context = multiprocessing.get_context("fork" if "fork" in methods else None)
        self._workers = workers
        self._initializer, self._initargs = initializer, initargs
        self._run = run
        self._on_worker_death = on_worker_death
        self._retries, self._on_retry, self._on_restart = retries, on_retry, on_restart
        self._deaths: dict[int, int] = {}
        self._closed = False
        self._start_executor()
        self._jobs: JobWindow[tuple[int, J], R] = JobWindow(
            enumerate(jobs), self._submit, window or 2 * workers + 2,
            wait_any=None if ordered else _first_completed)
        try:
            self._jobs.fill()  # forks the workers now, before the caller starts any thread
        except BrokenProcessPool:
            self.close()
            raise self._died(self._lost()) from None
        except BaseException:  # e.g. Ctrl-C while they start: stop the ones started
            self.close()
            raise

    def _start_executor(self) -> None:
        self._board = self._context.Array("q", 2 * self._workers)  # (pid, job number) a worker
        self._processes: dict[int, Any] = {}
        self._executor = ProcessPoolExecutor(
            self._workers, mp_context=self._context, initializer=_start_worker,
            initargs=(os.getpid(), self._board, self._initializer, self._initargs))

    def _submit(self, numbered: tuple[int, J]) -> Future[R]:
        try:
            with _signals_held():    # a submit forks the workers it needs
                future = self._executor.submit(_play, self._run, numbered[0], numbered[1])
        except BrokenProcessPool as exc:  # a job the broken pool refused is lost like the others
            future = Future()
            future.set_exception(exc)
        self._processes.update(getattr(self._executor, "_processes", None) or {})
        return future

    def _lost(self) -> list[tuple[int, J]]:
        """The jobs in flight that the broken pool lost (those finished keep their results)."""
        return [numbered for future, numbered in self._jobs.pending.items()
                if not _kept(future)]

    def _died(self, lost: list[tuple[int, J]]) -> BaseException:
        return self._on_worker_death([job for _number, job in lost])

    def _recover(self) -> None:
        """After a worker died: count the death against its job, start new workers and
        submit the lost jobs again in their places.

        :raises: the ``on_worker_death`` exception when a job is out of retries.
        """
        self._executor.shutdown(wait=True)  # the pool has failed every job in flight and ended its workers
        lost = self._lost()
        if not self._retries:
            raise self._died(lost)
        dead = {pid: process.exitcode for pid, process in self._processes.items()
                if process.exitcode not in (None, 0, -signal.SIGTERM)}  # the pool ends the others by SIGTERM
        board = self._board
        playing = {board[i + 1]: board[i] for i in range(0, len(board), 2) if board[i] in dead}
        numbers = {number for number, _job in lost}
        blamed = [numbered for numbered in lost if numbered[0] in playing] or lost  # unknown: every lost job
        out = []
        for number, job in blamed:
            self._deaths[number] = self._deaths.get(number, 0) + 1
            if self._deaths[number] > self._retries:
                out.append((number, job))
        if out:
            raise self._died(out)
        codes = sorted(set(dead.values()))
        for number, job in blamed:
            pid = playing.get(number)
            reason = (f"worker pid {pid} {_exit_reason(dead[pid])}" if pid is not None
                      else f"a worker {' / '.join(_exit_reason(c) for c in codes) or 'died'}")
            if self._on_retry is not None:
                self._on_retry(job, self._deaths[number], reason)
        if self._on_restart is not None:
            self._on_restart()
        self._start_executor()
        self._jobs.resubmit(lambda numbered: numbered[0] in numbers)

    def results(self) -> Iterator[R]:
        """The jobs' results, in submission or completion order (see ``ordered``).

        :raises: a job's exception as it is; the ``on_worker_death`` exception when a
            worker died (more than ``retries`` times on one job).
        """
        while True:
            try:
                yield from self._jobs.results()
                return
            except BrokenProcessPool:  # from a result, or from submit once the pool is broken
                self._recover()

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
        if process.is_alive():  # SIGTERM not acted on in time: end it for good
            process.kill()
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


# ---------------------------------------------------------------- Dask: the cluster and the bots on it

QUIET_WORKER_CONFIG: dict[str, object] = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.worker.memory.monitor-interval": "1s",
    "distributed.admin.system-monitor.interval": "2s",
}
"""The Dask settings of the local cluster's workers (:func:`dask_client`): no statistical
profiler (it samples the playing thread every 10 ms) and the event loop's health check, the
nanny's memory monitor and the system monitor at a second or two instead of 20 to 500 ms.
An idle worker and its nanny then use about 0.3% of a core instead of 2-3%, which a core
playing matches gets back.  Give a cluster's ``dask worker`` processes the same settings as
environment variables (the README's "Dask" paragraph)."""


def require_dask() -> Any:
    """The ``distributed`` module, for a caller that checks before any work that the dask
    backend can run.

    :raises MissingExtraError: dask.distributed is not installed.
    """
    try:
        import dask  # noqa: F401  (the config dask_client sets)
        import distributed
    except ImportError:
        from bgfast.errors import MissingExtraError

        raise MissingExtraError("the dask backend needs dask.distributed: pip install 'bgfast[dask]'") from None
    return distributed


@contextlib.contextmanager
def dask_client(workers: int, address: str | None, preload: tuple[str, ...] = ()) -> Iterator[Any]:
    """A ``distributed.Client`` of the scheduler at ``address``, or of a local cluster of
    ``workers`` quiet processes (:data:`QUIET_WORKER_CONFIG`, one thread each) forked from a
    server that has imported ``distributed`` and the modules ``preload`` once; closed (and
    the local cluster with it) on leaving.

    :raises MissingExtraError: dask.distributed is not installed.
    """
    dist: Any = require_dask()  # untyped
    import dask

    cluster = None
    if address is None:
        config = dict(QUIET_WORKER_CONFIG)
        if "forkserver" in multiprocessing.get_all_start_methods():
            # the workers forked from a server that has imported these once, not each a fresh
            # interpreter importing them again: the cluster starts in about half the time
            multiprocessing.set_forkserver_preload(["distributed", *preload])
            config["distributed.worker.multiprocessing-method"] = "forkserver"
        with dask.config.set(config):
            cluster = dist.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                        dashboard_address=None)
        client = dist.Client(cluster)
    else:
        client = dist.Client(address)
    try:
        yield client
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def dask_workers(client: Any, default: int) -> int:
    """The number of workers ``client``'s scheduler has (``default`` when it says none)."""
    return max(1, len(client.scheduler_info().get("workers", {})) or default)


def _bots_not_here(bots: list[tuple[str, str]]) -> list[tuple[str, str, str]]:
    """Run on each Dask worker before play (``client.run``): of ``bots`` (``(player, bot
    name)``), those this process cannot build, as ``(player, bot, why)``, without building
    any (a plugin's module is imported, its factory not called)."""
    from bgfast.bots import available_bots
    from bgfast.bots.plugins import find_plugin
    from bgfast.errors import UnknownBotError, one_line

    known = set(available_bots())
    missing = []
    for player, bot in bots:
        if bot in known or bot.partition(":")[0] in known:
            continue
        try:
            if find_plugin(bot) is None:
                missing.append((player, bot, "no bot of that name there"))
        except UnknownBotError as exc:
            missing.append((player, bot, one_line(exc)))
    return missing


def check_bots_on_workers(client: Any, bots: list[tuple[str, str]]) -> None:
    """Ask every worker of ``client`` whether it can build each of ``bots``, ``(player, bot
    name)`` pairs (an empty player: the bot alone, as a rollout's).

    :raises BotNotOnWorkersError: one cannot; the message names the player, the bot, the
        worker and how to make the bot reach the workers.
    """
    from bgfast.errors import BotNotOnWorkersError

    for address, missing in sorted(client.run(_bots_not_here, bots).items()):
        if missing:
            player, bot, why = missing[0]
            who = f"player {player!r} (bot {bot!r})" if player else f"bot {bot!r}"
            raise BotNotOnWorkersError(
                f"{who} cannot be built on the Dask worker {address} ({why}): "
                "a bot registered with register_bot exists only in the process that registered it; "
                "install the package that publishes the bot (entry-point group 'bgfast.bots') on every worker, "
                "or name it as 'module:factory' with the module importable there (PYTHONPATH)",
                player=player, bot=bot)
