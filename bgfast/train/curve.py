"""The learning curve: a net's points per game against a fixed opponent, paired games.

Game ``i`` of the evaluation run is played twice on the same dice, the net in
seat 0 and then in seat 1 (cubeless money, no Jacoby rule, gammons and
backgammons count); a pair's result is the mean of the two, and the standard
error is that of the mean over pairs (:func:`bgfast.rollout.stats.estimate_paired`, the
estimator a tournament's paired figures agree with).  The games are played in the core
(:meth:`bgfast._core.training.SelfPlay.versus`, on the C game loop) on the dice that
:class:`bgfast.game.MatchPlayer` would roll for the same seed and index, so the
figure is the one the tournament tools measure (``tests/test_neural.py`` checks
that they agree game by game).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from bgfast._core import neural as _neural
from bgfast.rollout.stats import estimate_paired
from bgfast.train.config import self_play

__all__ = ["CurvePoint", "paired_ppg"]


def paired_ppg(model: _neural.Model, opponent: str = "pubeval", *, seed: int = 99, pairs: int = 5000,
               first: int = 0) -> tuple[float, float]:
    """``(ppg, standard error)`` of ``model`` at 0 ply against ``opponent`` (a name of
    :data:`bgfast._core.training.PLAYERS`) over ``pairs`` paired games from game ``first``
    (the bot at 1 ply plays through the game loop: ``get_bot("neural", ply=1)``); with
    fewer than two pairs the error is NaN."""
    games = self_play(model)
    as_first, _ = games.versus("neural", opponent, seed, first, pairs)    # seat 0's points
    as_second, _ = games.versus(opponent, "neural", seed, first, pairs)   # the opponent's, in seat 0
    return estimate_paired(as_first, -as_second)


@dataclass(frozen=True)
class CurvePoint:
    """One point of the learning curve.

    :ivar games: self-play games trained on; :ivar positions: positions trained (contact, race;
        the contact figures here and in ``mse`` are of the contact, backgame and crashed nets together).
    :ivar ppg: points per game against pubeval; :ivar se: its standard error; :ivar pairs: pairs played.
    :ivar lr: the learning rate then; :ivar mse: mean squared TD error of the win output (contact,
        race) over the last chunk; :ivar seconds: training wall time so far.
    :ivar averaged: the net measured is the moving average of the weights (see
        :attr:`~bgfast.train.config.TrainConfig.average_games`), not the last weights.
    """

    games: int
    positions: tuple[int, int]
    ppg: float
    se: float
    pairs: int
    lr: float
    mse: tuple[float, float]
    seconds: float
    averaged: bool = False

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def text(self) -> str:
        return (f"games {self.games:>9,}  vs pubeval {self.ppg:+.3f} +- {self.se:.3f} ({self.pairs} pairs)"
                f"  lr {self.lr:.4f}  mse {self.mse[0]:.4f}/{self.mse[1]:.4f}  {self.seconds:,.0f} s"
                + ("  (averaged)" if self.averaged else ""))
