"""A slow, short, obviously correct move generator: the test oracle for bgfast's compiled core.

Standard library only; nothing here imports bgfast. The conventions are the project's board
convention, written down in the module docstring of ``bgfast/position.py`` and repeated here
so that the oracle stands alone:

* ``board = [side0, side1]``, two lists of 25 non-negative ints. ``side1`` is the player
  on roll (the mover), ``side0`` the opponent.
* Index ``i`` (0..23) is the player's own point ``i + 1``; index 24 is the bar.
  ``side1[i]`` and ``side0[23 - i]`` are the same physical point.
* Results of a move are *not* swapped: the mover is still ``side1``.

The generator works one die at a time. ``_single_steps`` lists every way to move one checker
by one die. ``children`` applies it die after die, for both die orders (or four times for a
double), keeps the positions reached with the largest number of dice, and applies the
higher-die rule. Because the dice still to play depend only on how many have been played,
the positions reached after ``k`` dice form a set, and the search never revisits a position.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence

BAR = 24
"""Index of the bar in a side's 25-list."""

NUM_POINTS = 24
"""Points on the board (indices 0..23)."""

Side = tuple[int, ...]
"""One player's 25 counts: points 1..24 at indices 0..23, the bar at index 24."""

Board = tuple[Side, Side]
"""``(side0, side1)``: the opponent first, the player on roll (mover) second."""


# --------------------------------------------------------------------------------------
# Position ID (gnubg): side0 first, then side1, unary counts, LSB-first bytes, base64.
# --------------------------------------------------------------------------------------


def encode_position_id(board: Sequence[Sequence[int]]) -> str:
    """Encode ``[side0, side1]`` as a 14-character gnubg Position ID.

    >>> start = [0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5] + [0] * 10 + [2, 0]
    >>> encode_position_id([start, start])
    '4HPwATDgc/ABMA'
    """
    bits: list[int] = []
    for side in board:
        if len(side) != 25:
            raise ValueError(f"each side needs 25 entries, got {len(side)}")
        for count in side:
            bits.extend([1] * count)
            bits.append(0)
    if len(bits) > 80:
        raise ValueError("too many checkers for a Position ID")
    bits.extend([0] * (80 - len(bits)))
    key = bytes(
        sum(bits[8 * byte + bit] << bit for bit in range(8)) for byte in range(10)
    )
    return base64.b64encode(key).decode("ascii")[:14]


def decode_position_id(pid: str) -> list[list[int]]:
    """Decode a 14-character gnubg Position ID into ``[side0, side1]``.

    >>> decode_position_id('AAAAAAAAAAAAAA') == [[0] * 25, [0] * 25]
    True
    """
    if len(pid) != 14:
        raise ValueError(f"a Position ID has 14 characters, got {len(pid)}: {pid!r}")
    try:
        key = base64.b64decode(pid + "==", validate=True)
    except ValueError as exc:
        raise ValueError(f"not a Position ID: {pid!r}") from exc
    bits = [(key[k // 8] >> (k % 8)) & 1 for k in range(80)]
    sides = [[0] * 25, [0] * 25]
    entry = 0  # 0..49: side0's 25 entries, then side1's 25
    for bit in bits:
        if entry == 50:
            break
        if bit:
            sides[entry // 25][entry % 25] += 1
        else:
            entry += 1
    if entry != 50:
        raise ValueError(f"not a Position ID (fewer than 50 entries): {pid!r}")
    return sides


# --------------------------------------------------------------------------------------
# Move generation.
# --------------------------------------------------------------------------------------


def _single_steps(board: Board, die: int) -> list[Board]:
    """Every position reachable by moving one of side1's checkers by ``die``.

    Rules: a checker on the bar must enter first; a point with two or more opposing
    checkers is blocked; landing on one opposing checker hits it (it goes to side0's bar);
    bearing off needs every checker home, with the exact die, or a larger die from the
    highest occupied point.
    """
    side0, side1 = board
    if side1[BAR] > 0:
        sources = [BAR]
    else:
        sources = [i for i in range(NUM_POINTS) if side1[i] > 0]
    all_home = sum(side1[6:25]) == 0
    highest = max((i for i in range(NUM_POINTS) if side1[i] > 0), default=-1)

    steps: list[Board] = []
    for src in sources:
        dst = src - die  # entering from the bar: 24 - die, the mover's point 25 - die
        new0, new1 = list(side0), list(side1)
        if dst >= 0:
            opposing = side0[23 - dst]
            if opposing >= 2:
                continue  # blocked
            if opposing == 1:  # hit
                new0[23 - dst] = 0
                new0[BAR] += 1
            new1[src] -= 1
            new1[dst] += 1
        else:  # bearing off
            exact = dst == -1
            from_highest = src == highest
            if not (all_home and (exact or from_highest)):
                continue
            new1[src] -= 1
        steps.append((tuple(new0), tuple(new1)))
    return steps


def _reachable_by_depth(board: Board, dice_order: Sequence[int]) -> list[set[Board]]:
    """``levels[k]`` = positions reachable by playing the first ``k`` dice of ``dice_order``."""
    levels = [{board}]
    for die in dice_order:
        nxt = {after for before in levels[-1] for after in _single_steps(before, die)}
        if not nxt:
            break
        levels.append(nxt)
    return levels


def children(board: Sequence[Sequence[int]], d1: int, d2: int) -> set[Board]:
    """Every distinct legal position after side1 plays the roll ``(d1, d2)``.

    Positions are ``(side0, side1)`` tuples, not swapped (the mover is still side1).
    The mover must use as many dice as possible; when only one die of a non-double can be
    used, the larger one must be used if it can be. With no legal move the result is an
    empty set (the position stays as it is and the turn passes).

    >>> start = [0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5] + [0] * 10 + [2, 0]
    >>> len(children([start, start], 2, 1))
    15
    """
    if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
        raise ValueError(f"dice must be 1..6, got {d1}-{d2}")
    start: Board = (tuple(board[0]), tuple(board[1]))
    if len(start[0]) != 25 or len(start[1]) != 25:
        raise ValueError("each side needs 25 entries")

    if d1 == d2:
        orders = [(d1,) * 4]
    else:
        high, low = max(d1, d2), min(d1, d2)
        orders = [(high, low), (low, high)]
    level_lists = [_reachable_by_depth(start, order) for order in orders]

    most_dice = max(len(levels) - 1 for levels in level_lists)
    if most_dice == 0:
        return set()
    if d1 != d2 and most_dice == 1:
        # Only one die can be played: the larger one if it can be (orders[0] starts with it).
        high_first, low_first = level_lists
        return set(high_first[1]) if len(high_first) > 1 else set(low_first[1])
    return {
        position
        for levels in level_lists
        if len(levels) - 1 == most_dice
        for position in levels[most_dice]
    }
