"""The run loop: feed chunks to a backend, save each finished one, stop on SPRT, report.

Only this (parent) process writes the results file; workers only play.
"""
from __future__ import annotations

import itertools
import logging
import os
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from bgfast.engines.players import preflight
from bgfast.engines.resilient import MAX_FORFEITS_IN_A_ROW
from bgfast.errors import EngineForfeitsError, shortened
from bgfast.procs import require_dask
from bgfast.tournament.judged import chunk_records, chunks_of, unit_scores
from bgfast.tournament.pairs import Pentanomial, unit_wins
from bgfast.tournament.progress import QuietReporter, Reporter
from bgfast.tournament.results import ChunkResult, SeatTotals
from bgfast.tournament.schedule import chunk_range
from bgfast.tournament.spec import TournamentSpec
from bgfast.tournament.sprt import ScoreSums, Sprt, SprtStatus
from bgfast.tournament.standings import Standings, standings_from_store
from bgfast.tournament.store import RunInfo, Store, default_db_path
from bgfast.tournament.worker import BACKENDS, run_chunks
from bgfast.validation import whole_number

__all__ = ["run_tournament"]

log = logging.getLogger("bgfast.tournament")
engines_log = logging.getLogger("bgfast.engines")


def run_tournament(spec: TournamentSpec | str | Path, db: str | Path | None = None, *,
                   workers: int | None = None, backend: str = "process", scheduler: str | None = None,
                   reporter: Reporter | None = None, append: bool = False) -> Standings:
    """Play a tournament into a results file, resuming it if the file already holds part of it.

    Work goes out in chunks of matches; each chunk is a pure function of (spec,
    chunk index), so the results are the same for any number of workers and either
    backend.  Each finished chunk is saved in one transaction by this process, so
    an interruption (Ctrl-C, ``kill -9``, a crashed worker) loses only the chunks
    being played, and re-running the same call plays just the rest.

    >>> import tempfile, os
    >>> spec = TournamentSpec.from_dict({"name": "doc", "match_length": 3, "matches_per_pairing": 20,
    ...     "players": [{"name": "pubeval", "bot": "pubeval"}, {"name": "random", "bot": "random"}]})
    >>> db = os.path.join(tempfile.mkdtemp(), "doc.sqlite")
    >>> standings = run_tournament(spec, db, workers=1)
    >>> standings.matches_played, standings.players[0].name
    (20, 'pubeval')
    >>> run_tournament(spec, db, workers=1).matches_played  # already complete: nothing to play
    20

    :param spec: a spec, or the path of its TOML file.
    :param db: the results file (default ``results/<spec name>.sqlite``); a log
        file with the same name and ``.log`` is written beside it.
    :param workers: processes to play in (default: all cores); with dask and no
        ``scheduler``, the size of the local cluster.
    :param backend: ``"process"`` (a multiprocessing pool) or ``"dask"``.
    :param scheduler: a Dask scheduler address such as ``tcp://host:8786``.
    :param reporter: told of progress (default: nothing shown).
    :param append: allow adding this spec's matches to a file that holds another spec.
    :returns: the standings over every match in the file.
    :raises InvalidSpecError: a bad spec, or a file that holds another spec (without ``append``).
    :raises WorkerFailedError: a chunk raised or a worker died; finished chunks are saved.
    :raises EngineForfeitsError: an outside player forfeited
        :data:`~bgfast.engines.resilient.MAX_FORFEITS_IN_A_ROW` matches in a row (a
        :class:`WorkerFailedError`; finished chunks are saved, re-running resumes).
    :raises EngineStartError: an outside engine that cannot start or fails its handshake
        (found before any match is played).
    :raises MissingExtraError: the dask backend without dask.distributed installed.
    :raises BotNotOnWorkersError: a Dask worker cannot build a player's bot (a bot
        registered only in this process, a plugin not installed there); nothing is played.
    """
    if not isinstance(spec, TournamentSpec):
        spec = TournamentSpec.from_toml(spec)
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; choose from {', '.join(BACKENDS)}")
    if scheduler is not None and backend != "dask":
        raise ValueError("a scheduler address is only for the dask backend")
    if backend == "dask":
        require_dask()  # before the results file is made
    if workers is None:
        workers = os.cpu_count() or 1
    workers = whole_number(workers, "workers", low=1)
    reporter = reporter or QuietReporter()
    path = Path(db) if db is not None else default_db_path(spec)
    store = Store(path)
    handler = None
    started = False
    try:
        new = all(r["spec_hash"] != spec.hash for r in store.runs())
        checked = _check_engines(spec) if new else []   # before the run is in the file: a failed start leaves none
        run = store.begin_run(spec, append=append)
        handler = _start_log(path.with_suffix(".log"), multiprocess=backend == "process")
        _log_engines_checked(checked)
        done = sum(len(chunk_range(spec, c)) for c in run.finished)
        log.info("%s %s (spec %s) in %s: %d of %d matches saved, %s backend, %d workers",
                 "resuming" if run.resumed else "starting", spec.name, spec.hash, path, done,
                 spec.total_matches(), backend, workers)
        sprt = _SprtState(spec, store, run) if spec.sprt is not None else None
        leader = _Leader(spec, store, run) if sprt is None else None
        todo = [c for c in range(spec.chunk_count()) if c not in run.finished]
        to_play = bool(todo) and not (sprt is not None and sprt.decided)
        if to_play and not new:
            _log_engines_checked(_check_engines(spec))
        reporter.on_start(spec, spec.total_matches(), done)
        started = True
        if to_play:
            forfeits = _ForfeitStreaks(spec, todo, path)
            results = run_chunks(spec, todo, workers=min(workers, len(todo)), backend=backend,
                                 address=scheduler)
            try:
                for result in results:
                    seatings = store.write_chunk(run, result)
                    done += len(result.rows)
                    reporter.on_chunk_end(len(result.rows), done)
                    forfeits.add(result)
                    stop = sprt is not None and sprt.add(result)
                    _show_status(reporter, sprt.text() if sprt is not None else leader.add(seatings) if leader else "")
                    if stop:
                        break
                forfeits.finish()
            except KeyboardInterrupt as exc:
                log.warning("interrupted (%s): %d matches saved, re-run the same command to resume",
                            getattr(exc, "reason", "Ctrl-C"), done)
                raise
            except BaseException as exc:
                trace = getattr(exc, "trace", "")
                log.error("stopped: %s%s", str(exc) or type(exc).__name__, f"\n{trace}" if trace else "")
                raise
            finally:
                results.close()  # type: ignore[attr-defined]
        if sprt is not None:
            sprt.save()
        standings = standings_from_store(store)
        log.info("%s: %d matches saved", "finished" if done == spec.total_matches() else "stopped", done)
        reporter.on_finish(standings)
        started = False
        return standings
    finally:
        if started:  # interrupted: close the progress display with what is saved
            try:
                reporter.on_finish(standings_from_store(store))
            except Exception:
                log.debug("could not close the progress display", exc_info=True)
        store.close()
        if handler is not None:
            _stop_log(handler)


class _SprtState:
    """The SPRT decided dice pair by dice pair (match by match without paired dice), over
    the finished chunks 0, 1, 2, ... in order: the verdict, and the pair it is reached at,
    do not depend on timing or the number of workers.  Matches after that pair are saved
    but not counted (see :meth:`~bgfast.tournament.sprt.Sprt.sequential`).  With ``[sprt]
    on = "luck_adjusted"`` the units count their luck-adjusted scores
    (:meth:`~bgfast.tournament.sprt.Sprt.sequential_scores`), read from the judge's figures."""

    def __init__(self, spec: TournamentSpec, store: Store, run: RunInfo) -> None:
        assert spec.sprt is not None
        self.spec, self.store, self.run = spec, store, run
        self.test = Sprt(spec.sprt.elo0, spec.sprt.elo1, spec.sprt.alpha, spec.sprt.beta)
        self.adjusted = spec.sprt.on == "luck_adjusted"
        names = [p.name for p in spec.players]
        self.tested = run.player_ids[names.index(spec.challenger) if spec.challenger else 0]
        self.per_unit = 2 if spec.paired_dice else 1
        self.verdict = (self.test.sequential_scores([], matches_per_unit=self.per_unit) if self.adjusted
                        else self.test.sequential([], matches_per_unit=self.per_unit))
        self.pending: dict[int, list[tuple[int, int, int, int]] | NDArray[np.void]] = {}
        self.next_chunk = 0
        saved = next(r for r in store.runs() if r["run"] == run.run)
        self.decided = saved["sprt_status"] in ("H0", "H1")
        if self.decided:
            return
        if self.adjusted:
            for records in chunks_of(store.judged_matches(run.run)):
                self.pending[int(records["chunk"][0])] = records
                self._advance()
        else:
            for chunk, rows in itertools.groupby(store.iter_outcomes(run.run), key=lambda outcome: outcome[0]):
                self.pending[chunk] = [(dice, p0, p1, winner) for _, dice, p0, p1, winner in rows]
                self._advance()

    def add(self, result: ChunkResult) -> bool:
        """Count a saved chunk; True when the test has decided (stop playing)."""
        ids = self.run.player_ids
        if self.adjusted:
            self.pending[result.chunk] = chunk_records(result, self.run.run, ids)
        else:
            self.pending[result.chunk] = [(row.dice_index, ids[row.seat0], ids[row.seat1], row.result.winner)
                                          for row in result.rows]
        return self._advance()

    def _advance(self) -> bool:
        while self.next_chunk in self.pending and not self.decided:
            rows = self.pending.pop(self.next_chunk)
            counts = self.verdict.counts
            if isinstance(rows, np.ndarray):
                scores = unit_scores(rows, self.tested, paired=self.per_unit == 2).tolist()
                self.verdict = self.test.sequential_scores(
                    scores, matches_per_unit=self.per_unit, start=counts if isinstance(counts, ScoreSums) else None)
            else:
                wins = unit_wins(rows, self.tested, paired=self.per_unit == 2)
                self.verdict = self.test.sequential(
                    wins, matches_per_unit=self.per_unit, start=counts if isinstance(counts, Pentanomial) else None)
            self.next_chunk += 1
            if self.verdict.status is not SprtStatus.CONTINUE:
                self.decided = True
                self.save()
                log.info("SPRT: %s", self.verdict.text())
        return self.decided

    def text(self) -> str:
        """The progress line: the LLR and its bounds."""
        v = self.verdict
        return f"LLR {v.llr:+.2f} ({v.lower:+.2f}, {v.upper:+.2f})"

    def save(self) -> None:
        if self.verdict.units or self.decided:
            saved = next(r for r in self.store.runs() if r["run"] == self.run.run)
            if saved["sprt_status"] in ("H0", "H1"):
                return
            self.store.set_sprt(self.run, self.verdict.status.value, self.verdict.matches, self.verdict.llr)


class _ForfeitStreaks:
    """Each outside player's forfeits in a row, over the matches this run plays, in schedule
    order: a forfeit adds one, a match the player finishes (one it does not forfeit, its
    opponent's forfeits aside) starts again from zero.  Chunks are counted in index order
    whatever order they finish in, so whether the run stops, and at which match, does not
    depend on the number of workers; chunks saved after that match are kept.
    """

    def __init__(self, spec: TournamentSpec, chunks: list[int], path: Path) -> None:
        self.spec, self.path = spec, path
        self.outside = {i for i, p in enumerate(spec.players) if p.is_outside}
        self.order = chunks
        """The chunks this run plays, in index order (those saved before are not counted)."""
        self.next = 0
        self.pending: dict[int, ChunkResult] = {}
        self.streaks: dict[int, list[int]] = {i: [] for i in self.outside}
        self.last_fault: dict[int, str] = {}

    def add(self, result: ChunkResult) -> None:
        """Count a saved chunk (and those before it, once all have come).

        :raises EngineForfeitsError: a player's streak reached :data:`MAX_FORFEITS_IN_A_ROW`.
        """
        if not self.outside:
            return
        self.pending[result.chunk] = result
        while self.next < len(self.order) and self.order[self.next] in self.pending:
            self._count(self.pending.pop(self.order[self.next]))
            self.next += 1

    def finish(self) -> None:
        """At the end of the run: count what :meth:`add` held back (chunks after one that did
        not come, an SPRT's stop), in index order.

        :raises EngineForfeitsError: as :meth:`add`.
        """
        for chunk in sorted(self.pending):
            self._count(self.pending.pop(chunk))

    def _count(self, result: ChunkResult) -> None:
        if not result.records:     # no match of an outside engine in the chunk
            return
        seats = {row.idx: (row.seat0, row.seat1) for row in result.rows}
        for record in sorted(result.records):
            for seat, player in enumerate(seats[record.idx]):
                if player not in self.outside:
                    continue
                if record.forfeit == seat:
                    self.streaks[player].append(record.idx)
                    self.last_fault[player] = result.faults.get(record.idx, "")
                    if len(self.streaks[player]) >= MAX_FORFEITS_IN_A_ROW:
                        raise self._error(player)
                elif record.forfeit is None:
                    self.streaks[player].clear()

    def _error(self, player: int) -> EngineForfeitsError:
        spec = self.spec.players[player]
        matches = tuple(self.streaks[player])
        fault = self.last_fault.get(player)
        return EngineForfeitsError(
            f"player {spec.name!r} ({shortened(spec.describe())}) forfeited {len(matches)} matches in a row "
            f"(matches {', '.join(map(str, matches))}) and finished none"
            + (f"; its last fault: {fault}" if fault else "")
            + f"; the run is stopped, finished chunks are saved in {shortened(str(self.path))}: "
            "mend the engine and re-run the same command to resume",
            player=spec.name, matches=matches)


class _Leader:
    """Match wins so far, for the progress line of a plain run: the leader's and the
    runner-up's shares of match wins."""

    def __init__(self, spec: TournamentSpec, store: Store, run: RunInfo) -> None:
        self.names = [p.name for p in spec.players]
        self.wins = [0] * len(self.names)
        self.matches = [0] * len(self.names)
        self.index = {pid: i for i, pid in enumerate(run.player_ids)}
        self.add([t for t in store.seat_totals() if t.player0 in self.index and t.player1 in self.index])

    def add(self, seatings: list[SeatTotals]) -> str:
        """Count a saved chunk (its sums by seating, players by id); the progress line."""
        for t in seatings:
            seat0, seat1 = self.index[t.player0], self.index[t.player1]
            self.matches[seat0] += t.matches
            self.matches[seat1] += t.matches
            self.wins[seat0] += t.wins0
            self.wins[seat1] += t.matches - t.wins0
        share = sorted(((w / n if n else 0.0, name) for w, n, name in zip(self.wins, self.matches, self.names)),
                       reverse=True)
        if len(share) < 2:
            return ""
        (first, leader), (second, runner_up) = share[0], share[1]
        return f"{leader} leads: {100 * first:.1f}% wins ({runner_up} {100 * second:.1f}%)"


def _check_engines(spec: TournamentSpec) -> list[str]:
    """Start each outside player's engine once and stop it, here in the parent, so that an
    engine that cannot start or fails its handshake stops the run before any match.

    :returns: the names of the players whose engines passed, for the run's log.
    :raises EngineStartError: the first engine that fails, named.
    """
    outside = [p.build() for p in spec.players if p.is_outside]
    preflight(outside)
    return [p.name for p in spec.players if p.is_outside]


def _log_engines_checked(names: list[str]) -> None:
    if names:
        log.info("%d outside engine(s) started and answered their handshake: %s", len(names), ", ".join(names))


def _show_status(reporter: Reporter, text: str) -> None:
    """Tell the reporter the progress line, if it shows one (``on_status`` is optional)."""
    show = getattr(reporter, "on_status", None)
    if show is not None and text:
        show(text)


def _start_log(path: Path, *, multiprocess: bool) -> logging.Handler:
    """Log the run (and, through multiprocessing-logging, its workers) to ``path``."""
    file_handler = _RunLogFile(path, encoding="utf-8")
    file_handler.setFormatter(logging.Formatter("%(asctime)s %(processName)s %(levelname)s %(message)s"))
    handler: logging.Handler = file_handler
    if multiprocess:
        handler = _worker_queue_handler(file_handler)
    for logger in (log, engines_log):  # the engines' stderr, restarts and forfeits go to the run's log too
        logger.addHandler(handler)
        if logger.level == logging.NOTSET or logger.level > logging.INFO:
            logger.setLevel(logging.INFO)
    return handler


_WAKE = "bgfast: the log is closing"
"""The message of the record that wakes the log's receiving thread when it closes (not written)."""


class _RunLogFile(logging.FileHandler):
    """The run's log file; the closing wake-up record is not written."""

    def emit(self, record: logging.LogRecord) -> None:
        if record.msg != _WAKE:  # (a copy: the record crossed the log's queue)
            super().emit(record)


def _worker_queue_handler(file_handler: logging.Handler) -> logging.Handler:
    """multiprocessing-logging's handler, except that the parent's own records go straight
    to the file: only workers write to the queue.  A worker killed (kill -9) while it
    holds the queue's lock then cannot block the parent, whose exit would otherwise
    wait for its own queue feeder thread forever."""
    from multiprocessing_logging import MultiProcessingHandler

    class ParentDirectHandler(MultiProcessingHandler):  # type: ignore[misc]
        _is_closed: bool  # set by MultiProcessingHandler.__init__ (untyped)

        def __init__(self) -> None:
            super().__init__("bgfast-log", sub_handler=file_handler)
            self.parent_pid = os.getpid()

        def renew_queue(self) -> None:
            """Workers started from now on send to a new queue, which the receiving thread
            reads from its next record on (the old one may be locked by a dead worker)."""
            import multiprocessing

            self.queue: Any = multiprocessing.Queue(-1)

        def emit(self, record: logging.LogRecord) -> None:
            if os.getpid() == self.parent_pid:
                self.sub_handler.emit(record)
            else:
                super().emit(record)

        def close(self) -> None:
            # The library waits up to 5 s for the queue to drain; records that a killed
            # worker counted but never sent keep it from draining, so wait 1 s at most.
            if not self._is_closed:
                self._is_closed = True
                # The wake-up record goes through the queue, whose lock a dead worker may hold:
                # then it never arrives, and this process must not wait for it at exit.
                self.queue.cancel_join_thread()
                self.queue.put_nowait(logging.makeLogRecord({"msg": _WAKE}))  # not 0.2 s of polling
                self._receive_thread.join(1.0)
                self.sub_handler.close()
            logging.Handler.close(self)

    return ParentDirectHandler()


def _stop_log(handler: Any) -> None:
    log.removeHandler(handler)
    engines_log.removeHandler(handler)
    handler.close()
