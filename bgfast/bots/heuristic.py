"""The heuristic bot: a hand-written evaluator in the compiled core, with cube play.

See :mod:`bgfast._core.heuristic` for the features and :mod:`bgfast._core.cube`
for the cube policies.
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from typing import ClassVar

from bgfast._core.evaluator import CoreEvaluator
from bgfast._core.game import PlayKind
from bgfast._core.heuristic import DEFAULT_BLEND, DEFAULT_FILTER, FILTER_MAX, HeuristicWeights
from bgfast.bots.base import CoreBot
from bgfast.errors import InvalidBotOptionsError, InvalidPositionError, UnknownBotError
from bgfast.evaluator import heuristic_evaluator, heuristic_weights
from bgfast.formats.text import parse_position
from bgfast.position import Position
from bgfast.probabilities import Probabilities
from bgfast.validation import real_number, whole_number

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
    :mod:`bgfast._core.cube`.  ``cube_efficiency`` is Janowski's ``x`` (0.68); at 1
    (a perfectly efficient cube, which loses nothing by waiting) the model has no
    doubling window, so the bot never doubles in money play.

    Evaluator settings, this bot's own (:func:`bgfast.evaluator.heuristic_evaluator`):
    ``weights`` (a weights file, see :func:`bgfast.evaluator.heuristic_weights`, or
    :class:`~bgfast._core.heuristic.HeuristicWeights`; the shipped weights by default),
    ``filter`` (pubeval's best plays evaluated a roll, 5; 0 = every play) and ``blend``
    (the weight of pubeval's score, 0.03).
    Measured (paired, seed 21, no Jacoby rule): in money play ``auto`` wins +0.369 +- 0.006
    points per game against the same bot with ``cube="never"`` (8,000 games);
    in 7-point matches it wins 53.1% +- 0.8% against ``cube="janowski"`` and
    65.8% +- 0.6% against ``cube="never"`` (3,000 matches each).

    Strength: +0.311 +- 0.004 points per game against pubeval in cubeless
    money play (gammons count, no Jacoby rule), 100,000 games (50,000 pairs with
    the same dice and the seats swapped, seed 1; seed 2 gives +0.317 +- 0.004),
    measured with ``bgfast tournament tournaments/vs_pubeval.toml`` (or
    :func:`bgfast.tournament.pairs.ppg_against`).  Cost: about 2.6 times pubeval's per game of self-play (see
    ``benchmarks/bench_heuristic.py``).

    >>> bot = HeuristicBot()
    >>> p = bot.evaluate(Position())
    >>> 0.45 < p.win < 0.6 and p.win_gammon < p.win
    True
    """

    name: ClassVar[str] = "heuristic"
    play_kind: ClassVar[PlayKind] = PlayKind.PLAY_EVALUATOR
    cube_policies: ClassVar[tuple[str, ...]] = ("auto", "janowski", "met", "keith", "never")
    default_cube: ClassVar[str] = "auto"

    def __init__(self, cube: str | None = None, cube_efficiency: float = 0.68, seed: int = 0, *,
                 weights: str | os.PathLike[str] | HeuristicWeights | None = None,
                 filter: int = DEFAULT_FILTER, blend: float = DEFAULT_BLEND) -> None:
        """:raises UnknownBotError: a bad option. :raises InvalidWeightsError: weights that
        cannot be read or do not fit."""
        super().__init__(cube, cube_efficiency, seed)
        self.filter = whole_number(filter, "filter", low=0, high=FILTER_MAX, error=InvalidBotOptionsError)
        self.blend = real_number(blend, "blend", low=0.0, high=1.0, error=InvalidBotOptionsError)
        if weights is not None and not isinstance(weights, (str, os.PathLike, HeuristicWeights)):
            raise InvalidBotOptionsError(f"weights must be a file path or HeuristicWeights, got {weights!r}")
        self.weights = weights
        table = weights if isinstance(weights, HeuristicWeights) or weights is None else heuristic_weights(weights)
        self._evaluator = heuristic_evaluator(table, filter=self.filter, blend=self.blend)

    def options(self) -> Mapping[str, object]:
        """The options that rebuild this bot with :func:`bgfast.bots.get_bot`."""
        extra: dict[str, object] = {}
        if self.weights is not None:
            extra["weights"] = self.weights
        if self.filter != DEFAULT_FILTER:
            extra["filter"] = self.filter
        if self.blend != DEFAULT_BLEND:
            extra["blend"] = self.blend
        return {**super().options(), **extra}

    @property
    def evaluator(self) -> CoreEvaluator:
        """This bot's evaluator: its checker play, cube estimates and luck measure."""
        return self._evaluator

    def evaluate(self, position: Position | str, plies: int = 0) -> Probabilities:
        """Cubeless probabilities for the side on roll in ``position``, before its roll.

        :param plies: 0 evaluates the position as the opponent's after its play
            (one evaluation); 1 averages the best play's evaluation over the
            21 rolls (about 21 times the work, more accurate).
        :raises InvalidBotOptionsError: ``plies`` other than 0 or 1.
        :raises InvalidPositionError: the game in ``position`` is already over.

        >>> from bgfast.position import Position
        >>> bot = HeuristicBot()
        >>> won = Position.from_board([[0] * 12 + [15] + [0] * 12, [1] + [0] * 24])  # last checker, any roll
        >>> bot.evaluate(won)
        Probabilities(win=1.0, win_gammon=1.0, win_backgammon=0.0, lose_gammon=0.0, lose_backgammon=0.0)
        """
        position = parse_position(position)[0]
        if plies not in (0, 1):
            raise InvalidBotOptionsError(f"the heuristic bot evaluates at 0 or 1 ply: plies must be 0 or 1, "
                                         f"got {plies!r}")
        if position.is_over():
            raise InvalidPositionError(f"the game in {position.id()!r} is over; nothing to evaluate")
        return Probabilities(*self._evaluator.on_roll(position.to_bytes(), plies))

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
        return Probabilities(*self._evaluator.after(parse_position(position)[0].to_bytes()))
