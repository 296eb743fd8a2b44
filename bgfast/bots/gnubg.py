"""GNU Backgammon's neural net as a bgfast bot, through the optional ``gnubg-nn`` package.

Install it with ``pip install 'bgfast[gnubg]'``.  The package is imported only
when a :class:`GnubgBot` is built (``get_bot("gnubg", ply=0)``), never by
``import bgfast.bots``.

Calling convention of ``gnubg_nn`` (checked against known positions; see
``tests/test_gnubg_bot.py``):

* a board is two 25-counts ``[opponent, side on roll]``, each from its own
  side's view with the bar at index 24 -- exactly :attr:`Position.board`;
* ``probabilities(board, ply)`` is ``(win, win_gammon, win_bg, lose_gammon,
  lose_bg)`` for the side on roll, cubeless;
* ``best_move(board, d1, d2, n=ply, b=1)`` returns the steps and the 20-letter
  position key of the board *after* the play, sides swapped (opponent on roll);
  its choice takes the score and cube set by ``set.score`` / ``set.cube`` into
  account;
* ``set.score(us_away, opp_away, crawford)``: "us" is the side on roll; 0, 0 is
  money play;  ``set.cube(value, owner)`` takes ``b"O"`` for the side on roll
  and ``b"X"`` for its opponent (a ``bytes`` of length one);
* ``evaluate_cube_decision(key, n=ply, v=ply, s=b"O", i=1)`` answers the side on
  roll's double in match play only: ``(double, take, too_good, nd, dt, dp)``
  where the last three are that side's match winning chances after no double,
  double/take and double/pass.  It refuses money play ("Not implemented for
  money"), and its match equity table stops at 25-away.
"""
from __future__ import annotations

from typing import Any, ClassVar

from bgfast import cube as _cube_math
from bgfast.bots.base import Bot, CubeResponse
from bgfast.dice import Dice
from bgfast.errors import BotPackageMissingError, InvalidBotOptionsError, InvalidPositionError, UnknownBotError
from bgfast.formats.text import parse_position
from bgfast.match import MatchState
from bgfast.position import Move, Position
from bgfast.validation import real_number, whole_number

__all__ = ["GnubgBot"]

PLIES = (0, 1, 2)
"""The lookahead depths the bot accepts (gnubg's 0-ply is the bare net)."""

MAX_AWAY = 25
"""gnubg_nn's match equity table covers scores up to 25-away."""

_EXTRA_HINT = "pip install 'bgfast[gnubg]'"


def _load_gnubg_nn() -> Any:
    """Import ``gnubg_nn`` or raise :class:`BotPackageMissingError` naming the extra to install."""
    try:
        import gnubg_nn
    except ImportError:
        raise BotPackageMissingError(f"bot 'gnubg' needs the gnubg-nn package: {_EXTRA_HINT}") from None
    return gnubg_nn


class GnubgBot(Bot):
    """GNU Backgammon's neural net (``gnubg-nn``): checker play at ``ply`` and gnubg's cube.

    Checker play is gnubg's own move search (``best_move`` at ``ply``), with the
    match score and cube set so that match play is score-aware.  Cube decisions
    (``cube="gnubg"``, the default): in match play gnubg's
    ``evaluate_cube_decision`` at the same ply, which weighs the score with its
    own match equity table; in money play -- which gnubg-nn does not evaluate
    -- Janowski's cubeful model (:func:`bgfast.cube.decide`, the same as the
    built-in bots') on gnubg's cubeless probabilities with cube efficiency
    ``cube_efficiency``.  Beyond 25-away
    (the end of gnubg-nn's table) match play is treated like money play.
    ``cube="never"`` never doubles and always takes (cubeless play).

    Strength, measured with :class:`~bgfast.game.MatchPlayer` in cubeless
    money games (``cube="never"`` on both sides, no Jacoby rule, so gammons count
    double and backgammons triple) against ``pubeval``, paired dice: at 0-ply,
    +0.602 points per game over 10,000 games (5,000 dice streams of run seed 1,
    each played with both seatings), standard error 0.013 (of the paired means);
    it wins 70.2% of the games.  (An earlier +0.404 and 67% here were measured with
    the Jacoby rule on, which with a cube never turned scores every gammon single.)
    At 1-ply, +0.603 over 400 games (standard error 0.062; wins 69.8%), at about
    two games a second.  Every
    decision is a call into the net from Python, so even 0-ply plays only about
    a hundred games a second, far slower than the built-in bots.

    >>> from bgfast.bots import get_bot                     # doctest: +SKIP
    >>> bot = get_bot("gnubg", ply=0)                       # doctest: +SKIP
    >>> str(bot.choose_move(Position(), Dice(3, 1), MatchState()))  # doctest: +SKIP
    '8/5 6/5'

    :param ply: lookahead depth, one of 0, 1, 2 (0 is fast; 2 is slow).
    :param cube: ``"gnubg"`` or ``"never"``.
    :param cube_efficiency: Janowski's ``x`` for money-play cube decisions.
    :raises UnknownBotError: gnubg-nn is not installed, or a bad option.
    """

    name: ClassVar[str] = "gnubg"
    cube_policies: ClassVar[tuple[str, ...]] = ("gnubg", "never")

    def __init__(self, ply: int = 0, cube: str = "gnubg", cube_efficiency: float = 0.68) -> None:
        ply = whole_number(ply, "bot 'gnubg': ply", low=PLIES[0], high=PLIES[-1], error=InvalidBotOptionsError)
        if cube not in self.cube_policies:
            raise InvalidBotOptionsError(
                f"bot 'gnubg' has no cube policy {cube!r}; choose from {', '.join(self.cube_policies)}"
            )
        self.cube_efficiency = real_number(cube_efficiency, "cube_efficiency", low=0.0, high=1.0,
                                           error=InvalidBotOptionsError)
        self._nn = _load_gnubg_nn()
        self.ply = ply
        self.cube = cube

    def __repr__(self) -> str:
        return f"<GnubgBot 'gnubg' ply={self.ply}>"

    def options(self) -> dict[str, object]:
        """The options that rebuild this bot with :func:`bgfast.bots.get_bot`."""
        return {"ply": self.ply, "cube": self.cube, "cube_efficiency": self.cube_efficiency}

    # ------------------------------------------------------------ gnubg state

    @staticmethod
    def _uses_match_table(match: MatchState) -> bool:
        return not match.is_money and max(match.away(0), match.away(1)) <= MAX_AWAY

    def _set_scene(self, match: MatchState, me: int) -> bool:
        """Set gnubg_nn's score and cube for ``me`` on roll; False when it plays as money."""
        nn = self._nn
        if not self._uses_match_table(match):
            nn.set.score(0, 0)
            nn.set.cube(1)
            return False
        us, them = match.away(me), match.away(1 - me)
        crawford = int(match.crawford and (us == 1) != (them == 1))
        nn.set.score(us, them, crawford)
        if match.cube_value > 1 and match.cube_owner in (0, 1):
            nn.set.cube(match.cube_value, b"O" if match.cube_owner == me else b"X")
        else:
            nn.set.cube(1)
        return True

    # ------------------------------------------------------------ decisions

    def choose_move(self, position: Position | str, dice: Dice | str | tuple[int, int],
                    match: MatchState | None = None) -> Move:
        """gnubg's play at :attr:`ply` for ``dice``; ``position`` has this bot on roll."""
        position, dice = parse_position(position)[0], Dice.of(dice)
        if position.is_over():
            raise InvalidPositionError(f"the game in {position.id()!r} is over: there is no play to choose")
        match = match or MatchState()
        legal = position.legal_moves(dice.high, dice.low)
        if len(legal) == 1:
            return legal[0]
        self._set_scene(match, match.player_on_roll)
        _steps, key = self._nn.best_move(position.board, dice.high, dice.low, n=self.ply, b=1)
        after = Position.from_board(self._nn.board_from_position_key(key)).swap_sides()
        for move in legal:
            if move.position == after:
                return move
        raise AssertionError(f"gnubg_nn chose a play to {after.id()} that is not legal "
                             f"for {dice} in {position.id()}")

    def _decision(self, position: Position, match: MatchState, doubler: int) -> tuple[float, float, float]:
        """``(no double, double/take, double/pass)`` for ``doubler`` on roll in ``position``.

        Match play: match winning chances; money play: equities per unit cube.
        """
        nn = self._nn
        if self._set_scene(match, doubler):
            key = nn.key_of_board(position.board)
            _d, _t, _tg, nd, dt, dp = nn.evaluate_cube_decision(key, n=self.ply, v=self.ply, s=b"O", i=1)
            return nd, dt, dp
        probs = nn.probabilities(position.board, self.ply)
        decision = _cube_math.decide(probs, owner=match.cube_owner, doubler=doubler, x=self.cube_efficiency,
                                     jacoby=match.jacoby)
        return decision.no_double, decision.double_take, decision.double_pass

    def should_double(self, position: Position, match: MatchState) -> bool:
        """Double when both answers to it beat playing on (gnubg's match-play verdict)."""
        if self.cube == "never":
            return False
        nd, dt, dp = self._decision(position, match, match.player_on_roll)
        return min(dt, dp) > nd

    def accept_double(self, position: Position, match: MatchState) -> CubeResponse:
        """Take when the doubler gains no more from a take than from a pass; ``position`` has
        the doubler on roll."""
        if self.cube == "never":
            return CubeResponse.TAKE
        _nd, dt, dp = self._decision(position, match, match.player_on_roll)
        return CubeResponse.TAKE if dt <= dp else CubeResponse.PASS
