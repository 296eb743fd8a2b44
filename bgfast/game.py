"""Playing games and matches: the records they produce and the entry points.

A match is played between two bots sitting as player 0 and player 1.  Its
dice come from ``SeededDice(seed, index)`` (see :mod:`bgfast.dice`), so the
same ``(seed, index)`` replays the same match exactly, whichever process
plays it; a tournament's paired matches share an ``index`` with the seats
swapped.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class CubeAction:
    """One double in a game: who doubled (0 or 1) and whether it was taken."""

    by: int
    taken: bool
    beavered: bool = False


@dataclass(frozen=True)
class GameRecord:
    """One finished game of a match.

    :ivar number: 1-based game number in the match.
    :ivar crawford: this was the Crawford game (no doubling allowed).
    :ivar cube: the cube value the game was played for (a passed double does not raise it).
    :ivar doubles: the cube actions, in order.
    :ivar points: points won by ``winner`` (cube x 1/2/3, after the Jacoby rule).
    :ivar winner: 0 or 1.
    :ivar kind: ``"single"``, ``"gammon"``, ``"backgammon"`` or ``"pass"``.
    :ivar score_after: the match score after the game, (player 0, player 1).
    :ivar plies: checker plays made in the game (both sides).
    """

    number: int
    crawford: bool
    cube: int
    doubles: tuple[CubeAction, ...]
    points: int
    winner: int
    kind: str
    score_after: tuple[int, int]
    plies: int = 0


@dataclass(frozen=True)
class MatchRecord:
    """A finished match (or, at length 0, one money game).

    :ivar length: match length in points, 0 = a money game.
    :ivar seed: the run seed; :ivar index: the dice stream index within the run.
    :ivar score: final score (player 0, player 1); a score past ``length`` is kept as is.
    :ivar winner: 0 or 1.
    :ivar games: every game, in order.
    """

    length: int
    seed: int
    index: int
    score: tuple[int, int]
    winner: int
    games: tuple[GameRecord, ...] = field(default_factory=tuple)

    @property
    def gammons(self) -> tuple[int, int]:
        """Gammons (not backgammons) won by (player 0, player 1)."""
        return (sum(1 for g in self.games if g.kind == "gammon" and g.winner == 0),
                sum(1 for g in self.games if g.kind == "gammon" and g.winner == 1))

    @property
    def backgammons(self) -> tuple[int, int]:
        """Backgammons won by (player 0, player 1)."""
        return (sum(1 for g in self.games if g.kind == "backgammon" and g.winner == 0),
                sum(1 for g in self.games if g.kind == "backgammon" and g.winner == 1))

    @property
    def cube_actions(self) -> int:
        """Doubles offered in the whole match."""
        return sum(len(g.doubles) for g in self.games)
