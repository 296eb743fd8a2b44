"""Cubeless outcome probabilities: the five chances every evaluator gives, one type for all.

:class:`Probabilities` holds the five cubeless chances of one side, ``(win, win_gammon,
win_backgammon, lose_gammon, lose_backgammon)``, cumulative as in GNU Backgammon (a win
includes the gammons, a gammon the backgammons), always from the view of a named side
(an evaluator's: the side on roll; a rollout's: the side on roll at its root).  Bots'
evaluations, rollouts' trials and the cube math (:mod:`bgfast.cube`, which takes this
type or any 5-sequence) all speak it.

Its forms:

* one value: ``Probabilities(...)``, :meth:`Probabilities.of` (a 5-sequence or any object
  with the five attributes), :meth:`Probabilities.from_outcome` (a finished game: 0 or 1
  each), :meth:`~Probabilities.flipped` (the opponent's view), :meth:`~Probabilities.equity`;
* arrays, for code that keeps rows of them (the rollout's trials): :meth:`~Probabilities.to_array`
  / :meth:`Probabilities.from_array` (float64, shape ``(5,)``), and over rows of shape
  ``(..., 5)`` :func:`outcome_rows`, :func:`flip_rows` and :func:`flip_changes` (a
  *change* in probabilities, such as the luck of a roll, flips without the ``1 -``).

>>> p = Probabilities(0.6, 0.2, 0.01, 0.1, 0.005)
>>> round(p.equity(), 3)
0.305
>>> p.flipped()
Probabilities(win=0.4, win_gammon=0.1, win_backgammon=0.005, lose_gammon=0.2, lose_backgammon=0.01)
>>> Probabilities.from_outcome(False, "gammon")
Probabilities(win=0.0, win_gammon=0.0, win_backgammon=0.0, lose_gammon=1.0, lose_backgammon=0.0)
>>> Probabilities.from_array(p.to_array()) == p
True
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from bgfast import cube as _cube_math
from bgfast._core.game import KIND_NAMES

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

__all__ = ["OUTCOME_KINDS", "Probabilities", "flip_changes", "flip_rows", "outcome_rows"]

OUTCOME_KINDS: tuple[str, str, str] = (KIND_NAMES[0], KIND_NAMES[1], KIND_NAMES[2])
"""The kinds of a game won, by code: ``("single", "gammon", "backgammon")``, the game
loop's kind names (:data:`bgfast._core.game.KIND_NAMES`) and their indices."""

_FLIP_ORDER = [0, 3, 4, 1, 2]
"""The flip's columns: the wins take the losses' places and the other way round."""


def _rows(values: ArrayLike) -> NDArray[np.float64]:
    arr = np.asarray(values, dtype=np.float64)
    if arr.ndim == 0 or arr.shape[-1] != 5:
        raise ValueError(f"probabilities are rows of 5 numbers, got shape {arr.shape}")
    return arr


def flip_changes(changes: ArrayLike) -> NDArray[np.float64]:
    """Changes in probabilities (the luck of a roll, an error: differences of two
    :class:`Probabilities` of one side) seen from the other side: ``(-dwin, dlg, dlbg,
    dwg, dwbg)`` for each row of shape ``(..., 5)``; a new float64 array of that shape.

    >>> flip_changes([0.1, 0.02, 0.0, -0.03, 0.0]).tolist()
    [-0.1, -0.03, 0.0, 0.02, 0.0]

    :raises ValueError: a last axis of another length than 5.
    """
    rows = _rows(changes)
    out: NDArray[np.float64] = rows[..., _FLIP_ORDER]
    out[..., 0] = -out[..., 0]
    return out


def flip_rows(probabilities: ArrayLike) -> NDArray[np.float64]:
    """:meth:`Probabilities.flipped` of each row of shape ``(..., 5)``: ``(1 - win, lg,
    lbg, wg, wbg)``, the same numbers as the core's ``probs_flip``; a new float64 array.

    >>> flip_rows([[0.6, 0.2, 0.01, 0.1, 0.0]]).tolist()
    [[0.4, 0.1, 0.0, 0.2, 0.01]]

    :raises ValueError: a last axis of another length than 5.
    """
    out = flip_changes(probabilities)
    out[..., 0] += 1.0     # -win + 1 is 1 - win to the last bit
    return out


def _outcome_table() -> NDArray[np.float64]:
    """``table[won, kind]``: the probabilities of a finished game, by whether the side won
    and the kind's code (:data:`OUTCOME_KINDS`); a loss is the winner's row flipped."""
    wins = np.array([[1.0, float(k >= 1), float(k >= 2), 0.0, 0.0] for k in range(len(OUTCOME_KINDS))])
    table = np.stack([flip_rows(wins), wins])
    table.setflags(write=False)
    return table


_OUTCOMES = _outcome_table()


def outcome_rows(won: ArrayLike, kind: ArrayLike) -> NDArray[np.float64]:
    """:meth:`Probabilities.from_outcome` of many finished games at once: ``won`` (bools) and
    ``kind`` (codes 0 single, 1 gammon, 2 backgammon: :data:`OUTCOME_KINDS`' indices, as the
    game loop gives them) of the same shape ``S``; the result has shape ``S + (5,)``.

    >>> outcome_rows([True, False], [2, 0]).tolist()
    [[1.0, 1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0]]

    :raises ValueError: a kind code outside 0..2, or shapes that do not match.
    """
    won_arr, kind_arr = np.asarray(won, dtype=bool), np.asarray(kind)
    if won_arr.shape != kind_arr.shape:
        raise ValueError(f"won and kind have different shapes, {won_arr.shape} and {kind_arr.shape}")
    if kind_arr.size and (kind_arr.dtype.kind not in "iu" or kind_arr.min() < 0
                          or kind_arr.max() >= len(OUTCOME_KINDS)):
        raise ValueError(f"outcome kinds are codes 0 (single), 1 (gammon) or 2 (backgammon), got {kind_arr!r}")
    return _OUTCOMES[won_arr.astype(np.intp), kind_arr.astype(np.intp)]


@dataclass(frozen=True)
class Probabilities:
    """Cubeless outcome probabilities of one side; gammons include backgammons.

    The side is the one the producer names (an evaluator: the side on roll; a rollout:
    the side on roll at its root); :meth:`flipped` gives its opponent's view.  It
    unpacks as the five numbers (``win, wg, wbg, lg, lbg = p``).
    """

    win: float
    """Chance of winning the game (any way)."""
    win_gammon: float
    """Chance of winning a gammon or a backgammon."""
    win_backgammon: float
    """Chance of winning a backgammon."""
    lose_gammon: float
    """Chance of losing a gammon or a backgammon."""
    lose_backgammon: float
    """Chance of losing a backgammon."""

    @classmethod
    def of(cls, p: object) -> Probabilities:
        """``p`` as probabilities: a :class:`Probabilities`, a 5-sequence, or any object
        with the five attributes (:func:`bgfast.cube.as_probs`); the ranges are not checked.

        >>> Probabilities.of([1, 0.5, 0, 0, 0]).win_gammon
        0.5

        :raises ValueError: not five numbers.
        """
        return p if isinstance(p, Probabilities) else cls(*_cube_math.as_probs(p))

    @classmethod
    def from_outcome(cls, won: bool, kind: str) -> Probabilities:
        """The probabilities of a finished game (each 0 or 1), from the view of the side
        that ``won`` it or lost it, by ``kind``: ``"single"``, ``"gammon"`` or
        ``"backgammon"`` (an :class:`~bgfast.position.Outcome`'s or the game loop's kind).

        >>> Probabilities.from_outcome(True, "backgammon")
        Probabilities(win=1.0, win_gammon=1.0, win_backgammon=1.0, lose_gammon=0.0, lose_backgammon=0.0)

        :raises ValueError: another kind.
        """
        try:
            code = OUTCOME_KINDS.index(kind)
        except ValueError:
            raise ValueError(f"a game's kind is one of {', '.join(OUTCOME_KINDS)}, got {kind!r}") from None
        return cls(*_OUTCOMES[int(bool(won)), code].tolist())

    @classmethod
    def from_array(cls, values: ArrayLike) -> Probabilities:
        """The probabilities in an array of shape ``(5,)`` (:meth:`to_array`'s form).

        :raises ValueError: another shape.
        """
        arr = np.asarray(values, dtype=np.float64)
        if arr.shape != (5,):
            raise ValueError(f"probabilities are an array of shape (5,), got shape {arr.shape}")
        return cls(*arr.tolist())

    def to_array(self) -> NDArray[np.float64]:
        """The five numbers as a new float64 array of shape ``(5,)``, in field order."""
        return np.array(tuple(self), dtype=np.float64)

    def __iter__(self) -> Iterator[float]:
        return iter((self.win, self.win_gammon, self.win_backgammon, self.lose_gammon, self.lose_backgammon))

    def equity(self) -> float:
        """Cubeless money equity in points per game: ``2 win - 1 + wg - lg + wbg - lbg``
        (:func:`bgfast.cube.cubeless_equity`)."""
        return _cube_math.cubeless_equity(self)

    def flipped(self) -> Probabilities:
        """The same outcomes from the other side's view: ``(1 - win, lg, lbg, wg, wbg)``
        (:func:`bgfast.cube.flip`)."""
        return Probabilities(*_cube_math.flip(self))
