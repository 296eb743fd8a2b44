"""GNU Backgammon's Position ID and the 50-byte board it encodes: the Python face of the core.

A board here is 50 bytes (:meth:`bgfast.position.Position.to_bytes`): side 0's 25
counts, then side 1's (side 1 on roll), each from its own side's view: index 0..23
= its points 1..24, index 24 = its bar (see :mod:`bgfast.position`).

A Position ID is 14 characters of standard Base64 (no padding) for an 80-bit key:
side 0 first, then side 1, each of a side's 25 places (its points 1..24, then its
bar) is written as that many 1 bits followed by a 0 bit, least significant bit of
each byte first.  The format is gnubg's (``positionid.c``; the GNU Backgammon
manual, "A technical description of the Position ID").  The coding and the board
check run in the compiled core (``bgfast/_core/board.pyx``), since they are hot;
this module turns their error codes into :class:`~bgfast.errors.InvalidPositionError`.

>>> board = decode_position_id("4HPwATDgc/ABMA")
>>> list(board[:25]) == list(board[25:]) == [0] * 5 + [5, 0, 3] + [0] * 4 + [5] + [0] * 10 + [2, 0]
True
>>> encode_position_id(board)
'4HPwATDgc/ABMA'
"""
from __future__ import annotations

from collections.abc import Sequence

from bgfast._core import board as _board
from bgfast.errors import InvalidPositionError, shortened

__all__ = [
    "BOARD_BYTES",
    "STARTING_POSITION_ID",
    "board_bytes",
    "check_board_bytes",
    "decode_position_id",
    "encode_position_id",
]

BOARD_BYTES = 50
"""The length of a board: two sides of 25 counts."""

STARTING_POSITION_ID = "4HPwATDgc/ABMA"
"""The Position ID of the standard starting position."""

_MAX_CHECKERS = 15


def decode_position_id(position_id: str) -> bytes:
    """The 50-byte board of a Position ID (surrounding whitespace is ignored).

    :raises InvalidPositionError: not a string, not 14 characters, a character
        outside Base64, or more checkers encoded than a board holds.
    """
    if not isinstance(position_id, str):
        raise InvalidPositionError(f"a Position ID is a string, got {position_id!r}")
    err, raw = _board.decode_id(position_id.strip())
    if err or raw is None:
        raise InvalidPositionError(f"invalid Position ID {shortened(position_id)!r}: {_board.error_text(err)}")
    return raw


def encode_position_id(board: bytes) -> str:
    """The 14-character Position ID of a 50-byte board (the board is not checked).

    :raises InvalidPositionError: ``board`` is not 50 bytes.
    """
    if len(board) != BOARD_BYTES:
        raise InvalidPositionError(f"a board is {BOARD_BYTES} bytes, got {len(board)}")
    return _board.encode_id(board)


def check_board_bytes(board: bytes, shown: object = None) -> None:
    """Check that a 50-byte board is a possible position.

    :param shown: what the error message quotes (default: ``board`` itself).
    :raises InvalidPositionError: not 50 bytes, more than 15 checkers a side, or a
        point held by both sides.
    """
    shown = board if shown is None else shown
    if len(board) != BOARD_BYTES:
        raise InvalidPositionError(f"a board is {BOARD_BYTES} bytes, got {len(board)} in {shown!r}")
    err = _board.check(board)
    if err:
        raise InvalidPositionError(f"impossible board {shown!r}: {_board.error_text(err)}")


def board_bytes(board: Sequence[Sequence[int]]) -> bytes:
    """The 50-byte board of ``(side0, side1)``, two sequences of 25 checker counts.

    >>> start = [0] * 5 + [5, 0, 3] + [0] * 4 + [5] + [0] * 10 + [2, 0]
    >>> encode_position_id(board_bytes([start, start]))
    '4HPwATDgc/ABMA'

    :raises InvalidPositionError: not 2 x 25 integers (bools and fractions are
        refused), a negative count, more than 15 checkers a side, or a point held
        by both sides.
    """
    try:
        if len(board) != 2:
            raise ValueError
        counts = [*board[0], *board[1]]
        if len(board[0]) != 25 or len(board[1]) != 25 or any(isinstance(v, bool) for v in counts):
            raise ValueError
        values = [int(v) for v in counts]
        if values != counts:
            raise ValueError
    except (TypeError, ValueError, IndexError):
        raise InvalidPositionError(f"a board is two lists of 25 checker counts, got {board!r}") from None
    if any(v < 0 for v in values):
        raise InvalidPositionError(f"impossible board {board!r}: negative checker count")
    if any(v > _MAX_CHECKERS for v in values):
        raise InvalidPositionError(f"impossible board {board!r}: a side has more than 15 checkers")
    raw = bytes(values)
    check_board_bytes(raw, board)
    return raw
