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
and on the chunks of a file written before these sums existed).

>>> import numpy as np
>>> rows = np.array([  # player0, player1, dice_index, length, score0, score1, winner, games, ...
...     [1, 2, 0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0],
...     [2, 1, 0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0]])
>>> seats, units = chunk_totals(rows)
>>> [(s.player0, s.player1, s.matches, s.wins0) for s in seats]
[(1, 2, 1, 1), (2, 1, 1, 1)]
>>> [(u.player_a, u.player_b, u.matches_per_unit, u.a_wins, u.units, u.net) for u in units]
[(1, 2, 2, 1, 1, 0)]
"""
from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from bgfast.tournament.pairs import UnitGroup
from bgfast.tournament.ratings import POINTS_CLIP
from bgfast.tournament.results import SeatTotals

__all__ = ["TOTALS_COLUMNS", "chunk_totals"]

TOTALS_COLUMNS = ("player0", "player1", "dice_index", "length", "score0", "score1", "winner", "games",
                  "gammons0", "gammons1", "backgammons0", "backgammons1", "doubles")
"""The columns :func:`chunk_totals` reads, in this order (names as in the ``matches`` table)."""

(_P0, _P1, _DICE, _LENGTH, _S0, _S1, _WINNER, _GAMES, _G0, _G1, _B0, _B1, _DOUBLES) = range(len(TOTALS_COLUMNS))


def _groups(*columns: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.intp]]:
    """The distinct rows of ``columns`` side by side (sorted), and each row's group number."""
    code = np.zeros(len(columns[0]), dtype=np.int64)
    for column in columns:  # a mixed-radix code of the columns' ranks sorts as the rows do
        values, rank = np.unique(column, return_inverse=True)
        code = code * len(values) + rank.reshape(-1)
    _, first, group = np.unique(code, return_index=True, return_inverse=True)
    return np.column_stack([column[first] for column in columns]), group.reshape(-1)


def _sum(inverse: NDArray[np.intp], groups: int, values: NDArray[np.int64]) -> list[int]:
    """Integer sums of ``values`` by group (exact: a chunk's sums are far below 2**53)."""
    return [int(v) for v in np.rint(np.bincount(inverse, weights=values, minlength=groups))]


def _fsum(inverse: NDArray[np.intp], groups: int, values: NDArray[np.float64]) -> list[float]:
    return [float(v) for v in np.bincount(inverse, weights=values, minlength=groups)]


def chunk_totals(rows: NDArray[np.int64]) -> tuple[list[SeatTotals], list[UnitGroup]]:
    """The sums of one chunk's matches (all of one run), by seating and by kind of unit.

    :param rows: shape ``(matches, 13)``, the columns :data:`TOTALS_COLUMNS` of each match,
        players by their ids in the results file.
    :returns: ``(seatings, units)``: one :class:`SeatTotals` per (player0, player1), from
        seat 0's side, and one :class:`UnitGroup` per (player_a, player_b, matches in the
        unit, player_a's wins in it), ``player_a`` the lower id, sums from its side (net
        points, games, their squares and product over units; the points score of money
        games, ``(clip(net, -3, 3) + 3) / 6`` as bgci maps it, 0 in match play); both
        sorted by their keys.  Units are the matches sharing a dice index.
    """
    rows = np.asarray(rows, dtype=np.int64).reshape(-1, len(TOTALS_COLUMNS))
    if not len(rows):
        return [], []
    net = rows[:, _S0] - rows[:, _S1]
    games = rows[:, _GAMES]
    seats, at = _groups(rows[:, _P0], rows[:, _P1])
    n = len(seats)
    columns = (np.ones_like(net), rows[:, _WINNER] == 0, games, net, net * net, games * games, net * games,
               rows[:, _G0], rows[:, _G1], rows[:, _B0], rows[:, _B1], rows[:, _DOUBLES])
    sums = [_sum(at, n, np.asarray(c, dtype=np.int64)) for c in columns]
    seatings = [SeatTotals(int(p0), int(p1), *(s[i] for s in sums)) for i, (p0, p1) in enumerate(seats)]

    a_side = rows[:, _P0] < rows[:, _P1]
    pa = np.minimum(rows[:, _P0], rows[:, _P1])
    pb = np.maximum(rows[:, _P0], rows[:, _P1])
    net_a = np.where(a_side, net, -net)
    a_won = (rows[:, _WINNER] == 0) == a_side
    score = np.where(rows[:, _LENGTH] == 0,
                     (np.clip(net_a, -POINTS_CLIP, POINTS_CLIP) + POINTS_CLIP) / (2.0 * POINTS_CLIP), 0.0)
    units, unit_of = _groups(rows[:, _DICE])
    u = len(units)
    first = np.zeros(u, dtype=np.intp)
    first[unit_of[::-1]] = np.arange(len(rows))[::-1]          # a row of each unit, for its players
    size = np.bincount(unit_of, minlength=u).astype(np.int64)
    wins = np.asarray(_sum(unit_of, u, a_won.astype(np.int64)), dtype=np.int64)
    x = np.asarray(_sum(unit_of, u, net_a), dtype=np.int64)
    g = np.asarray(_sum(unit_of, u, games), dtype=np.int64)
    q = np.bincount(unit_of, weights=score, minlength=u)
    kinds, kind_of = _groups(pa[first], pb[first], size, wins)
    k = len(kinds)
    isums = [_sum(kind_of, k, v) for v in (np.ones_like(x), x, g, x * x, g * g, x * g)]
    fsums = [_fsum(kind_of, k, v) for v in (q, q * q, q * g)]
    groups = [UnitGroup(int(a), int(b), int(m), int(y), *(s[i] for s in isums), *(s[i] for s in fsums))
              for i, (a, b, m, y) in enumerate(kinds)]
    return seatings, groups
