"""The bot interface: what every player, built-in or yours, answers.

A bot chooses a checker play for (position, dice, match state), decides
whether to double before rolling, and answers a double.  Positions are from
the view of the side asked (on roll, or being doubled: see each method).
Built-in bots also describe a C fast path (:meth:`Bot.core_config`) that the
game loop uses without calling back into Python.
"""
from __future__ import annotations

import enum
from typing import TYPE_CHECKING, ClassVar, TypedDict

from bgfast._core.cube import CubeAnswer
from bgfast._core.evaluator import CoreEvaluator
from bgfast._core.game import CubeKind, PlayKind
from bgfast.dice import Dice
from bgfast.errors import InvalidBotOptionsError, InvalidPositionError, UnknownBotError
from bgfast.evaluator import default_evaluator
from bgfast.formats.text import parse_position
from bgfast.game import CoreConfig, decisions
from bgfast.match import MatchState, Rules
from bgfast.position import LegalMoves, Move, Position
from bgfast.validation import real_number, whole_number

if TYPE_CHECKING:
    from collections.abc import Mapping

    from bgfast._core.game import Decisions

__all__ = ["CUBE_KINDS", "Bot", "CoreBot", "CoreConfig", "CubeResponse"]

CUBE_KINDS: dict[str, CubeKind] = {
    "never": CubeKind.CUBE_NEVER, "keith": CubeKind.CUBE_KEITH, "janowski": CubeKind.CUBE_JANOWSKI,
    "met": CubeKind.CUBE_MET, "python": CubeKind.CUBE_PYTHON, "auto": CubeKind.CUBE_MET,
}
"""The cube policies by the names bots take (``cube=...``).  ``auto`` is ``met``, which plays
Janowski in money games."""


class CubeResponse(enum.IntEnum):
    """The answer to a double (the values of the core's :class:`~bgfast._core.cube.CubeAnswer`)."""

    PASS = CubeAnswer.RESPONSE_PASS
    """Decline: the doubler wins the current cube value."""
    TAKE = CubeAnswer.RESPONSE_TAKE
    """Accept: the cube doubles and the taker owns it."""
    BEAVER = CubeAnswer.RESPONSE_BEAVER
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

    def core_config(self) -> CoreConfig | None:
        """How the bot plays in the C game loop (a :class:`~bgfast.game.CoreConfig`), or None:
        a bot written in Python, called back from the loop."""
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

    Asked from Python, a decision is the one the game loop would make in the same
    position and match state, under ``rules`` when given (beavers, the maximum cube;
    the Jacoby rule comes from the match state).

    :param cube: the cube policy name (one of :attr:`cube_policies`).
    :param cube_efficiency: Janowski's ``x`` for the Janowski and MET policies, 0 to 1.
    :param seed: seeds the random choices of standalone :meth:`choose_move` calls, and moves
        those it makes in a match or rollout to a stream of its own
        (:attr:`~bgfast.game.CoreConfig.seed`).
    :raises UnknownBotError: an unknown cube policy, an efficiency or seed out of range.
    """

    play_kind: ClassVar[PlayKind] = PlayKind.PLAY_RANDOM
    cube_policies: ClassVar[tuple[str, ...]] = ("never",)
    default_cube: ClassVar[str] = "never"

    def __init__(self, cube: str | None = None, cube_efficiency: float = 0.68, seed: int = 0) -> None:
        cube = self.default_cube if cube is None else cube
        if cube not in self.cube_policies:
            raise InvalidBotOptionsError(
                f"bot {self.name!r} has no cube policy {cube!r}; choose from {', '.join(self.cube_policies)}"
            )
        self.cube = cube
        self.cube_efficiency = real_number(cube_efficiency, "cube_efficiency", low=0.0, high=1.0,
                                           error=InvalidBotOptionsError)
        self._seed = whole_number(seed, f"bot {self.name!r}: seed", low=0, error=InvalidBotOptionsError,
                                  what="an integer")
        self._calls = 0
        self._decisions: dict[tuple[object, ...], Decisions] = {}

    def options(self) -> Mapping[str, object]:
        """The options that rebuild this bot with :func:`bgfast.bots.get_bot` (``seed`` when
        it is not 0)."""
        seed = {"seed": self._seed} if self._seed else {}
        return {"cube": self.cube, "cube_efficiency": self.cube_efficiency, **seed}

    def __getstate__(self) -> dict[str, object]:
        state = dict(self.__dict__)
        state["_decisions"] = {}     # C objects, rebuilt on demand (a pickled bot goes to a worker)
        return state

    @property
    def evaluator(self) -> CoreEvaluator:
        """The evaluator of its cube decisions and of its luck in rollouts (the heuristic's
        unless the bot has its own)."""
        return default_evaluator()

    def core_config(self) -> CoreConfig:
        return CoreConfig(self.play_kind, CUBE_KINDS[self.cube], self.cube_efficiency, self.evaluator, self._seed)

    def _kernel(self, match: MatchState, rules: Rules | None) -> Decisions:
        key = (match.length, match.jacoby, rules)
        kernel = self._decisions.get(key)
        if kernel is None:
            kernel = decisions(self.core_config(), length=match.length, rules=rules, jacoby=match.jacoby)
            self._decisions[key] = kernel
        return kernel

    @staticmethod
    def _scene(match: MatchState) -> _Scene:
        return {"score0": match.score[0], "score1": match.score[1], "cube": match.cube_value,
                "owner": match.cube_owner, "crawford": match.crawford}

    def choose_move(self, position: Position | str, dice: Dice | str | tuple[int, int],
                    match: MatchState | None = None, *, rules: Rules | None = None) -> Move:
        """The play the core picks; ``position`` (a Position or its ID) has this bot on
        roll, ``dice`` is a :class:`Dice`, ``"31"`` or ``(3, 1)``.

        :raises InvalidPositionError: a malformed position. :raises InvalidDiceError: bad dice.
        """
        position, dice, legal = legal_plays(position, dice)
        match = match or MatchState()
        kernel = self._kernel(match, rules)
        if self.play_kind == PlayKind.PLAY_RANDOM:
            kernel.reseed(self._seed, self._calls, 1 + match.player_on_roll)
            self._calls += 1
        board = kernel.choose(position.to_bytes(), dice.high, dice.low, match.player_on_roll, **self._scene(match))
        try:
            return legal[legal.positions().index(Position._from_valid_bytes(board))]
        except ValueError:
            raise AssertionError("the core chose a play that legal_moves does not list") from None

    def should_double(self, position: Position | str, match: MatchState, *, rules: Rules | None = None) -> bool:
        """Whether the core doubles for this bot on roll in ``position`` (False when the cube
        is not available to it)."""
        position = parse_position(position)[0]
        kernel = self._kernel(match, rules)
        return bool(kernel.offer(position.to_bytes(), match.player_on_roll, **self._scene(match)))

    def accept_double(self, position: Position | str, match: MatchState, *,
                      rules: Rules | None = None) -> CubeResponse:
        """The core's answer for this bot to a double; ``position`` has the doubler on roll."""
        position = parse_position(position)[0]
        kernel = self._kernel(match, rules)
        taker = 1 - match.player_on_roll
        return CubeResponse(kernel.respond(position.to_bytes(), taker, **self._scene(match)))
