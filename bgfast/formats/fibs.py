"""FIBS board lines: the ``board:`` state string of the FIBS client protocol, parse and format.

FIBS (the First Internet Backgammon Server) sends a game's state as one colon-separated
line when ``rawboard`` is on; GNU Backgammon's external-player interface reads the same
line.  The fields, in order (FIBS command reference, ``help rawboard``; E. McLean, *FIBS
Client Protocol Detailed Specification*, rev. 1.3, 2008)::

    board : name : opponent : match length : player got : opponent got :
    26 board numbers : turn : player's 2 dice : opponent's 2 dice : cube :
    player may double : opponent may double : was doubled : colour : direction :
    home : bar : player's on home : opponent's on home : player's on bar :
    opponent's on bar : can move : forced move : did crawford : redoubles

* the 26 board numbers are the points 0..25; positions 0 and 25 are the bars; positive
  numbers are O's checkers, negative numbers X's (for O moving from 24 to 1, this is
  :meth:`~bgfast.position.Position.signed_board` of O's view);
* turn: -1 X to play, 1 O, 0 the game is over; colour: -1 the player is X, 1 O;
* direction: -1 the player moves from 24 to 1 (home 0, bar 25), 1 from 1 to 24 (home 25,
  bar 0);
* a match length of 9999 means an unlimited match (money play);
* "on home" counts the checkers borne off; "can move" is how many checkers the roll moves.

The record keeps the fields as FIBS documents them.  What other programs make of the
fields FIBS marks "don't use" is their business; see :mod:`bgfast.engines.gnubg_external`
for how GNU Backgammon 1.07 reads the score and the Crawford field.

>>> line = format_fibs_board(FibsBoard.from_position(Position(), dice=(3, 1)))
>>> line
'board:You:Opponent:9999:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:3:1:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0'
>>> parse_fibs_board(line).position() == Position()
True
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bgfast.errors import InvalidFibsBoardError, InvalidPositionError
from bgfast.position import NUM_CHECKERS, Position

__all__ = ["FIELDS", "UNLIMITED", "FibsBoard", "format_fibs_board", "parse_fibs_board"]

UNLIMITED = 9999
"""The match length FIBS writes for an unlimited match (money play)."""

FIELDS = 53
"""Colon-separated fields of a board line, the leading ``board`` included."""

_POINTS = 26


@dataclass(frozen=True)
class FibsBoard:
    """One FIBS board line, field by field, from the view of ``name`` ("the player").

    :ivar points: the 26 board numbers (index 0..25), positive = O, negative = X.
    :ivar turn: -1 X to play, 1 O, 0 the game is over.
    :ivar colour: -1 the player is X, 1 the player is O.
    :ivar direction: -1 the player moves from 24 to 1, 1 from 1 to 24.
    """

    name: str = "You"
    opponent: str = "Opponent"
    match_length: int = UNLIMITED
    player_score: int = 0
    opponent_score: int = 0
    points: tuple[int, ...] = (0,) * _POINTS
    turn: int = 1
    player_dice: tuple[int, int] = (0, 0)
    opponent_dice: tuple[int, int] = (0, 0)
    cube: int = 1
    player_may_double: bool = True
    opponent_may_double: bool = True
    was_doubled: bool = False
    colour: int = 1
    direction: int = -1
    home: int = 0
    bar: int = 25
    player_home: int = 0
    opponent_home: int = 0
    player_bar: int = 0
    opponent_bar: int = 0
    can_move: int = 0
    forced_move: int = 0
    did_crawford: int = 0
    redoubles: int = 0

    @classmethod
    def from_position(cls, position: Position, *, dice: tuple[int, int] = (0, 0), **fields: object) -> FibsBoard:
        """The board line of ``position`` with its side on roll as the player: O (colour 1),
        moving from 24 to 1 (direction -1, home 0, bar 25), on turn.

        The points, the checkers on the bar and borne off, and (with dice) the number of
        checkers the roll moves come from ``position``; every other field is its default
        unless given in ``fields``.

        :raises TypeError: a field name the record does not have.
        """
        opp, me = position.board
        values: dict[str, object] = {
            "points": tuple(position.signed_board()), "player_dice": tuple(dice),
            "turn": 1, "colour": 1, "direction": -1, "home": 0, "bar": 25,
            "player_home": NUM_CHECKERS - sum(me), "opponent_home": NUM_CHECKERS - sum(opp),
            "player_bar": me[24], "opponent_bar": opp[24],
        }
        if dice != (0, 0) and "can_move" not in fields:
            values["can_move"] = max(len(m.checker_moves) for m in position.legal_moves(*dice))
        values.update(fields)
        return cls(**values)  # type: ignore[arg-type]

    def position(self) -> Position:
        """The checkers as a :class:`~bgfast.position.Position` with the player as the side on
        roll (side 1), whoever's turn it is.

        :raises InvalidFibsBoardError: an impossible board (more than 15 checkers a side).
        """
        # the points as Position.signed_board writes them: the player's own numbering
        # (moving from 24 to 1), the player's checkers positive
        signed = [0] * _POINTS
        for index in range(1, 25):
            point = index if self.direction == -1 else 25 - index
            signed[point] = self.points[index] * self.colour
        my_bar, their_bar = (25, 0) if self.direction == -1 else (0, 25)
        signed[25] = abs(self.points[my_bar])
        signed[0] = -abs(self.points[their_bar])
        try:
            return Position.from_signed_board(signed)
        except InvalidPositionError as exc:
            raise InvalidFibsBoardError(f"impossible FIBS board: {exc}") from None


def _check(board: FibsBoard, line: str) -> None:
    def bad(problem: str) -> InvalidFibsBoardError:
        return InvalidFibsBoardError(f"FIBS board {line!r}: {problem}")

    if board.colour not in (-1, 1):
        raise bad(f"colour must be -1 (X) or 1 (O), got {board.colour}")
    if board.direction not in (-1, 1):
        raise bad(f"direction must be -1 or 1, got {board.direction}")
    if board.turn not in (-1, 0, 1):
        raise bad(f"turn must be -1, 0 or 1, got {board.turn}")
    for name in ("player_dice", "opponent_dice"):
        d1, d2 = getattr(board, name)
        if not (0 <= d1 <= 6 and 0 <= d2 <= 6) or (d1 == 0) != (d2 == 0):
            raise bad(f"{name.replace('_', ' ')} must be two dice 1..6 or 0 0, got {d1} {d2}")
    if board.cube < 1 or board.cube & (board.cube - 1):
        raise bad(f"the cube must be a power of two, got {board.cube}")
    if board.match_length < 0 or board.player_score < 0 or board.opponent_score < 0:
        raise bad("a match length or score is negative")
    my_bar, their_bar = (25, 0) if board.direction == -1 else (0, 25)
    for index, owner in ((my_bar, board.colour), (their_bar, -board.colour)):
        if board.points[index] * owner < 0:
            raise bad(f"point {index} is a bar and holds the other side's checkers")
    if abs(board.points[my_bar]) != board.player_bar or abs(board.points[their_bar]) != board.opponent_bar:
        raise bad("the checkers on the bars differ from the 'on bar' fields")


def parse_fibs_board(line: str) -> FibsBoard:
    """Read a FIBS ``board:`` line (spaces around the fields are allowed).

    >>> b = parse_fibs_board("board:You:Opp:5:1:3:" + "0:" * 26 + "1:6:5:0:0:2:0:1:0:1:-1:0:25:15:15:0:0:2:0:0:0")
    >>> b.match_length, b.player_score, b.opponent_score, b.player_dice, b.cube
    (5, 1, 3, (6, 5), 2)

    :raises InvalidFibsBoardError: not ``board`` and 52 fields, a number that does not
        parse, or values no board can have (a colour other than -1/1, a die of 7, a cube
        that is not a power of two, bars that disagree with the "on bar" fields).
    """
    if not isinstance(line, str):
        raise InvalidFibsBoardError(f"a FIBS board line is a string, got {line!r}")
    fields = [f.strip() for f in line.strip().split(":")]
    if len(fields) != FIELDS or fields[0] != "board":
        raise InvalidFibsBoardError(
            f"a FIBS board line is 'board' and {FIELDS - 1} colon-separated fields, got {len(fields)} in {line!r}")
    try:
        numbers = [int(f) for f in fields[3:]]
    except ValueError:
        raise InvalidFibsBoardError(f"FIBS board fields 4..{FIELDS} must be integers in {line!r}") from None
    points = tuple(numbers[3:29])
    rest = numbers[29:]
    board = FibsBoard(
        name=fields[1], opponent=fields[2], match_length=numbers[0], player_score=numbers[1],
        opponent_score=numbers[2], points=points, turn=rest[0], player_dice=(rest[1], rest[2]),
        opponent_dice=(rest[3], rest[4]), cube=rest[5], player_may_double=bool(rest[6]),
        opponent_may_double=bool(rest[7]), was_doubled=bool(rest[8]), colour=rest[9],
        direction=rest[10], home=rest[11], bar=rest[12], player_home=rest[13],
        opponent_home=rest[14], player_bar=rest[15], opponent_bar=rest[16], can_move=rest[17],
        forced_move=rest[18], did_crawford=rest[19], redoubles=rest[20],
    )
    _check(board, line)
    return board


def format_fibs_board(board: FibsBoard) -> str:
    """The ``board:`` line of ``board``, fields in FIBS's order, no spaces."""
    values: Sequence[object] = (
        "board", board.name, board.opponent, board.match_length, board.player_score,
        board.opponent_score, *board.points, board.turn, *board.player_dice, *board.opponent_dice,
        board.cube, int(board.player_may_double), int(board.opponent_may_double),
        int(board.was_doubled), board.colour, board.direction, board.home, board.bar,
        board.player_home, board.opponent_home, board.player_bar, board.opponent_bar,
        board.can_move, board.forced_move, board.did_crawford, board.redoubles,
    )
    return ":".join(map(str, values))

