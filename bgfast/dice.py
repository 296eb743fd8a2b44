"""Dice: the :class:`Dice` value type and the tables of rolls.

A :class:`Dice` is normalised with the higher die first, as gnubg stores it.

The dice of played matches and rollout trials are not drawn here: they come from
the compiled core's seeded streams (xoshiro256**, ``bgfast/_core/rng.pyx``), one
stream per match or trial derived from ``(seed, index)``, so that item ``index``
of a run seeded ``seed`` rolls the same dice whatever process plays it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from bgfast.errors import InvalidDiceError
from bgfast.validation import whole_number

__all__ = ["Dice", "ALL_21", "ALL_36"]

_DICE_TEXT = re.compile(r"^\s*([1-6])\s*[-, ]?\s*([1-6])\s*$")   # not "/": "3/1" reads as a checker move


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
        try:
            a = whole_number(d1, "a die", low=1, high=6, error=InvalidDiceError)
            b = whole_number(d2, "a die", low=1, high=6, error=InvalidDiceError)
        except InvalidDiceError:
            raise InvalidDiceError(f"dice must be two integers from 1 to 6, got {(d1, d2)!r}") from None
        object.__setattr__(self, "high", max(a, b))
        object.__setattr__(self, "low", min(a, b))

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
