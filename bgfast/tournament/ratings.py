"""Elo ratings: from a score, from wins and losses, from dice pairs, and fitted over a whole tournament.

All figures use the logistic Elo scale: a player ``d`` Elo stronger is expected to
score ``1 / (1 + 10 ** (-d / 400))`` per match.

>>> round(elo_from_score(0.75), 2)
190.85
>>> round(expected_score(100.0), 4)
0.6401
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

__all__ = [
    "Z95",
    "EloInterval",
    "Ratings",
    "elo_from_pairs",
    "elo_from_results",
    "elo_from_score",
    "expected_score",
    "fit_elo",
]

Z95 = 1.959963984540054
"""The two-sided 95% quantile of the normal distribution."""

_C = math.log(10.0) / 400.0


def expected_score(elo: float) -> float:
    """The expected score per match of a player ``elo`` points stronger."""
    return float(1.0 / (1.0 + 10.0 ** (-elo / 400.0)))


def elo_from_score(score: float) -> float:
    """The Elo difference that gives an expected ``score`` (0 < score < 1); infinite at 0 and 1."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


@dataclass(frozen=True)
class EloInterval:
    """An Elo difference with its 95% confidence interval."""

    elo: float
    lo: float
    hi: float


def _interval(counts: Mapping[float, float]) -> EloInterval:
    n = sum(counts.values())
    if n <= 0:
        return EloInterval(0.0, -math.inf, math.inf)
    mean = sum(s * k for s, k in counts.items()) / n
    var = sum(k * (s - mean) ** 2 for s, k in counts.items()) / n
    se = math.sqrt(var / n)
    return EloInterval(elo_from_score(mean), elo_from_score(mean - Z95 * se), elo_from_score(mean + Z95 * se))


def elo_from_results(wins: int, losses: int, draws: int = 0) -> EloInterval:
    """Elo difference from match results, with a 95% interval from the normal
    approximation of the mean score, mapped to Elo (as cutechess and fastchess report it).

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
    """Fitted ratings, anchored so that their mean is 0."""

    elo: tuple[float, ...]
    ci95: tuple[tuple[float, float], ...]
    """Each player's 95% interval: ``elo ± 1.96 x`` the standard error from the Fisher information."""
    prior_draws: float
    """Virtual draws added to each pairing that played (0 when the plain fit exists)."""


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


def fit_elo(wins: Sequence[Sequence[float]], *, prior_draws: float | None = None,
            tol: float = 1e-10, max_iter: int = 200) -> Ratings:
    """Maximum-likelihood Bradley-Terry (logistic Elo) ratings from a win matrix.

    ``wins[i][j]`` is how many matches player ``i`` won against player ``j``.  The
    ratings maximise ``sum w_ij log P(i beats j)`` with ``P = 1 / (1 + 10**((r_j - r_i) / 400))``
    (Newton's method), anchored so their mean is 0.  The 95% intervals are
    ``r_i ± 1.96 sqrt(V_ii)`` where ``V`` is the pseudo-inverse of the Fisher
    information at the fit (the covariance under the mean-0 anchor); no bootstrap.

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
    """
    w = np.asarray(wins, dtype=float)
    n = len(w)
    if w.shape != (n, n) or (w < 0).any():
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
    active = played.any(axis=1)
    r = np.zeros(n)
    if n < 2 or not active.any():
        return Ratings(tuple(r), tuple((0.0, 0.0) for _ in range(n)), float(prior_draws))
    score = w.sum(axis=1)

    def information(r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        p = 1.0 / (1.0 + np.exp(-_C * (r[:, None] - r[None, :])))
        weight = games * p * (1.0 - p)
        info = _C * _C * (np.diag(weight.sum(axis=1)) - weight)
        grad = _C * (score - (games * p).sum(axis=1))
        return info, grad

    for _ in range(max_iter):
        info, grad = information(r)
        step = np.linalg.pinv(info) @ grad
        r = r + step
        r -= r[active].mean()
        r[~active] = 0.0
        if np.abs(step).max() < tol:
            break
    info, _ = information(r)
    cov = np.linalg.pinv(info)
    se = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    ci = tuple((float(r[i] - Z95 * se[i]), float(r[i] + Z95 * se[i])) if active[i] else (0.0, 0.0)
               for i in range(n))
    return Ratings(tuple(float(x) for x in r), ci, float(prior_draws))
