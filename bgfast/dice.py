"""Dice: the :class:`Dice` value type, the roll tables, and dice sources.

A :class:`Dice` is normalised with the higher die first, as gnubg stores it.
Dice sources are always seeded: :class:`SeededDice` derives its stream from
``numpy.random.SeedSequence((seed, index))`` so that match (or trial) ``index``
of a run seeded ``seed`` rolls the same dice whatever process plays it.
:class:`ScriptedDice` replays a fixed list, for tests.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Protocol

import numpy as np

from bgfast.errors import InvalidDiceError

__all__ = ["Dice", "ALL_21", "ALL_36", "DiceSource", "SeededDice", "ScriptedDice"]

_DICE_TEXT = re.compile(r"^\s*([1-6])\s*[-,/ ]?\s*([1-6])\s*$")


@dataclass(frozen=True, order=True)
class Dice:
    """Two dice, the higher first.

    >>> Dice(1, 3)
    Dice(high=3, low=1)
    >>> str(Dice.parse("3-1")), Dice(5, 5).is_double
    ('31', True)

    :raises InvalidDiceError: a die outside 1..6 or not an integer.
    """

    high: int
    low: int

    def __init__(self, d1: int, d2: int) -> None:
        for d in (d1, d2):
            if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or not 1 <= d <= 6:
                raise InvalidDiceError(f"dice must be two integers from 1 to 6, got {(d1, d2)!r}")
        object.__setattr__(self, "high", int(max(d1, d2)))
        object.__setattr__(self, "low", int(min(d1, d2)))

    @classmethod
    def parse(cls, text: str) -> Dice:
        """Parse ``"31"``, ``"3-1"``, ``"3 1"`` or ``"3,1"``.

        :raises InvalidDiceError: anything else, e.g. ``"71"`` or ``"3"``.
        """
        m = _DICE_TEXT.match(str(text))
        if not m:
            raise InvalidDiceError(f"dice must be two digits from 1 to 6 like '31' or '3-1', got {text!r}")
        return cls(int(m.group(1)), int(m.group(2)))

    @classmethod
    def of(cls, value: Dice | str | tuple[int, int]) -> Dice:
        """``value`` as dice: a :class:`Dice`, text for :meth:`parse`, or a pair of dice.

        >>> Dice.of("3-1") == Dice.of((1, 3)) == Dice.of(Dice(3, 1))
        True

        :raises InvalidDiceError: anything that is not two dice 1..6.
        """
        if isinstance(value, Dice):
            return value
        if isinstance(value, str):
            return cls.parse(value)
        try:
            d1, d2 = value
        except (TypeError, ValueError):
            raise InvalidDiceError(f"dice are two dice like (3, 1) or '31', got {value!r}") from None
        return cls(d1, d2)

    @property
    def is_double(self) -> bool:
        """True for a double, which is played four times."""
        return self.high == self.low

    @property
    def weight(self) -> int:
        """How many of the 36 ordered rolls give these dice (1 for a double, else 2)."""
        return 1 if self.is_double else 2

    def __iter__(self):  # type: ignore[no-untyped-def]
        yield self.high
        yield self.low

    def __str__(self) -> str:
        return f"{self.high}{self.low}"


ALL_21: tuple[Dice, ...] = tuple(Dice(a, b) for a in range(1, 7) for b in range(1, a + 1))
"""The 21 distinct rolls; each has :attr:`Dice.weight` chances in 36."""

ALL_36: tuple[tuple[int, int], ...] = tuple((a, b) for a in range(1, 7) for b in range(1, 7))
"""The 36 ordered rolls, each with probability 1/36."""


class DiceSource(Protocol):
    """Anything that rolls dice."""

    def roll(self) -> Dice: ...


class SeededDice:
    """A reproducible dice stream for run ``seed``, item ``index`` (match or trial).

    Uses numpy's PCG64 seeded through ``SeedSequence((seed, index))``.

    >>> a, b = SeededDice(7, 3), SeededDice(7, 3)
    >>> [a.roll() for _ in range(5)] == [b.roll() for _ in range(5)]
    True
    """

    def __init__(self, seed: int, index: int = 0) -> None:
        self._rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence((seed, index))))

    def roll(self) -> Dice:
        d = self._rng.integers(1, 7, size=2)
        return Dice(int(d[0]), int(d[1]))

    def die(self) -> int:
        """One die, for the opening roll."""
        return int(self._rng.integers(1, 7))


class ScriptedDice:
    """Rolls a fixed list of dice, for tests; :meth:`assert_exhausted` checks all were used.

    >>> s = ScriptedDice(["31", (6, 6)])
    >>> s.roll(), s.roll()
    (Dice(high=3, low=1), Dice(high=6, low=6))
    >>> s.assert_exhausted()
    """

    def __init__(self, rolls: Iterable[str | tuple[int, int] | Dice]) -> None:
        self._rolls = [r if isinstance(r, Dice) else Dice.parse(r) if isinstance(r, str) else Dice(*r)
                       for r in rolls]
        self._next = 0

    def roll(self) -> Dice:
        if self._next >= len(self._rolls):
            raise IndexError("the scripted dice are used up")
        self._next += 1
        return self._rolls[self._next - 1]

    def assert_exhausted(self) -> None:
        """Raise :class:`AssertionError` if some scripted rolls were never used."""
        left = len(self._rolls) - self._next
        assert left == 0, f"{left} scripted rolls were never used"
