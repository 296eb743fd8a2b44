"""Playing chunks: the code that runs in worker processes (or on Dask workers), and the backends.

:func:`play_chunk` is a pure function of (spec, chunk): it builds each player's
bot once per process, keeps one :class:`~bgfast.game.MatchPlayer` per
(seat 0, seat 1, length), and returns one :class:`~bgfast.tournament.results.MatchRow`
per match.  A chunk whose matches are all between bots of the compiled core is played by
the C loop alone, in one call (:func:`bgfast.game.play_matches`); a seat held by a Python
bot or an outside engine is wrapped in a :class:`~bgfast.engines.record.RecordingBot` (its
decisions go into the results, for ``bgfast export``), and the match is played through
:func:`bgfast.engines.players.play_match`, which replays it after an engine fault and
forfeits it after three.  The backends feed chunks to a process pool (:class:`bgfast.procs.WorkerPool`)
or a Dask cluster and yield the finished chunks as they come, keeping only a
bounded number in flight.
"""
from __future__ import annotations

import functools
import logging
import os
import threading
import time
import traceback
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from bgfast.engines.players import play_match, take_counters
from bgfast.engines.record import RecordingBot, plays_in_core
from bgfast.errors import WorkerFailedError, failure_text
from bgfast.game import JUDGED_COLUMNS, failed_bot, play_matches
from bgfast.position import Position
from bgfast.procs import JobWindow, WorkerPool, check_bots_on_workers, dask_client, dask_workers
from bgfast.tournament.results import PLACE_DTYPE, ChunkResult, FlatRows, MatchDecisions, MatchRow, named_rows
from bgfast.tournament.schedule import chunk_range, scheduler
from bgfast.tournament.spec import MAX_MATCH_LENGTH, TournamentSpec

__all__ = ["BACKENDS", "ChunkBatchError", "ChunkError", "play_chunk", "play_chunks", "run_chunks"]

log = logging.getLogger("bgfast.tournament")

BACKENDS = ("process", "dask")


def _chunk_failed(exc: ChunkError) -> WorkerFailedError:
    """The error the parent raises for a chunk whose worker raised ``exc``."""
    return WorkerFailedError(
        f"a worker failed on chunk {exc.chunk}: {exc.message}; finished chunks are saved, "
        "fix the cause and re-run to resume", chunk=exc.chunk, trace=exc.trace)


RETRIES = 2
"""How many times a chunk is played again after its worker process died (killed, out of memory)."""


def _worker_died(lost: list[int]) -> WorkerFailedError:
    """The error the parent raises when a worker process died, the last of ``RETRIES + 1``
    times, while chunks ``lost`` were being played."""
    lost = sorted(lost)
    what = f"chunks {_ranges(lost)} were" if len(lost) > 1 else f"chunk {_ranges(lost)} was"
    return WorkerFailedError(
        f"a worker process died while {what} being played, {RETRIES + 1} times ({RETRIES} retries): "
        "the run is stopped; finished chunks are saved, fix the cause and re-run to resume",
        chunk=lost[0] if lost else None)


def _chunk_retried(chunk: int, attempt: int, reason: str) -> None:
    """The log line of a chunk played again after its worker died."""
    log.warning("chunk %d lost (%s): playing it again, retry %d of %d", chunk, reason, attempt, RETRIES)


class ChunkError(Exception):
    """A chunk whose play raised; carries the chunk number and the worker's traceback."""

    def __init__(self, chunk: int, message: str, trace: str = "") -> None:
        super().__init__(chunk, message, trace)
        self.chunk = chunk
        self.message = message
        self.trace = trace

    def __str__(self) -> str:
        return f"chunk {self.chunk}: {self.message}"


def _failure(exc: Exception, players: _Players | None) -> str:
    """``exc`` in one line as the run's error quotes it; an error a player's own code raised
    (a plugin's ``choose_move``...: :func:`bgfast.game.failed_bot`) names the player and its bot,
    ``player 'NAME' (bot 'BOT') failed: ExcType: message``."""
    message = failure_text(exc)
    culprit = failed_bot(exc)
    if players is None or culprit is None:
        return message
    for player, bot, seated in zip(players.spec.players, players.bots, players.seated):
        if culprit is bot or culprit is seated:
            return f"player {player.name!r} (bot {player.bot or player.engine or 'command'!r}) failed: {message}"
    return message


class _Players:
    """The bots of one spec in this process, and a MatchPlayer per (seat 0, seat 1, length)."""

    def __init__(self, spec: TournamentSpec) -> None:
        from bgfast.game import MatchPlayer

        self._make = MatchPlayer
        self.spec = spec
        self.schedule = scheduler(spec)
        self.bots = [p.build() for p in spec.players]
        self.recorded = [not plays_in_core(bot) for bot in self.bots]
        """Whether each player's decisions are recorded (a Python bot or an outside engine)."""
        self.seated = [RecordingBot(bot) if rec else bot for bot, rec in zip(self.bots, self.recorded)]
        """The bots as they sit at the board: the recorded ones in their recorders."""
        self.match_players: dict[tuple[int, int, int], Any] = {}
        self.openings = tuple(Position(pid) for pid in spec.openings)
        """The positions of ``spec.openings`` (empty: every game starts with the opening roll)."""
        self.judge = spec.judge.evaluator() if spec.judge is not None else None
        """The judge's evaluator and cube efficiency (one per process), or None."""
        self.judge_filter = spec.judge.luck_filter if spec.judge is not None else 0
        """The judge's luck filter (plays of each roll its luck measure values; 0: all)."""

    def get(self, a: int, b: int, length: int) -> Any:
        key = (a, b, length)
        player = self.match_players.get(key)
        if player is None:
            player = self._make(self.seated[a], self.seated[b], length=length, rules=self.spec.rules)
            if self.judge is not None:
                player.set_judge(*self.judge, luck_filter=self.judge_filter)
            self.match_players[key] = player
        return player


_LOCAL = threading.local()  # bots and match players are not shared between threads (Dask may run several)


def _players_for(spec: TournamentSpec) -> _Players:
    """This thread's players for ``spec``, built on first use and kept for the next chunks."""
    cached: tuple[TournamentSpec, _Players] | None = getattr(_LOCAL, "players", None)
    if cached is None or cached[0] != spec:  # each chunk brings its own copy of the spec: compared by value
        _LOCAL.players = None
        cached = _LOCAL.players = (spec, _Players(spec))
    return cached[1]


def play_chunk(spec: TournamentSpec, chunk: int) -> ChunkResult:
    """Play every match of ``chunk`` and return their rows.

    The same (spec, chunk) gives the same rows in any process.

    >>> from bgfast.tournament.spec import TournamentSpec
    >>> spec = TournamentSpec.from_dict({"name": "x", "match_length": 3, "matches_per_pairing": 4,
    ...     "chunk_size": 2, "players": [{"name": "a", "bot": "pubeval"}, {"name": "b", "bot": "random"}]})
    >>> result = play_chunk(spec, 1)
    >>> [(row.idx, row.dice_index, row.seat0, row.seat1) for row in result.rows]
    [(2, 1, 0, 1), (3, 1, 1, 0)]
    >>> result.rows == play_chunk(spec, 1).rows
    True

    :raises ChunkError: playing a match raised; the error names the chunk.
    """
    start = time.perf_counter()
    records: list[MatchDecisions] = []
    faults: dict[int, str] = {}
    players: _Players | None = None
    try:
        players = _players_for(spec)
        seed = spec.seed
        rows: list[MatchRow] = []
        openings, schedule = players.openings, players.schedule
        bounds = _bounds(chunk_range(spec, chunk))
        places = schedule.seat_array(*bounds)
        seats = named_rows(places, PLACE_DTYPE)
        if not any(players.recorded):  # every bot plays in the core: the whole chunk in one call of the C loop
            n, lengths = len(spec.players), MAX_MATCH_LENGTH + 1  # (seat 0, seat 1, length) as one number:
            codes, which = np.unique((seats["seat0"] * n + seats["seat1"]) * lengths + seats["length"],
                                     return_inverse=True)
            seated = []
            for code in codes.tolist():
                seating, length = divmod(code, lengths)
                seat0, seat1 = divmod(seating, n)
                seated.append(players.get(seat0, seat1, length))
            judged = np.zeros((len(seats), len(JUDGED_COLUMNS))) if players.judge is not None else None
            summaries = play_matches(seated, seed, which, seats["dice_index"], starts=openings,
                                     start_of=schedule.opening_array(*bounds) if openings else None, judged=judged)
            rows = FlatRows(named_rows(np.column_stack([places, summaries])))  # type: ignore[assignment]
        else:
            judged_rows: list[tuple[float, ...]] = []
            for index, pairing, length, dice, a, b in seats.tolist():
                player = players.get(a, b, length)
                opening = openings[schedule.opening(index) or 0] if openings else None
                play = functools.partial(player.play, seed, dice, start=opening)
                recorded = players.recorded[a], players.recorded[b]
                if recorded[0] or recorded[1]:
                    pair = players.seated[a], players.seated[b]
                    outcome = play_match(play, pair, length=length)
                    result = outcome.summary
                    blobs = [bot.record() if isinstance(bot, RecordingBot) else None for bot in pair]
                    records.append(MatchDecisions(index, blobs[0], blobs[1], outcome.forfeit))
                    if outcome.forfeit is not None:
                        faults[index] = outcome.faults[-1].message
                else:
                    result = play()
                rows.append(MatchRow(index, pairing, length, dice, a, b, result))
                if players.judge is not None:
                    judged_rows.append(player.judged())
            judged = np.array(judged_rows, dtype=np.float64).reshape(-1, len(JUDGED_COLUMNS)) \
                if players.judge is not None else None
        counters = take_counters(players.bots)
    except Exception as exc:
        log.exception("chunk %d failed (pid %d)", chunk, os.getpid())
        raise ChunkError(chunk, _failure(exc, players), traceback.format_exc()) from None
    seconds = time.perf_counter() - start
    log.info("chunk %d: %d matches in %.3f s (pid %d)", chunk, len(rows), seconds, os.getpid())
    return ChunkResult(chunk, rows, seconds, f"pid {os.getpid()}", records, counters, faults, judged)


def _bounds(r: range) -> tuple[int, int]:
    return r.start, r.stop


# ---------------------------------------------------------------- process backend


def _renew_log_queues() -> None:
    """Before new workers start: a fresh queue for the workers' log records (the runner's
    handler, :func:`bgfast.tournament.runner._worker_queue_handler`), since a worker that
    died while sending a record holds the old queue's lock for good."""
    for handler in log.handlers:
        renew = getattr(handler, "renew_queue", None)
        if renew is not None:
            renew()


def _build_players(spec: TournamentSpec) -> None:
    """A pool worker's initializer: build the bots once, before the first chunk."""
    try:
        _players_for(spec)
    except Exception:  # noqa: BLE001 - the first chunk reports it with its number
        _LOCAL.players = None


def _run_process(spec: TournamentSpec, chunks: Iterable[int], workers: int) -> Iterator[ChunkResult]:
    with WorkerPool(functools.partial(play_chunk, spec), chunks, workers=workers, on_worker_death=_worker_died,
                    initializer=_build_players, initargs=(spec,), retries=RETRIES, on_retry=_chunk_retried,
                    on_restart=_renew_log_queues) as pool:
        yield from pool.results()


def _ranges(chunks: list[int]) -> str:
    parts: list[str] = []
    for c in chunks:
        if parts and parts[-1].split("-")[-1] == str(c - 1):
            parts[-1] = f"{parts[-1].split('-')[0]}-{c}"
        else:
            parts.append(str(c))
    return ", ".join(parts)


# ---------------------------------------------------------------- dask backend

TASK_SECONDS = 1.0
"""About how long one Dask task plays: its chunks, as many as the chunks finished so far say
fit (:class:`_Batches`).  A task costs the scheduler, the worker and this process a few
milliseconds of CPU whatever it plays, where a process pool's job costs a fraction of one:
a task of a second keeps that under a percent."""

TASKS_PER_WORKER_LEFT = 4
"""Batches shrink towards the end of a run so that about this many tasks a worker remain:
the last ones end together rather than one worker playing a long batch alone."""

class ChunkBatchError(Exception):
    """A batch of chunks of which one raised: the chunks finished before it, and its error."""

    def __init__(self, results: list[ChunkResult], error: ChunkError) -> None:
        super().__init__(results, error)
        self.results = results
        self.error = error


def play_chunks(spec: TournamentSpec, chunks: tuple[int, ...]) -> list[ChunkResult]:
    """Play ``chunks`` one after the other (:func:`play_chunk`): one Dask task.

    :raises ChunkBatchError: a chunk raised; it carries the results of those before it,
        which the parent saves before it stops.
    """
    results: list[ChunkResult] = []
    for chunk in chunks:
        try:
            results.append(play_chunk(spec, chunk))
        except ChunkError as exc:
            raise ChunkBatchError(results, exc) from None
    return results


class _Batches:
    """The chunks to play as batches, one a Dask task, each sized when it is submitted:
    as many chunks as :data:`TASK_SECONDS` holds at the mean play time of the chunks
    finished so far (one until a chunk has finished), and no more than leaves
    :data:`TASKS_PER_WORKER_LEFT` tasks a worker.  Which chunks go together changes only
    when results arrive, never what a chunk plays."""

    def __init__(self, chunks: Iterable[int], workers: int) -> None:
        self.chunks = list(chunks)
        self.workers = workers
        self.seconds = 0.0
        self.finished = 0

    def add(self, result: ChunkResult) -> None:
        """Count a finished chunk's play time."""
        self.seconds += result.seconds
        self.finished += 1

    def size(self, left: int) -> int:
        """The number of chunks of the next batch, with ``left`` chunks still to submit."""
        if not self.finished:
            return 1
        mean = self.seconds / self.finished
        fits = int(TASK_SECONDS / mean) if mean > 0 else left
        return max(1, min(fits, left // (TASKS_PER_WORKER_LEFT * self.workers)))

    def __iter__(self) -> Iterator[tuple[int, ...]]:
        start = 0
        while start < len(self.chunks):
            size = self.size(len(self.chunks) - start)
            yield tuple(self.chunks[start:start + size])
            start += size


def _run_dask(spec: TournamentSpec, chunks: Iterable[int], workers: int,
              address: str | None) -> Iterator[ChunkResult]:
    with dask_client(workers, address, preload=("bgfast.tournament.worker",)) as client:
        import distributed  # there by now: dask_client checked

        dist: Any = distributed  # untyped
        window: JobWindow[tuple[int, ...], list[ChunkResult]] | None = None
        try:
            n_workers = dask_workers(client, workers)
            check_bots_on_workers(client, [(p.name, p.bot) for p in spec.players if p.bot is not None])
            remote_spec = client.scatter(spec, broadcast=True)
            batches = _Batches(chunks, n_workers)
            window = JobWindow(batches, lambda batch: client.submit(play_chunks, remote_spec, batch, pure=False),
                               2 * n_workers + 2,
                               wait_any=lambda futures: dist.wait(futures, return_when="FIRST_COMPLETED").done)
            try:
                for results in window.results():
                    for result in results:
                        batches.add(result)
                        yield result
            except ChunkBatchError as exc:
                yield from exc.results
                raise exc.error from None
        finally:
            for future in window.pending if window is not None else ():
                future.cancel()  # type: ignore[attr-defined]


def _named_failures(results: Iterator[ChunkResult]) -> Iterator[ChunkResult]:
    """``results``, with a chunk that raised turned into the :class:`WorkerFailedError` naming it."""
    try:
        yield from results
    except ChunkError as exc:
        raise _chunk_failed(exc) from None


def run_chunks(spec: TournamentSpec, chunks: Iterable[int], *, workers: int, backend: str = "process",
               address: str | None = None) -> Iterator[ChunkResult]:
    """Play ``chunks`` on ``backend`` and yield each finished chunk, in completion order.

    Closing the iterator (or an exception in the consumer) stops the workers.

    :raises WorkerFailedError: a chunk raised (the error names it) or a worker died.
    """
    if backend == "process":
        if address is not None:
            raise ValueError("--scheduler is only for the dask backend")
        return _named_failures(_run_process(spec, chunks, workers))
    if backend == "dask":
        return _named_failures(_run_dask(spec, chunks, workers, address))
    raise ValueError(f"unknown backend {backend!r}; choose from {', '.join(BACKENDS)}")
