"""Dice pairs as the unit of evidence: the pentanomial distribution and per-pairing statistics.

With paired dice (``paired_dice = true``, see :mod:`~bgfast.tournament.schedule`) the two
matches of a pairing that share a ``dice_index`` replay the same dice with the seats
swapped.  Their results are not independent: good dice for seat 0 help each player once,
so a pair's two results pull opposite ways and the pair's mean has less noise than two
independent matches.  The honest sample is the *unit*: a dice pair, or a single match
when the dice are not paired.  This module counts results unit by unit:

- :class:`Pentanomial`: units by a player's mean score in them, on fastchess's five-point
  grid 0, 1/4, 1/2, 3/4, 1 (pairs LL, LD, WL or DD, WD, WW).  Backgammon has no draws,
  so a pair scores 0, 1/2 or 1 (0, 1 or 2 match wins out of 2) and a single match 0 or 1;
  the 1/4 and 3/4 bins stay empty.  Its :meth:`Pentanomial.elo` is fastchess's
  pentanomial Elo, interval and LOS.
- :class:`PairingStats`: one pairing's results in all three forms (match by match, match
  wins unit by unit, net points unit by unit), with the Elo difference, its interval, LOS,
  and ppg with the paired and the independent standard errors.
- :func:`unit_wins`: a player's wins unit by unit from match rows in match-index order
  (what the pair-by-pair SPRT reads, see :meth:`~bgfast.tournament.sprt.Sprt.sequential`).
- :func:`ppg_against`: one bot's points per game against another over dice pairs of money
  games, played here without a results file: the figure a tournament of the two reports
  (its ratio estimate over pairs is, with one game a match, the mean over pairs of
  :func:`bgfast.rollout.stats.estimate_paired`, the estimator the training's learning
  curve uses too).

>>> p = Pentanomial.from_wins([2, 1, 1, 0, 2, 1])   # six dice pairs: won both, split, ...
>>> p.counts, p.units, p.matches, p.score
((1, 0, 3, 0, 2), 6, 12, 0.5833333333333334)
>>> e = p.elo()
>>> round(e.elo, 1), round(e.lo, 1), round(e.hi, 1), round(e.los, 3)
(58.5, -140.3, 312.8, 0.724)
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from bgfast.game import MatchPlayer
from bgfast.match import Rules
from bgfast.rollout.stats import estimate_paired
from bgfast.tournament.ratings import RATINGS, EloInterval, elo_from_score, elo_interval
from bgfast.tournament.stats import Stats, UnitSums

__all__ = [
    "MIN_SAMPLES_FOR_ERROR",
    "PENTANOMIAL_SCORES",
    "PairingStats",
    "Pentanomial",
    "UnitGroup",
    "pairing_stats",
    "ppg_against",
    "too_few_for_error",
    "unit_wins",
]

PENTANOMIAL_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)
"""A unit's mean score per match in each bin of a :class:`Pentanomial`."""

MIN_SAMPLES_FOR_ERROR = 5
"""The fewest samples (dice pairs, or matches for the independent figures) a standard
error, an interval or a LOS is given from; with fewer the report says so (NaN here, ``n/a``
in the text, null in JSON) instead of a number.  The spread of two or three samples is
hardly known: two dice pairs that each split 1-1 have none, and would claim a standard
error of 0 and an Elo interval of [+0.0, +0.0]; from five on, the standard error is
within about a third of its true value (its relative error is ``1 / sqrt(2 (n - 1))``)."""


def too_few_for_error(samples: int) -> bool:
    """Whether ``samples`` units are too few for a standard error (:data:`MIN_SAMPLES_FOR_ERROR`).

    >>> too_few_for_error(2), too_few_for_error(5)
    (True, False)
    """
    return samples < MIN_SAMPLES_FOR_ERROR


@dataclass(frozen=True)
class Pentanomial:
    """How many units (dice pairs, or single matches) a player scored 0, 1/4, 1/2, 3/4, 1 in,
    as a mean per match: fastchess's pentanomial counts ``(LL, LD, WL + DD, WD, WW)``.

    The statistics follow fastchess (``elo_pentanomial.cpp``): the score is the mean
    of the units' scores, ``s = sum_k c_k a_k / N`` (``a_k`` the bin's score, ``N``
    units); the variance is that of a unit's score, ``v = sum_k c_k (a_k - s)**2 / N``;
    the standard error of ``s`` is ``sqrt(v / N)``.  A unit of one match makes this
    the usual trinomial (W/D/L) estimate.

    >>> (~Pentanomial((3, 0, 5, 0, 2))).counts
    (2, 0, 5, 0, 3)
    >>> Pentanomial.from_wins([1, 0, 1], matches_per_unit=1).counts  # single matches
    (1, 0, 0, 0, 2)
    """

    counts: tuple[int, int, int, int, int] = (0, 0, 0, 0, 0)
    """Units in each bin, lowest score first (see :data:`PENTANOMIAL_SCORES`)."""
    matches_per_unit: int = 2
    """2 for dice pairs, 1 for single matches (dice not paired)."""

    def __post_init__(self) -> None:
        if len(self.counts) != 5 or any(isinstance(c, bool) or int(c) != c or c < 0 for c in self.counts):
            raise ValueError(f"a pentanomial is five non-negative counts, got {self.counts!r}")
        if self.matches_per_unit not in (1, 2):
            raise ValueError(f"matches_per_unit must be 1 or 2, got {self.matches_per_unit!r}")

    @classmethod
    def from_wins(cls, wins: Iterable[int], *, matches_per_unit: int = 2) -> Pentanomial:
        """Count units by the player's match wins in each (0..``matches_per_unit``).

        :raises ValueError: a win count outside 0..``matches_per_unit``.
        """
        counts = [0] * 5
        step = 4 // matches_per_unit if matches_per_unit in (1, 2) else 0
        for w in wins:
            if not 0 <= w <= matches_per_unit or int(w) != w:
                raise ValueError(f"wins in a unit of {matches_per_unit} matches must be 0..{matches_per_unit}, "
                                 f"got {w!r}")
            counts[int(w) * step] += 1
        return cls((counts[0], counts[1], counts[2], counts[3], counts[4]), matches_per_unit)

    def __add__(self, other: Pentanomial) -> Pentanomial:
        if not isinstance(other, Pentanomial):
            return NotImplemented
        if other.units and self.units and other.matches_per_unit != self.matches_per_unit:
            raise ValueError("cannot add counts of dice pairs to counts of single matches")
        per = self.matches_per_unit if self.units else other.matches_per_unit
        a, b = self.counts, other.counts
        return Pentanomial((a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3], a[4] + b[4]), per)

    def __invert__(self) -> Pentanomial:
        """The same units from the opponent's side."""
        c = self.counts
        return Pentanomial((c[4], c[3], c[2], c[1], c[0]), self.matches_per_unit)

    @property
    def units(self) -> int:
        """Units counted (dice pairs, or matches)."""
        return sum(self.counts)

    @property
    def matches(self) -> int:
        """Matches counted."""
        return self.units * self.matches_per_unit

    @property
    def paired(self) -> bool:
        """True for dice pairs, False for single matches."""
        return self.matches_per_unit == 2

    @property
    def wins(self) -> float:
        """Match wins in all (a unit scoring ``a`` has ``a x matches_per_unit`` wins)."""
        return sum(c * a for c, a in zip(self.counts, PENTANOMIAL_SCORES)) * self.matches_per_unit

    @property
    def score(self) -> float:
        """The mean score per match, ``s`` (0.5 with no units)."""
        n = self.units
        return sum(c * a for c, a in zip(self.counts, PENTANOMIAL_SCORES)) / n if n else 0.5

    @property
    def variance(self) -> float:
        """The variance of one unit's mean score, ``v`` (plug-in, divided by ``N``)."""
        n = self.units
        if not n:
            return 0.0
        s = self.score
        return sum(c * (a - s) ** 2 for c, a in zip(self.counts, PENTANOMIAL_SCORES)) / n

    @property
    def score_se(self) -> float:
        """The standard error of :attr:`score`, ``sqrt(v / N)`` (infinite with no units)."""
        n = self.units
        return math.sqrt(self.variance / n) if n else math.inf

    def elo(self) -> EloInterval:
        """The Elo difference, its 95% interval and LOS (see :func:`~bgfast.tournament.ratings.elo_interval`).

        When every unit scored 0 (or every unit 1) the score's standard error is 0 and the
        estimate infinite; then the finite bound is the exact one-sided 97.5% bound of the
        share of units that are not all losses (Clopper-Pearson with no such unit):
        ``score <= 1 - 0.025 ** (1 / N)``, about ``3.7 / N``.

        >>> e = Pentanomial((34, 54, 31 + 32, 64, 75)).elo()   # fastchess elo_test.cpp "EloPentanomial 1"
        >>> round(e.elo, 2), round((e.hi - e.lo) / 2, 2)
        (55.58, 27.65)
        >>> e = Pentanomial((100, 0, 0, 0, 0)).elo()
        >>> e.elo, e.lo, round(e.hi, 1)
        (-inf, -inf, -570.0)
        """
        e = elo_interval(self.score, self.score_se)
        n = self.units
        if n and self.score in (0.0, 1.0):
            bound = elo_from_score(1.0 - 0.025 ** (1.0 / n))
            lo, hi = (-math.inf, bound) if self.score == 0.0 else (-bound, math.inf)
            return EloInterval(e.elo, lo, hi, e.los, e.score, e.score_se)
        return e

    def sums(self) -> UnitSums:
        """The units as :class:`~bgfast.tournament.stats.UnitSums` of (match wins, matches),
        the form :func:`~bgfast.tournament.ratings.fit_ratings` takes."""
        m = self.matches_per_unit
        out = UnitSums()
        for c, a in zip(self.counts, PENTANOMIAL_SCORES):
            if c:
                x = a * m
                out = out + UnitSums(c, c * x, c * m, c * x * x, c * m * m, c * x * m)
        return out

    def text(self) -> str:
        """The counts as ``0: LL  1: WL  2: WW`` (pairs, by match wins) or ``L W`` (single matches).

        >>> Pentanomial((3, 0, 5, 0, 2)).text()
        '0-2: 3  1-1: 5  2-0: 2'
        """
        c = self.counts
        if self.paired:
            return f"0-2: {c[0]}  1-1: {c[2]}  2-0: {c[4]}" + (
                f"  (quarter scores: {c[1]}, {c[3]})" if c[1] or c[3] else "")
        return f"lost: {c[0]}  won: {c[4]}"


@dataclass(frozen=True)
class PairingStats:
    """Two players' results against each other, from the first player's (``a``'s) side:
    match by match, and unit by unit (dice pairs, or single matches when the dice are not paired).

    ``matches`` gives the independent figures, ``wins`` the match wins unit by unit,
    ``net`` the net points over games unit by unit (``x`` = a's net points in the unit,
    ``g`` = games), ``points`` the points scores over games unit by unit (``x`` = the sum
    of :func:`~bgfast.tournament.ratings.points_score` of the unit's games; money games).
    """

    matches: Stats
    wins: Pentanomial
    net: UnitSums
    points: UnitSums = UnitSums()

    @property
    def paired(self) -> bool:
        """The units are dice pairs (else single matches: every figure is the independent one)."""
        return self.wins.paired and self.wins.units > 0

    @property
    def too_few_units(self) -> bool:
        """Fewer units than :data:`MIN_SAMPLES_FOR_ERROR`: no standard error, interval or LOS
        from them (NaN), only the estimates."""
        return too_few_for_error(self.wins.units)

    def elo(self, rating: str = "wins") -> EloInterval:
        """a's Elo advantage over b with its 95% interval and LOS, units as the samples;
        with :attr:`too_few_units`, the interval and LOS are NaN (the estimate stays).

        :param rating: ``"wins"`` (match wins, :meth:`Pentanomial.elo`) or ``"points"``
            (points scores of money games: ``s = sum x / sum g`` and its ratio standard
            error over units, ddof 0 as fastchess's pentanomial variance).
        :raises ValueError: another ``rating``.
        """
        if rating == "wins":
            e, units = self.wins.elo(), self.wins.units
        elif rating == "points":
            units = int(self.points.n)
            e = elo_interval(0.5, math.inf) if not units else elo_interval(self.points.ratio,
                                                                            self.points.ratio_se(ddof=0))
        else:
            raise ValueError(f"rating must be one of {', '.join(RATINGS)}, got {rating!r}")
        if too_few_for_error(units):
            return EloInterval(e.elo, math.nan, math.nan, math.nan, e.score, math.nan)
        return e

    @property
    def ppg(self) -> float:
        """a's net points per game."""
        return self.matches.ppg

    @property
    def ppg_se_paired(self) -> float:
        """The standard error of :attr:`ppg` with units as the samples (delta method,
        :func:`~bgfast.tournament.stats.ratio_se`, ddof 1): the honest one for paired dice.
        Without paired dice the units are matches and this equals :attr:`ppg_se_independent`.
        NaN from fewer units than :data:`MIN_SAMPLES_FOR_ERROR`."""
        return math.nan if too_few_for_error(int(self.net.n)) else self.net.ratio_se()

    @property
    def ppg_se_independent(self) -> float:
        """The standard error of :attr:`ppg` taking every match as independent (:attr:`Stats.ppg_se`);
        NaN from fewer matches than :data:`MIN_SAMPLES_FOR_ERROR`."""
        return math.nan if too_few_for_error(self.matches.matches) else self.matches.ppg_se

    @property
    def se_ratio(self) -> float:
        """``ppg_se_paired / ppg_se_independent`` (NaN when the latter is 0): below 1 when
        the pairing of dice helps; ``1 / se_ratio**2`` is how many times more matches
        independent dice would need for the same error."""
        ind = self.ppg_se_independent
        return self.ppg_se_paired / ind if ind else math.nan

    def __invert__(self) -> PairingStats:
        """The same results from b's side."""
        net = self.net
        flipped_net = UnitSums(net.n, -net.x, net.g, net.xx, net.gg, -net.xg)
        pts = self.points
        flipped_points = UnitSums(pts.n, pts.g - pts.x, pts.g, pts.gg - 2.0 * pts.xg + pts.xx, pts.gg,
                                  pts.gg - pts.xg)
        return PairingStats(~self.matches, ~self.wins, flipped_net, flipped_points)


class UnitGroup(NamedTuple):
    """Sums over the units of one pairing that have the same size and the same win count
    for ``player_a``: the rows :func:`pairing_stats` reads (and a results store aggregates).

    ``net`` and ``score`` are from ``player_a``'s side; ``score`` sums
    :func:`~bgfast.tournament.ratings.points_score` over the units' games (0 if not money).
    """

    player_a: int
    player_b: int
    matches_per_unit: int
    a_wins: int
    """Matches ``player_a`` won in each of these units."""
    units: int
    net: int
    games: int
    net_sq: int
    games_sq: int
    net_games: int
    score: float = 0.0
    score_sq: float = 0.0
    score_games: float = 0.0


def pairing_stats(groups: Iterable[UnitGroup], matches: dict[tuple[int, int], Stats]) -> dict[tuple[int, int], PairingStats]:
    """Per pairing ``(a, b)`` (as keyed in ``matches``, a's side), its :class:`PairingStats`
    from unit groups and the match-by-match :class:`~bgfast.tournament.stats.Stats`.

    A group keyed ``(b, a)`` is turned to a's side.

    >>> from bgfast.tournament.stats import Stats
    >>> groups = [UnitGroup(0, 1, 2, 2, 3, 6, 6, 12, 12, 12), UnitGroup(0, 1, 2, 1, 5, 0, 10, 0, 20, 0)]
    >>> s = Stats(matches=16, wins=11, games=16, points=6, points_sq=16, games_sq=16, points_games=6)
    >>> stats = pairing_stats(groups, {(0, 1): s})[(0, 1)]
    >>> stats.wins.counts, stats.net.n, round(stats.ppg_se_paired, 4), round(stats.ppg_se_independent, 4)
    ((0, 0, 5, 0, 3), 8, 0.183, 0.2394)

    :raises ValueError: a group of a pairing not in ``matches``.
    """
    wins: dict[tuple[int, int], Pentanomial] = {}
    net: dict[tuple[int, int], UnitSums] = {}
    points: dict[tuple[int, int], UnitSums] = {}
    for g in groups:
        key, flip = (g.player_a, g.player_b), False
        if key not in matches:
            key, flip = (g.player_b, g.player_a), True
            if key not in matches:
                raise ValueError(f"units of players {g.player_a} and {g.player_b}, who have no match stats")
        m, k = g.matches_per_unit, g.units
        a_wins = m - g.a_wins if flip else g.a_wins
        counts = Pentanomial.from_wins([a_wins], matches_per_unit=m).counts
        wins[key] = wins.get(key, Pentanomial(matches_per_unit=m)) + Pentanomial(
            tuple(c * k for c in counts), m)  # type: ignore[arg-type]
        sign = -1 if flip else 1
        net[key] = net.get(key, UnitSums()) + UnitSums(k, sign * g.net, g.games, g.net_sq, g.games_sq,
                                                       sign * g.net_games)
        if flip:  # b's score in a unit is (games - a's score)
            pts = UnitSums(k, g.games - g.score, g.games, g.games_sq - 2.0 * g.score_games + g.score_sq,
                           g.games_sq, g.games_sq - g.score_games)
        else:
            pts = UnitSums(k, g.score, g.games, g.score_sq, g.games_sq, g.score_games)
        points[key] = points.get(key, UnitSums()) + pts
    return {key: PairingStats(s, wins.get(key, Pentanomial()), net.get(key, UnitSums()),
                              points.get(key, UnitSums()))
            for key, s in matches.items()}


def unit_wins(rows: Iterable[Sequence[int]], player: int, *, paired: bool) -> Iterator[int]:
    """``player``'s match wins unit by unit, from match rows in match-index order.

    Each row is ``(dice_index, seat0, seat1, winner)`` (the players as ids, ``winner``
    the seat, 0 or 1).  With ``paired`` the two matches of a unit share a dice index and
    are consecutive; each yielded number is 0, 1 or 2.  Without, every match is a unit
    (0 or 1).  A pair whose second match is not in ``rows`` is not yielded.

    >>> rows = [(0, 7, 9, 0), (0, 9, 7, 0), (1, 7, 9, 1), (1, 9, 7, 0), (2, 7, 9, 0)]
    >>> list(unit_wins(rows, 7, paired=True))
    [1, 0]
    >>> list(unit_wins(rows, 7, paired=False))
    [1, 0, 0, 0, 1]

    :raises ValueError: with ``paired``, a dice index that is not the previous row's and
        leaves that row's pair incomplete.
    """
    pending: tuple[int, int] | None = None  # (dice index, wins) of a pair's first match
    for dice, seat0, seat1, winner in rows:
        won = int((seat1 if winner else seat0) == player)
        if not paired:
            yield won
        elif pending is None:
            pending = (dice, won)
        elif pending[0] == dice:
            yield pending[1] + won
            pending = None
        else:
            raise ValueError(f"dice pair {pending[0]} is incomplete: the next match has dice index {dice}")


def ppg_against(player: object, opponent: object, *, pairs: int, seed: int, rules: Rules | None = None,
                first: int = 0) -> tuple[float, float]:
    """``player``'s points per game against ``opponent`` (two bots) in money games over dice
    pairs, and its standard error (:func:`bgfast.rollout.stats.estimate_paired`).

    Pair ``i`` plays the dice of game ``first + i`` of run ``seed`` twice
    (:meth:`bgfast.game.MatchPlayer.play`), ``player`` in seat 0 and then in seat 1, as a
    money tournament of the two with paired dice does; ``rules`` default to no Jacoby rule
    (gammons count from the first game).  Build the bots with ``cube="never"`` for cubeless
    play.  From the command line: ``bgfast tournament tournaments/vs_pubeval.toml``.

    >>> from bgfast.bots import get_bot
    >>> ppg, se = ppg_against(get_bot("pubeval", cube="never"), get_bot("random"), pairs=50, seed=1)
    >>> ppg > 4 * se > 0
    True

    :returns: ``(ppg, standard error)``; the error is NaN with one pair, and ``(0.0, nan)`` with none.
    :raises InvalidSpecError: a seed that is not a non-negative integer, or game indices
        beyond the dice stream's 64-bit counter (:meth:`~bgfast.game.MatchPlayer.play`).
    """
    rules = Rules(jacoby=False) if rules is None else rules
    seat0, seat1 = MatchPlayer(player, opponent, rules=rules), MatchPlayer(opponent, player, rules=rules)
    as_first, as_second = [], []
    for i in range(first, first + pairs):
        a, b = seat0.play(seed, i), seat1.play(seed, i)
        as_first.append(a.score0 - a.score1)
        as_second.append(b.score1 - b.score0)
    return estimate_paired(as_first, as_second)
