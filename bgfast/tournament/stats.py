"""Match statistics from one player's point of view: a pure, additive accumulator.

:class:`Stats` holds sums (matches, wins, games, net points and the products the
standard error needs), so stats of separate chunks, seats or runs add up with
``+``, and ``~stats`` gives the opponent's view.

>>> a = Stats.of_match(score=7, opponent_score=3, games=5, won=True)
>>> b = Stats.of_match(score=5, opponent_score=7, games=6, won=False)
>>> total = a + b
>>> total.matches, total.wins, total.losses, total.ppg
(2, 1, 1, 0.18181818181818182)
>>> (~total).ppg
-0.18181818181818182
"""
from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, fields

__all__ = ["Stats", "UnitSums", "ratio_se", "stratified_ratio_se"]


def ratio_se(n: int, x: float, g: float, xx: float, gg: float, xg: float, *, ddof: int = 1) -> float:
    """The standard error of the ratio estimate ``r = X / G`` from ``n`` independent units.

    Each unit ``i`` (a match, or a dice pair) contributes a numerator ``x_i`` and a
    denominator ``g_i``; the arguments are the sums ``X = sum x_i``, ``G = sum g_i``,
    ``sum x_i**2``, ``sum g_i**2`` and ``sum x_i g_i``.  By the delta method
    (Cochran, *Sampling Techniques*, 3rd ed., section 6.4)::

        se(r)**2 = n / (n - ddof) * sum((x_i - r g_i)**2) / G**2

    ``ddof = 1`` is the usual sample estimate; ``ddof = 0`` the plug-in one that
    fastchess uses for its pentanomial Elo (``variance / pairs``).  With ``g_i = 1``
    it is the standard error of a mean.  Returns 0.0 when ``n <= ddof`` or ``G == 0``.

    >>> round(ratio_se(2, -1, 2, 5, 2, -1), 6)  # units +1 and -2 (one game each): sd 2.1213 / sqrt(2)
    1.5
    """
    if n <= ddof or g == 0:
        return 0.0
    return math.sqrt(_spread(xx, gg, xg, x / g) * n / (n - ddof)) / abs(g)


def stratified_ratio_se(strata: Iterable[UnitSums]) -> float:
    """The standard error of the combined ratio ``r = sum X_h / sum G_h`` over strata sampled
    separately (each stratum's number of units fixed by the design, e.g. one player's
    pairings in a round robin).

    Cochran, *Sampling Techniques*, 3rd ed., section 6.11 (the combined ratio estimate):
    with ``z_u = x_u - r g_u`` for the units ``u`` of stratum ``h``::

        se(r)**2 = sum_h n_h / (n_h - 1) * (sum_u z_u**2 - (sum_u z_u)**2 / n_h) / G**2

    Only the spread within each stratum counts; the differences between strata (a strong
    player's big wins against a weak one, its losses to a strong one) are not noise when
    every pairing plays a fixed number of matches.  Strata with one unit add nothing.

    >>> a = UnitSums.of_unit(4, 1) + UnitSums.of_unit(6, 1)   # one stratum scores about 5
    >>> b = UnitSums.of_unit(-1, 1) + UnitSums.of_unit(1, 1)  # the other about 0
    >>> round(stratified_ratio_se([a, b]), 4), round((a + b).ratio_se(), 4)
    (0.7071, 1.5546)
    """
    strata = [h for h in strata if h.n]
    x = sum(h.x for h in strata)
    g = sum(h.g for h in strata)
    if not g:
        return 0.0
    r = x / g
    total = 0.0
    for h in strata:
        if h.n < 2:
            continue
        z = h.x - r * h.g
        total += h.n / (h.n - 1) * max(0.0, h.spread(r) - z * z / h.n)
    return math.sqrt(total) / abs(g)


def _spread(xx: float, gg: float, xg: float, p: float) -> float:
    """``sum (x_i - p g_i)**2`` from the sums of squares and products."""
    return max(0.0, xx - 2.0 * p * xg + p * p * gg)


@dataclass(frozen=True)
class Stats:
    """Sums over matches, from one player's view.

    ``points`` is the net score (own points minus the opponent's) summed over
    matches; with ``games`` it gives points per game.  The squared and product
    sums make the standard error of ppg computable without keeping the matches.
    """

    matches: int = 0
    wins: int = 0
    games: int = 0
    points: int = 0
    """Net points: sum over matches of (own score - opponent's score)."""
    points_sq: int = 0
    """Sum of the squared net points of each match."""
    games_sq: int = 0
    """Sum of the squared game counts of each match."""
    points_games: int = 0
    """Sum over matches of net points x games."""
    gammons: int = 0
    """Gammons won (not backgammons); :ivar gammons_lost: gammons lost."""
    gammons_lost: int = 0
    backgammons: int = 0
    backgammons_lost: int = 0
    doubles: int = 0
    """Cube actions (doubles offered, by either side) in these matches."""

    @classmethod
    def of_match(cls, *, score: int, opponent_score: int, games: int, won: bool, gammons: int = 0,
                 gammons_lost: int = 0, backgammons: int = 0, backgammons_lost: int = 0,
                 doubles: int = 0) -> Stats:
        """The stats of one match, from the player whose ``score`` is given first."""
        net = score - opponent_score
        return cls(1, int(won), games, net, net * net, games * games, net * games,
                   gammons, gammons_lost, backgammons, backgammons_lost, doubles)

    def __add__(self, other: Stats) -> Stats:
        if not isinstance(other, Stats):
            return NotImplemented
        return Stats(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(self)))

    def __invert__(self) -> Stats:
        """The same matches from the opponent's view."""
        return Stats(self.matches, self.losses, self.games, -self.points, self.points_sq, self.games_sq,
                     -self.points_games, self.gammons_lost, self.gammons, self.backgammons_lost,
                     self.backgammons, self.doubles)

    @property
    def losses(self) -> int:
        """Matches lost (backgammon has no draws)."""
        return self.matches - self.wins

    @property
    def win_rate(self) -> float:
        """Share of matches won (0.0 with no matches)."""
        return self.wins / self.matches if self.matches else 0.0

    @property
    def ppg(self) -> float:
        """Points per game: net points / games played (0.0 with no games)."""
        return self.points / self.games if self.games else 0.0

    @property
    def ppg_se(self) -> float:
        """Standard error of :attr:`ppg`, treating matches as independent samples.

        ppg is a ratio of two sums, so its variance comes from the delta method:
        ``n / (n - 1) * sum((x_i - ppg * g_i)**2) / G**2`` for net points ``x_i``
        and games ``g_i`` of match ``i`` and ``G`` games in all.  With one game
        a match (money play) this is the usual ``s / sqrt(n)``.  Paired dice make
        the true error smaller; this figure does not take that credit.

        >>> s = Stats.of_match(score=1, opponent_score=0, games=1, won=True) + \\
        ...     Stats.of_match(score=0, opponent_score=2, games=1, won=False)
        >>> round(s.ppg_se, 6)  # values +1 and -2: s = 2.1213, / sqrt(2)
        1.5
        """
        return self.net_units().ratio_se()

    def net_units(self) -> UnitSums:
        """The net points over games with each match a unit (see :class:`UnitSums`)."""
        return UnitSums(self.matches, self.points, self.games, self.points_sq, self.games_sq, self.points_games)


@dataclass(frozen=True)
class UnitSums:
    """Sums over independent units of a numerator ``x`` and a denominator ``g``: the
    sufficient statistics of the ratio ``sum x / sum g`` and of its standard error.

    A *unit* is the smallest piece of a tournament whose results are independent of
    the others: a dice pair (the two matches that replay one dice stream with the
    seats swapped) with paired dice, else a single match.  ``x`` is what is being
    averaged (net points, match wins, a score) and ``g`` what it is averaged over
    (games, matches) in that unit.  Sums add with ``+``.

    >>> pairs = UnitSums.of_unit(3, 2) + UnitSums.of_unit(-1, 2) + UnitSums.of_unit(0, 3)
    >>> pairs.n, pairs.ratio
    (3, 0.2857142857142857)
    """

    n: int = 0
    """Units."""
    x: float = 0.0
    """Sum of the numerators."""
    g: float = 0.0
    """Sum of the denominators."""
    xx: float = 0.0
    """Sum of the squared numerators."""
    gg: float = 0.0
    """Sum of the squared denominators."""
    xg: float = 0.0
    """Sum of numerator x denominator."""

    @classmethod
    def of_unit(cls, x: float, g: float) -> UnitSums:
        """The sums of one unit."""
        return cls(1, x, g, x * x, g * g, x * g)

    def __add__(self, other: UnitSums) -> UnitSums:
        if not isinstance(other, UnitSums):
            return NotImplemented
        return UnitSums(self.n + other.n, self.x + other.x, self.g + other.g, self.xx + other.xx,
                        self.gg + other.gg, self.xg + other.xg)

    @property
    def ratio(self) -> float:
        """``sum x / sum g`` (0.0 when ``sum g`` is 0)."""
        return self.x / self.g if self.g else 0.0

    def ratio_se(self, *, ddof: int = 1) -> float:
        """The standard error of :attr:`ratio`, units as the samples (see :func:`ratio_se`)."""
        return ratio_se(self.n, self.x, self.g, self.xx, self.gg, self.xg, ddof=ddof)

    def spread(self, p: float) -> float:
        """``sum (x_i - p g_i)**2``: the units' squared residuals about the rate ``p``
        (the "meat" of a cluster-robust variance, see :func:`~bgfast.tournament.ratings.fit_ratings`)."""
        return _spread(self.xx, self.gg, self.xg, p)
