"""Positions and moves: the :class:`Position` and :class:`Move` value types.

Board convention (gnubg's; written down here once).  A position is a pair of
count arrays ``board = (side0, side1)``, each of 25 non-negative integers from
its own side's point of view:

* ``side1`` is the player on roll, ``side0`` the opponent;
* index ``i`` (0..23) is the number of that side's checkers on its own point
  ``i + 1`` (point 1 is the ace point of its home board, point 24 the farthest);
* index 24 is that side's bar; borne-off checkers are ``15 - sum(side)``;
* ``side1[i]`` and ``side0[23 - i]`` are the same physical point.

The same board as bytes (:meth:`Position.to_bytes` / :meth:`Position.from_bytes`,
the form the compiled core and numpy arrays use) is these 50 counts in that order:
``side0``'s 25, then ``side1``'s.  The one-list form other programs use (FIBS board
lines, Open Sage), 26 signed counts from the view of the side on roll, is
:meth:`Position.signed_board` / :meth:`Position.from_signed_board`.

Move notation uses the mover's point numbers, with ``bar`` = 25 and ``off`` = 0
(``CheckerMove(src=25, dst=22, hit=True)`` is ``bar/22*``); the core's index is
``point - 1``.  A :class:`Move`'s resulting position stays in the mover's frame;
:meth:`Position.swap_sides` hands the turn over.

The starting position is ``Position()``; :func:`starting_position` gives that of a
variant (``bgfast/data/variants.toml``).  ``STARTING`` and ``STARTING_POSITION_ID``
are older spellings of ``Position()`` and its Position ID, kept as aliases.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Iterator, NamedTuple, Sequence, TypeAlias

from bgfast._core import movegen as _movegen
from bgfast.codecs import xgid as _xgid
from bgfast.codecs.position_id import (
    BOARD_BYTES,
    STARTING_POSITION_ID,
    board_bytes,
    check_board_bytes,
    decode_position_id,
    encode_position_id,
)
from bgfast.dice import ALL_21, Dice
from bgfast.errors import IllegalMoveError, InvalidMoveError, InvalidPositionError
from bgfast.validation import whole_number

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer

__all__ = [
    "Point", "BAR", "OFF", "NUM_CHECKERS", "NO_PLAY", "STARTING_POSITION_ID",
    "CheckerMove", "Move", "LegalMoves", "Position", "Outcome", "VARIANTS", "starting_position",
]

NO_PLAY = "(no play)"
"""How bgfast writes a roll with no legal play for people (:meth:`Move.describe`); move
parsing reads it back as the empty play."""

Point: TypeAlias = int
BAR: Point = 25
OFF: Point = 0
NUM_CHECKERS = 15


class CheckerMove(NamedTuple):
    """One checker's step: from ``src`` to ``dst`` in the mover's points (bar 25, off 0)."""

    src: Point
    dst: Point
    hit: bool = False

    def __str__(self) -> str:
        src = "bar" if self.src == BAR else str(self.src)
        dst = "off" if self.dst == OFF else str(self.dst)
        return f"{src}/{dst}{'*' if self.hit else ''}"


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended, at cube value 1.

    :ivar winner: index into the board pair of the side with no checkers left
        (1 = the side on roll in the position that was asked).
    :ivar kind: ``"single"``, ``"gammon"`` or ``"backgammon"``.
    :ivar points: 1, 2 or 3 (multiply by the cube value).
    """

    winner: int
    kind: str
    points: int


class Position:
    """A backgammon position from the view of the side on roll.  Immutable and hashable.

    ``Position()`` is the starting position; ``Position(text)`` parses a gnubg
    Position ID, or a whole XGID (``XGID=...``) as :meth:`from_xgid` does: its board,
    from the view of the XGID's player on roll, its match fields (score, cube, dice)
    left out, as ``chess.Board(fen)`` keeps only what a board is; read those with
    :meth:`MatchState.from_xgid <bgfast.match.MatchState.from_xgid>`, or both at once
    with :func:`bgfast.formats.text.read_position`, which also reads
    ``PositionID:MatchID``.  See the module docstring for the board convention.
    The other constructors are :meth:`from_id`, :meth:`from_board`,
    :meth:`from_bytes` and :meth:`from_xgid`.

    >>> pos = Position()
    >>> pos.id(), pos.pip_count()
    ('4HPwATDgc/ABMA', (167, 167))
    >>> len(pos.legal_moves(3, 1))
    16
    >>> str(pos.parse_move("8/5 6/5", (3, 1)))
    '8/5 6/5'

    >>> Position("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10") == Position()
    True

    :raises InvalidPositionError: a malformed Position ID or XGID; text of another
        form (``PositionID:MatchID``, an XGID's board field alone) with a message
        that names the function that reads it.
    :raises InvalidMatchIdError: an XGID whose match fields are malformed (as :meth:`from_xgid`).
    """

    __slots__ = ("_key", "_id", "__weakref__")

    def __init__(self, id: str | None = None) -> None:
        if id is None:
            key = _STANDARD_KEY
        elif isinstance(id, str) and _xgid.has_xgid_prefix(id.strip()):
            key = Position.from_xgid(id)._key
        else:
            try:
                key = decode_position_id(id)
            except InvalidPositionError as exc:
                if not isinstance(id, str) or (":" not in id and len(id.strip()) != 26):
                    raise
                raise InvalidPositionError(
                    f"{exc}; Position() reads a Position ID or a whole XGID ('XGID=...'): for "
                    "PositionID:MatchID use bgfast.formats.text.read_position, for an XGID's "
                    "board field alone Position.from_xgid") from None
        self._key: bytes = key
        self._id: str | None = None

    @classmethod
    def _from_valid_bytes(cls, board: bytes) -> Position:
        """The position of a 50-byte ``bytes`` board known to be valid, such as the core's
        output: :meth:`from_bytes` without its checks, for the hot paths."""
        pos = cls.__new__(cls)
        pos._key = board
        pos._id = None
        return pos

    _from_key = _from_valid_bytes   # the older private name, kept for code not yet switched

    # ------------------------------------------------------------ parse / format

    @classmethod
    def from_id(cls, position_id: str) -> Position:
        """Parse a gnubg Position ID (14 Base64 characters, the opponent encoded first).

        >>> Position.from_id("4HPwATDgc/ABMA") == Position()
        True

        :raises InvalidPositionError: wrong length, a character outside Base64,
            or an impossible board (an XGID too: read it with :meth:`from_xgid`).
        """
        return cls._from_valid_bytes(decode_position_id(position_id))

    def id(self) -> str:
        """The gnubg Position ID (14 characters) of this position, side on roll encoded second."""
        if self._id is None:
            self._id = encode_position_id(self._key)
        return self._id

    @classmethod
    def from_bytes(cls, data: ReadableBuffer) -> Position:
        """The position of a 50-byte board: side 0's 25 counts, then side 1's (side 1 on roll).

        Any buffer of 50 bytes will do, e.g. a row of a ``uint8`` numpy array of
        shape ``(N, 50)`` as :mod:`bgfast.batch` takes.

        >>> Position.from_bytes(Position().to_bytes()) == Position()
        True

        :raises InvalidPositionError: not a buffer of 50 bytes, more than 15
            checkers a side, or a point held by both sides.
        """
        try:
            raw = memoryview(data).tobytes()
        except TypeError:
            raise InvalidPositionError(f"a board is {BOARD_BYTES} bytes, got {data!r}") from None
        check_board_bytes(raw, data)
        return cls._from_valid_bytes(raw)

    def to_bytes(self) -> bytes:
        """The board as 50 bytes: side 0's 25 counts, then side 1's (the module docstring).

        >>> Position().to_bytes()[:8]
        b'\\x00\\x00\\x00\\x00\\x00\\x05\\x00\\x03'
        """
        return self._key

    @classmethod
    def from_board(cls, board: Sequence[Sequence[int]]) -> Position:
        """Build a position from ``(side0, side1)`` count lists (side1 on roll).

        >>> Position.from_board([[0] * 5 + [1] + [0] * 19, [2] + [0] * 24]).pip_count()
        (6, 2)

        :raises InvalidPositionError: not 2 x 25 non-negative integers, more than 15
            checkers a side, or a point held by both sides.
        """
        return cls._from_valid_bytes(board_bytes(board))

    @classmethod
    def from_signed_board(cls, board: Sequence[int]) -> Position:
        """Read a :meth:`signed_board` back: 26 signed counts, from the view of the side on roll.

        >>> board = [0, -2, 0, 0, 0, 0, 5] + [0] * 17 + [2, 1]  # the side on roll has a checker on the bar
        >>> Position.from_signed_board(board).pip_count()
        (48, 103)
        >>> Position.from_signed_board(Position().signed_board()) == Position()
        True

        :raises InvalidPositionError: not 26 integers, a bar that holds the other side's
            checkers (index 0 above zero, index 25 below), more than 15 checkers a side.
        """
        try:
            if len(board) != 26:
                raise ValueError
            on_roll = [max(count, 0) for count in board[1:25]]
            opponent = [max(-count, 0) for count in reversed(board[1:25])]
            bars_swapped = board[0] > 0 or board[25] < 0
        except (TypeError, ValueError):
            raise InvalidPositionError(f"a signed board is 26 integers, got {board!r}") from None
        if bars_swapped:
            raise InvalidPositionError(f"signed board {list(board)!r}: index 0 is the opponent's bar (<= 0), "
                                       "index 25 the bar of the side on roll (>= 0)")
        return cls.from_board([[*opponent, -board[0]], [*on_roll, board[25]]])

    def signed_board(self) -> list[int]:
        """The board as 26 signed counts, from the view of the side on roll (Open Sage's
        boards and FIBS's ``board:`` lines, where the player moves from 24 to 1, use it).

        * index ``p`` (1..24): the side on roll's point ``p`` (its own numbering; the
          opponent's point ``25 - p``), its checkers there positive, the opponent's negative;
        * index 25: the side on roll's bar, its checkers there (>= 0);
        * index 0: the opponent's bar, minus the opponent's checkers there (<= 0).

        Checkers borne off are not written.  :meth:`from_signed_board` reads it back.

        >>> board = Position().signed_board()
        >>> board[:8], board[12:14], board[24:]
        ([0, -2, 0, 0, 0, 0, 5, 0], [-5, 5], [2, 0])
        """
        opponent, on_roll = self._key[:25], self._key[25:]
        return [-opponent[24], *(on_roll[p - 1] - opponent[24 - p] for p in range(1, 25)), on_roll[24]]

    @classmethod
    def from_xgid(cls, xgid: str) -> Position:
        """Parse the position of an XGID (the whole ``XGID=...`` or just its 26-character board).

        The result is from the view of the XGID's player on roll.

        :raises InvalidPositionError: a malformed position field.
        """
        if not isinstance(xgid, str):
            raise InvalidPositionError(f"an XGID is a string, got {xgid!r}")
        text = xgid.strip()
        if _xgid.has_xgid_prefix(text) or ":" in text:
            return cls.from_board(_xgid.parse_xgid(text).board)
        return cls.from_board(_xgid.xgid_field_to_board(text))

    def xgid(self) -> str:
        """The 26-character position field of an XGID, this position's side on roll at the bottom."""
        return _xgid.board_to_xgid_field(self.board)

    @property
    def board(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """``(side0, side1)``: the opponent's and the on-roll side's 25 counts (module docstring)."""
        k = self._key
        return tuple(k[:25]), tuple(k[25:])

    def __repr__(self) -> str:
        return f"Position.from_id({self.id()!r})"

    def __str__(self) -> str:
        return self.diagram()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Position) and self._key == other._key

    def __hash__(self) -> int:
        return hash(self._key)

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (Position._from_valid_bytes, (self._key,))

    # ------------------------------------------------------------ facts

    def pip_count(self) -> tuple[int, int]:
        """Pip counts ``(opponent, on roll)`` in board order: sum of checkers x point (bar = 25)."""
        k = self._key
        return (sum(k[i] * (i + 1) for i in range(25)), sum(k[25 + i] * (i + 1) for i in range(25)))

    def checkers(self) -> tuple[int, int]:
        """Checkers still on the board (including the bar), ``(opponent, on roll)``."""
        return sum(self._key[:25]), sum(self._key[25:])

    def swap_sides(self) -> Position:
        """The same board with the turn handed over (the opponent now on roll)."""
        return Position._from_valid_bytes(self._key[25:] + self._key[:25])

    def is_race(self) -> bool:
        """True when no contact is left: every checker of one side has passed every checker of the other."""
        mover, opp = self._key[25:], self._key[:25]
        # mover's rearmost checker (highest point) vs opponent's rearmost, in the mover's numbering
        mover_back = max((i for i in range(25) if mover[i]), default=-1)
        opp_back = max((i for i in range(25) if opp[i]), default=-1)
        if mover_back < 0 or opp_back < 0:
            return True
        return mover_back < 23 - opp_back

    def is_over(self) -> bool:
        """True when a side has borne off all its checkers."""
        return not any(self._key[:25]) or not any(self._key[25:])

    def unreachable(self) -> str | None:
        """Why no game reaches this board, in words after the position's name ("has ..."),
        or None when one may.

        Three boards are caught: neither side has a checker left (a game ends when the first
        side has borne off all of them); in a game not over, checkers on a bar with none on
        the points (the side that hit last keeps a checker on the board until its game ends),
        such as all 15 of each side on its bar; and both sides on the bar against closed
        boards, where neither side could ever move: the side that moved last could not
        have, with the other's board already closed and a checker of its own on the bar.

        >>> Position().unreachable() is None
        True
        >>> Position.from_id("AAAA/38AAAD/fw").unreachable()[:42]    # 15 of each side on the bar
        'has checkers on the bar and none on the po'
        >>> Position.from_id("27YFAGDbtgUAYA").unreachable()[:49]    # both on the bar, both boards closed
        'has both sides on the bar against closed boards: '
        """
        sides = (self._key[:25], self._key[25:])
        on_points = any(sides[0][:24]) or any(sides[1][:24])
        if not any(sides[0]) and not any(sides[1]):
            return ("has no checker left on either side: no game reaches it (a game ends when the first side "
                    "has borne off all its checkers)")
        if not on_points and not self.is_over():
            return ("has checkers on the bar and none on the points: no game reaches it (the side that hit last "
                    "keeps a checker on the board until its game ends)")
        if all(side[24] and all(n >= 2 for n in other[:6]) for side, other in (sides, sides[::-1])):
            return ("has both sides on the bar against closed boards: no game reaches it (neither side could ever "
                    "move, so neither could have made the last move)")
        return None

    def outcome(self, checkers: int = NUM_CHECKERS) -> Outcome | None:
        """``None`` while both sides have checkers, else who won and how, at cube 1.

        Gammon: the loser bore off none.  Backgammon: also a checker on the bar or
        in the winner's home board (the loser's points 19-24).

        :param checkers: the checkers each side started with: 15, or the variant's
            (3 in hypergammon, see :data:`VARIANTS`), since a board does not show
            how many were borne off.
        :raises ValueError: ``checkers`` outside 1..15, or fewer than the loser has left.

        >>> Position.from_board([[0] * 25, [15] + [0] * 24]).outcome()
        Outcome(winner=0, kind='gammon', points=2)
        >>> Position.from_board([[0] * 25, [3] + [0] * 24]).outcome(checkers=3)
        Outcome(winner=0, kind='gammon', points=2)
        """
        checkers = whole_number(checkers, "checkers", low=1, high=NUM_CHECKERS)
        sides = (self._key[:25], self._key[25:])
        for winner in (0, 1):
            if not any(sides[winner]):
                loser = sides[1 - winner]
                left = sum(loser)
                if left > checkers:
                    raise ValueError(f"the loser has {left} checkers left, more than the {checkers} it started with")
                if left < checkers:
                    return Outcome(winner, "single", 1)
                if loser[24] or any(loser[18:24]):
                    return Outcome(winner, "backgammon", 3)
                return Outcome(winner, "gammon", 2)
        return None

    # ------------------------------------------------------------ moves

    def children(self, d1: int | Dice | tuple[int, int] | str, d2: int | None = None) -> list[Position]:
        """Every distinct position a legal play of the dice reaches, in the mover's frame.

        The dice as :meth:`legal_moves` takes them.  The hot-path tier: no
        :class:`Move` objects.  When nothing can be played the only child is this
        position.

        :raises InvalidDiceError: bad dice.
        """
        return self.legal_moves(d1, d2).positions()

    def legal_moves(self, d1: int | Dice | tuple[int, int] | str, d2: int | None = None) -> LegalMoves:
        """The legal plays of the dice: one :class:`Move` per distinct resulting position.

        The dice are two ints (``legal_moves(3, 1)``, the fast form), or one
        argument as :meth:`parse_move` takes them: a :class:`~bgfast.dice.Dice`,
        a pair, or text such as ``"31"``.

        >>> moves = Position().legal_moves(3, 1)
        >>> len(moves), "8/5 6/5" in moves
        (16, True)
        >>> len(Position().legal_moves("3-1")) == len(Position().legal_moves((1, 3))) == 16
        True

        :raises InvalidDiceError: a die outside 1..6, or dice that do not parse.
        """
        if type(d1) is int and type(d2) is int and 0 < d1 < 7 and 0 < d2 < 7:
            return LegalMoves(self, self._key, d1, d2)
        dice = Dice.of(d1) if d2 is None else Dice(d1, d2)  # type: ignore[arg-type]
        return LegalMoves(self, self._key, dice.high, dice.low)

    def parse_move(self, text: str, dice: Dice | tuple[int, int] | str) -> Move:
        """Parse gnubg move notation (``24/18 13/11``, ``bar/22*``, ``6/off(2)``, ``24/20*/16``).

        Every spelling of a play that names its checkers' moves reads: gnubg's (what
        ``str(move)`` writes), one step a die (``24/21 21/15*``), the moves in any
        order (``20/18 20/14``), a doubled hit marked once or on each (``13/11*(2)``,
        ``13/11* 13/11``), ``25``/``0`` for the bar and off.  Intermediate points a
        checker only passes need not be written; a hit on an intermediate point must
        be (``24/20*/16``).  An empty string or ``"-"`` is the no-play move, legal only
        when nothing can be played.

        :raises InvalidDiceError: bad dice.
        :raises InvalidMoveError: the text does not parse.
        :raises IllegalMoveError: it parses but is not a legal play of these dice here.
        """
        dice = Dice.of(dice)
        segments = _parse_notation(text)
        target = self._apply_segments(segments, text)
        moves = self.legal_moves(dice)
        index = moves._find(target._key)
        if index >= 0:
            return moves[index]
        raise IllegalMoveError(f"no legal move {text!r} for dice {dice} in {self.id()}")

    def move_notation(self, move: Move) -> str:
        """The gnubg notation of ``move``, exactly as GNU Backgammon writes it (same as ``str(move)``)."""
        return str(move)

    def _apply_segments(self, segments: list[tuple[list[tuple[int, bool]], int]], text: str) -> Position:
        opp = list(self._key[:25])
        me = list(self._key[25:])
        for landings, _count in segments:
            for point, hit in landings[1:]:
                if hit and (point == OFF or opp[24 - point] != 1):
                    raise IllegalMoveError(f"{text!r} marks a hit on {'off' if point == OFF else point}, "
                                           f"where there is no blot to hit in {self.id()}")
        for landings, count in segments:
            for _ in range(count):
                src = landings[0][0]
                if me[src - 1] == 0:
                    raise IllegalMoveError(f"no checker on {'bar' if src == BAR else src} for {text!r} in {self.id()}")
                me[src - 1] -= 1
                for point, _hit in landings[1:]:
                    if point != OFF and opp[24 - point] == 1:
                        opp[24 - point] = 0
                        opp[24] += 1
                dst = landings[-1][0]
                if dst != OFF:
                    me[dst - 1] += 1
        return Position._from_valid_bytes(bytes(opp + me))

    def diagram(self) -> str:
        """A readable ASCII board like gnubg's; ``X`` is the side on roll (moving down to 1)."""
        return _diagram(self)


_TOKEN = re.compile(r"^((?:bar|\d{1,2})\*?)((?:/(?:off|\d{1,2})\*?)+)(?:\((\d)\))?$")


def _parse_point(word: str, text: str) -> tuple[int, bool]:
    hit = word.endswith("*")
    word = word.rstrip("*")
    point = BAR if word == "bar" else OFF if word == "off" else int(word)
    if not 0 <= point <= BAR:
        raise InvalidMoveError(f"point {word!r} out of range 1..24 in {text!r}")
    return point, hit


def _parse_notation(text: str) -> list[tuple[list[tuple[int, bool]], int]]:
    """Split notation into segments: (landing points with hit flags, repeat count)."""
    if not isinstance(text, str):
        raise InvalidMoveError(f"move notation is a string, got {text!r}")
    cleaned = text.strip().lower()
    if cleaned in ("", "-", NO_PLAY, "no play", "cannot move"):
        return []
    segments = []
    for token in cleaned.split():
        m = _TOKEN.match(token)
        if not m:
            raise InvalidMoveError(f"cannot parse {token!r} in move {text!r}")
        words = [m.group(1)] + m.group(2).split("/")[1:]
        landings = [_parse_point(w, text) for w in words]
        points = [p for p, _ in landings]
        if landings[0][0] == OFF or any(p == BAR for p in points[1:]):
            raise InvalidMoveError(f"{token!r} in {text!r} does not move toward home")
        if any(a <= b for a, b in zip(points, points[1:])):
            raise InvalidMoveError(f"{token!r} in {text!r} does not move toward home")
        count = int(m.group(3)) if m.group(3) else 1
        if not 1 <= count <= 4:
            raise InvalidMoveError(f"repeat count in {token!r} of {text!r} must be 1..4")
        segments.append((landings, count))
    return segments


class Move:
    """A whole turn's play: the steps and the position they reach.

    ``move.position`` is the board after the play, still from the mover's view
    (not swapped).  ``str(move)`` is gnubg notation.

    >>> m = Position().parse_move("24/18 13/11", "62")
    >>> str(m), m.checker_moves
    ('24/18 13/11', (CheckerMove(src=24, dst=18, hit=False), CheckerMove(src=13, dst=11, hit=False)))
    """

    __slots__ = ("origin", "position", "dice", "_steps", "__dict__")

    def __init__(self, origin: Position, position: Position, dice: Dice, steps: tuple[CheckerMove, ...]) -> None:
        self.origin = origin
        self.position = position
        self.dice = dice
        self._steps = steps

    @property
    def checker_moves(self) -> tuple[CheckerMove, ...]:
        """The single-die steps, higher source first (bar = 25, off = 0, mover's numbering)."""
        return tuple(sorted(self._steps, key=lambda s: (-s.src, -s.dst)))

    def __str__(self) -> str:
        try:
            return self.__dict__["_text"]  # type: ignore[no-any-return]
        except KeyError:
            text = _format_steps(self._steps, self.origin._key[:25])
            self.__dict__["_text"] = text
            return text

    def describe(self) -> str:
        """The play for people: its gnubg notation, or :data:`NO_PLAY` for a roll with no
        legal play (whose notation, as gnubg writes it, is empty)."""
        return str(self) or NO_PLAY

    def __repr__(self) -> str:
        return f"<Move {self.describe()} from {self.origin.id()} with {self.dice}>"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Move) and self.origin == other.origin and self.position == other.position

    def __hash__(self) -> int:
        return hash((self.origin, self.position))


def _format_steps(steps: Sequence[CheckerMove], opponent: bytes) -> str:
    """GNU Backgammon's notation of a play's steps; ``opponent`` is the 25 counts of the
    side not on roll before the play (``Position.to_bytes()[:25]``).

    The rules, read off gnubg 1.07 over every play of thousands of positions and all
    21 rolls (``tests/data/notation.jsonl``, ``tests/test_notation.py``):

    * the steps are taken from the highest source down (the bar first), and for the
      same source the higher destination first;
    * in that order each step takes over the later steps that start where it ends,
      so that one checker's steps become one chain (``24/18 18/14`` is ``24/14``); a
      point of the chain where the opponent had a checker is written
      (``24/20*/16``), the others are not;
    * equal chains are written once, where the first of them is, with their number
      (``8/5(2)``); the chains are not sorted again (``8/6 8/7(2)`` for 1-1);
    * in the written order, the first landing on a point where the opponent had a
      checker is marked ``*`` (``13/11*(2)``, ``5/2* 3/2``, ``3/2*/1 3/2``).
    """
    if not steps:
        return ""
    order = sorted(steps, key=lambda s: (-s.src, -s.dst))
    taken = [False] * len(order)
    chains: dict[tuple[int, ...], int] = {}  # chain -> how many; keeps the first one's place
    for i, step in enumerate(order):
        if taken[i]:
            continue
        points = [step.src, step.dst]
        for j in range(i + 1, len(order)):
            if not taken[j] and order[j].src == points[-1]:
                if not opponent[24 - points[-1]]:
                    points.pop()
                points.append(order[j].dst)
                taken[j] = True
        chain = tuple(points)
        chains[chain] = chains.get(chain, 0) + 1
    blots = {point for point in range(1, 25) if opponent[24 - point]}
    texts = []
    for chain, n in chains.items():
        words = ["bar" if chain[0] == BAR else str(chain[0])]
        for point in chain[1:]:
            if point in blots:
                blots.discard(point)
                words.append(f"{point}*")
            else:
                words.append("off" if point == OFF else str(point))
        texts.append("/".join(words) + (f"({n})" if n > 1 else ""))
    return " ".join(texts)


_DICE = {(d.high, d.low): d for d in ALL_21}


class LegalMoves(_movegen.ChildList):
    """A lazy view of the legal plays of one roll; :class:`Move` objects are made on demand.

    Supports ``len``, iteration, ``in`` (a :class:`Move`, a :class:`Position` or
    notation text), ``bool`` and indexing.  Never empty: when nothing can be
    played it holds one move with no steps.  The plays are generated in C when
    the view is made and kept in C memory (the core's ``ChildList``, whose
    accessors are private).
    """

    __slots__ = ()

    @property
    def position(self) -> Position:
        """The position the plays start from."""
        return self._origin  # type: ignore[no-any-return]

    @property
    def dice(self) -> Dice:
        """The roll played."""
        return _DICE[self._high, self._low]

    def count(self) -> int:
        """The number of distinct legal plays (1 when nothing can be played)."""
        return self._n

    def __bool__(self) -> bool:
        return self._n > 0

    def __getitem__(self, i: int) -> Move:
        if i < 0:
            i += self._n
        steps = tuple(CheckerMove(src, dst, hit) for src, dst, hit in self._steps(i))
        return Move(self._origin, Position._from_valid_bytes(self._board(i)), self.dice, steps)

    def __iter__(self) -> Iterator[Move]:
        for i in range(self._n):
            yield self[i]

    def positions(self) -> list[Position]:
        """The resulting positions, in the mover's frame."""
        return [Position._from_valid_bytes(self._board(i)) for i in range(self._n)]

    def __contains__(self, item: object) -> bool:
        if isinstance(item, str):
            try:
                self._origin.parse_move(item, self.dice)
            except (InvalidMoveError, IllegalMoveError):
                return False
            return True
        if isinstance(item, Move):
            if item.origin != self._origin:
                return False
            item = item.position
        if isinstance(item, Position):
            return self._find(item._key) >= 0
        return False

    def __repr__(self) -> str:
        return f"<LegalMoves ({self.dice}) {', '.join(m.describe() for m in self)}>"


def _diagram(pos: Position) -> str:
    opp, me = pos._key[:25], pos._key[25:]

    def cell(point: int, row: int) -> str:
        # point in the mover's numbering 1..24
        n_me, n_opp = me[point - 1], opp[24 - point]
        n, mark = (n_me, "X") if n_me else (n_opp, "O")
        if n == 0 or row >= 5:
            return "  "
        if row == 4 and n > 5:
            return f"{n:>2}"[-2:] if n < 10 else f"{n}"
        return f" {mark}" if n > row else "  "

    top_points = list(range(13, 19)), list(range(19, 25))
    bottom_points = list(range(12, 6, -1)), list(range(6, 0, -1))
    lines = [" +13-14-15-16-17-18------19-20-21-22-23-24-+"]
    for row in range(5):
        left = "".join(cell(p, row) + " " for p in top_points[0])
        right = "".join(cell(p, row) + " " for p in top_points[1])
        bar = f" O" if opp[24] > row else "  "
        lines.append(f" |{left}|{bar} |{right}|")
    lines.append(f" |                  |BAR|                  |   X bar {me[24]}, O bar {opp[24]}")
    for row in reversed(range(5)):
        left = "".join(cell(p, row) + " " for p in bottom_points[0])
        right = "".join(cell(p, row) + " " for p in bottom_points[1])
        bar = f" X" if me[24] > row else "  "
        lines.append(f" |{left}|{bar} |{right}|")
    lines.append(" +12-11-10--9--8--7-------6--5--4--3--2--1-+")
    pips = pos.pip_count()
    off = pos.checkers()
    lines.append(f" X on roll: pips {pips[1]}, off {15 - off[1]}    O: pips {pips[0]}, off {15 - off[0]}")
    lines.append(f" Position ID: {pos.id()}")
    return "\n".join(lines)


def _load_variants() -> dict[str, tuple[str, tuple[int, ...]]]:
    import importlib.resources
    import sys

    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib

    text = importlib.resources.files("bgfast").joinpath("data/variants.toml").read_text("utf-8")
    variants = {}
    for name, entry in tomllib.loads(text).items():
        counts = [0] * 25
        for point, n in entry["points"].items():
            counts[int(point) - 1] = n
        variants[name] = (entry["description"], tuple(counts))
    return variants


VARIANTS: dict[str, tuple[str, tuple[int, ...]]] = _load_variants()
"""Starting positions by variant name: ``(description, one side's 25 counts)``
(``bgfast/data/variants.toml``)."""

_START_KEYS = {name: board_bytes([counts, counts]) for name, (_, counts) in VARIANTS.items()}
_STANDARD_KEY = _START_KEYS["standard"]


def starting_position(variant: str = "standard") -> Position:
    """The starting position of a variant: ``standard`` (the same as ``Position()``),
    ``nackgammon`` or ``hypergammon``.

    >>> starting_position() == Position()
    True
    >>> starting_position("hypergammon").pip_count()
    (69, 69)

    :raises InvalidPositionError: an unknown variant.
    """
    try:
        return Position._from_valid_bytes(_START_KEYS[variant])
    except (KeyError, TypeError):
        raise InvalidPositionError(f"unknown variant {variant!r}; known: {', '.join(VARIANTS)}") from None


STARTING = Position()
"""The standard starting position: an older spelling of ``Position()``, kept as an alias."""
