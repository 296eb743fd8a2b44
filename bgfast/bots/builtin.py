"""The built-in bots whose every decision runs in the C core.

Strength figures are measured with ``bgfast`` itself (cubeless money games,
paired dice, seed 1) and quoted with one standard error.
"""
from __future__ import annotations

from typing import ClassVar

from bgfast._core.game import PlayKind
from bgfast.bots.base import CoreBot

__all__ = ["RandomBot", "PubevalBot"]


class RandomBot(CoreBot):
    """Plays uniformly at random among the distinct legal resulting positions.

    Never doubles, always takes.  Its random choices come from the player's own
    seeded stream, separate from the dice, so paired matches keep the same dice.
    In a match (and a rollout's trial) that stream is the match's (run seed, match
    index, seat), moved to another by the ``seed`` option when it is not 0, so every
    match replays exactly and ``random:seed=5`` plays other moves than ``random`` on
    the same dice; standalone :meth:`choose_move` calls are seeded by ``seed`` alone.

    Strength: -2.52 +/- 0.01 points per game against cubeless ``pubeval`` (5000 paired
    cubeless money games without the Jacoby rule, seed 1; gammons are most of the loss).
    """

    name: ClassVar[str] = "random"
    play_kind: ClassVar[PlayKind] = PlayKind.PLAY_RANDOM
    cube_policies: ClassVar[tuple[str, ...]] = ("never",)
    default_cube: ClassVar[str] = "never"


class PubevalBot(CoreBot):
    """Tesauro's public evaluation function, the field's standard yardstick.

    Checker play: the play whose resulting position has the highest pubeval
    score (G. Tesauro, ``pubeval.c``, 1993, with its published race and
    contact weights).  Cube (``cube="keith"``, the default): in races, doubles
    and takes by the Keith count (double when the on-roll count x 8/7 exceeds
    the opponent's by at most 4, redouble at most 3; take when the doubler's
    adjusted count exceeds the taker's by at least 2); in contact never doubles
    and always takes.  ``cube="never"`` plays cubeless.
    """

    name: ClassVar[str] = "pubeval"
    play_kind: ClassVar[PlayKind] = PlayKind.PLAY_PUBEVAL
    cube_policies: ClassVar[tuple[str, ...]] = ("never", "keith")
    default_cube: ClassVar[str] = "keith"
