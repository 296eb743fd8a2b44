"""eXtreme Gammon's XGID: parse and format, as pure functions.

An XGID is ten fields joined by colons, usually after an ``XGID=`` prefix::

    XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10
         position                   | | | |  | | | | max cube (log2)
                                    | | | |  | | | match length (0 = money)
                                    | | | |  | | Crawford (match) / Jacoby+beaver (money)
                                    | | | |  | score of the top player
                                    | | | |  score of the bottom player
                                    | | | dice
                                    | | turn
                                    | cube position
                                    cube value (log2)

XG draws one player at the *bottom* of the board (its checkers are the
uppercase letters) and the other at the *top* (lowercase).  The position
field always numbers the points from the bottom player's side, whoever is on
roll:

* character 0 is the top player's bar,
* characters 1..24 are the bottom player's points 1..24 (the bottom player's
  point ``p`` is the top player's point ``25 - p``),
* character 25 is the bottom player's bar,
* ``'-'`` is an empty point, ``'A'``..``'O'`` are 1..15 checkers of the
  bottom player and ``'a'``..``'o'`` 1..15 checkers of the top player.

Checkers borne off are not written: they are whatever is missing from 15.

**Which player is side 1.**  bgfast boards are ``[side0, side1]`` with side 1
the player on roll (see ``tests/data`` and the core).  The XGID *turn* field
says who that is: ``1`` is the bottom player, ``-1`` the top player.  So with
turn 1 the board is ``[top, bottom]`` and with turn -1 it is
``[bottom, top]``.  The functions below take that turn as an argument
(default 1: the player on roll is drawn at the bottom, which is what XG
writes for its own user).

**Which player is which in a Match ID.**  An XGID names its players by where
they sit (bottom, top); a Match ID by number (0, 1).  GNU Backgammon reads an
XGID (``set xgid``) with the player on roll -- the player the turn field names --
as its player 1 and the other as player 0, whichever of them sits at the bottom:
the scores, the cube owner and the turn follow (with turn -1 the top player's
score is player 1's).  :func:`xgid_to_match_fields` reads the same way, which
:class:`bgfast.match.MatchState` uses; checked against gnubg 1.07 on hundreds of
XGIDs (``tests/test_xgid_gnubg.py``, ``tests/data/xgid.jsonl``).  Writing
(:func:`match_fields_to_xgid`), player 1 sits at the bottom and player 0 at the
top, so an XGID of a state with player 1 on roll reads back to the same Match ID,
and one with player 0 on roll reads back with the two players renumbered.

With the dice field ``'D'`` (a double offered, waiting for take or pass) the
turn names the player who *doubled*: that player is still the one "on roll"
(gnubg's dice owner), so the board is still from the doubler's view.  The
cube fields then give the cube as it was before the double.  ``'B'`` and
``'R'`` mark a pending beaver and raccoon (money play).  bgfast keeps a pending
double (the doubled player, player 0, is to act); gnubg 1.07's ``set xgid``
drops it and leaves the doubler to roll, which is the one field where the two
Match IDs differ.

The rules field means the Crawford flag in match play (``1`` = this game is
the Crawford game) and, in money play, bit 0 = the Jacoby rule and bit 1 =
beavers (so 0..3).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bgfast.codecs.match_id import CENTRED, LAYOUT
from bgfast.codecs.position_id import board_bytes
from bgfast.errors import InvalidMatchIdError, InvalidPositionError, shortened
from bgfast.validation import one_of, whole_number

__all__ = [
    "DEFAULT_MAX_CUBE_LOG2",
    "STARTING_XGID",
    "XgidRecord",
    "board_to_xgid_field",
    "format_xgid",
    "has_xgid_prefix",
    "match_fields_to_xgid",
    "parse_xgid",
    "xgid_field_to_board",
    "xgid_to_match_fields",
]

STARTING_XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"
"""The standard opening position, bottom player to roll, money play, no rules."""

DEFAULT_MAX_CUBE_LOG2 = 10
"""The maximum cube XG writes by default: 2**10 = 1024."""

_NUM_CHECKERS = 15
_FIELD_LENGTH = 26
_MAX_LOG2 = (1 << LAYOUT["cube_log2"][1]) - 1  # as in a Match ID: 15
_INT = re.compile(r"[0-9]+")
_SIGNED = re.compile(r"-?[0-9]+")
_DICE = re.compile(r"00|[1-6][1-6]|D|B|R")


def _check_turn(turn: int) -> None:
    one_of(turn, "turn (1 = the bottom player on roll, -1 = the top player)", (1, -1))


def board_to_xgid_field(board: Sequence[Sequence[int]], turn: int = 1) -> str:
    """Write a board as the 26-character XGID position field.

    ``board`` is ``[side0, side1]`` with side 1 the player on roll, each a
    list of 25 counts (index 0..23 = the side's own points 1..24, index 24 =
    its bar).  ``turn`` is the XGID turn of the player on roll: ``1`` draws
    side 1 at the bottom (uppercase), ``-1`` at the top (lowercase).

    >>> start = [0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0]
    >>> board_to_xgid_field([start, start])
    '-b----E-C---eE---c-e----B-'

    :raises InvalidPositionError: not two lists of 25 non-negative integers,
        more than 15 checkers a side, or a point held by both sides.
    """
    _check_turn(turn)
    raw = board_bytes(board)
    side0, side1 = raw[:25], raw[25:]
    bottom, top = (side1, side0) if turn == 1 else (side0, side1)
    chars = []
    for k in range(_FIELD_LENGTH):
        if k == 0:
            own, other = 0, top[24]
        elif k == 25:
            own, other = bottom[24], 0
        else:
            own, other = bottom[k - 1], top[24 - k]
        if own:
            chars.append(chr(ord("A") + own - 1))
        elif other:
            chars.append(chr(ord("a") + other - 1))
        else:
            chars.append("-")
    return "".join(chars)


def xgid_field_to_board(field: str, turn: int = 1) -> list[list[int]]:
    """Read the 26-character XGID position field as a board ``[side0, side1]``.

    Side 1 is the player on roll: the bottom player for ``turn=1`` (the
    default), the top player for ``turn=-1``.  A leading ``XGID=`` and any
    fields after the first colon are not accepted here; use
    :func:`parse_xgid` for a whole XGID.

    >>> side0, side1 = xgid_field_to_board('-b----E-C---eE---c-e----B-')
    >>> side1[5], side1[7], side1[12], side1[23], side0 == side1
    (5, 3, 5, 2, True)

    :raises InvalidPositionError: not 26 characters of ``-``, ``A-O``,
        ``a-o``, the bottom player on the top player's bar (character 0) or
        the other way round, or more than 15 checkers a side.
    """
    _check_turn(turn)
    if not isinstance(field, str) or len(field) != _FIELD_LENGTH:
        raise InvalidPositionError(f"an XGID position field is 26 characters, got {shortened(field)!r}")
    bottom = [0] * 25
    top = [0] * 25
    for k, ch in enumerate(field):
        if ch == "-":
            continue
        if "A" <= ch <= "O":
            if k == 0:
                raise InvalidPositionError(
                    f"character 0 is the top player's bar, but holds bottom checkers {ch!r} in {shortened(field)!r}"
                )
            bottom[24 if k == 25 else k - 1] = ord(ch) - ord("A") + 1
        elif "a" <= ch <= "o":
            if k == 25:
                raise InvalidPositionError(
                    f"character 25 is the bottom player's bar, but holds top checkers {ch!r} in {shortened(field)!r}"
                )
            top[24 if k == 0 else 24 - k] = ord(ch) - ord("a") + 1
        else:
            raise InvalidPositionError(
                f"XGID position character {ch!r} at {k} is not '-', 'A'-'O' or 'a'-'o' in {shortened(field)!r}"
            )
    for name, side in (("bottom", bottom), ("top", top)):
        if sum(side) > _NUM_CHECKERS:
            raise InvalidPositionError(
                f"the {name} player has {sum(side)} checkers (at most 15) in {shortened(field)!r}"
            )
    return [top, bottom] if turn == 1 else [bottom, top]


@dataclass(frozen=True)
class XgidRecord:
    """All ten fields of an XGID, as written (no interpretation of the score).

    >>> rec = parse_xgid('XGID=-b----E-C---eE---c-e----B-:1:-1:1:63:2:4:0:7:10')
    >>> rec.cube_value, rec.cube_position, rec.turn, rec.dice, rec.match_length
    (2, -1, 1, '63', 7)
    """

    position: str
    """The 26-character position field (see the module docstring)."""
    cube_log2: int = 0
    """The cube value as a power of two: 0 = 1, 1 = 2, ...  With ``dice='D'``, the cube before the double."""
    cube_position: int = 0
    """0 = centred, 1 = owned by the bottom player, -1 = owned by the top player."""
    turn: int = 1
    """1 = the bottom player is on roll (or doubled, with ``'D'``), -1 = the top player."""
    dice: str = "00"
    """``'00'`` not rolled, two digits 1-6 rolled (as written), ``'D'`` double offered,
    ``'B'`` beaver offered, ``'R'`` raccoon offered."""
    score_bottom: int = 0
    """Points won by the bottom player."""
    score_top: int = 0
    """Points won by the top player."""
    rules: int = 0
    """Match play: 1 = this is the Crawford game.  Money: bit 0 Jacoby, bit 1 beavers (0..3)."""
    match_length: int = 0
    """0 = money play."""
    max_cube_log2: int = DEFAULT_MAX_CUBE_LOG2
    """The highest cube allowed, as a power of two (XG writes 10 = 1024 by default)."""

    def __post_init__(self) -> None:
        xgid_field_to_board(self.position)  # validates the position field
        fields = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        del fields["position"]
        try:
            _check_fields(**fields)
        except InvalidMatchIdError as exc:
            raise InvalidMatchIdError(f"{exc} in {format_xgid(self)!r}") from None

    def __str__(self) -> str:
        return format_xgid(self)

    @property
    def cube_value(self) -> int:
        """The cube value, ``2 ** cube_log2``."""
        return 1 << self.cube_log2

    @property
    def max_cube(self) -> int:
        """The highest cube value allowed, ``2 ** max_cube_log2``."""
        return 1 << self.max_cube_log2

    @property
    def is_match(self) -> bool:
        """True for match play, False for money play."""
        return self.match_length > 0

    @property
    def crawford(self) -> bool:
        """True if this is the Crawford game (always False in money play)."""
        return self.is_match and self.rules == 1

    @property
    def jacoby(self) -> bool:
        """True if the Jacoby rule is on (money play only)."""
        return not self.is_match and bool(self.rules & 1)

    @property
    def beaver(self) -> bool:
        """True if beavers are allowed (money play only)."""
        return not self.is_match and bool(self.rules & 2)

    @property
    def board(self) -> list[list[int]]:
        """The position as ``[side0, side1]``, side 1 being the player on roll (``turn``).

        >>> parse_xgid('XGID=a-------------------------:0:0:-1:00:0:0:0:0:10').board[1][24]
        1
        """
        return xgid_field_to_board(self.position, self.turn)


def _check_fields(
    cube_log2: int,
    cube_position: int,
    turn: int,
    dice: str,
    score_bottom: int,
    score_top: int,
    rules: int,
    match_length: int,
    max_cube_log2: int,
) -> None:
    """Check the fields after the position; raise InvalidMatchIdError for the first wrong one."""
    E = InvalidMatchIdError
    whole_number(cube_log2, "XGID cube (log2)", low=0, high=_MAX_LOG2, error=E, what="an integer")
    whole_number(max_cube_log2, "XGID max cube (log2)", low=0, high=_MAX_LOG2, error=E, what="an integer")
    if cube_log2 > max_cube_log2:  # no game played under this maximum reaches such a cube
        raise E(f"XGID cube 2^{cube_log2} = {1 << cube_log2} is above its maximum cube "
                f"2^{max_cube_log2} = {1 << max_cube_log2}")
    one_of(cube_position, "XGID cube position", (-1, 0, 1), error=E)
    one_of(turn, "XGID turn", (1, -1), error=E)
    if not isinstance(dice, str) or not _DICE.fullmatch(dice):
        raise E(f"XGID dice must be '00', two digits 1-6, 'D', 'B' or 'R', got {dice!r}")
    for name, value in (("bottom score", score_bottom), ("top score", score_top), ("match length", match_length)):
        whole_number(value, f"XGID {name}", low=0, error=E, what="an integer")
    kind = "match play" if match_length > 0 else "money play"
    one_of(rules, f"XGID rules field in {kind}", (0, 1) if match_length > 0 else (0, 1, 2, 3), error=E)


def has_xgid_prefix(text: str) -> bool:
    """Whether ``text`` begins with XG's ``XGID=`` (in any case)."""
    return text[:5].upper() == "XGID="


def parse_xgid(text: str) -> XgidRecord:
    """Parse a whole XGID, with or without the ``XGID=`` prefix (in any case).

    Surrounding whitespace is ignored.  All ten fields are required.

    >>> rec = parse_xgid('XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10')
    >>> rec.turn, rec.dice, rec.match_length, rec.max_cube
    (1, '00', 0, 1024)

    :raises InvalidPositionError: the position field is malformed.
    :raises InvalidMatchIdError: a field count other than ten, a field that is
        not a valid number or dice code, or a cube above the maximum cube.
    """
    if not isinstance(text, str):
        raise InvalidMatchIdError(f"an XGID is a string, got {text!r}")
    body = text.strip()
    if has_xgid_prefix(body):
        body = body[5:]
    parts = body.split(":")
    if len(parts) != 10:
        raise InvalidMatchIdError(f"an XGID has 10 fields separated by ':', got {len(parts)} in {shortened(text)!r}")
    position, cube, owner, turn, dice, s_bottom, s_top, rules, length, max_cube = parts
    try:
        xgid_field_to_board(position)
    except InvalidPositionError as exc:
        raise InvalidPositionError(f"{exc} (in XGID {shortened(text)!r})") from None

    def number(name: str, value: str, signed: bool = False) -> int:
        if not (_SIGNED if signed else _INT).fullmatch(value):
            kind = "a whole number" if signed else "a whole number of 0 or more"
            raise InvalidMatchIdError(f"XGID {name} field {value!r} is not {kind} in {shortened(text)!r}")
        return int(value)

    fields: dict[str, Any] = {
        "cube_log2": number("cube", cube),
        "cube_position": number("cube position", owner, signed=True),
        "turn": number("turn", turn, signed=True),
        "dice": dice,
        "score_bottom": number("bottom score", s_bottom),
        "score_top": number("top score", s_top),
        "rules": number("rules", rules),
        "match_length": number("match length", length),
        "max_cube_log2": number("max cube", max_cube),
    }
    try:
        _check_fields(**fields)
    except InvalidMatchIdError as exc:
        raise InvalidMatchIdError(f"{exc} in {shortened(text)!r}") from None
    return XgidRecord(position, **fields)


def format_xgid(record: XgidRecord) -> str:
    """Write an :class:`XgidRecord` as ``XGID=...`` text (the inverse of :func:`parse_xgid`).

    >>> format_xgid(XgidRecord('-b----E-C---eE---c-e----B-', dice='31', match_length=7))
    'XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:7:10'
    """
    r = record
    return (
        f"XGID={r.position}:{r.cube_log2}:{r.cube_position}:{r.turn}:{r.dice}:"
        f"{r.score_bottom}:{r.score_top}:{r.rules}:{r.match_length}:{r.max_cube_log2}"
    )


# ---------------------------------------------------------------- match fields


def xgid_to_match_fields(record: XgidRecord) -> dict[str, int]:
    """The match fields of an XGID as a Match ID holds them (:mod:`bgfast.codecs.match_id`).

    As GNU Backgammon reads XGIDs (module docstring): the player on roll (the turn
    field's) is player 1, the other player 0, so the scores and the cube owner are
    ordered by who is on roll, not by who sits at the bottom.  With dice ``'D'`` the
    player on roll has doubled and player 0 must act (gnubg drops such a double).
    The game is taken to be in progress (game state 1) with no resignation offered.
    What a Match ID does not hold is dropped: the beaver bit and the maximum cube.

    >>> fields = xgid_to_match_fields(parse_xgid('XGID=-b----E-C---eE---c-e----B-:1:1:1:D:4:2:0:7:10'))
    >>> fields["score0"], fields["score1"], fields["owner"], fields["player_on_roll"], fields["turn"]
    (2, 4, 1, 1, 0)
    >>> fields = xgid_to_match_fields(parse_xgid('XGID=-b----E-C---eE---c-e----B-:1:-1:-1:31:4:2:0:7:10'))
    >>> fields["score0"], fields["score1"], fields["owner"], fields["player_on_roll"], fields["turn"]
    (4, 2, 1, 1, 1)

    :raises InvalidMatchIdError: the dice field is a pending beaver (``'B'``) or
        raccoon (``'R'``), which a Match ID cannot hold; a score at or past the match
        length (the match is over); a double (``'D'``) by the player on roll while its
        opponent owns the cube.
    """
    if record.dice in ("B", "R"):
        raise InvalidMatchIdError(
            f"a pending beaver or raccoon ({record.dice!r}) has no match state in {str(record)!r}"
        )
    doubled = record.dice == "D"
    top = max(record.score_bottom, record.score_top)
    if record.match_length and top >= record.match_length:
        raise InvalidMatchIdError(
            f"the match is over: a side has {top} of {record.match_length} points (score "
            f"{record.score_bottom}:{record.score_top}) in {str(record)!r}; give a score below the match length"
        )
    if doubled and record.cube_position == -record.turn:
        raise InvalidMatchIdError(
            f"the player on roll cannot have doubled: its opponent owns the cube (dice 'D' with cube "
            f"position {record.cube_position} and turn {record.turn}) in {str(record)!r}; only the cube's "
            "owner, or either side with the cube centred, may double"
        )
    die1, die2 = (0, 0) if record.dice in ("00", "D") else (int(record.dice[0]), int(record.dice[1]))
    on_roll_score, other_score = (
        (record.score_bottom, record.score_top) if record.turn == 1 else (record.score_top, record.score_bottom)
    )
    if record.cube_position == 0:
        owner = CENTRED
    else:
        owner = 1 if record.cube_position == record.turn else 0
    return {
        "cube_log2": record.cube_log2,
        "owner": owner,
        "player_on_roll": 1,
        "crawford": int(record.crawford),
        "game_state": 1,
        "turn": 0 if doubled else 1,
        "double_offered": int(doubled),
        "resigned": 0,
        "die1": die1,
        "die2": die2,
        "length": record.match_length,
        "score0": other_score,
        "score1": on_roll_score,
        "no_jacoby": int(not record.jacoby),
    }


def match_fields_to_xgid(fields: Mapping[str, int], board: Sequence[Sequence[int]], *, beaver: bool = False,
                         max_cube_log2: int = DEFAULT_MAX_CUBE_LOG2) -> XgidRecord:
    """The XGID of a board ``[side0, side1]`` (side 1 on roll) and its Match ID fields.

    Player 1 is drawn at the bottom and player 0 at the top.  In money play the
    rules field holds the Jacoby rule (bit 0) and ``beaver`` (bit 1); in match play
    the Crawford flag.  The game state and a resignation offer are not part of an
    XGID and are left out.  The maximum cube is ``max_cube_log2``, or the cube when
    it is higher (an XGID's cube is never above its maximum).  Read back
    (:func:`xgid_to_match_fields`, as gnubg reads
    it), the player on roll is player 1: the same fields when ``player_on_roll`` is
    1, the players renumbered when it is 0.

    >>> from bgfast.codecs.match_id import decode_match_id
    >>> start = [0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0]
    >>> str(match_fields_to_xgid(decode_match_id("8IhuACAACAAE"), [start, start]))
    'XGID=-b----E-C---eE---c-e----B-:0:0:1:53:1:2:1:3:10'

    :raises InvalidPositionError: the board is not a valid position.
    :raises InvalidMatchIdError: a field an XGID cannot hold.
    """
    turn = 1 if fields["player_on_roll"] == 1 else -1
    if fields["length"]:
        flags = fields["crawford"]
    else:
        flags = int(not fields["no_jacoby"]) + (2 if beaver else 0)
    return XgidRecord(
        position=board_to_xgid_field(board, turn),
        cube_log2=fields["cube_log2"],
        cube_position={CENTRED: 0, 1: 1, 0: -1}[fields["owner"]],
        turn=turn,
        dice="D" if fields["double_offered"] else f"{fields['die1']}{fields['die2']}",
        score_bottom=fields["score1"],
        score_top=fields["score0"],
        rules=flags,
        match_length=fields["length"],
        max_cube_log2=max(max_cube_log2, fields["cube_log2"]),
    )
