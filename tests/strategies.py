"""Hypothesis strategies for backgammon boards and dice.

Boards use the board convention of ``bgfast/position.py`` (its module docstring):
``[side0, side1]``, each a list of 25 counts (points 1..24 at indices 0..23, the bar at
index 24), side1 on roll, ``side1[i]`` and ``side0[23 - i]`` the same physical point. Every generated board has
1..15 checkers per side and no point held by both sides. Bars are allowed on both sides.

``legal_boards()`` mixes several generators so that the interesting cases show up often:
random scatter, stacked contact positions, races (no contact), all-home bear-offs
(with or without opposing checkers behind), checkers on the bar against a partly closed
board, and nearly finished games.
"""

from __future__ import annotations

from hypothesis import strategies as st

BAR = 24
MAX_CHECKERS = 15

ALL_21_ROLLS: list[tuple[int, int]] = [
    (high, low) for high in range(1, 7) for low in range(1, high + 1)
]
"""The 21 distinct rolls as ``(high, low)``; doubles are ``(d, d)``."""


def dice() -> st.SearchStrategy[tuple[int, int]]:
    """A roll ``(d1, d2)``, each die 1..6, in either order."""
    return st.tuples(st.integers(1, 6), st.integers(1, 6))


def _free_side0_slots(side1: list[int], slots: range | list[int]) -> list[int]:
    """Side0 indices from ``slots`` that side1 does not occupy (the bar is always free)."""
    return [j for j in slots if j == BAR or side1[23 - j] == 0]


@st.composite
def _checkers(draw: st.DrawFn, slots: list[int], most: int) -> list[int]:
    """The slots of 1..most checkers; all ``most`` of them half of the time (nothing
    borne off), since hypothesis' plain lists come out short."""
    count = draw(st.one_of(st.just(most), st.integers(1, most)))
    return draw(st.lists(st.sampled_from(slots), min_size=count, max_size=count))


@st.composite
def _place(
    draw: st.DrawFn,
    side1_slots: list[int],
    side0_slots: list[int],
    max1: int = MAX_CHECKERS,
    max0: int = MAX_CHECKERS,
    stacked: bool = False,
) -> list[list[int]]:
    """Put 1..max1 side1 checkers on ``side1_slots`` and 1..max0 side0 checkers on the
    ``side0_slots`` that side1 left free. ``stacked`` first picks a few points per side,
    so that made points (2+ checkers) are common."""
    side1 = [0] * 25
    side0 = [0] * 25
    if stacked:
        side1_slots = draw(
            st.lists(st.sampled_from(side1_slots), min_size=1, max_size=6, unique=True)
        )
    for i in draw(_checkers(side1_slots, max1)):
        side1[i] += 1
    free = _free_side0_slots(side1, side0_slots)
    if not free:  # side1 covers every allowed point: fall back to side0's bar
        free = [BAR]
    if stacked:
        free = draw(st.lists(st.sampled_from(free), min_size=1, max_size=6, unique=True))
    for j in draw(_checkers(free, max0)):
        side0[j] += 1
    return [side0, side1]


def _scatter() -> st.SearchStrategy[list[list[int]]]:
    """Checkers anywhere, bars included: mostly blots, lots of hitting."""
    return _place(list(range(25)), list(range(25)))


def _stacked_contact() -> st.SearchStrategy[list[list[int]]]:
    """Checkers stacked on a few points each: made points and blocks, some bars."""
    return _place(list(range(25)), list(range(25)), stacked=True)


@st.composite
def _race(draw: st.DrawFn) -> list[list[int]]:
    """No contact: every side1 checker is past every side0 checker. No bars."""
    split = draw(st.integers(1, 23))  # side1 on indices < split, side0 on side1-indices >= split
    return draw(
        _place(list(range(split)), [23 - x for x in range(split, 24)], stacked=draw(st.booleans()))
    )


@st.composite
def _bearoff(draw: st.DrawFn) -> list[list[int]]:
    """All side1 checkers home; side0 either raced past (no contact) or still anywhere."""
    contact = draw(st.booleans())
    side0_slots = list(range(25)) if contact else list(range(18))
    return draw(_place(list(range(6)), side0_slots, stacked=draw(st.booleans())))


@st.composite
def _on_the_bar(draw: st.DrawFn) -> list[list[int]]:
    """1..4 side1 checkers on the bar, side0 holding some of its home points (side1's entry
    points), sometimes with side0 checkers on its own bar too."""
    side0 = [0] * 25
    side1 = [0] * 25
    side1[BAR] = draw(st.integers(1, 4))
    for i in draw(_checkers(list(range(24)), MAX_CHECKERS - side1[BAR])):
        side1[i] += 1
    blocked = draw(st.lists(st.integers(0, 5), max_size=6, unique=True))
    budget = MAX_CHECKERS
    for j in blocked:  # side0's home point j is side1's index 23 - j
        if side1[23 - j] == 0 and budget >= 2:
            side0[j] = draw(st.integers(1, min(3, budget)))
            budget -= side0[j]
    side0[BAR] = draw(st.integers(0, min(2, budget)))
    budget -= side0[BAR]
    free = _free_side0_slots(side1, range(24))
    for j in draw(st.lists(st.sampled_from(free), max_size=budget)) if free else []:
        side0[j] += 1
    if sum(side0) == 0:
        side0[BAR] = 1
    return [side0, side1]


def _nearly_finished() -> st.SearchStrategy[list[list[int]]]:
    """One to three checkers per side, side1's in its home board, side0's anywhere."""
    return _place(list(range(6)), list(range(25)), max1=3, max0=3)


def race_boards() -> st.SearchStrategy[list[list[int]]]:
    """A board ``[side0, side1]`` with no contact left (pure bear-offs among them)."""
    return _race()


def legal_boards() -> st.SearchStrategy[list[list[int]]]:
    """A board ``[side0, side1]`` with 1..15 checkers a side and no shared point."""
    return st.one_of(
        _scatter(),
        _stacked_contact(),
        _race(),
        _bearoff(),
        _on_the_bar(),
        _nearly_finished(),
    )
