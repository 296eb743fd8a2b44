"""A chunk's sums: what standings and reports are built from, kept beside the match rows.

A results file stores, in the transaction that saves a chunk's matches, the chunk's sums
by seating (:class:`~bgfast.tournament.results.SeatTotals`: matches, wins, points, their
squares...) and by kind of unit (:class:`~bgfast.tournament.pairs.UnitGroup`: the dice
pairs, or single matches without paired dice, grouped by pairing, size and wins).  The
standings of a file are then sums over its chunks' sums, a few rows a chunk, not a pass
over every match: a report of a million-match file reads a thousand rows.

A unit never straddles two chunks (a chunk is a range of match indices, even-sized with
paired dice, whose pairs are two consecutive matches), so the sums of whole units can be
made chunk by chunk.  :func:`chunk_totals` is a pure function of a chunk's rows, the one
place these sums are made (:mod:`~bgfast.tournament.store` calls it on each chunk it saves,
and on the chunks of a file written before these sums existed).  It reads the columns by
name (:data:`TOTALS_COLUMNS`, those of the ``matches`` table).

>>> import numpy as np
>>> rows = np.array([  # player0, player1, dice_index, length, score0, score1, winner, games, ...
...     (1, 2, 0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0),
...     (2, 1, 0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0)], dtype=TOTALS_DTYPE)
>>> seats, units = chunk_totals(rows)
>>> [(s.player0, s.player1, s.matches, s.wins0) for s in seats]
[(1, 2, 1, 1), (2, 1, 1, 1)]
>>> [(u.player_a, u.player_b, u.matches_per_unit, u.a_wins, u.units, u.net) for u in units]
[(1, 2, 2, 1, 1, 0)]
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from bgfast.tournament.pairs import UnitGroup
from bgfast.tournament.ratings import POINTS_CLIP
from bgfast.tournament.results import SeatTotals

__all__ = ["TOTALS_COLUMNS", "TOTALS_DTYPE", "chunk_totals", "totals_by_length"]

TOTALS_COLUMNS = ("player0", "player1", "dice_index", "length", "score0", "score1", "winner", "games",
                  "gammons0", "gammons1", "backgammons0", "backgammons1", "doubles")
"""The columns :func:`chunk_totals` reads, in this order (names as in the ``matches`` table)."""

TOTALS_DTYPE = np.dtype([(name, np.int64) for name in TOTALS_COLUMNS])
"""The columns :func:`chunk_totals` reads as a numpy structured record, int64 each."""
_SUMMED_AS_STORED = ("gammons0", "gammons1", "backgammons0", "backgammons1", "doubles")
"""The columns a seating's sums add up as they are (the last fields of :class:`SeatTotals`)."""


def _groups(*columns: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.intp], NDArray[np.intp]]:
    """Rows grouped by the values of ``columns`` side by side: the distinct rows (sorted),
    the order that puts each group's rows together, and where each group starts in it."""
    order = np.lexsort(columns[::-1])  # by the first column, then the second, ...
    rows = np.column_stack(columns)[order]
    starts = np.flatnonzero(np.concatenate(([True], (rows[1:] != rows[:-1]).any(axis=1))))
    return rows[starts], order, starts


def _sums(values: NDArray[Any], order: NDArray[np.intp], starts: NDArray[np.intp]) -> NDArray[Any]:
    """The column sums of ``values`` by group (:func:`_groups`), a row a group; exact for ints."""
    return np.add.reduceat(values[order], starts, axis=0)


def chunk_totals(rows: NDArray[np.void]) -> tuple[list[SeatTotals], list[UnitGroup]]:
    """The sums of one chunk's matches (all of one run), by seating and by kind of unit.

    :param rows: shape ``(matches,)``, a structured array with (at least) the fields
        :data:`TOTALS_COLUMNS`, a record a match, players by their ids in the results file.
    :returns: ``(seatings, units)``: one :class:`SeatTotals` per (player0, player1), from
        seat 0's side, and one :class:`UnitGroup` per (player_a, player_b, matches in the
        unit, player_a's wins in it), ``player_a`` the lower id, sums from its side (net
        points, games, their squares and product over units; the points score of money
        games, ``(clip(net, -3, 3) + 3) / 6`` as bgci maps it, 0 in match play); both
        sorted by their keys.  Units are the matches sharing a dice index.
    """
    if not len(rows):
        return [], []
    p0, p1 = rows["player0"], rows["player1"]
    net = rows["score0"] - rows["score1"]
    games = rows["games"]
    seat0_won = rows["winner"] == 0
    seats, order, starts = _groups(p0, p1)
    per_match = np.column_stack([np.ones_like(net), seat0_won, games, net, net * net, games * games, net * games,
                                 *(rows[name] for name in _SUMMED_AS_STORED)]).astype(np.int64)
    seatings = [SeatTotals(*key, *sums) for key, sums in zip(seats.tolist(), _sums(per_match, order, starts).tolist())]

    a_side = p0 < p1
    net_a = np.where(a_side, net, -net)
    score = np.where(rows["length"] == 0,
                     (np.clip(net_a, -POINTS_CLIP, POINTS_CLIP) + POINTS_CLIP) / (2.0 * POINTS_CLIP), 0.0)
    units, order, starts = _groups(rows["dice_index"])
    first = order[starts]                                       # a row of each unit, for its players
    m, y, x, g = _sums(np.column_stack([np.ones_like(net), seat0_won == a_side, net_a, games])
                       .astype(np.int64), order, starts).T
    q = _sums(score, order, starts)
    kinds, order, starts = _groups(np.minimum(p0, p1)[first], np.maximum(p0, p1)[first], m, y)
    isums = _sums(np.column_stack([np.ones_like(x), x, g, x * x, g * g, x * g]), order, starts).tolist()
    fsums = _sums(np.column_stack([q, q * q, q * g]), order, starts).tolist()
    groups = [UnitGroup(*key, *i, *f) for key, i, f in zip(kinds.tolist(), isums, fsums)]
    return seatings, groups


_Sums = TypeVar("_Sums", SeatTotals, UnitGroup)


def _add_up(found: dict[tuple[Any, ...], _Sums], rows: Iterable[_Sums], keys: int) -> None:
    """Add ``rows`` into ``found``, keyed by their first ``keys`` fields, the rest summed."""
    for row in rows:
        key = tuple(row[:keys])
        held = found.get(key)
        if held is not None:
            sums: dict[str, Any] = {name: a + b for name, a, b in zip(row._fields[keys:], held[keys:], row[keys:])}
            row = row._replace(**sums)
        found[key] = row


def totals_by_length(chunks: Iterable[NDArray[np.void]]) -> dict[int, tuple[list[SeatTotals], list[UnitGroup]]]:
    """The sums of :func:`chunk_totals`, match length by match length, over many chunks.

    :param chunks: each a chunk's rows (all of one run, as :func:`chunk_totals` takes them).
    :returns: match length (0 = money) -> ``(seatings, units)`` summed over the chunks,
        each list sorted by its keys; lengths in increasing order.  A unit (the matches that
        share a dice index) is always of one length: the schedule pairs two matches of the
        same (pairing, length).

    >>> rows = np.array([(1, 2, 0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0), (2, 1, 1, 3, 3, 0, 0, 2, 0, 0, 0, 0, 0),
    ...                  (1, 2, 2, 1, 0, 1, 1, 1, 0, 0, 0, 0, 0)], dtype=TOTALS_DTYPE)
    >>> found = totals_by_length([rows[:2], rows[2:]])
    >>> sorted(found), [(s.player0, s.player1, s.matches, s.wins0) for s in found[1][0]]
    ([1, 3], [(1, 2, 2, 1)])
    """
    seats: dict[int, dict[tuple[Any, ...], SeatTotals]] = {}
    units: dict[int, dict[tuple[Any, ...], UnitGroup]] = {}
    for rows in chunks:
        for length in np.unique(rows["length"]).tolist():
            chunk_seats, chunk_units = chunk_totals(rows[rows["length"] == length])
            _add_up(seats.setdefault(length, {}), chunk_seats, 2)
            _add_up(units.setdefault(length, {}), chunk_units, 4)
    return {length: ([s for _, s in sorted(seats[length].items())], [u for _, u in sorted(units[length].items())])
            for length in sorted(seats)}
