"""Elo ratings: from a score, from wins and losses, from dice pairs, and fitted over a whole tournament.

All figures use the logistic Elo scale: a player ``d`` Elo stronger is expected to
score ``1 / (1 + 10 ** (-d / 400))`` per match.

>>> round(elo_from_score(0.75), 2)
190.85
>>> round(expected_score(100.0), 4)
0.6401

Two kinds of score are rated.  *Match wins* (the default): a match scores 1 or 0.
*Points* (money games, as bgci rates them): a game's net points per initial cube,
clipped to [-3, 3], mapped linearly to a score in [0, 1] (:func:`points_score`), so a
single game won scores 2/3, a gammon 5/6 and a backgammon or anything bigger 1.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from bgfast.tournament.stats import UnitSums
from bgfast.validation import whole_number

__all__ = [
    "POINTS_CLIP",
    "RATINGS",
    "Z95",
    "EloInterval",
    "Ratings",
    "elo_from_pairs",
    "elo_from_results",
    "elo_from_score",
    "elo_interval",
    "expected_score",
    "fit_elo",
    "fit_ratings",
    "normal_cdf",
    "points_score",
]

Z95 = 1.959963984540054
"""The two-sided 95% quantile of the normal distribution."""

RATINGS = ("wins", "points")
"""What ratings rate: match wins, or money games' points (see the module docstring)."""

POINTS_CLIP = 3
"""Points-based ratings clip a game's net points per initial cube to ``[-POINTS_CLIP, POINTS_CLIP]``."""

_C = math.log(10.0) / 400.0


def expected_score(elo: float) -> float:
    """The expected score per match of a player ``elo`` points stronger."""
    return float(1.0 / (1.0 + 10.0 ** (-elo / 400.0)))


def elo_from_score(score: float) -> float:
    """The Elo difference that gives an expected ``score`` (0 < score < 1); infinite at 0 and 1:
    ``-400 log10(1 / score - 1)``."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def normal_cdf(z: float) -> float:
    """The standard normal distribution function ``P(Z <= z) = (1 + erf(z / sqrt 2)) / 2``."""
    return 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))


def points_score(points: float) -> float:
    """A money game's score in [0, 1] from its net points per initial cube (bgci's mapping):
    ``(clip(points, -3, 3) + 3) / 6``.

    >>> [round(points_score(p), 4) for p in (-8, -2, -1, 1, 2, 3, 4)]
    [0.0, 0.1667, 0.3333, 0.6667, 0.8333, 1.0, 1.0]
    """
    return (min(POINTS_CLIP, max(-POINTS_CLIP, points)) + POINTS_CLIP) / (2.0 * POINTS_CLIP)


@dataclass(frozen=True)
class EloInterval:
    """An Elo difference with its 95% confidence interval and its likelihood of superiority."""

    elo: float
    lo: float
    hi: float
    los: float = math.nan
    """The likelihood of superiority, ``P(true difference > 0)`` (NaN when not computed)."""
    score: float = math.nan
    """The mean score per match (or per game) the difference comes from."""
    score_se: float = math.nan
    """The standard error of :attr:`score`."""


def elo_interval(score: float, se: float) -> EloInterval:
    """The Elo difference of a mean ``score`` per match, its 95% interval and LOS,
    given the standard error ``se`` of the score.

    As fastchess computes them (``elo_pentanomial.cpp``, ``elo_wdl.cpp``): the interval is
    the score's normal interval ``score -/+ 1.96 se`` mapped through :func:`elo_from_score`
    (so it is not symmetric about the estimate; fastchess prints half its width as
    ``+/-``), and ``LOS = (1 - erf(-(score - 0.5) / sqrt(2 se**2))) / 2 = Phi((score - 0.5) / se)``.
    A bound past 0 or 1 is an infinite Elo; a NaN ``se`` (too few samples) gives NaN
    bounds and LOS.

    >>> e = elo_interval(0.6, 0.04899)
    >>> round(e.elo, 1), round(e.lo, 1), round(e.hi, 1), round(e.los, 4)
    (70.4, 2.8, 143.9, 0.9794)
    """
    if math.isnan(se):       # too few samples for an error: no interval, no LOS
        return EloInterval(elo_from_score(score), math.nan, math.nan, math.nan, score, se)
    if se > 0.0:
        los = normal_cdf((score - 0.5) / se)
    else:
        los = 1.0 if score > 0.5 else 0.0 if score < 0.5 else 0.5
    return EloInterval(elo_from_score(score), elo_from_score(score - Z95 * se), elo_from_score(score + Z95 * se),
                       los, score, se)


def _interval(counts: Mapping[float, float]) -> EloInterval:
    n = sum(counts.values())
    if n <= 0:
        return EloInterval(0.0, -math.inf, math.inf, 0.5, 0.5, math.inf)
    mean = sum(s * k for s, k in counts.items()) / n
    var = sum(k * (s - mean) ** 2 for s, k in counts.items()) / n
    return elo_interval(mean, math.sqrt(var / n))


def elo_from_results(wins: int, losses: int, draws: int = 0) -> EloInterval:
    """Elo difference from match results, with a 95% interval from the normal
    approximation of the mean score, mapped to Elo (as cutechess and fastchess report it).

    The matches are taken as independent: with paired dice this overstates the
    error (use :class:`~bgfast.tournament.pairs.Pentanomial`).

    >>> e = elo_from_results(60, 40)
    >>> round(e.elo, 1), round(e.lo, 1), round(e.hi, 1)
    (70.4, 2.8, 143.9)
    """
    return _interval({1.0: wins, 0.5: draws, 0.0: losses})


def elo_from_pairs(counts: Mapping[float, int]) -> EloInterval:
    """Elo difference from paired matches: ``counts`` maps a pair's score (0, 0.5 or 1,
    the mean of its two matches on the same dice) to how many pairs scored it.  The
    interval uses the variance of pair scores, so it credits the pairing's lower noise.

    >>> e = elo_from_pairs({1.0: 30, 0.5: 40, 0.0: 30})
    >>> round(e.elo, 1) + 0.0, round(e.hi, 1)
    (0.0, 53.2)
    """
    return _interval(counts)


@dataclass(frozen=True)
class Ratings:
    """Fitted ratings, anchored so that their mean is 0 (or so that :attr:`anchor` is 0)."""

    elo: tuple[float, ...]
    ci95: tuple[tuple[float, float], ...]
    """Each player's 95% interval: ``elo -/+ 1.96 sqrt(V_ii)``, ``V`` the covariance under the anchor."""
    prior_draws: float
    """Virtual draws added to each pairing that played (0 when the plain fit exists)."""
    covariance: tuple[tuple[float, ...], ...] = ()
    """The ratings' covariance matrix (Elo squared) under the anchor; the anchor's row is 0."""
    anchor: int | None = None
    """The player rated 0 by definition, or None: the players' mean is 0."""

    def diff(self, i: int, j: int) -> EloInterval:
        """``elo[i] - elo[j]`` with its 95% interval ``-/+ 1.96 sqrt(V_ii + V_jj - 2 V_ij)`` and
        LOS ``Phi(diff / se)``; the same whatever the anchor.

        :raises IndexError: no such player.
        """
        d = self.elo[i] - self.elo[j]
        if not self.covariance:
            return EloInterval(d, math.nan, math.nan)
        v = self.covariance
        se = math.sqrt(max(0.0, v[i][i] + v[j][j] - 2.0 * v[i][j]))
        los = normal_cdf(d / se) if se > 0 else (1.0 if d > 0 else 0.0 if d < 0 else 0.5)
        return EloInterval(d, d - Z95 * se, d + Z95 * se, los)


def _mle_exists(wins: np.ndarray, played: np.ndarray) -> bool:
    """The fit is finite iff the graph 'i beat j at least once' is strongly connected
    within each connected part of the 'played' graph (Zermelo, Ford)."""
    n = len(wins)
    beats = wins > 0

    def reach(adj: np.ndarray, start: int) -> set[int]:
        seen, stack = {start}, [start]
        while stack:
            i = stack.pop()
            for j in np.nonzero(adj[i])[0]:
                if int(j) not in seen:
                    seen.add(int(j))
                    stack.append(int(j))
        return seen

    for i in range(n):
        if reach(played, i) != reach(beats, i):
            return False
    return True


def _newton(w: np.ndarray, games: np.ndarray, active: np.ndarray, tol: float,
            max_iter: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The Bradley-Terry maximum-likelihood ratings (mean 0 over the active players) by
    Newton's method; returns them, the win chances ``p[i, j]`` and the Fisher information."""
    n = len(w)
    r = np.zeros(n)
    score = w.sum(axis=1)

    def information(r: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        p = 1.0 / (1.0 + np.exp(-_C * (r[:, None] - r[None, :])))
        weight = games * p * (1.0 - p)
        info = _C * _C * (np.diag(weight.sum(axis=1)) - weight)
        grad = _C * (score - (games * p).sum(axis=1))
        return info, grad, p

    for _ in range(max_iter):
        info, grad, _ = information(r)
        step = np.linalg.pinv(info) @ grad
        r = r + step
        r -= r[active].mean()
        r[~active] = 0.0
        if np.abs(step).max() < tol:
            break
    info, _, p = information(r)
    return r, p, info


def _ratings(r: np.ndarray, cov: np.ndarray, active: np.ndarray, prior_draws: float,
             anchor: int | None) -> Ratings:
    """Ratings and intervals from the mean-0 fit ``r`` and its covariance, moved to ``anchor``."""
    n = len(r)
    if anchor is not None:
        anchor = whole_number(anchor, "anchor", low=0, high=n - 1)
        if not active[anchor]:
            raise ValueError(f"anchor: player {anchor} played no match, so it cannot be rated 0")
        r = r - r[anchor]
        r[~active] = 0.0
        # Cov(r_i - r_a, r_j - r_a) = V_ij - V_ia - V_aj + V_aa
        cov = cov - cov[:, [anchor]] - cov[[anchor], :] + cov[anchor, anchor]
        cov[~active, :] = 0.0
        cov[:, ~active] = 0.0
    se = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    ci = tuple((float(r[i] - Z95 * se[i]), float(r[i] + Z95 * se[i])) if active[i] else (0.0, 0.0)
               for i in range(n))
    return Ratings(tuple(float(x) for x in r), ci, float(prior_draws),
                   tuple(tuple(float(x) for x in row) for row in cov), anchor)


def fit_elo(wins: Sequence[Sequence[float]], *, prior_draws: float | None = None, anchor: int | None = None,
            tol: float = 1e-10, max_iter: int = 200) -> Ratings:
    """Maximum-likelihood Bradley-Terry (logistic Elo) ratings from a win matrix.

    ``wins[i][j]`` is how many matches player ``i`` won against player ``j``.  The
    ratings maximise ``sum w_ij log P(i beats j)`` with ``P = 1 / (1 + 10**((r_j - r_i) / 400))``
    (Newton's method), anchored so their mean is 0, or so that player ``anchor`` is 0.
    The 95% intervals are ``r_i -/+ 1.96 sqrt(V_ii)`` where ``V`` is the pseudo-inverse of
    the Fisher information at the fit (the covariance under the mean-0 anchor), moved
    to the anchor by ``V'_ij = V_ij - V_ia - V_aj + V_aa``; no bootstrap.  This treats
    matches as independent; :func:`fit_ratings` takes dice pairs as the unit.

    When some players never lose (or never win) against the rest, the
    maximum-likelihood ratings are infinite.  Then, as BayesElo's prior does, one
    virtual draw (half a win each way) is added to every pairing that played,
    which keeps the ratings finite and hardly moves them in a long run;
    :attr:`Ratings.prior_draws` says so.  Players who never played are rated 0.

    >>> r = fit_elo([[0, 3], [1, 0]])  # 3 wins out of 4: 400 log10(3) = 190.85 apart
    >>> [round(x, 2) for x in r.elo]
    [95.42, -95.42]
    >>> [round(x, 1) for x in r.ci95[0]]
    [-101.2, 292.0]
    >>> [round(x, 2) for x in fit_elo([[0, 3], [1, 0]], anchor=1).elo]
    [190.85, 0.0]

    :raises ValueError: ``wins`` is not a square matrix of non-negative counts, or
        ``anchor`` is not the index of a player who played.
    """
    w, games, played, prior, active = _prepare(wins, prior_draws)
    n = len(w)
    if n < 2 or not active.any():
        return Ratings(tuple(0.0 for _ in range(n)), tuple((0.0, 0.0) for _ in range(n)), prior,
                       tuple(tuple(0.0 for _ in range(n)) for _ in range(n)), None)
    r, _, info = _newton(w, games, active, tol, max_iter)
    return _ratings(r, np.linalg.pinv(info), active, prior, anchor)


def _prepare(wins: Sequence[Sequence[float]] | np.ndarray,
             prior_draws: float | None) -> tuple[np.ndarray, np.ndarray, np.ndarray, float, np.ndarray]:
    w = np.asarray(wins, dtype=float)
    n = len(w)
    if w.ndim != 2 or w.shape != (n, n) or (w < 0).any() or not np.isfinite(w).all():
        raise ValueError("wins must be a square matrix of non-negative counts")
    w = w.copy()
    np.fill_diagonal(w, 0.0)
    games = w + w.T
    played = games > 0
    if prior_draws is None:
        prior_draws = 0.0 if _mle_exists(w, played) else 1.0
    if prior_draws:
        w = w + 0.5 * prior_draws * played
        games = w + w.T
    return w, games, played, float(prior_draws), played.any(axis=1)


def fit_ratings(players: int, pairings: Mapping[tuple[int, int], UnitSums], *, anchor: int | None = None,
                prior_draws: float | None = None, tol: float = 1e-10, max_iter: int = 200) -> Ratings:
    """Bradley-Terry ratings with a cluster-robust covariance: dice pairs are the unit of evidence.

    ``pairings[(i, j)]`` holds player ``i``'s results against ``j`` unit by unit (a dice
    pair, or a match without paired dice): ``x`` = ``i``'s score in the unit (match wins,
    or the sum of :func:`points_score` of its games), ``g`` = matches (games) in the
    unit.  A key ``(j, i)`` is read from ``j``'s side.

    The ratings are the same maximum-likelihood fit as :func:`fit_elo` on the total
    scores.  Their covariance is the sandwich ``V = I+ J I+`` (Huber; the
    cluster-robust form bgci uses, ``crates/bgci-core/src/ranking.rs``): ``I`` is the
    Fisher information at the fit, and ``J = sum over pairings of c**2 S_ij (e_i - e_j)(e_i - e_j)'``,
    ``c = ln 10 / 400``, with ``S_ij = sum over units (x_u - p_ij g_u)**2`` the
    units' squared residuals.  Independent matches give ``J ~ I`` (the model's own
    variance); dice pairs, whose two matches pull opposite ways, give a smaller
    ``J``.  For two players the interval of the difference is exactly the delta-method
    interval of the pentanomial score (:meth:`~bgfast.tournament.pairs.Pentanomial.elo`).

    Then the ratings are anchored (mean 0, or player ``anchor`` at 0), the covariance
    with them.  A pairing without wins one way gets a virtual unit of one drawn
    match (score 0.5) as in :func:`fit_elo`.

    >>> from bgfast.tournament.stats import UnitSums
    >>> pairs = {(0, 1): UnitSums.of_unit(2, 2) + UnitSums.of_unit(1, 2) + UnitSums.of_unit(1, 2)
    ...                  + UnitSums.of_unit(1, 2)}
    >>> r = fit_ratings(2, pairs, anchor=1)
    >>> round(r.elo[0], 2), [round(x, 1) for x in r.ci95[0]]
    (88.74, [-68.5, 246.0])

    :raises ValueError: a key that is not two different player indices, a score outside
        ``[0, g]``, or a bad ``anchor``.
    """
    n = whole_number(players, "players", low=0)
    w = np.zeros((n, n))
    units: dict[tuple[int, int], UnitSums] = {}
    for (i, j), sums in pairings.items():
        if not (0 <= i < n and 0 <= j < n) or i == j:
            raise ValueError(f"pairing {(i, j)!r}: must be two different players from 0 to {n - 1}")
        if not 0.0 <= sums.x <= sums.g:
            raise ValueError(f"pairing {(i, j)!r}: score {sums.x!r} outside 0..{sums.g!r}")
        if i > j:
            i, j, sums = j, i, _complement(sums)
        units[(i, j)] = units.get((i, j), UnitSums()) + sums
        w[i, j] += sums.x
        w[j, i] += sums.g - sums.x
    w, games, played, prior, active = _prepare(w, prior_draws)
    if n < 2 or not active.any():
        return Ratings(tuple(0.0 for _ in range(n)), tuple((0.0, 0.0) for _ in range(n)), prior,
                       tuple(tuple(0.0 for _ in range(n)) for _ in range(n)), None)
    r, p, info = _newton(w, games, active, tol, max_iter)
    meat = np.zeros((n, n))
    for (i, j), sums in units.items():
        if prior:  # the virtual draws are units as well
            sums = sums + UnitSums.of_unit(0.5 * prior, prior)
        s = _C * _C * sums.spread(float(p[i, j]))
        meat[i, i] += s
        meat[j, j] += s
        meat[i, j] -= s
        meat[j, i] -= s
    bread = np.linalg.pinv(info)
    return _ratings(r, bread @ meat @ bread, active, prior, anchor)


def _complement(sums: UnitSums) -> UnitSums:
    """The same units from the other player's side: each score ``x`` becomes ``g - x``."""
    return UnitSums(sums.n, sums.g - sums.x, sums.g, sums.gg - 2.0 * sums.xg + sums.xx, sums.gg, sums.gg - sums.xg)
