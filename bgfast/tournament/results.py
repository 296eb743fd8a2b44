"""The records of played matches, as the worker makes them and the results file keeps them.

Both :mod:`~bgfast.tournament.worker` (which plays) and
:mod:`~bgfast.tournament.store` (which saves and reads) import these types; neither
imports the other.  How a match went is the game loop's
:class:`~bgfast.game.MatchSummary` (scores, winner seat, games, gammons,
backgammons, cube actions, plies; seat 0 first); these records add where the match
sits in the tournament.

- :class:`MatchRow`: one match as a worker returns it (seats index ``spec.players``);
- :class:`MatchDecisions`: the recorded decisions of a match with a Python bot or an
  outside engine in a seat, and the seat that forfeited it, if one did;
- :data:`ROW_DTYPE`: the same row as a numpy structured record, a field a column (the
  names of :data:`ROW_COLUMNS`), which is how a chunk's rows travel from the C loop to the
  results file: :data:`PLACE_DTYPE` for the schedule's part of it
  (:meth:`~bgfast.tournament.schedule.Scheduler.seat_array`);
- :class:`ChunkResult`: a finished chunk of them, with what the outside engines did;
- :class:`SavedMatch`: one match as the results file gives it back (players by name);
- :class:`SeatTotals`: sums over the matches of one seating, which standings are built from.

>>> from bgfast.game import MatchSummary
>>> row = MatchRow(idx=4, pairing=0, length=3, dice_index=2, seat0=1, seat1=0,
...                result=MatchSummary(3, 1, 0, 3, 0, 0, 0, 0, 2, 120))
>>> row.seat0, row.result.winner, row.result.plies
(1, 0, 120)
>>> rows = row_array([row])
>>> rows["seat0"].tolist(), rows["winner"].tolist(), rows["plies"].tolist()
([1], [0], [120])
"""
from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple, overload

import numpy as np
from numpy.typing import NDArray

from bgfast.engines.counters import EngineCounters
from bgfast.game import MatchSummary

__all__ = ["PLACE_COLUMNS", "PLACE_DTYPE", "ROW_COLUMNS", "ROW_DTYPE", "ChunkResult", "FlatRows", "MatchDecisions",
           "MatchRow", "MatchSummary", "SavedMatch", "SeatTotals", "named_rows", "row_array"]


class MatchRow(NamedTuple):
    """One match a worker played: its place in the schedule and how it went."""

    idx: int
    """The match's index in the schedule (unique within a run)."""
    pairing: int
    length: int
    """Match length in points, 0 = a money game."""
    dice_index: int
    """The dice are the stream ``(spec.seed, dice_index)``; paired matches share it."""
    seat0: int
    """The index into ``spec.players`` of the player in seat 0 (who rolls first)."""
    seat1: int
    result: MatchSummary


class MatchDecisions(NamedTuple):
    """The decisions of one match's recorded seats, as :class:`bgfast.engines.record.RecordingBot`
    encodes them (a seat played by a bot of the compiled core is not recorded: None), and
    the seat that forfeited the match (:mod:`bgfast.engines.resilient`), or None."""

    idx: int
    """The match's index in the schedule (as :attr:`MatchRow.idx`)."""
    seat0: bytes | None
    seat1: bytes | None
    forfeit: int | None


@dataclass(frozen=True)
class ChunkResult:
    """A finished chunk: its rows, in schedule order, and how long it took (seconds) on which
    worker; the decision records of its matches with a recorded seat, what each outside
    player (by its index in ``spec.players``) did while the chunk was played, and the last
    fault of each forfeited match (by match index, one line), which the run's error quotes
    when an engine forfeits match after match."""

    chunk: int
    rows: list[MatchRow]
    seconds: float
    worker: str
    records: list[MatchDecisions] = field(default_factory=list)
    counters: dict[int, EngineCounters] = field(default_factory=dict)
    faults: dict[int, str] = field(default_factory=dict)
    judged: NDArray[np.float64] | None = None
    """With a judge: shape ``(len(rows), 10)``, each match's judged figures in row order
    (the columns :data:`bgfast.game.JUDGED_COLUMNS`); else None."""

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        # A worker sends each chunk to the parent: the rows as one int64 array pickle many
        # times faster than named tuples of named tuples (and faster than the structured
        # array, whose field names would travel with each chunk); the store reads them as columns.
        return _unpack_chunk, (self.chunk, row_array(self.rows).view(np.int64), self.seconds, self.worker,
                               self.records, self.counters, self.faults, self.judged)


PLACE_COLUMNS: tuple[str, ...] = MatchRow._fields[:-1]
"""A match's place in the schedule: ``idx, pairing, length, dice_index, seat0, seat1``, the
columns of :meth:`~bgfast.tournament.schedule.Scheduler.seat_array` in order."""
ROW_COLUMNS: tuple[str, ...] = (*PLACE_COLUMNS, *MatchSummary._fields)
"""A row's columns: its place (:data:`PLACE_COLUMNS`), then how the match went, the fields
of :class:`~bgfast.game.MatchSummary` in order (as :func:`bgfast.game.play_matches` fills them)."""
PLACE_DTYPE = np.dtype([(name, np.int64) for name in PLACE_COLUMNS])
"""A match's place as a numpy structured record: a field of :data:`PLACE_COLUMNS` each, int64."""
ROW_DTYPE = np.dtype([(name, np.int64) for name in ROW_COLUMNS])
"""A row as a numpy structured record: a field of :data:`ROW_COLUMNS` each, int64, packed, so
an int64 array of shape ``(n, len(ROW_COLUMNS))`` is ``n`` rows as they are (:func:`named_rows`)."""


def named_rows(table: NDArray[np.int64], dtype: np.dtype[np.void] = ROW_DTYPE) -> NDArray[np.void]:
    """The int64 array ``table``, a column a field of ``dtype`` in order (:data:`ROW_DTYPE`
    or :data:`PLACE_DTYPE`), as a structured array of shape ``(len(table),)`` that names
    them: ``rows["seat0"]`` is the column of seat 0's players.  No copy when ``table`` is
    C-contiguous (what the schedule and the C loop give).

    >>> from bgfast.tournament.spec import TournamentSpec
    >>> from bgfast.tournament.schedule import scheduler
    >>> spec = TournamentSpec.from_dict({"name": "x", "match_length": 3, "matches_per_pairing": 2,
    ...     "players": [{"name": "a", "bot": "random"}, {"name": "b", "bot": "random"}]})
    >>> named_rows(scheduler(spec).seat_array(0, 2), PLACE_DTYPE)["seat0"].tolist()
    [0, 1]

    :raises ValueError: ``table`` is not 2-D with a column for each field of ``dtype``.
    """
    table = np.ascontiguousarray(table, dtype=np.int64)
    names = dtype.names or ()
    if table.ndim != 2 or table.shape[1] != len(names):
        raise ValueError(f"a table of {len(names)} columns ({', '.join(names)}) expected, got shape {table.shape}")
    return table.view(dtype).reshape(len(table))


def row_array(rows: Sequence[MatchRow]) -> NDArray[np.void]:
    """``rows`` as a structured array of :data:`ROW_DTYPE`, shape ``(len(rows),)``."""
    if isinstance(rows, FlatRows):
        return rows.array
    return np.array([(*row[:-1], *row.result) for row in rows], dtype=ROW_DTYPE)


class FlatRows(Sequence[MatchRow]):
    """A chunk's rows as the parent receives them: a structured array of :data:`ROW_DTYPE`
    (:attr:`array`, a column by name: ``rows.array["seat0"]``), read as :class:`MatchRow`
    objects only when asked for (the store reads the columns).

    :raises ValueError: ``array`` is not of :data:`ROW_DTYPE`.
    """

    def __init__(self, array: NDArray[np.void]) -> None:
        if array.dtype != ROW_DTYPE:
            raise ValueError(f"rows of {ROW_DTYPE} expected, got {array.dtype}")
        self.array = array.reshape(-1)

    def __len__(self) -> int:
        return len(self.array)

    @overload
    def __getitem__(self, i: int) -> MatchRow: ...
    @overload
    def __getitem__(self, i: slice) -> list[MatchRow]: ...
    def __getitem__(self, i: int | slice) -> MatchRow | list[MatchRow]:
        if isinstance(i, slice):
            return list(self)[i]
        n = len(self)
        if not -n <= i < n:
            raise IndexError(i)
        return _row(self.array[i].tolist())

    def __iter__(self) -> Iterator[MatchRow]:
        return map(_row, self.array.tolist())

    def __eq__(self, other: object) -> bool:
        return list(self) == (list(other) if isinstance(other, (list, FlatRows)) else other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"FlatRows({list(self)!r})"


_PLACES = len(PLACE_COLUMNS)


def _row(t: Any) -> MatchRow:
    """The :class:`MatchRow` of one record of :data:`ROW_DTYPE` (as a tuple of ints)."""
    return MatchRow._make((*t[:_PLACES], MatchSummary._make(t[_PLACES:])))


def _unpack_chunk(chunk: int, values: NDArray[np.int64], seconds: float, worker: str,
                  records: list[MatchDecisions], counters: dict[int, EngineCounters],
                  faults: dict[int, str], judged: NDArray[np.float64] | None = None) -> ChunkResult:
    """The :class:`ChunkResult` that :meth:`ChunkResult.__reduce__` packed (its rows' values,
    row after row), its rows :class:`FlatRows`."""
    rows = named_rows(values.reshape(-1, len(ROW_COLUMNS)))
    return ChunkResult(chunk, FlatRows(rows), seconds, worker, records, counters,  # type: ignore[arg-type]
                       faults, judged)


class SavedMatch(NamedTuple):
    """One match read back from a results file (:meth:`~bgfast.tournament.store.Store.iter_matches`)."""

    run: str
    """The name of the run (spec) it belongs to."""
    idx: int
    player0: str
    """The name of the player in seat 0."""
    player1: str
    length: int
    seed: int
    dice_index: int
    result: MatchSummary
    judged: tuple[float | None, ...] | None = None
    """The judge's figures of a judged run's match, in the order of
    :data:`bgfast.game.JUDGED_COLUMNS` (each seat's luck, checker and cube errors and
    decisions, its own view; the errors None in a file judged before they were normalized,
    :data:`bgfast.tournament.store.schema.ERRORS_NORMALIZED`); None for a match of a run
    without a judge."""


class SeatTotals(NamedTuple):
    """Sums over every match of one seating (``player0`` in seat 0 against ``player1``),
    from seat 0's view (:meth:`~bgfast.tournament.store.Store.seat_totals`)."""

    player0: int
    """The file's id of the player in seat 0."""
    player1: int
    matches: int
    wins0: int
    """Matches seat 0 won."""
    games: int
    net: int
    """Net points of seat 0: the sum of ``score0 - score1``."""
    net_sq: int
    """The sum of each match's net points squared."""
    games_sq: int
    net_games: int
    """The sum of each match's net points times its games."""
    gammons0: int
    gammons1: int
    backgammons0: int
    backgammons1: int
    doubles: int
