"""The judge: a bot that gives probabilities, and the look-ahead it judges at.

Analysis asks a bot for one thing, the cubeless probabilities of the side on roll before
its roll: ``bot.evaluate(position, plies=N)`` returning
:class:`~bgfast.probabilities.Probabilities` (the neural bot, the default, and the
heuristic bot have it).  The depth ``N`` is passed through as it is given, so the range
is the bot's own (:data:`bgfast.bots.neural.PLIES` for the neural bot): a depth it does
not have is its error.  Depths follow gnubg's numbering: 0 ply is the evaluator's own
value, 1 ply the average over the 21 rolls of the value after the best 0-ply play.

A bot that looks ahead with the cube as well (the neural bot's ``cube_decision``: gnubg's
cubeful n-ply evaluation, :mod:`bgfast._core.cubeful`) gives the cube decision and the
cubeful equity at 1 ply or more (:meth:`Judge.cube_decision`); otherwise they are the cube
math of :mod:`bgfast.cube` on its probabilities at the judge's ply.

>>> judge = Judge.of("neural")
>>> judge.ply, judge.name
(0, 'neural')
>>> p = judge.probabilities(Position())
>>> 0.45 < p.win < 0.6
True
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from bgfast.bots import get_bot
from bgfast.cube import DEFAULT_CUBE_EFFICIENCY, CubeDecision
from bgfast.engines.players import PLAYER_PREFIXES
from bgfast.errors import InvalidAnalysisError
from bgfast.met import MatchEquityTable
from bgfast.position import Position
from bgfast.probabilities import Probabilities

if TYPE_CHECKING:
    from bgfast.analysis.situation import Situation

__all__ = ["DEFAULT_JUDGE", "DecidesCube", "Evaluates", "Judge"]

DEFAULT_JUDGE = "neural"
"""The bot that judges when none is named."""


@runtime_checkable
class Evaluates(Protocol):
    """What analysis needs of a bot: the side on roll's cubeless probabilities before its roll."""

    def evaluate(self, position: Position, plies: int) -> Probabilities:
        """Cubeless probabilities of the side on roll in ``position``, before its roll, at ``plies``."""


@runtime_checkable
class DecidesCube(Protocol):
    """A bot whose cube decisions look ahead with the cube (the neural bot's
    :meth:`~bgfast.bots.neural.NeuralBot.cube_decision`)."""

    def cube_decision(self, position: Position, plies: int | None = None, *, owner: int = -1, player: int = 0,
                      cube: int = 1, jacoby: bool = False, beaver: bool = False, max_cube: int = 64,
                      met: MatchEquityTable | None = None, away: int = 0, opp_away: int = 0,
                      crawford: bool = False) -> tuple[CubeDecision, Probabilities]:
        """The side on roll's cube decision and cubeless probabilities at ``plies``."""


@dataclass(frozen=True)
class Judge:
    """A bot that gives probabilities and the depth it judges at."""

    bot: Evaluates
    """The bot (anything with ``evaluate(position, plies=N)``)."""
    ply: int
    """The look-ahead, gnubg's numbering (passed to ``evaluate`` as ``plies``)."""

    @classmethod
    def of(cls, bot: str | object = DEFAULT_JUDGE, ply: int | None = None, *, cube: bool = False) -> Judge:
        """The judge ``bot`` (a bot spec such as ``"neural"`` or ``"neural:weights=FILE"``, or
        a bot) at ``ply``; None: the bot's own ``ply`` option (0 without one), or with ``cube``
        (a judge of cube decisions) its ``cube_ply`` option where it has one (the neural bot's
        default is 1: the cubeful look-ahead that values a last roll exactly).

        :raises UnknownBotError: an unknown or malformed bot spec.
        :raises InvalidAnalysisError: a bot that gives no probabilities (no ``evaluate``; an
            outside engine, ``engine:...`` or ``command:...``).
        """
        if isinstance(bot, str) and bot.strip().startswith(PLAYER_PREFIXES):
            raise InvalidAnalysisError(f"{bot!r} is an outside engine: it plays (bgfast play, rollout, "
                                       "tournament) but gives no probabilities to judge with; judge with a "
                                       "bot that does, such as neural or heuristic")
        obj = get_bot(bot) if isinstance(bot, str) else bot
        if not isinstance(obj, Evaluates):
            name = bot if isinstance(bot, str) else type(bot).__name__
            raise InvalidAnalysisError(f"bot {name!r} gives no probabilities (it has no evaluate()): "
                                       "judge with one that does, such as neural or heuristic")
        if ply is not None:
            return cls(obj, ply)
        own = getattr(obj, "cube_ply", None) if cube else None
        return cls(obj, own if own is not None else getattr(obj, "ply", 0))

    @classmethod
    def resolve(cls, judge: Judge | str | object = DEFAULT_JUDGE, ply: int | None = None, *,
                cube: bool = False) -> Judge:
        """``judge`` as a :class:`Judge` at ``ply``: a judge (at ``ply`` when one is given), a bot
        spec or a bot (:meth:`of`, ``cube`` as there).

        :raises UnknownBotError, InvalidAnalysisError: as :meth:`of`.
        """
        if isinstance(judge, Judge):
            return judge if ply is None else cls(judge.bot, ply)
        return cls.of(judge, ply, cube=cube)

    @property
    def name(self) -> str:
        """The bot's name (its registered name, else its class's)."""
        return str(getattr(self.bot, "name", type(self.bot).__name__))

    @property
    def cube_efficiency(self) -> float:
        """The bot's Janowski ``x`` (its ``cube_efficiency`` option; 0.68 without one)."""
        return float(getattr(self.bot, "cube_efficiency", DEFAULT_CUBE_EFFICIENCY))

    def probabilities(self, position: Position) -> Probabilities:
        """Cubeless probabilities of the side on roll in ``position``, before its roll, at :attr:`ply`.

        :raises ValueError: a depth the bot does not have (its own error).
        :raises InvalidPositionError: a finished game.
        """
        return Probabilities.of(self.bot.evaluate(position, plies=self.ply))

    def cube_decision(self, situation: Situation) -> tuple[CubeDecision, Probabilities] | None:
        """The cube decision of the side on roll in ``situation`` before its roll by the bot's
        cubeful look-ahead at :attr:`ply` (:class:`DecidesCube`), with its cubeless
        probabilities at that ply; None at 0 ply or for a bot without one (the cube math of
        :mod:`bgfast.cube` on :meth:`probabilities` is then the decision).  Equities from the
        side on roll's view: money per current cube, match play MWC.

        :raises ValueError: a depth the bot does not have (its own error).
        """
        if self.ply == 0 or not isinstance(self.bot, DecidesCube):
            return None
        m, rules = situation.match, situation.rules
        away, opp_away = situation.aways() if situation.is_match else (0, 0)
        return self.bot.cube_decision(situation.position, self.ply, owner=m.cube_owner, player=situation.me,
                                      cube=m.cube_value, jacoby=m.is_money and m.jacoby, beaver=rules.beaver,
                                      max_cube=rules.max_cube, met=situation.met, away=away, opp_away=opp_away,
                                      crawford=m.is_crawford_game)

    def after_play(self, position: Position) -> Probabilities:
        """Cubeless probabilities of the side that has just moved to ``position`` (the mover
        is the side "on roll" of ``position``, as :meth:`Position.children` and
        :attr:`Move.position` give it): the position with the opponent on roll
        (:meth:`Position.swap_sides`), evaluated at :attr:`ply` from the opponent's view,
        flipped to the mover's.  A play that ends the game has the mover's win for sure.

        :raises ValueError: a depth the bot does not have (its own error).
        """
        outcome = position.outcome()
        if outcome is not None:
            return Probabilities.from_outcome(outcome.winner == 1, outcome.kind)   # 1: the mover
        return self.probabilities(position.swap_sides()).flipped()
