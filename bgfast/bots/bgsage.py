"""Open Sage (the ``bgsage`` package, MPL-2.0, with its nets) as a bgfast bot.

Install it with ``pip install 'bgfast[bgsage]'``; it is imported only when a
:class:`BgsageBot` is built (``get_bot("bgsage", level="1ply")``).

Calling convention of ``bgsage`` (checked in ``tests/test_bgsage_bot.py``):

* a board is a list of 26 ints from the view of the side on roll: index 1..24 are that
  side's points 1..24, its checkers positive and the opponent's negative; index 25 is the
  count on its own bar and index 0 the count on the opponent's bar (both >= 0): bgfast's
  :meth:`~bgfast.position.Position.signed_board` but for the sign of index 0;
* ``BgBotAnalyzer(eval_level=..., cubeful=False, parallel_threads=1)`` ranks the plays
  of ``checker_play(board, d1, d2, ...)`` by cubeless equity at that level (``"1ply"`` is
  the bare net, Open Sage counts plies root-inclusive as UBGI does); its ``moves[0].board``
  is the best play's resulting board, still from the mover's view;
* its ``cube_action`` loads the nets again on every call (tens of decisions a second);
  the same 1-ply decision comes from a strategy object built once: the side on roll's
  pre-roll probabilities are the opponent's post-move probabilities, inverted, Janowski's
  cube efficiency is ``bgbot_cpp.cube_efficiency`` and the verdict
  ``bgbot_cpp.cube_decision_1ply`` (the test compares the verdicts with ``cube_action``).
"""
from __future__ import annotations

from typing import Any, ClassVar

from bgfast.bots.base import Bot, CubeResponse, legal_plays
from bgfast.dice import Dice
from bgfast.errors import BotPackageMissingError, InvalidBotOptionsError, InvalidPositionError, UnknownBotError
from bgfast.formats.text import parse_position
from bgfast.match import MatchState
from bgfast.position import Move, Position

__all__ = ["LEVELS", "BgsageBot", "from_sage_board", "to_sage_board"]

LEVELS = ("1ply", "2ply", "3ply", "4ply", "truncated1", "truncated2", "truncated3")
"""Open Sage's evaluation levels that the bot plays at (``1ply`` is the bare net)."""

_EXTRA_HINT = "pip install 'bgfast[bgsage]'"


def to_sage_board(position: Position) -> list[int]:
    """``position`` (side on roll to move) as Open Sage's 26-list: its
    :meth:`~bgfast.position.Position.signed_board`, the opponent's bar (index 0) counted
    as a positive number.

    >>> to_sage_board(Position())[:8]
    [0, -2, 0, 0, 0, 0, 5, 0]
    """
    board = position.signed_board()
    board[0] = -board[0]
    return board


def from_sage_board(board: list[int]) -> Position:
    """The :class:`~bgfast.position.Position` of an Open Sage 26-list (its side on roll as side 1).

    >>> from_sage_board(to_sage_board(Position())) == Position()
    True

    :raises InvalidPositionError: not 26 integers, or an impossible board.
    """
    if len(board) != 26:
        raise InvalidPositionError(f"an Open Sage board is 26 integers, got {board!r}")
    return Position.from_signed_board([-board[0], *board[1:]])


def _load() -> tuple[Any, Any]:
    try:
        import bgbot_cpp
        import bgsage
    except ImportError:
        raise BotPackageMissingError(f"bot 'bgsage' needs the bgsage package: {_EXTRA_HINT}") from None
    return bgsage, bgbot_cpp


class BgsageBot(Bot):
    """Open Sage: checker play at ``level``, cube decisions by its 1-ply net (or a bgfast policy).

    :param level: one of :data:`LEVELS` (default ``"1ply"``, the bare net: fast).
    :param cube: None for Open Sage's own cube decisions (Janowski on its 1-ply
        probabilities, with its cube efficiency; score-aware in match play), or a bgfast
        cube policy (:mod:`bgfast.bots.cube_policy`; ``"never"`` for cubeless play).
    :raises UnknownBotError: bgsage is not installed, or a bad option.
    """

    name: ClassVar[str] = "bgsage"

    def __init__(self, level: str = "1ply", cube: str | None = None) -> None:
        if level not in LEVELS:
            raise InvalidBotOptionsError(f"bot 'bgsage' plays at level {', '.join(LEVELS)}, got level={level!r}")
        self._policy: Bot | None = None
        if cube is not None:
            from bgfast.bots.cube_policy import cube_policy

            self._policy = cube_policy(cube)
        sage, cpp = _load()
        self.level = level
        self.cube = cube
        self._cpp = cpp
        self._sage = sage
        self._analyzer = sage.BgBotAnalyzer(eval_level=level, cubeful=False, parallel_threads=1)
        if self._policy is None:
            from bgsage.weights import bearoff_db_path, default_weights

            weights = default_weights()
            strategy = cpp.create_strategy(weights.strategy_type, weights.weight_paths_list,
                                           weights.hidden_sizes_list)
            database = cpp.BearoffDB()
            path = bearoff_db_path()
            if path and database.load(path):
                strategy = cpp.BearoffStrategy(strategy, database)
            self._strategy = strategy

    def __repr__(self) -> str:
        return f"<BgsageBot 'bgsage' level={self.level}>"

    def options(self) -> dict[str, object]:
        """The options that rebuild this bot with :func:`bgfast.bots.get_bot`."""
        return {"level": self.level, "cube": self.cube}

    # ------------------------------------------------------------ the match as Open Sage sees it

    @staticmethod
    def _aways(match: MatchState, me: int) -> tuple[int, int]:
        if match.is_money:
            return 0, 0
        return match.away(me), match.away(1 - me)

    def _owner(self, match: MatchState, me: int) -> Any:
        owners = self._cpp.CubeOwner
        if match.cube_owner == -1:
            return owners.CENTERED
        return owners.PLAYER if match.cube_owner == me else owners.OPPONENT

    # ------------------------------------------------------------ decisions

    def choose_move(self, position: Position | str, dice: Dice | str | tuple[int, int],
                    match: MatchState | None = None) -> Move:
        """Open Sage's play at :attr:`level`; ``position`` has this bot on roll.

        :raises InvalidPositionError: a finished game or a malformed position.
        """
        position, dice, legal = legal_plays(position, dice)
        match = match or MatchState()
        if len(legal) == 1:
            return legal[0]
        me = match.player_on_roll
        away1, away2 = self._aways(match, me)
        owner = "centered" if match.cube_owner == -1 else "player" if match.cube_owner == me else "opponent"
        result = self._analyzer.checker_play(
            to_sage_board(position), dice.high, dice.low, cube_value=match.cube_value, cube_owner=owner,
            away1=away1, away2=away2, is_crawford=match.crawford, jacoby=match.jacoby)
        after = from_sage_board(list(result.moves[0].board))
        try:
            return legal[legal.positions().index(after)]
        except ValueError:
            raise AssertionError(f"Open Sage chose a play to {after.id()} that is not legal for {dice} "
                                 f"in {position.id()}") from None

    def _decision(self, position: Position, match: MatchState, doubler: int) -> Any:
        """Open Sage's 1-ply cube verdict for ``doubler`` on roll in ``position``."""
        cpp = self._cpp
        board = to_sage_board(position)
        flipped = cpp.flip_board(board)
        after = self._strategy.evaluate_board(flipped, flipped)  # the opponent has just moved
        probs = self._sage.invert_probs(list(after["probs"]))
        mine, theirs = cpp.pip_counts(board)
        x = cpp.cube_efficiency(probs, cpp.is_race(board), mine, theirs)
        away1, away2 = self._aways(match, doubler)
        return cpp.cube_decision_1ply(probs, match.cube_value, self._owner(match, doubler), x,
                                      away1=away1, away2=away2, is_crawford=match.crawford,
                                      jacoby=match.jacoby)

    def should_double(self, position: Position, match: MatchState) -> bool:
        """Double when Open Sage's verdict is to double (its own cube, or the policy's)."""
        if self._policy is not None:
            return self._policy.should_double(position, match)
        return bool(self._decision(parse_position(position)[0], match, match.player_on_roll).should_double)

    def accept_double(self, position: Position, match: MatchState) -> CubeResponse:
        """Take when Open Sage says take; beaver in money play when the doubler's
        double/take equity is below zero.  ``position`` has the doubler on roll."""
        if self._policy is not None:
            return self._policy.accept_double(position, match)
        verdict = self._decision(parse_position(position)[0], match, match.player_on_roll)
        if not verdict.should_take:
            return CubeResponse.PASS
        if match.is_money and verdict.equity_dt < 0.0:
            return CubeResponse.BEAVER
        return CubeResponse.TAKE
