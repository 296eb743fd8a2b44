"""The bot interface: what every player, built-in or yours, answers.

A bot chooses a checker play for (position, dice, match state), decides
whether to double before rolling, and answers a double.  Positions are from
the view of the side asked (on roll, or being doubled: see each method).
Built-in bots also describe a C fast path (:meth:`Bot.core_config`) that the
game loop uses without calling back into Python.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, TypedDict

from bgfast._core import game as _game
from bgfast.dice import Dice
from bgfast.errors import InvalidPositionError
from bgfast.formats.text import parse_position
from bgfast.match import MatchState
from bgfast.position import LegalMoves, Move, Position

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["CUBE_KINDS", "PLAY_KINDS", "Bot", "CoreBot", "CubeResponse", "Probabilities"]

PLAY_KINDS: dict[str, int] = {"random": 0, "pubeval": 1, "heuristic": 2, "python": 3}
"""Checker-play kinds of the C game loop."""

CUBE_KINDS: dict[str, int] = {"never": 0, "keith": 1, "janowski": 2, "met": 3, "python": 4, "auto": 3}
"""Cube-policy kinds of the C game loop.  ``auto`` is ``met``, which plays Janowski in money games."""


@dataclass(frozen=True)
class Probabilities:
    """Cubeless outcome probabilities of one side; gammons include backgammons.

    >>> p = Probabilities(0.6, 0.2, 0.01, 0.1, 0.005)
    >>> round(p.equity(), 3)
    0.305
    >>> p.flipped()
    Probabilities(win=0.4, win_gammon=0.1, win_backgammon=0.005, lose_gammon=0.2, lose_backgammon=0.01)
    """

    win: float
    """Chance of winning the game (any way)."""
    win_gammon: float
    """Chance of winning a gammon or a backgammon."""
    win_backgammon: float
    """Chance of winning a backgammon."""
    lose_gammon: float
    """Chance of losing a gammon or a backgammon."""
    lose_backgammon: float
    """Chance of losing a backgammon."""

    def equity(self) -> float:
        """Cubeless money equity in points per game: ``2 win - 1 + wg - lg + wbg - lbg``."""
        return (2.0 * self.win - 1.0 + self.win_gammon - self.lose_gammon
                + self.win_backgammon - self.lose_backgammon)

    def flipped(self) -> Probabilities:
        """The same outcomes from the other side's view."""
        return Probabilities(1.0 - self.win, self.lose_gammon, self.lose_backgammon,
                             self.win_gammon, self.win_backgammon)


class CubeResponse(enum.IntEnum):
    """The answer to a double."""

    PASS = 0
    """Decline: the doubler wins the current cube value."""
    TAKE = 1
    """Accept: the cube doubles and the taker owns it."""
    BEAVER = 2
    """Take and redouble at once, keeping the cube (money play with beavers on)."""


class Bot:
    """Base class of bots; a subclass overrides the methods it needs.

    Any object with these three methods can play: the game loop calls them
    through a slower path with the same rules as the built-in bots.

    :cvar name: the name the bot is known by.
    """

    name: ClassVar[str] = "bot"

    def choose_move(self, position: Position, dice: Dice, match: MatchState) -> Move | Position:
        """The play for ``dice`` in ``position`` (side on roll moves); a :class:`Move`
        from ``position.legal_moves(...)`` or the resulting :class:`Position` (mover's frame)."""
        raise NotImplementedError

    def should_double(self, position: Position, match: MatchState) -> bool:
        """Whether to double before rolling; ``position`` has this bot on roll.

        Only asked when the cube is available to the bot and not dead.  Default: never.
        """
        return False

    def accept_double(self, position: Position, match: MatchState) -> CubeResponse:
        """Answer a double; ``position`` has the *doubler* on roll.  Default: take."""
        return CubeResponse.TAKE

    def core_config(self) -> tuple[int, int, float] | None:
        """``(play kind, cube kind, cube efficiency)`` of a C fast path, or None (Python only)."""
        return None

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


def legal_plays(position: Position | str, dice: Dice | str | tuple[int, int]) -> tuple[Position, Dice, LegalMoves]:
    """What a bot about to choose a play needs: ``position`` and ``dice`` as value types and
    the roll's legal plays (one, possibly empty, when there is no choice).

    :raises InvalidPositionError: a malformed position, or a game that is over.
    :raises InvalidDiceError: bad dice.
    """
    position, dice = parse_position(position)[0], Dice.of(dice)
    if position.is_over():
        raise InvalidPositionError(f"the game in {position.id()!r} is over: there is no play to choose")
    return position, dice, position.legal_moves(dice.high, dice.low)


class _Scene(TypedDict):
    """The match state the core's choose/offer/respond take as keywords."""

    score0: int
    score1: int
    cube: int
    owner: int
    crawford: bool


class CoreBot(Bot):
    """A bot whose decisions are made by the C core; the Python methods ask the same kernel.

    :param cube: the cube policy name (one of :attr:`cube_policies`).
    """

    play_kind: ClassVar[str] = "random"
    cube_policies: ClassVar[tuple[str, ...]] = ("never",)
    default_cube: ClassVar[str] = "never"

    def __init__(self, cube: str | None = None, cube_efficiency: float = 0.68, seed: int = 0) -> None:
        from bgfast.errors import UnknownBotError

        cube = self.default_cube if cube is None else cube
        if cube not in self.cube_policies:
            raise UnknownBotError(
                f"bot {self.name!r} has no cube policy {cube!r}; choose from {', '.join(self.cube_policies)}"
            )
        if not isinstance(cube_efficiency, (int, float)) or not 0.0 <= cube_efficiency <= 1.0:
            raise UnknownBotError(f"cube_efficiency must be a number from 0 to 1, got {cube_efficiency!r}")
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise UnknownBotError(f"bot {self.name!r}: seed must be a non-negative integer, got {seed!r}")
        self.cube = cube
        self.cube_efficiency = float(cube_efficiency)
        self._seed = seed
        self._calls = 0
        self._runner: tuple[tuple[int, bool], _game.MatchRunner] | None = None

    def options(self) -> Mapping[str, object]:
        """The options that rebuild this bot with :func:`bgfast.bots.get_bot`."""
        return {"cube": self.cube, "cube_efficiency": self.cube_efficiency}

    def core_config(self) -> tuple[int, int, float]:
        return (PLAY_KINDS[self.play_kind], CUBE_KINDS[self.cube], self.cube_efficiency)

    def _kernel(self, match: MatchState) -> _game.MatchRunner:
        from bgfast.game import make_runner

        key = (match.length, match.jacoby)
        if self._runner is None or self._runner[0] != key:
            self._runner = (key, make_runner(self, self, length=match.length,
                                             jacoby=match.jacoby))
        return self._runner[1]

    @staticmethod
    def _scene(match: MatchState, player: int) -> _Scene:
        return {"score0": match.score[0], "score1": match.score[1], "cube": match.cube_value,
                "owner": match.cube_owner, "crawford": match.crawford}

    def choose_move(self, position: Position | str, dice: Dice | str | tuple[int, int],
                    match: MatchState | None = None) -> Move:
        """The play the core's evaluator picks; ``position`` (a Position or its ID) has
        this bot on roll, ``dice`` is a :class:`Dice`, ``"31"`` or ``(3, 1)``.

        :raises InvalidPositionError: a malformed position. :raises InvalidDiceError: bad dice.
        """
        position, dice = parse_position(position)[0], Dice.of(dice)
        if position.is_over():
            raise InvalidPositionError(f"the game in {position.id()!r} is over: there is no play to choose")
        match = match or MatchState()
        runner = self._kernel(match)
        if self.play_kind == "random":
            runner.reseed(self._seed, self._calls)
            self._calls += 1
        board = runner.choose(position._key, dice.high, dice.low, match.player_on_roll,
                              **self._scene(match, match.player_on_roll))
        target = Position._from_key(board)
        for move in position.legal_moves(dice.high, dice.low):
            if move.position == target:
                return move
        raise AssertionError("the core chose a play that legal_moves does not list")

    def should_double(self, position: Position | str, match: MatchState) -> bool:
        position = parse_position(position)[0]
        runner = self._kernel(match)
        return bool(runner.offer(position._key, match.player_on_roll, **self._scene(match, match.player_on_roll)))

    def accept_double(self, position: Position | str, match: MatchState) -> CubeResponse:
        position = parse_position(position)[0]
        runner = self._kernel(match)
        taker = 1 - match.player_on_roll
        return CubeResponse(runner.respond(position._key, taker, **self._scene(match, taker)))
