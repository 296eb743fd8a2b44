"""Position classes: the named kinds of position an evaluator is measured on.

:func:`classify` puts a :class:`~bgfast.position.Position` in exactly one
:class:`PositionClass`, trying the classes in this order and taking the first that fits
(so a crashed back game is a back game, and a crashed bear-off a crashed position):

1. ``race``: no contact left (:meth:`Position.is_race`).
2. ``back_game``: a side holds two or more points (two or more checkers each) in its
   opponent's home board (its own points 19-24) and trails the race by at least
   :data:`BACK_GAME_PIP_DEFICIT` pips (its pip count minus the opponent's).  The usual
   book definition (Robertie, *Backgammon for Serious Players*, ch. "The back game":
   two anchors deep in the opponent's board and far behind in the race); the threshold
   is this module's choice.
3. ``crashed``: a side whose checkers still in play, not counting the dead ones piled
   on its ace (and deuce) point, number :data:`CRASHED_CHECKERS` (6) or fewer: its
   checkers on the board number 6 or fewer; or its ace point holds two or more and the
   others number 6 or fewer; or its ace and deuce points both hold two or more and the
   others, plus one, number 6 or fewer; or its ace point holds at most one and the
   others, its deuce point's first checker counted, number 6 or fewer.  The rule of
   GNU Backgammon's crashed class (``eval.c``, ``ClassifyPosition``), written out here
   in words so that "crashed" means the positions gnubg gives its crashed net (and
   bgfast's neural bot its own crashed net, ``bgfast/_core/neural.pyx``).
4. ``bearoff_contact``: contact remains and a side has all its checkers on the board
   in its home board (points 1-6), so it is bearing in or off past the other's
   checkers (the other side still has checkers back, or on the bar).
5. ``prime_vs_prime``: each side holds a prime of :data:`PRIME_LENGTH` (4) or more
   consecutive made points (two or more checkers each) and has a checker (or one on
   the bar) behind the other's prime, so both have checkers trapped.
6. ``contact``: every other position with contact.

Every class but ``race`` is about both sides alike, so a position and its
:meth:`~Position.swap_sides` are in the same class.

>>> from bgfast.position import Position
>>> classify(Position()).value
'contact'
>>> back_game = Position.from_board([[2, 2, 0, 3, 0, 3, 2, 3] + [0] * 17,
...                                  [0] * 5 + [5, 0, 3] + [0] * 4 + [3] + [0] * 6 + [2, 0, 2, 0, 0, 0]])
>>> classify(back_game).value, classify(back_game.swap_sides()).value
('back_game', 'back_game')
"""
from __future__ import annotations

from collections.abc import Sequence
from enum import Enum

from bgfast.position import Position

__all__ = [
    "BACK_GAME_PIP_DEFICIT", "CRASHED_CHECKERS", "PRIME_LENGTH", "PositionClass", "classify",
    "has_crashed", "holds_back_game", "longest_prime",
]

BACK_GAME_PIP_DEFICIT = 40
"""The race deficit (pips) from which a side anchored twice in the opponent's board plays a back game."""

CRASHED_CHECKERS = 6
"""gnubg's bound: a side with this many checkers or fewer still in play has crashed."""

PRIME_LENGTH = 4
"""The shortest prime (consecutive made points) of a prime-versus-prime position."""


class PositionClass(str, Enum):
    """The classes of :func:`classify`, in the order it tries them (see the module docstring)."""

    RACE = "race"
    BACK_GAME = "back_game"
    CRASHED = "crashed"
    BEAROFF_CONTACT = "bearoff_contact"
    PRIME_VS_PRIME = "prime_vs_prime"
    CONTACT = "contact"


def has_crashed(side: Sequence[int]) -> bool:
    """Whether a side's 25 counts (own view, index ``i`` = point ``i + 1``, 24 = bar) have
    crashed by gnubg's rule (the module docstring, class 3)."""
    on_board = sum(side)
    ace, deuce = side[0], side[1]
    if on_board <= CRASHED_CHECKERS:
        return True
    if ace >= 2:
        if on_board - ace <= CRASHED_CHECKERS:
            return True
        return deuce >= 2 and on_board - ace - deuce + 1 <= CRASHED_CHECKERS
    return on_board - max(deuce - 1, 0) <= CRASHED_CHECKERS


def holds_back_game(mover: Sequence[int], other: Sequence[int]) -> bool:
    """Whether ``mover`` (its 25 counts, own view) plays a back game against ``other``:
    two or more points made among its points 19-24 and at least
    :data:`BACK_GAME_PIP_DEFICIT` pips behind."""
    anchors = sum(1 for i in range(18, 24) if mover[i] >= 2)
    deficit = _pips(mover) - _pips(other)
    return anchors >= 2 and deficit >= BACK_GAME_PIP_DEFICIT


def longest_prime(side: Sequence[int]) -> tuple[int, int]:
    """The longest run of consecutive made points (two or more checkers) on a side's
    points 1-24 (own view): ``(length, index of its highest point)``, ``(0, -1)`` when none.
    The first such run from the ace point wins a tie."""
    best, top, run = 0, -1, 0
    for i in range(24):
        run = run + 1 if side[i] >= 2 else 0
        if run > best:
            best, top = run, i
    return best, top


def _trapped_behind(side: Sequence[int], other: Sequence[int]) -> bool:
    """Whether ``other`` holds a prime of :data:`PRIME_LENGTH` or more with a checker of
    ``side`` behind it (farther from ``side``'s home than the prime's farthest point)."""
    length, top = longest_prime(other)
    if length < PRIME_LENGTH:
        return False
    bottom_in_side_numbering = 23 - (top - length + 1)     # other's lowest prime point, seen by side
    return any(side[i] for i in range(bottom_in_side_numbering + 1, 25))


def _pips(side: Sequence[int]) -> int:
    return sum(n * (i + 1) for i, n in enumerate(side))


def _all_home(side: Sequence[int]) -> bool:
    return not any(side[6:25])


def classify(position: Position) -> PositionClass:
    """The class of ``position`` (module docstring: the first of the six that fits).

    The class does not depend on who is on roll.  A finished game (a side with no checker
    left) has no contact and is a ``race``.
    """
    opp, mover = position.board
    if position.is_race():
        return PositionClass.RACE
    if holds_back_game(mover, opp) or holds_back_game(opp, mover):
        return PositionClass.BACK_GAME
    if has_crashed(mover) or has_crashed(opp):
        return PositionClass.CRASHED
    if _all_home(mover) or _all_home(opp):
        return PositionClass.BEAROFF_CONTACT
    if _trapped_behind(mover, opp) and _trapped_behind(opp, mover):
        return PositionClass.PRIME_VS_PRIME
    return PositionClass.CONTACT
