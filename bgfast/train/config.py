"""The settings of a training run and its learning-rate schedule."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from collections.abc import Collection, Mapping
from typing import Any

from bgfast._core.neural import Model
from bgfast._core.training import SelfPlay
from bgfast.errors import InvalidSpecError
from bgfast.position import VARIANTS
from bgfast.validation import real_number, whole_number

__all__ = ["RESUMABLE", "TrainConfig", "changed_settings", "flag", "self_play"]

RESUMABLE = ("games", "average_games")
"""Settings that a resumed run may change: they do not change the net trained so far."""


def self_play(model: Model, variant: str = "standard") -> SelfPlay:
    """``model``'s games on the C game loop from the starting position of ``variant`` (a name
    of :data:`bgfast.position.VARIANTS`), and the training data they make: TD(lambda), the
    positions and candidate plays of supervised training, games against pubeval
    (:class:`bgfast._core.training.SelfPlay`).  The nets are trained and measured on
    standard backgammon.

    :raises KeyError: an unknown variant.
    """
    return SelfPlay(model, VARIANTS[variant][1])


def flag(setting: str) -> str:
    """The command-line flag of a config setting: ``lr_half_games`` -> ``--lr-half-games``."""
    return "--" + setting.replace("_", "-")


def changed_settings(saved: Mapping[str, Any], given: Mapping[str, Any], resumable: Collection[str]) -> list[str]:
    """The settings of ``given`` that differ from a run folder's ``saved`` ones, but for the
    ``resumable`` ones (which do not change the net), each as ``--flag: saved -> given``."""
    return [f"{flag(name)}: {saved.get(name)!r} -> {value!r}" for name, value in given.items()
            if name not in resumable and saved.get(name) != value]


@dataclass(frozen=True)
class TrainConfig:
    """One TD(lambda) self-play run; the same config gives the same net.

    :ivar seed: the run seed: game ``i`` is played on the dice of game ``i`` of this run.
    :ivar games: self-play games to play in all.
    :ivar contact_hidden: hidden units of the contact net.
    :ivar race_hidden: hidden units of the race net.
    :ivar init_seed: seed of the initial random weights (normal, ``init_scale`` deviation).
    :ivar init_scale: the deviation of the initial random weights.
    :ivar lam: TD's lambda (0 = one-step TD, 1 = the game's result).
    :ivar lr: the learning rate at the start; it decays as ``lr / (1 + games / lr_half_games)``
        (halved after ``lr_half_games``), never below ``lr_min``; the race net's is
        ``race_lr_factor`` times the contact net's.
    :ivar lr_half_games: games after which the learning rate is halved (see ``lr``).
    :ivar lr_min: the learning rate's floor.
    :ivar race_lr_factor: the race net's learning rate over the contact net's.
    :ivar chunk: games per call into the core (the learning rate is constant within one).
    :ivar eval_every: games between two points of the learning curve.
    :ivar eval_pairs: paired games against pubeval per point (dice of run ``eval_seed``).
    :ivar eval_seed: the run seed of the learning curve's games.
    :ivar checkpoint_seconds: wall time between checkpoints (written at a chunk's end).
    :ivar workers: threads playing self-play games.  With 1, each game's updates are made
        right after it (the net plays game ``i + 1`` with what it learnt from game ``i``).
        With more, the games are played in rounds of ``workers * round_games``: every worker
        plays its ``round_games`` games with the weights of the round's start, then their
        positions are trained on in worker order, so the net depends on the worker count
        but not on the threads' timing.
    :ivar round_games: games a worker plays a round (``workers`` > 1 only).
    :ivar start: "" (random starting weights), or the SHA-256 (hex) of a weights file the run
        starts from (:func:`bgfast.train.td.start_weights`: a net with fewer hidden units is
        widened, its function kept, the new units' input weights drawn as ``init_seed`` /
        ``init_scale`` say and their output weights 0); the run folder keeps a copy
        (``start.bgw``), so the run is reproduced from its folder.
    :ivar average_games: 0, or the time constant, in games, of an exponential moving average of
        the weights (Polyak averaging), updated after each chunk: the average is what the
        learning curve measures and what ``best.bgw`` keeps; it smooths out the noise that
        SGD steps leave in the net.  Training itself does not use it, so it may change when a
        run resumes (as ``games`` may).
    """

    seed: int = 1
    games: int = 1_000_000
    contact_hidden: int = 128
    race_hidden: int = 64
    init_seed: int = 1
    init_scale: float = 0.1
    lam: float = 0.7
    lr: float = 0.03
    lr_half_games: int = 500_000
    lr_min: float = 0.002
    race_lr_factor: float = 1.0
    chunk: int = 1000
    eval_every: int = 20_000
    eval_pairs: int = 5000
    eval_seed: int = 99
    checkpoint_seconds: float = 300.0
    workers: int = 1
    round_games: int = 4
    average_games: int = 0
    start: str = ""

    def __post_init__(self) -> None:
        for name in ("seed", "init_seed", "eval_seed"):
            whole_number(getattr(self, name), name, low=0, error=InvalidSpecError)
        for name in ("games", "lr_half_games", "average_games"):
            whole_number(getattr(self, name), name, low=0, error=InvalidSpecError)
        for name in ("chunk", "eval_every", "eval_pairs", "workers", "round_games"):
            whole_number(getattr(self, name), name, low=1, error=InvalidSpecError)
        for name in ("contact_hidden", "race_hidden"):
            h = whole_number(getattr(self, name), name, low=8, high=512, error=InvalidSpecError)
            if h % 8:
                raise InvalidSpecError(f"{name} must be a multiple of 8, got {h}")
        if self.workers > 1:
            size = self.workers * self.round_games
            for name in ("chunk", "eval_every", "games"):
                if getattr(self, name) % size:
                    raise InvalidSpecError(f"with {self.workers} workers of {self.round_games} games a round, "
                                           f"{name} must be a multiple of {size}, got {getattr(self, name)}")
        if self.start and (len(self.start) != 64 or any(c not in "0123456789abcdef" for c in self.start)):
            raise InvalidSpecError(f"start must be a weights file's SHA-256 in hex, got {self.start!r}")
        real_number(self.lam, "lam", low=0.0, high=1.0, error=InvalidSpecError)
        for name in ("lr", "lr_min", "race_lr_factor", "init_scale", "checkpoint_seconds"):
            real_number(getattr(self, name), name, low=0.0, error=InvalidSpecError)

    def learning_rate(self, games: int) -> float:
        """The contact net's learning rate for the chunk that starts after ``games`` games."""
        rate = self.lr / (1.0 + games / self.lr_half_games) if self.lr_half_games else self.lr
        return max(rate, self.lr_min)

    def same_run(self, other: TrainConfig) -> bool:
        """Whether ``other`` trains the same net (it may differ in ``RESUMABLE`` settings only)."""
        mine, theirs = self.to_dict(), other.to_dict()
        return all(mine[k] == theirs[k] for k in mine if k not in RESUMABLE)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TrainConfig:
        """The config of ``data`` (as :meth:`to_dict` writes it).

        :raises InvalidSpecError: an unknown key or a bad value.
        """
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise InvalidSpecError(f"unknown training settings {sorted(unknown)}; known: {sorted(known)}")
        return cls(**data)
