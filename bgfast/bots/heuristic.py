"""The heuristic bot: a hand-written evaluator in the compiled core, with cube play.

See :mod:`bgfast._core.heuristic` for the features and :mod:`bgfast._core.cube`
for the cube policies.
"""
from __future__ import annotations

from typing import ClassVar

from bgfast._core import heuristic as _heuristic
from bgfast.bots.base import CoreBot, Probabilities
from bgfast.errors import InvalidPositionError
from bgfast.formats.text import parse_position
from bgfast.position import Position

__all__ = ["HeuristicBot"]


class HeuristicBot(CoreBot):
    """Plays by a hand-written evaluator; doubles and takes from its win and gammon estimates.

    Checker play, 0 ply (no look-ahead): pubeval's five best plays of the roll
    (a move filter) are evaluated by the heuristic evaluator and the one with the
    highest cubeless money equity plus 0.03 times its pubeval score is played.
    The evaluator estimates win, gammon and backgammon chances from hand-written
    features (pip counts and race lead, blots and the rolls of 36 that hit them,
    points made by location, primes and trapped checkers, escapes, anchors, home
    board strength, checkers on the bar), with weights per class of position
    (contact, race, bearing in, holding) fitted to pubeval self-play results; see
    :mod:`bgfast._core.heuristic`.

    Cube (``cube=``): ``"auto"`` (the default) uses Janowski's cubeful equities
    in money play and the match equity table in match play (the same kind as
    ``"met"``); ``"janowski"`` uses Janowski at every score; ``"keith"`` and
    ``"never"`` as for :class:`~bgfast.bots.builtin.PubevalBot`.  Cube
    estimates are 1-ply, the average over the 21 rolls of the best play's
    probabilities (a 0-ply look screens out clear no-doubles); see
    :mod:`bgfast._core.cube`.  ``cube_efficiency`` is Janowski's ``x`` (0.68).
    Measured (paired, seed 21): in money play ``auto`` wins +0.379 +- 0.006
    points per game against the same bot with ``cube="never"`` (8,000 games);
    in 7-point matches it wins 53.2% +- 0.8% against ``cube="janowski"`` and
    66.0% +- 0.6% against ``cube="never"`` (3,000 matches each).

    Strength: +0.311 +- 0.004 points per game against pubeval in cubeless
    money play (gammons count, no Jacoby rule), 100,000 games (50,000 pairs with
    the same dice and the seats swapped, seed 1; seed 2 gives +0.317 +- 0.004),
    measured with ``python tools/ppg_vs_pubeval.py --bot heuristic --games 100000
    --seed 1``.  Cost: about 2.6 times pubeval's per game of self-play (see
    ``benchmarks/bench_heuristic.py``).

    >>> bot = HeuristicBot()
    >>> p = bot.evaluate(Position())
    >>> 0.45 < p.win < 0.6 and p.win_gammon < p.win
    True
    """

    name: ClassVar[str] = "heuristic"
    play_kind: ClassVar[str] = "heuristic"
    cube_policies: ClassVar[tuple[str, ...]] = ("auto", "janowski", "met", "keith", "never")
    default_cube: ClassVar[str] = "auto"

    def evaluate(self, position: Position | str, plies: int = 0) -> Probabilities:
        """Cubeless probabilities for the side on roll in ``position``, before its roll.

        :param plies: 0 evaluates the position as the opponent's after its play
            (one evaluation); 1 averages the best play's evaluation over the
            21 rolls (about 21 times the work, more accurate).
        :raises ValueError: ``plies`` other than 0 or 1.
        :raises InvalidPositionError: the game in ``position`` is already over.

        >>> from bgfast.position import Position
        >>> bot = HeuristicBot()
        >>> won = Position.from_board([[0] * 12 + [15] + [0] * 12, [1] + [0] * 24])  # last checker, any roll
        >>> bot.evaluate(won)
        Probabilities(win=1.0, win_gammon=1.0, win_backgammon=0.0, lose_gammon=0.0, lose_backgammon=0.0)
        """
        position = parse_position(position)[0]
        if plies not in (0, 1):
            raise ValueError(f"plies must be 0 or 1, got {plies!r}")
        if position.is_over():
            raise InvalidPositionError(f"the game in {position.id()!r} is over; nothing to evaluate")
        return Probabilities(*_heuristic.evaluate_on_roll(position._key, plies))

    def evaluate_after(self, position: Position | str) -> Probabilities:
        """Cubeless probabilities for the side that has just *moved* to ``position``.

        ``position`` is in the mover's frame (as :meth:`Position.children`
        returns it): the mover is the side "on roll" of ``position`` and the
        opponent rolls next.  This is what checker play maximises.

        >>> from bgfast.position import Position
        >>> start = Position()
        >>> best = max(start.children(3, 1), key=lambda c: HeuristicBot().evaluate_after(c).equity())
        >>> best == start.parse_move("8/5 6/5", (3, 1)).position
        True
        """
        return Probabilities(*_heuristic.evaluate_after(parse_position(position)[0]._key))
