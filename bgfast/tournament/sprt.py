"""Sequential probability ratio test for a two-player run (the GSPRT of fishtest and fastchess).

The log-likelihood ratio of "the Elo difference is ``elo1``" against "it is
``elo0``" uses the normal approximation of the mean score (Michel Van den Bergh's
generalised SPRT):  ``LLR = N (s1 - s0) (2 m - s0 - s1) / (2 v)``, where ``m`` and
``v`` are the mean and variance of the observed scores, ``s0`` and ``s1`` the
expected scores at ``elo0`` and ``elo1``.  Scores are per match (0 or 1) or,
with paired dice, per dice pair (0, 0.5 or 1).  The test accepts H1 when the
LLR reaches ``log((1 - beta) / alpha)`` and H0 when it falls to
``log(beta / (1 - alpha))``.

>>> test = Sprt(elo0=0, elo1=3, alpha=0.05, beta=0.05)
>>> round(test.llr({1.0: 4307, 0.5: 8620, 0.0: 4063}), 2)   # published example: LLR 2.99
2.99
>>> test.status({1.0: 4307, 0.5: 8620, 0.0: 4063})
<SprtStatus.ACCEPT_H1: 'H1'>
"""
from __future__ import annotations

import enum
import math
from collections.abc import Mapping
from dataclasses import dataclass

from bgfast.tournament.ratings import expected_score
from bgfast.tournament.stats import Stats

__all__ = ["Sprt", "SprtStatus"]


class SprtStatus(enum.Enum):
    """Where the test stands."""

    CONTINUE = "continue"
    ACCEPT_H0 = "H0"
    """The difference is ``elo0`` (or less): the challenger is not the stronger by ``elo1``."""
    ACCEPT_H1 = "H1"
    """The difference is ``elo1`` (or more)."""


@dataclass(frozen=True)
class Sprt:
    """The test of H0: Elo difference = ``elo0`` against H1: = ``elo1``."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    @property
    def lower(self) -> float:
        """The LLR at or below which H0 is accepted."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        """The LLR at or above which H1 is accepted."""
        return math.log((1.0 - self.beta) / self.alpha)

    def llr(self, scores: Mapping[float, int] | Stats) -> float:
        """The log-likelihood ratio of the observed scores (a map score -> count, or a :class:`Stats`)."""
        counts = _counts(scores)
        n = sum(counts.values())
        if n == 0:
            return 0.0
        mean = sum(s * k for s, k in counts.items()) / n
        var = sum(k * (s - mean) ** 2 for s, k in counts.items()) / n
        if var <= 0.0:
            # every score alike: use the smallest variance one more opposite result would give
            var = 1.0 / (4.0 * (n + 1))
        s0, s1 = expected_score(self.elo0), expected_score(self.elo1)
        return n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)

    def status(self, scores: Mapping[float, int] | Stats) -> SprtStatus:
        """CONTINUE, ACCEPT_H0 or ACCEPT_H1 for the observed scores."""
        llr = self.llr(scores)
        if llr >= self.upper:
            return SprtStatus.ACCEPT_H1
        if llr <= self.lower:
            return SprtStatus.ACCEPT_H0
        return SprtStatus.CONTINUE


def _counts(scores: Mapping[float, int] | Stats) -> dict[float, int]:
    if isinstance(scores, Stats):
        return {1.0: scores.wins, 0.0: scores.losses}
    return {float(s): int(k) for s, k in scores.items() if k}
