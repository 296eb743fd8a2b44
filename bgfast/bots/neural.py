"""The neural bot: bgfast's own net, trained by its own self-play (see :mod:`bgfast.train`).

The evaluator is :mod:`bgfast._core.neural` (a contact net and a race net over
TD-Gammon-style point codes and the heuristic's hand-made features, the one-sided
bear-off database of :mod:`bgfast._core.bearoff` in pure bear-offs); the shipped
weights and how they were made are described in ``bgfast/data/weights/neural.md``.
"""
from __future__ import annotations

import os
from functools import lru_cache
from typing import ClassVar

from bgfast._core import cube as _cube
from bgfast._core import neural as _neural
from bgfast.bots.base import Bot, CubeResponse, Probabilities
from bgfast.formats.text import parse_position
from bgfast.bots.neural_weights import Weights, default_weights_path, read_weights
from bgfast.dice import Dice
from bgfast.errors import InvalidPositionError, UnknownBotError
from bgfast.match import MatchEquityTable, MatchState
from bgfast.position import Move, Position
from bgfast.validation import one_of, real_number, whole_number

__all__ = ["NeuralBot", "shipped_weights"]

PLIES = (0, 1)
"""Look-ahead depths, in gnubg's numbering: 0 = the bare net, 1 = the average over the
opponent's 21 rolls of its best 0-ply reply."""


@lru_cache(maxsize=1)
def shipped_weights() -> Weights:
    """The weights shipped in ``bgfast/data/weights/neural.bgw`` (read once).

    :raises InvalidWeightsError: a damaged file.
    """
    return read_weights(default_weights_path())


def _met_arrays(met: MatchEquityTable, size: int = 64) -> tuple[list[list[float]], list[float]]:
    from bgfast.game import _met_arrays as arrays

    return arrays(met, size)


class NeuralBot(Bot):
    """Plays by bgfast's neural net; doubles and takes from its probabilities.

    :param ply: 0 (the net picks the play whose resulting position it values best for
        the mover) or 1 (the best 8 plays at 0 ply within 0.16 of the best, gnubg's
        move filter, are valued by the average over the opponent's 21 rolls of its
        best 0-ply reply).
    :param cube: ``"auto"`` (Janowski in money play, the match equity table in match
        play), ``"janowski"``, ``"met"`` or ``"never"`` (never doubles, always takes).
    :param weights: None (the shipped net), a path to a weights file, or
        :class:`~bgfast.bots.neural_weights.Weights`.
    :param cube_efficiency: Janowski's ``x`` (0.68).
    :raises UnknownBotError: a bad option. :raises InvalidWeightsError: a bad weights file.

    Strength of the shipped net (1.3 million self-play games; cubeless money, no Jacoby
    rule, paired dice): +0.567 +- 0.009 points per game against pubeval over 20,000 games
    (``python tools/ppg_vs_pubeval.py --bot neural --games 20000 --seed 1``), and
    -0.072 +- 0.016 against gnubg 0-ply over 6,000; see ``bgfast/data/weights/neural.md``
    for the learning curve.
    Until the game loop has a neural evaluator kind, the bot plays through the loop's
    Python-bot path (each decision a call into the core from Python).

    >>> bot = NeuralBot(cube="never")
    >>> p = bot.evaluate(Position())
    >>> 0.45 < p.win < 0.6 and p.win_backgammon <= p.win_gammon <= p.win
    True
    """

    name: ClassVar[str] = "neural"
    cube_policies: ClassVar[tuple[str, ...]] = ("auto", "janowski", "met", "never")

    def __init__(self, ply: int = 0, cube: str = "auto", weights: Weights | str | os.PathLike[str] | None = None,
                 cube_efficiency: float = 0.68) -> None:
        self.ply = whole_number(ply, "ply", low=0, high=1, error=UnknownBotError)
        self.cube = str(one_of(cube, "cube", self.cube_policies, error=UnknownBotError))
        self.cube_efficiency = real_number(cube_efficiency, "cube_efficiency", low=0.0, high=1.0,
                                           error=UnknownBotError)
        if weights is None:
            self.weights = shipped_weights()
        elif isinstance(weights, Weights):
            self.weights = weights
        else:
            self.weights = read_weights(weights)
        self.model = self.weights.model()

    def options(self) -> dict[str, object]:
        """The options that rebuild this bot with :func:`bgfast.bots.get_bot` (shipped weights)."""
        return {"ply": self.ply, "cube": self.cube, "cube_efficiency": self.cube_efficiency}

    def evaluate(self, position: Position | str, plies: int | None = None) -> Probabilities:
        """Cubeless probabilities of the side on roll in ``position``, before its roll.

        :param plies: 0 or 1 (default: the bot's ``ply``).
        :raises InvalidPositionError: a malformed position or a finished game.
        """
        position = parse_position(position)[0]
        plies = self.ply if plies is None else whole_number(plies, "plies", low=0, high=1)
        if position.is_over():
            raise InvalidPositionError(f"the game in {position.id()!r} is over; nothing to evaluate")
        return Probabilities(*self.model.evaluate(position.to_bytes(), plies))

    def evaluate_after(self, position: Position | str) -> Probabilities:
        """Cubeless probabilities of the side that has just *moved* to ``position`` (the
        mover is the side "on roll" of ``position``, as :meth:`Position.children` gives it)."""
        return Probabilities(*self.model.evaluate_after(parse_position(position)[0]._key))

    def choose_move(self, position: Position | str, dice: Dice | str | tuple[int, int],
                    match: MatchState | None = None) -> Move:
        """The play the net picks at the bot's ply (cubeless: the score is not used).

        :raises InvalidPositionError: a malformed position or a finished game.
        :raises InvalidDiceError: bad dice.
        """
        position, dice = parse_position(position)[0], Dice.of(dice)
        if position.is_over():
            raise InvalidPositionError(f"the game in {position.id()!r} is over: there is no play to choose")
        target = Position.from_bytes(self.model.choose(position.to_bytes(), dice.high, dice.low, self.ply))
        for move in position.legal_moves(dice.high, dice.low):
            if move.position == target:
                return move
        raise AssertionError("the net chose a play that legal_moves does not list")

    def _decide(self, position: Position, match: MatchState, doubler: int) -> tuple[bool, int]:
        probs = self.model.evaluate(position.to_bytes(), self.ply)
        length = match.length
        if self.cube == "janowski":
            length = 0
        kwargs: dict[str, object] = {}
        if length:
            kwargs = {"doubler_away": length - match.score[doubler],
                      "taker_away": length - match.score[1 - doubler],
                      "met": _met_arrays(MatchEquityTable.load()),
                      "post_crawford": not match.crawford and max(match.score) == length - 1}
        dbl, resp, _, _, _ = _cube.decide(probs, x=self.cube_efficiency, length=length,
                                          cube=match.cube_value, centred=match.cube_owner == -1,
                                          jacoby=match.jacoby, **kwargs)  # type: ignore[arg-type]
        return dbl, resp

    def should_double(self, position: Position | str, match: MatchState) -> bool:
        """Whether to double; ``position`` has this bot on roll (the net's value at its ply)."""
        if self.cube == "never":
            return False
        return self._decide(parse_position(position)[0], match, match.player_on_roll)[0]

    def accept_double(self, position: Position | str, match: MatchState) -> CubeResponse:
        """Take or pass; ``position`` has the doubler on roll."""
        if self.cube == "never":
            return CubeResponse.TAKE
        resp = self._decide(parse_position(position)[0], match, match.player_on_roll)[1]
        return CubeResponse.PASS if resp == 0 else CubeResponse.TAKE
