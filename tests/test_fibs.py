"""bgfast.formats.fibs: FIBS board lines parse and format, in both colours and directions."""
from __future__ import annotations

import dataclasses

import pytest

from bgfast.errors import InvalidFibsBoardError, InvalidPositionError
from bgfast.formats.fibs import FIELDS, FibsBoard, format_fibs_board, parse_fibs_board
from bgfast.position import Position
from test_ubgi_format import _positions

# The example of the FIBS help (``rawboard``), as players quote it: the player "mpgnu" is X
# (colour -1) and moves from 1 to 24 (direction 1, home 25, bar 0), 2 checkers borne off.
MPGNU = ("board:mpgnu:buster:17:0:2:0:0:0:2: 1: 4: 3: 0: 1: 0: 1: 0: 0: 2: 0: 0: 0: 0: 0: 1: -2: -2: -1: "
         "-4: -4: 0: -1: 3: 6: 0: 0: 1: 1: 1: 0: -1: 1: 25: 0: 2: 0: 0: 0: 2: 2: 0: 0")


def test_the_fibs_help_example_reads_field_by_field() -> None:
    board = parse_fibs_board(MPGNU)
    assert (board.name, board.opponent, board.match_length) == ("mpgnu", "buster", 17)
    assert (board.player_score, board.opponent_score) == (0, 2)
    assert board.turn == -1 and board.player_dice == (3, 6) and board.opponent_dice == (0, 0)
    assert board.cube == 1 and board.player_may_double and board.opponent_may_double and not board.was_doubled
    assert (board.colour, board.direction, board.home, board.bar) == (-1, 1, 25, 0)
    assert (board.player_home, board.opponent_home, board.can_move) == (2, 0, 2)


def test_a_board_moving_up_as_x_is_seen_from_the_player() -> None:
    pos = parse_fibs_board(MPGNU).position()
    opp, me = pos.board
    # X's checkers on indices 20..24 are its points 5..1 (it moves toward 25)
    assert me[:5] == (4, 4, 1, 2, 2) and sum(me) == 13
    # O's checkers: index i is O's own point i (O moves toward 0), i.e. board index 3 -> O's 3 point
    assert opp[2] == 2 and opp[18] == 1 and sum(opp) == 15
    assert pos.pip_count()[1] == 4 * 1 + 4 * 2 + 1 * 3 + 2 * 4 + 2 * 5


def test_every_colour_and_direction_gives_the_same_position() -> None:
    for pos in _positions(60, seed=11):
        base = FibsBoard.from_position(pos)
        for colour in (1, -1):
            for direction in (-1, 1):
                points = [0] * 26
                for index in range(26):
                    source = index if direction == -1 else 25 - index
                    points[index] = base.points[source] * colour
                variant = dataclasses.replace(base, points=tuple(points), colour=colour, direction=direction,
                                              home=0 if direction == -1 else 25, bar=25 if direction == -1 else 0)
                assert variant.position() == pos
                assert parse_fibs_board(format_fibs_board(variant)) == variant


def test_a_formatted_board_parses_back_to_the_same_record_and_position() -> None:
    for pos in _positions(200, seed=3):
        board = FibsBoard.from_position(pos, dice=(5, 2), match_length=7, player_score=2, opponent_score=4,
                                        cube=2, player_may_double=False)
        line = format_fibs_board(board)
        assert len(line.split(":")) == FIELDS
        back = parse_fibs_board(line)
        assert back == board
        assert back.position() == pos
        assert back.player_home == 15 - sum(pos.board[1]) and back.player_bar == pos.board[1][24]


def test_can_move_counts_the_checkers_the_roll_moves() -> None:
    assert FibsBoard.from_position(Position(), dice=(3, 1)).can_move == 2
    assert FibsBoard.from_position(Position(), dice=(6, 6)).can_move == 4
    closed = Position.from_board([[2] * 6 + [0] * 11 + [3] + [0] * 7, [0] * 5 + [14] + [0] * 18 + [1]])
    assert FibsBoard.from_position(closed, dice=(6, 6)).can_move == 0


@pytest.mark.parametrize(("line", "problem"), [
    ("board:a:b:1", "colon-separated fields"),
    ("boards" + MPGNU[5:], "colon-separated fields"),
    (MPGNU.replace(":17:", ":x:", 1), "must be integers"),
    (MPGNU.replace("-1: 1: 25: 0:", "2: 1: 25: 0:"), "colour"),
    (MPGNU.replace("-1: 1: 25: 0:", "-1: 0: 25: 0:"), "direction"),
    (MPGNU.replace("0: -1: 3: 6:", "0: 5: 3: 6:"), "turn"),
    (MPGNU.replace("0: -1: 3: 6:", "0: -1: 7: 6:"), "dice"),
    (MPGNU.replace("0: -1: 3: 6:", "0: -1: 0: 6:"), "dice"),
    (MPGNU.replace("0: 0: 1: 1: 1: 0:", "0: 0: 3: 1: 1: 0:"), "power of two"),
    (MPGNU.replace("2: 0: 0: 0: 2: 2:", "2: 0: 1: 0: 2: 2:"), "on bar"),
])
def test_a_bad_board_line_raises_invalid_fibs_board_error(line: str, problem: str) -> None:
    with pytest.raises(InvalidFibsBoardError, match=problem) as info:
        parse_fibs_board(line)
    assert isinstance(info.value, InvalidPositionError)


def test_an_impossible_board_raises_invalid_fibs_board_error() -> None:
    board = dataclasses.replace(FibsBoard.from_position(Position()), points=(0,) + (2,) * 24 + (0,))
    with pytest.raises(InvalidFibsBoardError, match="impossible"):
        board.position()


def test_a_line_that_is_not_text_raises_invalid_fibs_board_error() -> None:
    with pytest.raises(InvalidFibsBoardError):
        parse_fibs_board(None)  # type: ignore[arg-type]
