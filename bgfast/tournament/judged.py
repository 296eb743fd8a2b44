"""Judged figures: luck-adjusted results and error rates, from the judge's per-match figures.

A judged run (``[judge]`` in the spec) keeps for each match each seat's summed luck and
the error and count of its decisions (:data:`bgfast.game.JUDGED_COLUMNS`).  The
luck-adjusted result of a match is its result minus the player's luck plus its
opponent's: gnubg's "luck-adjusted result".  Each roll's luck has mean zero given the
position, whatever the judge, so the adjusted mean estimates the same as the raw one; its
spread falls as far as the judge is good.  Units: money games in points per game (luck
as cubeless equity times the cube); match play in match score (1 a win, 0 a loss; luck in
match winning chance through the table), as gnubg does.

Pure functions of the match records (:data:`JUDGED_MATCH_DTYPE`); the standings call
:func:`judged_table` per match length.

>>> _rate(0.5, 100), math.isnan(_rate(0.0, 0))
(5.0, True)
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from bgfast.analysis.error_rates import error_rate
from bgfast.game import JUDGED_COLUMNS
from bgfast.rollout.stats import estimate, estimate_paired
from bgfast.tournament.ratings import POINTS_CLIP, EloInterval, elo_interval

__all__ = ["JUDGED_MATCH_COLUMNS", "JUDGED_MATCH_DTYPE", "JudgedFigures", "judged_figures",
           "judged_table", "match_results"]

JUDGED_MATCH_COLUMNS = ("run", "dice_index", "length", "player0", "player1", "score0", "score1", "winner", "games",
                        *JUDGED_COLUMNS)
"""The fields of a judged match record: its place, how it went, and the judge's figures."""
JUDGED_MATCH_DTYPE = np.dtype([(name, np.float64 if name in JUDGED_COLUMNS and "decisions" not in name
                                else np.int64) for name in JUDGED_MATCH_COLUMNS])
"""A judged match as a numpy structured record (what ``Store.judged_matches`` reads)."""


def _rate(total: float, decisions: int) -> float:
    """gnubg's error rate (:func:`bgfast.analysis.error_rates.error_rate`: total over the
    decisions counted, times 1000); NaN without a decision, which the tables print "n/a"
    (:func:`~bgfast.tournament.standings.format_rate`)."""
    rate = error_rate(total, decisions)
    return math.nan if rate is None else rate


@dataclass(frozen=True)
class JudgedFigures:
    """One player's (or a pairing's first player's) judged figures, its own view."""

    matches: int
    money: bool
    """Money games (points per game) or match play (match score, 1 a win)."""
    raw: float
    """The mean result (points per game, or match score) over the units (dice pairs)."""
    raw_se: float
    adjusted: float
    """The mean luck-adjusted result (the result minus own luck plus the opponent's)."""
    adjusted_se: float
    elo: EloInterval
    """Elo and LOS from the adjusted results (money: the score ``0.5 + ppg / 6``, bgci's
    points score without its clipping)."""
    checker_error_rate: float
    """Equity (MWC) lost per unforced checker play, x1000 (:func:`bgfast.analysis.error_rates.error_rate`)."""
    cube_error_rate: float
    """Equity (MWC) lost per close or actual cube decision, x1000."""
    luck_per_game: float
    """Own luck per game, points (money) or match winning chance."""
    checker_decisions: int
    cube_decisions: int

    def to_json(self) -> dict[str, Any]:
        """The figures as ``bgfast report --json`` gives them (NaN as null)."""
        kind = "ppg" if self.money else "score"
        return {f"{kind}_raw": _num(self.raw), f"{kind}_raw_se": _num(self.raw_se),
                f"{kind}_luck_adjusted": _num(self.adjusted), f"{kind}_luck_adjusted_se": _num(self.adjusted_se),
                "elo_luck_adjusted": _num(self.elo.elo, 1),
                "elo_luck_adjusted_ci95": [_num(self.elo.lo, 1), _num(self.elo.hi, 1)],
                "los_luck_adjusted": _num(self.elo.los), "checker_error_rate": _num(self.checker_error_rate, 2),
                "cube_error_rate": _num(self.cube_error_rate, 2), "luck_per_game": _num(self.luck_per_game),
                "checker_decisions": self.checker_decisions, "cube_decisions": self.cube_decisions}


def _num(x: float, digits: int = 4) -> float | None:
    return round(float(x), digits) if math.isfinite(x) else None


def judged_figures(rows: NDArray[np.void], player: int, opponent: int | None = None) -> JudgedFigures | None:
    """The judged figures of ``player`` (an id of ``rows``' players) over its matches in
    ``rows`` (against ``opponent`` only, when given): all of one match length.

    Units are the dice pairs (the matches of one run sharing a dice index); a pair's two
    matches give :func:`~bgfast.rollout.stats.estimate_paired` its two results, single
    matches (no paired dice) :func:`~bgfast.rollout.stats.estimate`.

    :returns: the figures, or None when the player has no match in ``rows``.
    """
    seat0 = rows["player0"] == player
    mine = seat0 | (rows["player1"] == player)
    if opponent is not None:
        mine &= np.where(seat0, rows["player1"], rows["player0"]) == opponent
    r = rows[mine]
    if not len(r):
        return None
    s0 = r["player0"] == player
    money = bool((r["length"] == 0).all())
    result, adjusted = match_results(r, player)
    luck_own = np.where(s0, r["luck0"], r["luck1"])
    (raw, raw_se), (adj, adj_se) = (_unit_estimate(r, s0, x) for x in (result, adjusted))
    scale = 2.0 * POINTS_CLIP if money else 1.0
    elo = elo_interval(0.5 + adj / scale if money else adj, adj_se / scale)
    pick = {name: np.where(s0, r[f"{name}0"], r[f"{name}1"]).sum() for name in
            ("checker_error", "checker_decisions", "cube_error", "cube_decisions")}
    return JudgedFigures(len(r), money, raw, raw_se, adj, adj_se, elo,
                         _rate(float(pick["checker_error"]), int(pick["checker_decisions"])),
                         _rate(float(pick["cube_error"]), int(pick["cube_decisions"])),
                         float(luck_own.sum() / max(1, int(r["games"].sum()))),
                         int(pick["checker_decisions"]), int(pick["cube_decisions"]))


def match_results(rows: NDArray[np.void], player: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Each match's result for ``player`` (a player of every match of ``rows``, all of one
    match length), its own view, and its luck-adjusted result (minus its own luck, plus its
    opponent's): money net points, match play the match score (1 a win, 0 a loss)."""
    s0 = rows["player0"] == player
    if bool((rows["length"] == 0).all()):
        result = np.where(s0, rows["score0"] - rows["score1"], rows["score1"] - rows["score0"]).astype(np.float64)
    else:
        result = (rows["winner"] == np.where(s0, 0, 1)).astype(np.float64)
    luck = np.where(s0, rows["luck0"] - rows["luck1"], rows["luck1"] - rows["luck0"])
    return result, result - luck


def _unit_estimate(r: NDArray[np.void], seat0: NDArray[np.bool_], x: NDArray[np.float64]) -> tuple[float, float]:
    """The mean of ``x`` over units and its standard error: the dice pairs (a pair is the
    two matches of a run with one dice index, the player once in each seat), or single matches."""
    key = r["run"] * (1 << 40) + r["dice_index"]
    order = np.lexsort((~seat0, key))
    k = key[order]
    paired = len(k) % 2 == 0 and bool((k[0::2] == k[1::2]).all()) and bool(
        (seat0[order][0::2] & ~seat0[order][1::2]).all()) and len(np.unique(k)) == len(k) // 2
    if paired and len(k):
        return estimate_paired(x[order][0::2], x[order][1::2])
    return estimate(x, 1) if len(x) else (0.0, math.nan)


def judged_table(rows: NDArray[np.void], names: dict[int, str]) -> tuple[dict[str, JudgedFigures],
                                                                          dict[tuple[str, str], JudgedFigures]]:
    """Every player's and every pairing's judged figures over ``rows`` (one match length):
    players by name; pairings keyed ``(a, b)`` by name, ``a`` the lower id, from a's view."""
    players: dict[str, JudgedFigures] = {}
    pairings: dict[tuple[str, str], JudgedFigures] = {}
    ids = sorted(set(rows["player0"].tolist()) | set(rows["player1"].tolist()))
    for p in ids:
        f = judged_figures(rows, p)
        if f is not None:
            players[names.get(p, str(p))] = f
    pairs = {(min(a, b), max(a, b)) for a, b in zip(rows["player0"].tolist(), rows["player1"].tolist())}
    for a, b in sorted(pairs):
        f = judged_figures(rows, a, b)
        if f is not None:
            pairings[(names.get(a, str(a)), names.get(b, str(b)))] = f
    return players, pairings
