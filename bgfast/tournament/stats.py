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
from dataclasses import dataclass, fields

__all__ = ["Stats"]


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
        n, total = self.matches, self.games
        if n < 2 or total == 0:
            return 0.0
        r = self.points / total
        residual = self.points_sq - 2 * r * self.points_games + r * r * self.games_sq
        return math.sqrt(max(0.0, residual) * n / (n - 1)) / total
