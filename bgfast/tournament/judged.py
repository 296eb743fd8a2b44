"""Judged figures: luck-adjusted results and error rates, from the judge's per-match figures.

A judged run (``[judge]`` in the spec) keeps for each match each seat's summed luck and
the error and count of its decisions (:data:`bgfast.game.JUDGED_COLUMNS`).  The
luck-adjusted result of a match is its result minus the player's luck plus its
opponent's: gnubg's "luck-adjusted result".  Each roll's luck has mean zero given the
position, whatever the judge, so the adjusted mean estimates the same as the raw one; its
spread falls as far as the judge is good.  Units: money games in points per game (luck
as cubeless equity times the cube); match play in match score (1 a win, 0 a loss; luck in
match winning chance through the table), as gnubg does.  Errors are normalized as gnubg's
error rates are (money: points per unit of the cube; match play: EMG), so the rates are
``bgfast analyse``'s mEMG; a file judged before that (its errors NaN here, as the store
reads them) has no error rates ("n/a").

Pure functions of the match records (:data:`JUDGED_MATCH_DTYPE`); the standings call
:func:`judged_table` per match length.

>>> _rate(0.5, 100), math.isnan(_rate(0.0, 0))
(5.0, True)
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from bgfast.analysis.error_rates import error_rate
from bgfast.game import JUDGED_COLUMNS
from bgfast.rollout.stats import estimate, estimate_paired
from bgfast.tournament.pairs import too_few_for_error
from bgfast.tournament.ratings import POINTS_CLIP, EloInterval, elo_interval
from bgfast.tournament.results import ChunkResult, row_array

__all__ = ["JUDGED_MATCH_COLUMNS", "JUDGED_MATCH_DTYPE", "JudgedFigures", "chunk_records", "chunks_of", "judged_figures",
           "judged_table", "luck_adjusted_scores", "match_results", "unit_scores"]

JUDGED_MATCH_COLUMNS = ("run", "idx", "chunk", "dice_index", "length", "player0", "player1", "score0", "score1", "winner", "games",
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
    """Normalized equity (points per unit of the cube, or EMG) lost per unforced checker
    play, x1000: gnubg's mEMG (:func:`bgfast.analysis.error_rates.error_rate`); NaN
    without a decision or with errors of an older file."""
    cube_error_rate: float
    """The same per close or actual cube decision."""
    luck_per_game: float
    """Own luck per game, points (money) or match winning chance."""
    checker_decisions: int
    cube_decisions: int

    def to_json(self) -> dict[str, Any]:
        """The figures as ``bgfast report --json`` gives them (NaN as null)."""
        kind = "ppg" if self.money else "score"
        return {f"{kind}_raw": _num(self.raw), f"{kind}_raw_se": _num(self.raw_se),
                f"{kind}_luck_adjusted": _num(self.adjusted, 5),
                f"{kind}_luck_adjusted_se": _num(self.adjusted_se, 5),
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
    result, adjusted = _results(r, s0, money)
    luck_own = np.where(s0, r["luck0"], r["luck1"])
    (raw, raw_se), (adj, adj_se) = (_unit_estimate(r, s0, x) for x in (result, adjusted))
    elo = elo_interval(_elo_score(adj, money), adj_se / _ELO_SCALE if money else adj_se)
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
    return _results(rows, rows["player0"] == player, bool((rows["length"] == 0).all()))


_ELO_SCALE = 2.0 * POINTS_CLIP
"""Money play's points per game on the Elo scale: the score ``0.5 + ppg / 6`` (bgci's points
score, without its clipping)."""


def _elo_score(x: Any, money: bool) -> Any:
    """A result (or a mean of results) as a score on the Elo scale: the match score as it
    is, money play's points per game as ``0.5 + ppg / 6`` (:data:`_ELO_SCALE`)."""
    return 0.5 + x / _ELO_SCALE if money else x


def _results(r: NDArray[np.void], seat0: NDArray[np.bool_], money: bool) -> tuple[NDArray[np.float64],
                                                                                 NDArray[np.float64]]:
    """Each match's result (net points in money play, else 1 a win and 0 a loss) and
    luck-adjusted result (the result minus own luck plus the opponent's), the view of the
    player in seat 0 where ``seat0`` is true, else in seat 1."""
    net = np.where(seat0, r["score0"] - r["score1"], r["score1"] - r["score0"]).astype(np.float64)
    result = net if money else (r["winner"] == np.where(seat0, 0, 1)).astype(np.float64)
    luck = np.where(seat0, r["luck0"] - r["luck1"], r["luck1"] - r["luck0"])
    return result, result - luck


def luck_adjusted_scores(rows: NDArray[np.void], player: int) -> NDArray[np.float64]:
    """Each match's luck-adjusted score of ``player`` (an id; a player of every match of
    ``rows``) on the Elo scale, what the SPRT on adjusted results counts: match play, the
    match score (1 a win) minus own luck plus the opponent's (in match winning chance);
    money play, ``0.5 + adjusted ppg / 6``, the scale of :attr:`JudgedFigures.elo`.

    >>> rows = np.zeros(2, dtype=JUDGED_MATCH_DTYPE)
    >>> rows["player1"], rows["length"], rows["winner"] = [1, 0], 3, [0, 0]
    >>> rows["player0"], rows["luck0"], rows["luck1"] = [0, 1], [0.25, 0.0], [0.0, 0.1]
    >>> luck_adjusted_scores(rows, 0).tolist()     # won with luck 0.25; lost with luck 0.1
    [0.75, -0.1]

    :raises ValueError: ``player`` missing from a match, or money games and matches mixed.
    """
    seat0 = rows["player0"] == player
    if not (seat0 | (rows["player1"] == player)).all():
        raise ValueError(f"player {player} did not play every match given")
    money = rows["length"] == 0
    if money.any() and not money.all():
        raise ValueError("money games and matches have scores on different scales: give one kind")
    is_money = bool(len(rows)) and bool(money.all())
    return np.asarray(_elo_score(_results(rows, seat0, is_money)[1], is_money), dtype=np.float64)


def unit_scores(rows: NDArray[np.void], player: int, *, paired: bool) -> NDArray[np.float64]:
    """``player``'s luck-adjusted score (:func:`luck_adjusted_scores`) unit by unit, from
    judged match records in match-index order: with ``paired`` the mean of each dice pair's
    two matches (consecutive, sharing a dice index; a pair whose second match is not in
    ``rows`` is left out), else each match's own.

    :raises ValueError: with ``paired``, two consecutive matches of a pair with different
        dice indices (as :func:`~bgfast.tournament.pairs.unit_wins`).
    """
    scores = luck_adjusted_scores(rows, player)
    if not paired:
        return scores
    whole = len(scores) // 2 * 2
    dice = rows["dice_index"][:whole]
    bad = np.nonzero(dice[0::2] != dice[1::2])[0]
    if bad.size:
        raise ValueError(f"dice pair {int(dice[2 * bad[0]])} is incomplete: the next match has dice index "
                         f"{int(dice[2 * bad[0] + 1])}")
    return np.asarray(0.5 * (scores[:whole][0::2] + scores[:whole][1::2]))


def chunks_of(records: NDArray[np.void]) -> list[NDArray[np.void]]:
    """Judged match records in match-index order, split chunk by chunk (each a view)."""
    if not len(records):
        return []
    return np.split(records, (np.flatnonzero(np.diff(records["chunk"])) + 1).tolist())


def chunk_records(result: ChunkResult, run: int, player_ids: Sequence[int]) -> NDArray[np.void]:
    """A judged chunk's matches as judged match records (:data:`JUDGED_MATCH_DTYPE`), as the
    results file will give them back (players by id: ``player_ids[seat]``).

    :raises ValueError: a chunk played without a judge.
    """
    if result.judged is None:
        raise ValueError(f"chunk {result.chunk} was played without a judge")
    rows = row_array(result.rows)
    ids = np.asarray(player_ids, dtype=np.int64)
    out = np.zeros(len(rows), dtype=JUDGED_MATCH_DTYPE)
    out["run"], out["chunk"] = run, result.chunk
    for name in ("idx", "dice_index", "length", "score0", "score1", "winner", "games"):
        out[name] = rows[name]
    out["player0"], out["player1"] = ids[rows["seat0"]], ids[rows["seat1"]]
    for k, name in enumerate(JUDGED_COLUMNS):
        out[name] = result.judged[:, k]
    return out


def _unit_estimate(r: NDArray[np.void], seat0: NDArray[np.bool_], x: NDArray[np.float64]) -> tuple[float, float]:
    """The mean of ``x`` over units and its standard error: the dice pairs (a pair is the
    two matches of a run with one dice index, the player once in each seat), or single
    matches; the error is NaN from too few units (:func:`~bgfast.tournament.pairs.too_few_for_error`),
    as the main table's."""
    key = r["run"] * (1 << 40) + r["dice_index"]
    order = np.lexsort((~seat0, key))
    k = key[order]
    paired = len(k) % 2 == 0 and bool((k[0::2] == k[1::2]).all()) and bool(
        (seat0[order][0::2] & ~seat0[order][1::2]).all()) and len(np.unique(k)) == len(k) // 2
    if paired and len(k):
        mean, se = estimate_paired(x[order][0::2], x[order][1::2])
        units = len(k) // 2
    else:
        mean, se = estimate(x, 1) if len(x) else (0.0, math.nan)
        units = len(x)
    return mean, math.nan if too_few_for_error(units) else se


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
