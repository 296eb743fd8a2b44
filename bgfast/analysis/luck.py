"""The luck of a roll at the score: the value after the best play of the roll rolled
minus its average over the 36 rolls (GNU Backgammon's ``LuckNormal``).

A roll's value is the equity of its best play by :func:`~bgfast.analysis.plays.rank_situation`,
the mover's view, at the score: money play the cubeless equity per unit of the cube, match
play the cubeful EMG (what ``bgfast hint`` ranks by).  gnubg measures luck at 0 ply
whatever the analysis's depth (its ``ecLuck``), and so does :func:`roll_luck` with the
judge's bot.  On the opening roll (the starting position, no double) the average is over
the 30 rolls that are not doubles, half of them played by the opponent (their value from
the opponent's view, negated: EMG and money equity are symmetric), as gnubg's ``LuckFirst``.

>>> from bgfast.analysis.judge import Judge
>>> from bgfast.analysis.situation import Situation
>>> from bgfast.dice import Dice
>>> s = Situation.read("4HPwATDgc/ABMA")
>>> round(roll_luck(s, Dice(6, 6), Judge.of("neural")), 3) > 0.3      # 66 is a lucky roll
True
"""
from __future__ import annotations

import dataclasses

from bgfast.analysis.judge import Judge
from bgfast.analysis.plays import rank_situation
from bgfast.analysis.situation import Situation
from bgfast.dice import ALL_21, Dice

__all__ = ["LUCK_PLY", "roll_luck", "roll_values"]

LUCK_PLY = 0
"""The depth luck is measured at (gnubg's ``ecLuck``: 0 ply)."""


def roll_values(situation: Situation, judge: Judge) -> dict[Dice, float]:
    """The value of each of the 21 rolls for the side on roll in ``situation``: the equity
    of its best play at :data:`LUCK_PLY` (see the module's docstring)."""
    at = Judge(judge.bot, LUCK_PLY)
    return {roll: rank_situation(situation, roll, at).plays[0].equity for roll in ALL_21}


def roll_luck(situation: Situation, roll: Dice, judge: Judge, *, opening: bool = False) -> float:
    """The luck of ``roll`` for the side on roll in ``situation`` (its view, the unit of
    :func:`roll_values`): its value less the average over the 36 rolls, or with
    ``opening``, over the 30 opening rolls either side may play.

    :raises ValueError: ``opening`` and a double (no opening roll is one).
    """
    mine = roll_values(situation, judge)
    if not opening:
        mean = sum(v * (1 if r.is_double else 2) for r, v in mine.items()) / 36.0
        return mine[roll] - mean
    if roll.is_double:
        raise ValueError(f"an opening roll is never a double, got {roll}")
    m = situation.match
    theirs = roll_values(dataclasses.replace(situation, match=dataclasses.replace(
        m, player_on_roll=1 - m.player_on_roll, turn=1 - m.player_on_roll)), judge)
    total = sum(mine[r] - theirs[r] for r in ALL_21 if not r.is_double)
    return mine[roll] - total / 30.0
