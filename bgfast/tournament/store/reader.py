"""The queries of a results file: runs, players, the sums standings are built from, and the
matches themselves, streamed.

Each query reads one snapshot of the file (one read transaction), whatever a run writing to
it commits meanwhile; a streamed one (``iter_*``) is one query, so one snapshot by itself,
and memory does not grow with the file.  Sums come from the chunk sums tables
(:mod:`~bgfast.tournament.totals`), a few rows a chunk: a report of a million matches reads
a thousand rows.
"""
from __future__ import annotations

import functools
import inspect
from collections.abc import Iterator
from typing import Any, Callable, TypeVar

import numpy as np
from numpy.typing import NDArray

from bgfast.engines.counters import EngineCounters
from bgfast.errors import shortened
from bgfast.tournament.pairs import UnitGroup
from bgfast.tournament.results import MatchDecisions, MatchSummary, SavedMatch, SeatTotals
from bgfast.tournament.store import schema
from bgfast.tournament.store.file import ResultsFile
from bgfast.tournament.totals import TOTALS_COLUMNS, TOTALS_DTYPE, totals_by_length

__all__ = ["ResultsReader"]

_F = TypeVar("_F", bound=Callable[..., Any])


def _reads(method: _F) -> _F:
    """A reading method, with SQLite's errors as bgfast's (see
    :meth:`ResultsFile._sqlite_errors`), its queries in one read transaction (one snapshot of
    the file, see :meth:`ResultsFile._snapshot`); a generator stays a generator (one query,
    which is one snapshot by itself)."""
    if inspect.isgeneratorfunction(method):
        @functools.wraps(method)
        def stream(self: ResultsFile, *args: Any, **kwargs: Any) -> Iterator[Any]:
            with self._sqlite_errors():
                yield from method(self, *args, **kwargs)
        return stream  # type: ignore[return-value]

    @functools.wraps(method)
    def read(self: ResultsFile, *args: Any, **kwargs: Any) -> Any:
        with self._sqlite_errors(), self._snapshot():
            return method(self, *args, **kwargs)
    return read  # type: ignore[return-value]


class ResultsReader(ResultsFile):
    """The queries of a results file (the reading half of
    :class:`~bgfast.tournament.store.Store`)."""

    @_reads
    def runs(self) -> list[dict[str, Any]]:
        """The runs in the file, oldest first, with how far each got."""
        out = []
        for row in self._conn.execute(
                "SELECT r.run, r.name, r.spec_hash, r.spec, r.total_matches, r.sprt_status, r.sprt_matches, "
                "r.sprt_llr, (SELECT COALESCE(SUM(matches), 0) FROM chunks c WHERE c.run = r.run) "
                "FROM runs r ORDER BY r.run"):
            out.append(dict(zip(("run", "name", "spec_hash", "spec", "total_matches", "sprt_status",
                                 "sprt_matches", "sprt_llr", "matches_played"), row)))
        return out

    @_reads
    def player_names(self) -> dict[int, str]:
        """Player id -> name, in the order players were first added."""
        return dict(self._conn.execute("SELECT player, name FROM players ORDER BY player"))

    @_reads
    def seat_totals(self) -> list[SeatTotals]:
        """Sums over all matches, grouped by (player0, player1): the numbers reports are built from."""
        return [SeatTotals._make(row) for row in self._conn.execute(
            f"SELECT player0, player1, {', '.join(f'SUM({c})' for c in schema.SEAT_SUMS)} FROM chunk_seats "
            "GROUP BY player0, player1 ORDER BY player0, player1")]

    @_reads
    def engine_counters(self) -> dict[int, EngineCounters]:
        """What each outside player (by player id) did, summed over the runs of the file;
        players with nothing counted are left out (as is everything in a file of an
        earlier version)."""
        if not self._engine_tables:
            return {}
        totals: dict[int, EngineCounters] = {}
        for player, *counts in self._conn.execute(
                f"SELECT player, {', '.join(schema.COUNTER_COLUMNS)} FROM engine_counters ORDER BY run, player"):
            found = EngineCounters(**dict(zip(schema.COUNTER_COLUMNS, counts)))
            totals[player] = totals[player] + found if player in totals else found
        return totals

    @_reads
    def player_bots(self) -> dict[int, str]:
        """Player id -> what plays for it (:meth:`~bgfast.tournament.spec.PlayerSpec.describe`)."""
        return dict(self._conn.execute("SELECT player, bot FROM players ORDER BY player"))

    @_reads
    def match_decisions(self, run: str, idx: int) -> MatchDecisions | None:
        """The decision records of match ``idx`` of the run named ``run``, or None if no seat
        of it was recorded (both played in the core, or a file of an earlier version)."""
        if not self._engine_tables:
            return None
        row = self._conn.execute(
            "SELECT d.idx, d.seat0, d.seat1, d.forfeit FROM match_records d JOIN runs r ON r.run = d.run "
            "WHERE r.name = ? AND d.idx = ?", (run, idx)).fetchone()
        if row is None:
            return None
        decisions = MatchDecisions._make(row)
        for seat, record in enumerate((decisions.seat0, decisions.seat1)):
            if record is not None and not isinstance(record, bytes):
                raise self._damaged(f"match {idx} of run {run!r} has {type(record).__name__} "
                                    f"{shortened(repr(record))} in the match_records table's seat{seat}, where a "
                                    "decision record (a BLOB) belongs")
        if decisions.forfeit not in (None, 0, 1):
            raise self._damaged(f"match {idx} of run {run!r} has {shortened(repr(decisions.forfeit))} in the "
                                "match_records table's forfeit, where the seat that forfeited (0 or 1) or NULL "
                                "belongs")
        return decisions

    @_reads
    def forfeits(self) -> list[tuple[str, int, str, str]]:
        """Every forfeited match: ``(run name, idx, the forfeiting player, the opponent)``, in order."""
        if not self._engine_tables:
            return []
        return [tuple(row) for row in self._conn.execute(
            "SELECT r.name, d.idx, CASE d.forfeit WHEN 0 THEN p0.name ELSE p1.name END, "
            "CASE d.forfeit WHEN 0 THEN p1.name ELSE p0.name END FROM match_records d "
            "JOIN runs r ON r.run = d.run JOIN matches m ON m.run = d.run AND m.idx = d.idx "
            "JOIN players p0 ON p0.player = m.player0 JOIN players p1 ON p1.player = m.player1 "
            "WHERE d.forfeit IS NOT NULL ORDER BY d.run, d.idx")]

    @_reads
    def iter_matches(self, run: str | None = None, idx: int | None = None) -> Iterator[SavedMatch]:
        """Every match (of the run named ``run``; only match ``idx`` of it), run by run in
        index order, with the judge's figures of a judged run's match.  Streams: memory does
        not grow with the file."""
        summary = ", ".join(f"m.{name}" for name in MatchSummary._fields)
        judged = schema.JUDGED_TABLES <= schema.table_names(self._conn)
        where = [clause for clause, value in (("r.name = ?", run), ("m.idx = ?", idx)) if value is not None]
        cur = self._conn.execute(
            f"SELECT r.name, m.idx, p0.name, p1.name, m.length, m.seed, m.dice_index, {summary}"
            + "".join(f", {c}" for c in (schema.judged_columns(self._conn) if judged else ()))
            + " FROM matches m JOIN runs r ON r.run = m.run JOIN players p0 ON p0.player = m.player0 "
            "JOIN players p1 ON p1.player = m.player1 "
            + ("LEFT JOIN match_judged j ON j.run = m.run AND j.idx = m.idx " if judged else "")
            + (f"WHERE {' AND '.join(where)} " if where else "") + "ORDER BY m.run, m.idx",
            tuple(value for value in (run, idx) if value is not None))
        n_summary = len(MatchSummary._fields)
        while True:
            rows = cur.fetchmany(4096)
            if not rows:
                return
            for name, index, player0, player1, length, seed, dice_index, *rest in rows:
                figures = tuple(rest[n_summary:])
                judged_figures = figures if figures and figures[0] is not None else None   # a LEFT JOIN's NULLs
                yield SavedMatch(name, index, player0, player1, length, seed, dice_index,
                                 MatchSummary(*rest[:n_summary]), judged_figures)

    # ------------------------------------------------------------ units (dice pairs)

    @_reads
    def unit_totals(self) -> list[UnitGroup]:
        """Sums over units, the samples of :mod:`~bgfast.tournament.pairs`: a unit is the
        matches of one run that share a dice index (a dice pair with paired dice, else one
        match).  Grouped by (player_a, player_b, matches in the unit, player_a's wins in it),
        ``player_a`` the lower player id; each group sums player_a's net points, the games,
        their squares and product, and the points scores of money games (net points clipped
        to [-3, 3], mapped to [0, 1]; 0 in match play), their square and product with games.
        """
        return [UnitGroup._make(row) for row in self._conn.execute(
            f"SELECT player_a, player_b, matches_per_unit, a_wins, {', '.join(f'SUM({c})' for c in schema.UNIT_SUMS)} "
            "FROM chunk_units GROUP BY player_a, player_b, matches_per_unit, a_wins "
            "ORDER BY player_a, player_b, matches_per_unit, a_wins")]

    @_reads
    def lengths(self) -> list[int]:
        """The match lengths the file's matches were played at (0 = money), in increasing order."""
        return [n for (n,) in self._conn.execute("SELECT DISTINCT length FROM matches ORDER BY length")]

    @_reads
    def totals_by_length(self) -> dict[int, tuple[list[SeatTotals], list[UnitGroup]]]:
        """:meth:`seat_totals` and :meth:`unit_totals`, match length by match length
        (:func:`~bgfast.tournament.totals.totals_by_length`).  The chunk sums are not kept
        by length, so this reads every match row, chunk by chunk (one snapshot)."""
        columns = ", ".join(TOTALS_COLUMNS)
        chunks = [(run, chunk, size) for run, chunk, size in self._conn.execute(
            "SELECT c.run, c.chunk, r.chunk_size FROM chunks c JOIN runs r ON r.run = c.run "
            "ORDER BY c.run, c.chunk")]
        return totals_by_length(
            np.array(self._conn.execute(f"SELECT {columns} FROM matches WHERE run = ? AND idx >= ? AND idx < ?",
                                        (run, chunk * size, (chunk + 1) * size)).fetchall(), dtype=TOTALS_DTYPE)
            for run, chunk, size in chunks)

    @_reads
    def judged_matches(self, run: int | None = None) -> NDArray[np.void]:
        """The judged matches of the file (runs with a ``[judge]``; of ``run`` only, when
        given): a structured array of :data:`~bgfast.tournament.judged.JUDGED_MATCH_DTYPE`, a
        record a match, in (run, idx) order; empty for a file without judged runs (or
        written before they were kept)."""
        from bgfast.tournament.judged import JUDGED_MATCH_COLUMNS, JUDGED_MATCH_DTYPE

        if not schema.JUDGED_TABLES <= schema.table_names(self._conn):
            return np.zeros(0, dtype=JUDGED_MATCH_DTYPE)
        read = dict(zip(schema.JUDGED_COLUMNS, schema.judged_columns(self._conn)))
        columns = ", ".join(read.get(c, f"m.{c}") for c in JUDGED_MATCH_COLUMNS)
        where, args = ("WHERE j.run = ? ", (run,)) if run is not None else ("", ())
        rows = self._conn.execute(f"SELECT {columns} FROM match_judged j JOIN matches m "
                                  f"ON m.run = j.run AND m.idx = j.idx {where}ORDER BY j.run, j.idx", args).fetchall()
        try:
            return np.array([tuple(r) for r in rows], dtype=JUDGED_MATCH_DTYPE)
        except (TypeError, ValueError) as exc:
            raise self._damaged(f"the match_judged table holds a value that is not a number ({exc})") from None

    @_reads
    def iter_outcomes(self, run: int) -> Iterator[tuple[int, int, int, int, int]]:
        """Who won each match of ``run``, in match-index order (what the pair-by-pair SPRT
        reads): ``(chunk, dice_index, player0, player1, winner seat)``, players by id."""
        cur = self._conn.execute(
            "SELECT chunk, dice_index, player0, player1, winner FROM matches WHERE run = ? ORDER BY idx", (run,))
        while True:
            rows = cur.fetchmany(4096)
            if not rows:
                return
            yield from rows
