"""Openings: positions a tournament's games start from, read from a file, and playing from them.

An openings file lists one position a line: a gnubg Position ID (14 characters), gnubg's
``PositionID:MatchID`` pair or an XGID (the forms :func:`bgfast.formats.text.parse_position`
reads), from the view of the player *on roll*.  Everything after ``#`` is a comment; blank
lines are skipped.  A spec names the file with ``openings = "FILE"`` (relative to the spec
file) and plays each opening as a dice pair with the seats swapped: in both matches the
player in seat 0 is the one who "played" the opening move and the player in seat 1 is on
roll, so each player meets each opening once from each side, on the same dice.  In a
match, the opening starts the first game; later games start from the opening roll
(:meth:`bgfast.game.MatchPlayer.play` with ``start``).

An XGID or a Match ID also says the match situation.  It must be the start of a game of the spec's kind:
its match length equal to the spec's (0 = money), score 0-0, the cube centred at 1, not
the Crawford game, no dice rolled and no double pending; anything else is refused, as
is an ID that does not parse, a finished position, a position with more checkers than
the variant's, or a file with no position.  Every error names the file and line.

>>> text = '''
... # 21 slot, 21 split
... 0HPkATDgc/ABMA
... XGID=-aa---E-C---dEa--c-e----B-:0:0:1:00:0:0:0:0:10   # the same roll, split
... '''
>>> [str(o) for o in parse_openings(text, match_length=0)]
['0HPkATDgc/ABMA', '4HPkASjgc/ABMA']
>>> parse_openings("0HPkATDgc/ABMA\\nnot-an-id\\n", source="book.txt", match_length=0)
Traceback (most recent call last):
...
bgfast.errors.InvalidSpecError: book.txt:2: not a Position ID or an XGID: 'not-an-id' (invalid Position ID 'not-an-id': ...)
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bgfast.errors import InvalidMatchIdError, InvalidPositionError, InvalidSpecError
from bgfast.position import Position
from bgfast.validation import one_of, read_input_file, whole_number

__all__ = [
    "MAX_OPENINGS_BYTES",
    "OPENINGS_ORDERS",
    "Opening",
    "load_openings",
    "opening_order",
    "parse_opening",
    "parse_openings",
]

OPENINGS_ORDERS = ("sequential", "random")
"""``openings_order``: the file's order, or the file shuffled once with the spec's seed."""

MAX_OPENINGS_BYTES = 1 << 26
"""The largest openings file :func:`load_openings` reads (64 MiB: a million XGIDs)."""


@dataclass(frozen=True)
class Opening:
    """One opening: the position (the player on roll's view) and where it was read."""

    position: Position
    line: int = 0
    """The line of the file it came from (0: not from a file)."""

    def __str__(self) -> str:
        return self.position.id()


def parse_opening(text: str, where: str, *, match_length: int | None, checkers: int = 15) -> Position:
    """One opening: a Position ID, ``PositionID:MatchID`` or an XGID (see the module docstring).

    :param where: how error messages name the place it was read (``file:line``).
    :param match_length: the spec's match length (0 = money), or None when the spec plays
        several lengths (then an XGID or a Match ID, which names one, is refused).
    :raises InvalidSpecError: see :func:`parse_openings`.
    """
    from bgfast.formats.text import is_xgid_text, parse_position

    is_xgid = is_xgid_text(text)
    try:
        position, match = parse_position(text)
    except (InvalidPositionError, InvalidMatchIdError) as exc:
        if is_xgid:
            raise InvalidSpecError(f"{where}: not a valid XGID: {exc}") from None
        raise InvalidSpecError(f"{where}: not a Position ID or an XGID: {text!r} ({exc})") from None
    if match is not None:
        problems = []
        if match_length is None:
            problems.append("the spec plays several match lengths (use Position IDs, which fit any)")
        elif match.length != match_length:
            kind = "money games" if match_length == 0 else f"{match_length}-point matches"
            problems.append(f"match length {match.length}, but the spec plays {kind}")
        if match.score != (0, 0):
            on_roll = match.player_on_roll
            problems.append(f"score {match.score[on_roll]}-{match.score[1 - on_roll]} (the player on roll's "
                            "first), not 0-0")
        if match.cube_value != 1 or match.cube_owner != -1:
            problems.append("the cube is not centred at 1")
        if match.crawford:
            problems.append("it is a Crawford game")
        if match.double_offered:
            problems.append("a double is pending, not a roll to make")
        elif match.dice != (0, 0):
            problems.append(f"dice '{match.dice[0]}{match.dice[1]}' rolled, not to roll")
        if problems:
            what = "XGID" if is_xgid else "Match ID"
            raise InvalidSpecError(f"{where}: the {what} is not the start of a game of this spec: "
                                   f"{'; '.join(problems)}")
    if position.is_over():
        raise InvalidSpecError(f"{where}: {position.id()} is a finished position (a side has no checker left)")
    unreachable = position.unreachable()
    if unreachable is not None:
        raise InvalidSpecError(f"{where}: {position.id()} {unreachable}")
    if max(position.checkers()) > checkers:
        raise InvalidSpecError(f"{where}: {position.id()} has {max(position.checkers())} checkers on a side; "
                               f"the variant plays {checkers}")
    return position


def parse_openings(text: str, *, source: str = "<openings>", match_length: int | None,
                   checkers: int = 15) -> tuple[Opening, ...]:
    """The openings of an openings file's ``text`` (module docstring), in file order.

    :param source: the file's name, as error messages show it.
    :param match_length: the spec's match length (0 = money), which XGIDs and Match IDs must
        agree with (None: the spec plays several lengths, and they are refused).
    :param checkers: the variant's checkers a side (15 in standard backgammon).
    :raises InvalidSpecError: a line that is not a Position ID or XGID, an XGID or Match ID whose
        match fields disagree, a finished position, too many checkers, or no opening at
        all; the message starts with ``source:line:``.
    """
    openings = []
    for number, raw in enumerate(text.splitlines(), start=1):
        body = raw.split("#", 1)[0].strip()
        if not body:
            continue
        words = body.split()
        where = f"{source}:{number}"
        if len(words) != 1:
            raise InvalidSpecError(f"{where}: one position a line, got {body!r}")
        openings.append(Opening(parse_opening(words[0], where, match_length=match_length, checkers=checkers),
                                number))
    if not openings:
        raise InvalidSpecError(f"{source}:1: no opening in the file (one Position ID or XGID a line)")
    return tuple(openings)


def load_openings(path: str | Path, *, match_length: int | None, checkers: int = 15) -> tuple[Opening, ...]:
    """Read an openings file (see :func:`parse_openings`).

    :raises InvalidSpecError: the file cannot be read (as UTF-8 text), is not a regular file or
        is larger than :data:`MAX_OPENINGS_BYTES`, or see :func:`parse_openings`.
    """
    data = read_input_file(path, "openings file", limit=MAX_OPENINGS_BYTES, error=InvalidSpecError)
    try:
        text = data.decode("utf-8-sig")  # a byte-order mark (Notepad) is not a character
    except UnicodeDecodeError as exc:
        raise InvalidSpecError(f"cannot read openings file {str(path)!r}: {exc}") from None
    return parse_openings(text, source=str(path), match_length=match_length, checkers=checkers)


def opening_order(count: int, order: str, seed: int) -> tuple[int, ...]:
    """The order in which a tournament's rounds take the ``count`` openings: round ``r``
    plays opening ``order[r % count]``.  ``"sequential"``: the file's order; ``"random"``:
    the file shuffled once by a generator seeded with ``(seed, 0x6F70656E)``, as fastchess
    shuffles its book (``-openings order=random``), so each opening is still played
    equally often.

    >>> opening_order(5, "sequential", 1)
    (0, 1, 2, 3, 4)
    >>> sorted(opening_order(5, "random", 1)) == [0, 1, 2, 3, 4]
    True

    :raises ValueError: an unknown ``order``, or a ``count`` that is not an integer of at least 1.
    """
    count = whole_number(count, "count", low=1)
    if one_of(order, "openings order", OPENINGS_ORDERS) == "sequential":
        return tuple(range(count))
    rng = np.random.default_rng([seed, 0x6F70656E])  # "open"
    return tuple(int(i) for i in rng.permutation(count))
