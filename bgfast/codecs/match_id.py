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
Match ID").  This module only packs and unpacks the bits: a Match ID's fields are a
plain ``{name: int}`` dict with the names of :data:`LAYOUT`, values as stored
(``cube_log2``, ``owner`` 3 for a centred cube, ``no_jacoby``).  What they mean, and
whether they make a possible match (a die of 7, a Crawford game in money play), is
for :class:`bgfast.match.MatchState` to say.

>>> fields = decode_match_id("cAkXAAAAAAAA")
>>> fields["die1"], fields["die2"], fields["player_on_roll"], fields["no_jacoby"]
(6, 5, 1, 0)
>>> encode_match_id(fields)
'cAkXAAAAAAAA'
"""
from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping

from bgfast.errors import InvalidMatchIdError, shortened
from bgfast.validation import whole_number

__all__ = ["CENTRED", "LAYOUT", "decode_match_id", "encode_match_id"]

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

CENTRED = 3
"""The ``owner`` field of a centred cube."""

_KEY_BYTES = 9
_USED_BITS = 67


def decode_match_id(match_id: str) -> dict[str, int]:
    """The fields of a 12-character Match ID, ``{name: value}`` for every name of :data:`LAYOUT`.

    :raises InvalidMatchIdError: not 12 Base64 characters (padding ``=`` included),
        a cube owner of 2, or bits 67-71 set.
    """
    if not isinstance(match_id, str) or len(match_id) != 12:
        shown = shortened(match_id) if isinstance(match_id, str) else match_id
        raise InvalidMatchIdError(f"a Match ID is 12 characters, got {shown!r}")
    try:
        key = base64.b64decode(match_id, validate=True)
    except (binascii.Error, ValueError):
        key = b""
    if len(key) != _KEY_BYTES:
        raise InvalidMatchIdError(f"a Match ID uses only A-Z a-z 0-9 + /, got {match_id!r}")
    bits = int.from_bytes(key, "little")
    if bits >> _USED_BITS:
        raise InvalidMatchIdError(f"Match ID bits 67-71 must be zero in {shortened(match_id)!r}")
    fields = {name: (bits >> offset) & ((1 << width) - 1) for name, (offset, width) in LAYOUT.items()}
    if fields["owner"] == 2:
        raise InvalidMatchIdError(f"Match ID cube owner 2 is not 0, 1 or 3 (centred) in {shortened(match_id)!r}")
    return fields


def encode_match_id(fields: Mapping[str, int]) -> str:
    """The 12-character Match ID of ``fields`` (every name of :data:`LAYOUT`, no other).

    :raises InvalidMatchIdError: a missing or unknown field, or a value that is not
        an integer that fits its bits.
    """
    if set(fields) != set(LAYOUT):
        missing, unknown = sorted(set(LAYOUT) - set(fields)), sorted(set(fields) - set(LAYOUT))
        raise InvalidMatchIdError(f"Match ID fields missing {missing}, unknown {unknown}")
    bits = 0
    for name, (offset, width) in LAYOUT.items():
        value = whole_number(fields[name], f"Match ID field {name}", low=0, high=(1 << width) - 1,
                             error=InvalidMatchIdError, what="an integer")
        bits |= value << offset
    return base64.b64encode(bits.to_bytes(_KEY_BYTES, "little")).decode("ascii")
