"""A position written as text, in whichever of the known forms: the one reader of them.

:func:`parse_position` takes what a user may type or paste for a position (the
command line, a tournament's opening suite, a rollout request): a gnubg Position
ID, gnubg's ``PositionID:MatchID`` pair, or an XGID.  The codecs themselves are
:mod:`bgfast.formats.position_id`, :mod:`bgfast.formats.match_id` and
:mod:`bgfast.formats.xgid`.
"""
from __future__ import annotations

from bgfast.errors import InvalidPositionError
from bgfast.match import MatchState
from bgfast.position import Position

__all__ = ["parse_position"]


def parse_position(position: Position | str) -> tuple[Position, MatchState | None]:
    """A position and, when the text carries one, its match state.

    Accepts a :class:`~bgfast.position.Position` (returned as it is, with no match
    state), a gnubg Position ID, ``PositionID:MatchID`` (gnubg's combined form), or
    an XGID (with or without its ``XGID=`` prefix).  The position is from the view
    of the side on roll; for an XGID that is the player its turn field names.

    >>> pos, match = parse_position("4HPwATDgc/ABMA:MAEgASAAIAAE")
    >>> pos.id(), match.length
    ('4HPwATDgc/ABMA', 9)
    >>> parse_position("4HPwATDgc/ABMA")[1] is None
    True

    :raises InvalidPositionError: a malformed ID, or neither a Position nor text.
    :raises InvalidMatchIdError: a malformed Match ID or XGID match field.
    """
    if isinstance(position, Position):
        return position, None
    if not isinstance(position, str):
        raise InvalidPositionError(f"a position is a Position, a Position ID or an XGID, got {position!r}")
    text = position.strip()
    if text.startswith("XGID=") or text.count(":") >= 4:
        return Position.from_xgid(text), MatchState.from_xgid(text)
    if ":" in text:
        position_id, match_id = text.split(":", 1)
        return Position.from_id(position_id), MatchState.from_match_id(match_id)
    return Position.from_id(text), None
