"""Sequential probability ratio test for a two-player run (the GSPRT of fishtest and fastchess).

H0: the tested player's logistic Elo advantage is ``elo0``; H1: it is ``elo1``.  The
samples are *units*: dice pairs with paired dice (a pair scores 0, 1/2 or 1 per match),
else single matches (0 or 1), counted in a :class:`~bgfast.tournament.pairs.Pentanomial`.
The log-likelihood ratio is the generalised one of Michel Van den Bergh ("Comments on
Normalized Elo", section 1; fastchess ``sprt.cpp``, model ``logistic``)::

    LLR = N * sum_k q_k log(p1_k / p0_k)

where ``q`` is the observed distribution of unit scores over the grid ``a = (0, 1/4,
1/2, 3/4, 1)`` and ``p_s`` the distribution closest to ``q`` (maximum likelihood) whose
mean is the expected score ``s`` at ``elo0`` or ``elo1``: ``p_k = q_k / (1 + theta (a_k - s))``,
``theta`` the root of ``sum_k q_k (a_k - s) / (1 + theta (a_k - s)) = 0``.  As fastchess
does, an empty bin counts as 0.001 units, so the LLR is finite from the first unit on.
The test accepts H1 when the LLR reaches ``log((1 - beta) / alpha)`` and H0 when it
falls to ``log(beta / (1 - alpha))``.

:meth:`Sprt.sequential` decides unit by unit: at the first unit, in match-index order,
whose LLR crosses a bound, so the verdict does not depend on how many workers played or
in which order chunks finished; the LLR at that unit is past the bound by at most one
unit's step (the *overshoot*, stated in the verdict).

On luck-adjusted results (``[sprt] on = "luck_adjusted"``, a judged run) a unit's score
is no longer on that grid: it is the mean over the unit's matches of the tested player's
luck-adjusted score (:func:`~bgfast.tournament.judged.luck_adjusted_scores`: the match
score, or in money play ``0.5 + ppg / 6``, minus its luck plus its opponent's).  The test
is then the GSPRT of a normal model with the variance left free (:func:`llr_normal`,
:meth:`Sprt.sequential_scores`): with ``N`` units of mean ``m`` and ``r_s`` the mean
squared distance of the unit scores from ``s``::

    LLR = N / 2 * log(r_s0 / r_s1),    r_s = sum_i (x_i - s)**2 / N

(the generalised likelihood ratio when each hypothesis fits its own variance; Michel Van
den Bergh, fishtest ``LLRcalc.py`` ``LLR_alt``, whose second-order form
``N (s1 - s0) (2 m - s0 - s1) / (2 var)`` is his "GSPRT approximation", ``LLR_alt2``).
The LLR rests on the units' spread, so it decides from
:data:`~bgfast.tournament.pairs.MIN_SAMPLES_FOR_ERROR` units on.

>>> test = Sprt(elo0=0, elo1=3, alpha=0.05, beta=0.05)
>>> round(test.llr({1.0: 4307, 0.5: 8620, 0.0: 4063}), 2)   # published example: LLR 2.99
2.99
>>> test.status({1.0: 4307, 0.5: 8620, 0.0: 4063})
<SprtStatus.ACCEPT_H1: 'H1'>
"""
from __future__ import annotations

import enum
import itertools
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from bgfast.tournament.judged import chunks_of, unit_scores
from bgfast.tournament.pairs import MIN_SAMPLES_FOR_ERROR, PENTANOMIAL_SCORES, Pentanomial, unit_wins
from bgfast.tournament.ratings import expected_score
from bgfast.tournament.stats import Stats
from bgfast.validation import real_number

__all__ = ["SPRT_ON", "ScoreSums", "Sprt", "SprtStatus", "SprtVerdict", "llr_logistic", "llr_normal"]

SPRT_ON = ("raw", "luck_adjusted")
"""What ``[sprt] on`` may test: the match wins (``"raw"``, the default) or the judge's
luck-adjusted scores (``"luck_adjusted"``, a run with a ``[judge]``)."""

_REGULARIZE = 1e-3
"""The count an empty bin is given (fastchess ``regularize``)."""


class SprtStatus(enum.Enum):
    """Where the test stands."""

    CONTINUE = "continue"
    ACCEPT_H0 = "H0"
    """The difference is ``elo0`` (or less): the challenger is not the stronger by ``elo1``."""
    ACCEPT_H1 = "H1"
    """The difference is ``elo1`` (or more)."""


def llr_logistic(counts: np.ndarray, scores: np.ndarray, s0: float, s1: float) -> np.ndarray:
    """The generalised log-likelihood ratio of mean score ``s1`` against ``s0`` (module docstring).

    :param counts: units per bin, shape ``(..., K)`` (each row one sample; several rows are
        computed at once); empty bins are given 0.001 units.
    :param scores: the bins' scores, shape ``(K,)``, increasing, ``scores[0] < s0, s1 < scores[-1]``.
    :returns: the LLR of each row, shape ``(...)``.
    """
    c = np.where(counts > 0, counts, _REGULARIZE).astype(float)
    total = c.sum(axis=-1, keepdims=True)
    q = c / total
    log_p = []
    for s in (s0, s1):
        d = scores - s  # shape (K,)
        # f(theta) = sum q d / (1 + theta d) falls from +inf to -inf on (-1/d_max, -1/d_min)
        lo = np.full(q.shape[:-1], -1.0 / d[-1])
        hi = np.full(q.shape[:-1], -1.0 / d[0])
        for _ in range(100):
            mid = 0.5 * (lo + hi)
            f = (q * d / (1.0 + mid[..., None] * d)).sum(axis=-1)
            lo = np.where(f > 0, mid, lo)
            hi = np.where(f > 0, hi, mid)
        theta = 0.5 * (lo + hi)
        log_p.append(np.log(q) - np.log1p(theta[..., None] * d))
    return np.asarray(total[..., 0] * (q * (log_p[1] - log_p[0])).sum(axis=-1))


def llr_normal(units: np.ndarray, total: np.ndarray, squares: np.ndarray, s0: float, s1: float) -> np.ndarray:
    """The generalised log-likelihood ratio of mean unit score ``s1`` against ``s0`` under a
    normal model whose variance each hypothesis fits (module docstring): ``units / 2 *
    log(r_s0 / r_s1)``, ``r_s`` the mean squared distance of the scores from ``s`` (floored
    at 1e-12, so the LLR stays finite when every score is ``s``).

    :param units: units counted; ``total`` and ``squares``: the sums of their scores and of
        the scores squared; arrays of one shape (several samples at once), ``units`` > 0.
    :returns: the LLR of each, that shape.

    >>> round(float(llr_normal(np.array(100), np.array(55.0), np.array(34.25), 0.5, 0.55)), 3)
    3.031
    """
    n = np.asarray(units, dtype=float)
    mean, mean_sq = np.asarray(total) / n, np.asarray(squares) / n
    r0, r1 = (np.maximum(mean_sq - 2.0 * s * mean + s * s, 1e-12) for s in (s0, s1))
    return np.asarray(0.5 * n * (np.log(r0) - np.log(r1)))


@dataclass(frozen=True)
class ScoreSums:
    """The units an SPRT on luck-adjusted scores has counted: how many, and the sums of
    their scores (a unit's score: the mean adjusted score of its matches) and squares."""

    units: int = 0
    total: float = 0.0
    squares: float = 0.0
    matches_per_unit: int = 2
    """2 for dice pairs, 1 for single matches."""

    @property
    def matches(self) -> int:
        """Matches in the units counted."""
        return self.units * self.matches_per_unit

    @property
    def paired(self) -> bool:
        """True for dice pairs, False for single matches."""
        return self.matches_per_unit == 2

    @property
    def score(self) -> float:
        """The mean unit score (0.5 with no units)."""
        return self.total / self.units if self.units else 0.5


@dataclass(frozen=True)
class SprtVerdict:
    """The outcome of a sequential test over units in order."""

    status: SprtStatus
    units: int
    """Units counted: up to and including the deciding one, or all of them when undecided."""
    matches: int
    """Matches in those units (matches played after the deciding unit are not counted)."""
    llr: float
    """The LLR after the last counted unit."""
    lower: float
    upper: float
    counts: Pentanomial | ScoreSums
    """The counted units: their pentanomial counts (match wins), or the sums of their
    luck-adjusted scores."""

    @property
    def overshoot(self) -> float:
        """How far the LLR went past the bound it crossed (0 when undecided)."""
        if self.status is SprtStatus.ACCEPT_H1:
            return self.llr - self.upper
        if self.status is SprtStatus.ACCEPT_H0:
            return self.lower - self.llr
        return 0.0

    def text(self) -> str:
        """One line: the verdict, where it was reached, the LLR, the bounds and the overshoot.

        >>> v = Sprt(0, 20).sequential([2] * 60)
        >>> v.text()
        'H1 accepted after 53 dice pairs (106 matches): LLR +2.96 in [-2.94, +2.94], overshoot 0.02'
        """
        what = "dice pairs" if self.counts.paired else "matches"
        where = f"{self.units} {what}" + (f" ({self.matches} matches)" if self.counts.paired else "")
        bounds = f"LLR {self.llr:+.2f} in [{self.lower:+.2f}, {self.upper:+.2f}]"
        if self.status is SprtStatus.CONTINUE:
            return f"undecided after {where}: {bounds}"
        return f"{self.status.value} accepted after {where}: {bounds}, overshoot {self.overshoot:.2f}"


@dataclass(frozen=True)
class Sprt:
    """The test of H0: Elo difference = ``elo0`` against H1: = ``elo1`` (logistic Elo).

    :raises ValueError: ``elo1 <= elo0``, or ``alpha``/``beta`` outside (0, 0.5).
    """

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        real_number(self.elo0, "elo0")
        real_number(self.elo1, "elo1")
        if self.elo1 <= self.elo0:
            raise ValueError(f"elo1 must be greater than elo0 ({self.elo0:g}), got {self.elo1:g}")
        for name in ("alpha", "beta"):
            value = real_number(getattr(self, name), name)
            if not 0.0 < value < 0.5:
                raise ValueError(f"{name} must be between 0 and 0.5, got {value!r}")

    @property
    def lower(self) -> float:
        """The LLR at or below which H0 is accepted."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        """The LLR at or above which H1 is accepted."""
        return math.log((1.0 - self.beta) / self.alpha)

    def _status(self, llr: float) -> SprtStatus:
        if llr >= self.upper:
            return SprtStatus.ACCEPT_H1
        if llr <= self.lower:
            return SprtStatus.ACCEPT_H0
        return SprtStatus.CONTINUE

    def llr(self, scores: Pentanomial | Mapping[float, int] | Stats) -> float:
        """The log-likelihood ratio of the observed units: a :class:`Pentanomial`, a map
        unit score (mean per match, a multiple of 1/4) -> count, or a :class:`Stats`
        (its matches as single units).

        :raises ValueError: a score off the grid 0, 1/4, 1/2, 3/4, 1.
        """
        counts = _pentanomial(scores)
        if not counts.units:
            return 0.0
        return float(self._llr(np.asarray(counts.counts, dtype=float)))

    def _llr(self, counts: np.ndarray) -> np.ndarray:
        return llr_logistic(counts, np.asarray(PENTANOMIAL_SCORES), expected_score(self.elo0),
                            expected_score(self.elo1))

    def status(self, scores: Pentanomial | Mapping[float, int] | Stats) -> SprtStatus:
        """CONTINUE, ACCEPT_H0 or ACCEPT_H1 for the observed units."""
        return self._status(self.llr(scores))

    def sequential(self, unit_wins: Iterable[int], *, matches_per_unit: int = 2,
                   start: Pentanomial | None = None) -> SprtVerdict:
        """Decide unit by unit: count the units of ``unit_wins`` (the tested player's match
        wins in each unit, in match-index order, see :func:`~bgfast.tournament.pairs.unit_wins`)
        after those of ``start``, and stop at the first whose LLR crosses a bound.

        The LLR of every prefix is computed (vectorised), so the verdict is that of a test
        run unit by unit.  Call again with ``start=verdict.counts`` for the next units of
        an undecided test.

        >>> v = Sprt(0, 20).sequential([1, 2, 0, 1] * 400)   # a 50% score: H0
        >>> v.status.value, v.units, round(v.llr, 2) <= v.lower
        ('H0', 892, True)

        :raises ValueError: a win count outside 0..``matches_per_unit``, or ``start``
            counted units of another size.
        """
        base = start if start is not None else Pentanomial(matches_per_unit=matches_per_unit)
        if base.units and base.matches_per_unit != matches_per_unit:
            raise ValueError("start counted units of another size")
        step = 4 // matches_per_unit
        wins = np.fromiter(unit_wins, dtype=np.int64)
        if wins.size and (wins.min() < 0 or wins.max() > matches_per_unit):
            raise ValueError(f"wins in a unit of {matches_per_unit} matches must be 0..{matches_per_unit}")
        if not wins.size:
            llr = self.llr(base) if base.units else 0.0
            return SprtVerdict(self._status(llr) if base.units else SprtStatus.CONTINUE, base.units,
                               base.matches, llr, self.lower, self.upper, base)
        onehot = np.zeros((wins.size, 5))
        onehot[np.arange(wins.size), wins * step] = 1.0
        prefix = np.cumsum(onehot, axis=0) + np.asarray(base.counts, dtype=float)
        llrs = self._llr(prefix)
        crossed = np.nonzero((llrs >= self.upper) | (llrs <= self.lower))[0]
        last = int(crossed[0]) if crossed.size else wins.size - 1
        row = prefix[last]
        counts = Pentanomial((int(row[0]), int(row[1]), int(row[2]), int(row[3]), int(row[4])), matches_per_unit)
        llr = float(llrs[last])
        status = self._status(llr) if crossed.size else SprtStatus.CONTINUE
        return SprtVerdict(status, counts.units, counts.matches, llr, self.lower, self.upper, counts)

    def sequential_scores(self, unit_scores: Iterable[float], *, matches_per_unit: int = 2,
                          start: ScoreSums | None = None) -> SprtVerdict:
        """Decide unit by unit on luck-adjusted scores: count the units of ``unit_scores``
        (the tested player's mean luck-adjusted score in each unit, in match-index order,
        see :func:`~bgfast.tournament.judged.unit_scores`) after those of ``start``, and
        stop at the first whose LLR (:func:`llr_normal`) crosses a bound, from
        :data:`~bgfast.tournament.pairs.MIN_SAMPLES_FOR_ERROR` units on.

        >>> Sprt(0, 20).sequential_scores([0.4, 0.6] * 400).text()   # a 50% score: H0
        'H0 accepted after 69 dice pairs (138 matches): LLR -3.00 in [-2.94, +2.94], overshoot 0.06'

        :raises ValueError: a score that is not a finite number, ``matches_per_unit`` not
            1 or 2, or ``start`` counted units of another size.
        """
        if matches_per_unit not in (1, 2):
            raise ValueError(f"matches_per_unit must be 1 or 2, got {matches_per_unit!r}")
        base = start if start is not None else ScoreSums(matches_per_unit=matches_per_unit)
        if base.units and base.matches_per_unit != matches_per_unit:
            raise ValueError("start counted units of another size")
        x = np.fromiter(unit_scores, dtype=float)
        if not np.isfinite(x).all():
            raise ValueError("unit scores must be finite numbers")
        n = base.units + np.arange(1, x.size + 1)
        total = base.total + np.cumsum(x)
        squares = base.squares + np.cumsum(x * x)
        if not x.size:
            n, total, squares = np.array([base.units]), np.array([base.total]), np.array([base.squares])
        with np.errstate(divide="ignore", invalid="ignore"):
            llrs = np.where(n > 0, llr_normal(np.maximum(n, 1), total, squares, expected_score(self.elo0),
                                             expected_score(self.elo1)), 0.0)
        ready = n >= MIN_SAMPLES_FOR_ERROR
        crossed = np.nonzero(ready & ((llrs >= self.upper) | (llrs <= self.lower)))[0]
        last = int(crossed[0]) if crossed.size else n.size - 1
        sums = ScoreSums(int(n[last]), float(total[last]), float(squares[last]), matches_per_unit)
        llr = float(llrs[last])
        status = self._status(llr) if crossed.size else SprtStatus.CONTINUE
        return SprtVerdict(status, sums.units, sums.matches, llr, self.lower, self.upper, sums)


def verdict_of_chunks(test: Sprt, outcomes: Iterable[tuple[int, int, int, int, int]], tested: int, *,
                      paired: bool) -> SprtVerdict:
    """The verdict of ``test`` over saved matches, decided pair by pair in match-index
    order over the chunks 0, 1, 2, ... that are all there (a missing chunk ends it, as it
    holds the run's progress line back): what the run said, or would have said had it
    not been stopped before saving its verdict.

    :param outcomes: ``(chunk, dice_index, player0, player1, winner seat)`` of each match
        in match-index order (:meth:`~bgfast.tournament.store.Store.iter_outcomes`).
    :param tested: the tested player's id.
    """
    per_unit = 2 if paired else 1
    verdict = test.sequential([], matches_per_unit=per_unit)
    expected = 0
    for chunk, rows in itertools.groupby(outcomes, key=lambda outcome: outcome[0]):
        if chunk != expected or verdict.status is not SprtStatus.CONTINUE:
            break
        wins = unit_wins([(dice, p0, p1, winner) for _, dice, p0, p1, winner in rows], tested, paired=paired)
        counts = verdict.counts if isinstance(verdict.counts, Pentanomial) else None
        verdict = test.sequential(wins, matches_per_unit=per_unit, start=counts)
        expected += 1
    return verdict


def adjusted_verdict_of_chunks(test: Sprt, records: NDArray[np.void], tested: int, *, paired: bool) -> SprtVerdict:
    """:func:`verdict_of_chunks` on luck-adjusted scores: the verdict of ``test`` over a
    judged run's saved matches (``records``: :data:`~bgfast.tournament.judged.JUDGED_MATCH_DTYPE`
    in match-index order, :meth:`~bgfast.tournament.store.Store.judged_matches`), unit by
    unit over the chunks 0, 1, 2, ... that are all there.

    :param tested: the tested player's id.
    """
    per_unit = 2 if paired else 1
    verdict = test.sequential_scores([], matches_per_unit=per_unit)
    for expected, rows in enumerate(chunks_of(records)):
        if int(rows["chunk"][0]) != expected or verdict.status is not SprtStatus.CONTINUE:
            break
        start_sums = verdict.counts if isinstance(verdict.counts, ScoreSums) else None
        verdict = test.sequential_scores(unit_scores(rows, tested, paired=paired).tolist(),
                                         matches_per_unit=per_unit, start=start_sums)
    return verdict


def _pentanomial(scores: Pentanomial | Mapping[float, int] | Stats) -> Pentanomial:
    if isinstance(scores, Pentanomial):
        return scores
    if isinstance(scores, Stats):
        return Pentanomial((scores.losses, 0, 0, 0, scores.wins), 1)
    counts = [0] * 5
    for s, k in scores.items():
        bin_ = round(float(s) * 4)
        if not 0 <= bin_ <= 4 or abs(bin_ - 4 * float(s)) > 1e-9:
            raise ValueError(f"a unit score must be 0, 1/4, 1/2, 3/4 or 1, got {s!r}")
        counts[bin_] += int(k)
    return Pentanomial((counts[0], counts[1], counts[2], counts[3], counts[4]))
