"""A position written as text, in whichever of the known forms: the one reader of them.

:func:`read_position` takes what a user may type or paste for a position (the
command line, a tournament's opening suite, a rollout request): a gnubg Position
ID, gnubg's ``PositionID:MatchID`` pair, or an XGID, and returns a
:class:`PositionText`: the position, the match state and the rules the text
states.  :func:`parse_position` is its short form, ``(position, match state)``, and
:func:`format_position` writes gnubg's ``PositionID:MatchID`` back.
The codecs themselves are :mod:`bgfast.codecs.position_id`,
:mod:`bgfast.codecs.match_id` and :mod:`bgfast.codecs.xgid`.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from bgfast.codecs.xgid import has_xgid_prefix, parse_xgid
from bgfast.dice import Dice
from bgfast.errors import IllegalCubeActionError, InvalidMatchIdError, InvalidPositionError, InvalidSpecError
from bgfast.match import MatchState, Rules
from bgfast.position import Position

__all__ = ["PositionText", "format_position", "is_xgid_text", "parse_position", "read_position"]


@dataclass(frozen=True)
class PositionText:
    """What a position's text says: the position, the match state, and the rules it states.

    A rule the text does not state is None: only an XGID has a maximum cube and
    (in money play) the beaver rule; an XGID or a Match ID in money play has the
    Jacoby rule.  :meth:`rules` puts them over the rules a caller plays by.

    >>> text = read_position("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:3:0:3")
    >>> text.max_cube, text.jacoby, text.beaver
    (8, True, True)
    >>> text.rules()
    Rules(crawford=True, jacoby=True, beaver=True, max_cube=8, variant='standard', dead_cube='refuse')
    """

    position: Position
    """The position, from the view of the side on roll."""
    match: MatchState | None = None
    """The match state, when the text has one (a Match ID or an XGID)."""
    max_cube: int | None = None
    """The highest cube the text allows (an XGID's maximum-cube field, ``2 ** field``)."""
    jacoby: bool | None = None
    """Whether the Jacoby rule is on (money play: an XGID's rules field, a Match ID's bit 66)."""
    beaver: bool | None = None
    """Whether beavers are allowed (money play: an XGID's rules field)."""

    def rules(self, base: Rules | None = None) -> Rules:
        """``base`` (default :class:`~bgfast.match.Rules`) with the rules this text states put over it.

        >>> read_position("4HPwATDgc/ABMA").rules(Rules(max_cube=16)).max_cube
        16

        :raises InvalidSpecError: a stated rule :class:`~bgfast.match.Rules` refuses
            (an XGID maximum cube of 1, i.e. a field of 0: Rules needs 2 or more).
        :raises InvalidMatchIdError: a cube above the highest cube of the rules (a Match ID
            of a cube of 128, say, with the default 64), or a double offered that the rules
            forbid (past the highest cube, or of a dead cube in match play).
        """
        if self.max_cube is not None and self.max_cube < 2:
            raise InvalidSpecError(f"the XGID's maximum-cube field is {self.max_cube.bit_length() - 1} (a highest cube "
                                   f"of 2**{self.max_cube.bit_length() - 1} = {self.max_cube}): bgfast's rules need "
                                   "a highest cube of 2 or more, a field of 1 or more")
        stated = {name: getattr(self, name) for name in ("max_cube", "jacoby", "beaver")}
        rules = dataclasses.replace(base or Rules(), **{k: v for k, v in stated.items() if v is not None})
        m = self.match
        if m is not None and m.cube_value > rules.max_cube:
            whose = "the XGID's maximum-cube field" if self.max_cube is not None else "the rules"
            raise InvalidMatchIdError(f"the cube is at {m.cube_value}, above the highest cube {whose} "
                                      f"allow ({rules.max_cube}); an XGID states its own (its maximum-cube field "
                                      "N allows a cube of 2**N)")
        if m is not None and m.double_offered:
            before = dataclasses.replace(m, double_offered=False, turn=m.player_on_roll)
            try:
                before.double(m.player_on_roll, rules)
            except IllegalCubeActionError as exc:
                raise InvalidMatchIdError(f"the double offered is not one the rules allow: {exc}") from None
        return rules

    def check_roll(self, dice: Dice | str | tuple[int, int]) -> Dice:
        """``dice`` as :class:`~bgfast.dice.Dice` if the text allows a play of them now.

        Without a match state any dice will do; with one, see
        :meth:`bgfast.match.MatchState.check_roll` (the dice its Match ID or XGID
        says were rolled, no double pending...).

        >>> read_position("4HPwATDgc/ABMA:cAkXAAAAAAAA").check_roll("56")
        Dice(high=6, low=5)

        :raises InvalidDiceError: dice that do not parse, or that the match state
            does not allow.
        """
        return Dice.of(dice) if self.match is None else self.match.check_roll(dice)


def is_xgid_text(text: str) -> bool:
    """Whether :func:`read_position` reads ``text`` (stripped) as an XGID rather than a
    Position ID or ``PositionID:MatchID``: the ``XGID=`` prefix, or four or more ``:``."""
    return has_xgid_prefix(text) or text.count(":") >= 4


def format_position(position: Position, match: MatchState) -> str:
    """gnubg's ``PositionID:MatchID`` of ``position`` (the side on roll's view) in ``match``:
    what :func:`read_position` reads back.

    >>> format_position(Position(), MatchState(length=5))
    '4HPwATDgc/ABMA:MAGgAAAAAAAE'
    """
    return f"{position.id()}:{match.match_id()}"


def read_position(position: Position | str) -> PositionText:
    """Read a position, its match state and the rules it states from text.

    Accepts a :class:`~bgfast.position.Position` (kept as it is, stating nothing
    else), a gnubg Position ID, ``PositionID:MatchID`` (gnubg's combined form), or
    an XGID (with or without its ``XGID=`` prefix).  The position is from the view
    of the side on roll; for an XGID that is the player its turn field names, who
    is player 1 of the match state (as gnubg reads XGIDs, :mod:`bgfast.codecs.xgid`).

    >>> text = read_position("XGID=-b----E-C---eE---c-e----B-:1:1:1:00:2:4:0:7:3")
    >>> text.match.score, text.match.cube_value, text.max_cube, text.jacoby
    ((4, 2), 2, 8, None)

    :raises InvalidPositionError: a malformed ID, or neither a Position nor text.
    :raises InvalidMatchIdError: a malformed Match ID or XGID match field.
    """
    if isinstance(position, Position):
        return PositionText(position)
    if not isinstance(position, str):
        raise InvalidPositionError(f"a position is a Position, a Position ID or an XGID, got {position!r}")
    text = position.strip()
    if is_xgid_text(text):
        record = parse_xgid(text)
        money = not record.is_match
        return PositionText(Position.from_board(record.board), MatchState.from_xgid(text), max_cube=record.max_cube,
                            jacoby=record.jacoby if money else None, beaver=record.beaver if money else None)
    if ":" in text:
        position_id, match_id = text.split(":", 1)
        pos, match = Position.from_id(position_id), MatchState.from_match_id(match_id)
        return PositionText(pos, match, jacoby=match.jacoby if match.is_money else None)
    return PositionText(Position.from_id(text))


def parse_position(position: Position | str) -> tuple[Position, MatchState | None]:
    """A position and, when the text carries one, its match state: :func:`read_position` in short.

    >>> pos, match = parse_position("4HPwATDgc/ABMA:MAEgASAAIAAE")
    >>> pos.id(), match.length
    ('4HPwATDgc/ABMA', 9)
    >>> parse_position("4HPwATDgc/ABMA")[1] is None
    True

    :raises InvalidPositionError: a malformed ID, or neither a Position nor text.
    :raises InvalidMatchIdError: a malformed Match ID or XGID match field.
    """
    text = read_position(position)
    return text.position, text.match
