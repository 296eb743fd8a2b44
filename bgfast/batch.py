"""Move generation in batch: many positions and rolls in one call, no Python objects per play.

For speed work and bulk statistics.  Positions go in as a ``uint8`` array of
shape ``(N, 50)`` (each row the opponent's 25 counts then the side on roll's,
gnubg order, see :mod:`bgfast.position`) or as a sequence of :class:`Position`
or Position IDs; rolls as ``(M, 2)`` dice.  Generation runs in C without the GIL.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

import numpy as np

from bgfast._core import movegen as _movegen
from bgfast.dice import ALL_21, Dice
from bgfast.errors import InvalidPositionError
from bgfast.position import Position

__all__ = ["ROLLS_21", "boards_array", "count_plays", "play_ids"]

_R = TypeVar("_R")

ROLLS_21: np.ndarray = np.array([(d.high, d.low) for d in ALL_21], dtype=np.int64)
"""The 21 distinct rolls as an int64 array of shape (21, 2), higher die first."""


def boards_array(positions: Iterable[Position | str]) -> np.ndarray:
    """Pack positions (or Position IDs) into a ``uint8`` array of shape (N, 50).

    :raises InvalidPositionError: a malformed Position ID.
    """
    keys = [(p if isinstance(p, Position) else Position.from_id(p)).to_bytes() for p in positions]
    return np.frombuffer(b"".join(keys), dtype=np.uint8).reshape(len(keys), 50).copy()


def _rolls(rolls: Sequence[tuple[int, int]] | np.ndarray | None) -> np.ndarray:
    if rolls is None:
        return ROLLS_21
    if isinstance(rolls, np.ndarray) and rolls.ndim == 1 and rolls.size % 2 == 0:
        rolls = rolls.reshape(-1, 2)
    checked = [Dice.of(r.tolist() if isinstance(r, np.ndarray) else r) for r in rolls]
    return np.array([(d.high, d.low) for d in checked], dtype=np.int64).reshape(-1, 2)


def _boards(positions: np.ndarray | Iterable[Position | str]) -> np.ndarray:
    if isinstance(positions, (str, Position)):
        raise InvalidPositionError(
            f"positions must be a sequence of positions or Position IDs, not one: {positions!r}")
    if isinstance(positions, np.ndarray):
        if positions.ndim != 2 or positions.shape[1] != 50:
            raise InvalidPositionError(f"a board array must have shape (N, 50), got {positions.shape}")
        if positions.dtype != np.uint8:
            # checker counts, not bytes: refuse what a cast would wrap or truncate
            if not np.issubdtype(positions.dtype, np.integer) or positions.size and (
                    positions.min() < 0 or positions.max() > 15):
                raise InvalidPositionError(
                    f"a board array holds checker counts 0..15 as integers, got dtype {positions.dtype}"
                    + (f" with values {positions.min()}..{positions.max()}"
                       if np.issubdtype(positions.dtype, np.number) and positions.size else ""))
        return np.ascontiguousarray(positions, dtype=np.uint8)
    if not isinstance(positions, Iterable):
        raise InvalidPositionError(f"positions must be a sequence of positions or Position IDs, got {positions!r}")
    return boards_array(positions)


def _generate(kernel: Callable[[np.ndarray, np.ndarray], _R],
              positions: np.ndarray | Iterable[Position | str],
              rolls: Sequence[tuple[int, int]] | np.ndarray | None) -> _R:
    """``kernel`` (a ``_movegen`` batch function) on the checked boards and rolls; the
    core's plain ValueError for an impossible board row becomes InvalidPositionError (the
    core does not import the API's errors)."""
    boards, checked_rolls = _boards(positions), _rolls(rolls)
    try:
        return kernel(boards, checked_rolls)
    except ValueError as exc:
        if isinstance(exc, InvalidPositionError) or "is impossible" not in str(exc):
            raise
        raise InvalidPositionError(str(exc)) from None


def count_plays(positions: np.ndarray | Iterable[Position | str],
                rolls: Sequence[tuple[int, int]] | np.ndarray | None = None) -> np.ndarray:
    """The number of distinct legal plays of every roll in every position.

    >>> count_plays(["4HPwATDgc/ABMA"], [(3, 1), (6, 6)]).tolist()
    [[16, 11]]

    :param rolls: the rolls as pairs of dice or strings like ``"31"``, default the 21
        distinct rolls (:data:`ROLLS_21`).
    :returns: int32 array (N, M); a roll with no legal play counts 1 (the empty play).
    :raises InvalidDiceError: a die outside 1..6, or a roll that is not two dice.
    :raises InvalidPositionError: a malformed Position ID, one position instead of a
        sequence, a board array not of shape (N, 50) or not of counts 0..15, a board row
        that is impossible.
    """
    return _generate(_movegen.count_batch, positions, rolls)


def play_ids(positions: np.ndarray | Iterable[Position | str],
             rolls: Sequence[tuple[int, int]] | np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The counts of :func:`count_plays` and the Position IDs of every resulting position.

    >>> counts, ids = play_ids(["4HPwATDgc/ABMA"], [(2, 1)])
    >>> int(counts[0, 0]), ids[:1].tolist()[0].decode()[:4]
    (15, '4HPw')

    :returns: ``(counts, ids)``; ``ids`` is a flat ``S14`` array in (position, roll)
        order, the results in the mover's frame (not swapped).
    :raises: as :func:`count_plays`.
    """
    return _generate(_movegen.ids_batch, positions, rolls)
