"""GNU Backgammon's Match ID: the bit codec, on plain fields.

A Match ID is 12 characters of standard Base64 for a 9-byte key.  Bit ``k`` of the
key is bit ``k % 8`` (least significant first) of byte ``k // 8``, and each field is
stored least significant bit first from its offset (:data:`LAYOUT`): 0-3 the cube's
log2, 4-5 the cube owner (0 or 1, 3 = centred), 6 the player on roll (gnubg's dice
owner), 7 the Crawford game, 8-10 the game state (0 none, 1 playing, 2 over,
3 resigned, 4 dropped), 11 the player who must act now (turn), 12 a double offered,
13-14 a resignation offered (0 none, 1 single, 2 gammon, 3 backgammon), 15-17 die 1,
18-20 die 2, 21-35 the match length (0 = money), 36-50 player 0's score, 51-65
player 1's score, 66 *no* Jacoby rule (gnubg writes it; its manual does not list
it), 67-71 zero.

The source is gnubg's ``matchid.c`` and its manual ("A technical description of the
Match ID").  This module only packs and unpacks the bits: :class:`MatchFields` holds
them as plain values, and whether they make a possible match (a die of 7, a
Crawford game in money play) is for :class:`bgfast.match.MatchState` to say.

>>> fields = decode_match_id("cAkXAAAAAAAA")
>>> fields.dice, fields.player_on_roll, fields.jacoby
((6, 5), 1, True)
>>> encode_match_id(fields)
'cAkXAAAAAAAA'
"""
from __future__ import annotations

import base64
import binascii
from typing import NamedTuple

from bgfast.errors import InvalidMatchIdError
from bgfast.validation import whole_number

__all__ = ["LAYOUT", "MatchFields", "decode_match_id", "encode_match_id"]

LAYOUT: dict[str, tuple[int, int]] = {
    "cube_log2": (0, 4),
    "owner": (4, 2),
    "player_on_roll": (6, 1),
    "crawford": (7, 1),
    "game_state": (8, 3),
    "turn": (11, 1),
    "double_offered": (12, 1),
    "resigned": (13, 2),
    "die1": (15, 3),
    "die2": (18, 3),
    "length": (21, 15),
    "score0": (36, 15),
    "score1": (51, 15),
    "no_jacoby": (66, 1),
}
"""``{field: (offset, width)}`` of the 72-bit key; bits 67-71 are zero."""

_KEY_BYTES = 9
_CENTRED = 3  # the owner field of a centred cube


class MatchFields(NamedTuple):
    """The fields of a Match ID as plain values, in :class:`bgfast.match.MatchState`'s terms.

    The cube is its value (not its log2) and a centred cube has owner -1; the dice
    are as stored (not ordered), ``(0, 0)`` before the roll.
    """

    length: int = 0
    score: tuple[int, int] = (0, 0)
    cube_value: int = 1
    cube_owner: int = -1
    crawford: bool = False
    player_on_roll: int = 0
    turn: int = 0
    game_state: int = 1
    double_offered: bool = False
    resigned: int = 0
    dice: tuple[int, int] = (0, 0)
    jacoby: bool = False


def decode_match_id(match_id: str) -> MatchFields:
    """The fields of a 12-character Match ID.

    :raises InvalidMatchIdError: not 12 Base64 characters (padding ``=`` included),
        a cube owner of 2, or bits 67-71 set.
    """
    if not isinstance(match_id, str) or len(match_id) != 12:
        raise InvalidMatchIdError(f"a Match ID is 12 characters, got {match_id!r}")
    try:
        key = base64.b64decode(match_id, validate=True)
    except (binascii.Error, ValueError):
        key = b""
    if len(key) != _KEY_BYTES:
        raise InvalidMatchIdError(f"a Match ID uses only A-Z a-z 0-9 + /, got {match_id!r}")
    bits = int.from_bytes(key, "little")
    if bits >> 67:
        raise InvalidMatchIdError(f"Match ID bits 67-71 must be zero in {match_id!r}")
    raw = {name: (bits >> offset) & ((1 << width) - 1) for name, (offset, width) in LAYOUT.items()}
    if raw["owner"] == 2:
        raise InvalidMatchIdError(f"Match ID cube owner 2 is not 0, 1 or 3 (centred) in {match_id!r}")
    return MatchFields(
        length=raw["length"],
        score=(raw["score0"], raw["score1"]),
        cube_value=1 << raw["cube_log2"],
        cube_owner=-1 if raw["owner"] == _CENTRED else raw["owner"],
        crawford=bool(raw["crawford"]),
        player_on_roll=raw["player_on_roll"],
        turn=raw["turn"],
        game_state=raw["game_state"],
        double_offered=bool(raw["double_offered"]),
        resigned=raw["resigned"],
        dice=(raw["die1"], raw["die2"]),
        jacoby=not raw["no_jacoby"],
    )


def encode_match_id(fields: MatchFields) -> str:
    """The 12-character Match ID of ``fields``.

    :raises InvalidMatchIdError: a value that does not fit its bits (a cube value
        that is not a power of two up to 2**15, an owner other than -1, 0 or 1, a
        score of 2**15...).
    """
    cube = fields.cube_value
    if isinstance(cube, bool) or not isinstance(cube, int) or cube < 1 or cube & (cube - 1):
        raise InvalidMatchIdError(f"cube_value must be a power of two, got {cube!r}")
    if fields.cube_owner not in (-1, 0, 1) or isinstance(fields.cube_owner, bool):
        raise InvalidMatchIdError(f"cube_owner must be -1 (centred), 0 or 1, got {fields.cube_owner!r}")
    values = {
        "cube_log2": cube.bit_length() - 1,
        "owner": _CENTRED if fields.cube_owner == -1 else fields.cube_owner,
        "player_on_roll": fields.player_on_roll,
        "crawford": int(fields.crawford),
        "game_state": fields.game_state,
        "turn": fields.turn,
        "double_offered": int(fields.double_offered),
        "resigned": fields.resigned,
        "die1": fields.dice[0],
        "die2": fields.dice[1],
        "length": fields.length,
        "score0": fields.score[0],
        "score1": fields.score[1],
        "no_jacoby": int(not fields.jacoby),
    }
    bits = 0
    for name, (offset, width) in LAYOUT.items():
        value = whole_number(values[name], f"Match ID field {name}", low=0, high=(1 << width) - 1,
                             error=InvalidMatchIdError, what="an integer")
        bits |= value << offset
    return base64.b64encode(bits.to_bytes(_KEY_BYTES, "little")).decode("ascii")
