"""Checks of argument values, one home for the "an integer, not a bool, in range" rule.

Every public entry point of bgfast validates what it is given and raises a specific
:class:`~bgfast.errors.BgfastError` (a :class:`ValueError` subclass) that names the
argument or key path and quotes the bad value with ``repr``.  These helpers are that
check, written once; the caller picks the exception class for its context
(``InvalidSpecError`` for a tournament spec, ``InvalidMatchIdError`` for a Match ID
field, ...).

``bool`` is a subclass of ``int`` in Python; a flag passed where a count is expected is
almost always a mistake, so :func:`whole_number` refuses it.  numpy integers are
accepted and returned as plain ``int``.

>>> whole_number(3, "trials", low=1)
3
>>> whole_number(True, "trials", low=1)
Traceback (most recent call last):
...
ValueError: trials must be a whole number of at least 1, got True
>>> from bgfast.errors import InvalidSpecError
>>> whole_number(0, "players[1].options.ply", low=0, high=2, error=InvalidSpecError)
0
>>> real_number(1.5, "cube_efficiency", low=0.0, high=1.0)
Traceback (most recent call last):
...
ValueError: cube_efficiency must be a number from 0.0 to 1.0, got 1.5
"""
from __future__ import annotations

import math
from collections.abc import Collection

import numpy as np

__all__ = ["flag", "one_of", "real_number", "whole_number"]


def _range_words(low: float | None, high: float | None) -> str:
    if low is not None and high is not None:
        return f"from {low} to {high}"
    if low is not None:
        return f"of at least {low}"
    if high is not None:
        return f"of at most {high}"
    return ""


def whole_number(value: object, name: str, *, low: int | None = None, high: int | None = None,
                 error: type[ValueError] = ValueError, what: str = "a whole number") -> int:
    """``value`` as an ``int`` if it is an integer (not a bool) within ``[low, high]``.

    :param name: what the value is, as the message shows it (an argument, a key path).
    :param low: the smallest allowed value, or None; :param high: the largest, or None.
    :param error: the exception class to raise (a :class:`ValueError` subclass).
    :param what: how the message names the expected kind of value.
    :raises error: a bool, a non-integer, or a value out of range.
    """
    ok = not isinstance(value, bool) and isinstance(value, (int, np.integer))
    if ok:
        number: int = int(value)  # type: ignore[call-overload]
        if (low is None or number >= low) and (high is None or number <= high):
            return number
    bounds = _range_words(low, high)
    raise error(f"{name} must be {what}{' ' + bounds if bounds else ''}, got {value!r}")


def real_number(value: object, name: str, *, low: float | None = None, high: float | None = None,
                error: type[ValueError] = ValueError) -> float:
    """``value`` as a ``float`` if it is a finite real number (not a bool) within ``[low, high]``.

    :raises error: a bool, a non-number, NaN or infinity, or a value out of range.
    """
    ok = not isinstance(value, bool) and isinstance(value, (int, float, np.integer, np.floating))
    if ok:
        number = float(value)  # type: ignore[arg-type]
        if math.isfinite(number) and (low is None or number >= low) and (high is None or number <= high):
            return number
    bounds = _range_words(low, high)
    raise error(f"{name} must be a number{' ' + bounds if bounds else ''}, got {value!r}")


def flag(value: object, name: str, *, error: type[ValueError] = ValueError) -> bool:
    """``value`` if it is a bool (``True`` / ``False``).

    >>> flag(False, "rules.crawford")
    False

    :raises error: anything else, including 0 and 1.
    """
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise error(f"{name} must be true or false, got {value!r}")


def one_of(value: object, name: str, choices: Collection[object], *,
           error: type[ValueError] = ValueError) -> object:
    """``value`` if it is one of ``choices``.

    >>> one_of("met", "cube", ("never", "met"))
    'met'

    :raises error: any other value; the message lists the choices.
    """
    if not isinstance(value, bool) and value in choices:
        return value
    listed = ", ".join(str(c) for c in choices)
    raise error(f"{name} must be one of {listed}, got {value!r}")
