"""bgfast.position: Position, Move, CheckerMove, LegalMoves, and the errors of bad input.

Boards are ``[side0, side1]`` (side1 on roll), each side's 25 counts in its own
numbering (index 24 = bar), as in the module docstring of bgfast/position.py.
"""
from __future__ import annotations

import copy
import random
import pickle

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies import legal_boards

from bgfast import (
    BAR,
    OFF,
    STARTING,
    STARTING_POSITION_ID,
    BgfastError,
    CheckerMove,
    Dice,
    IllegalMoveError,
    InvalidDiceError,
    InvalidMoveError,
    InvalidPositionError,
    LegalMoves,
    Move,
    Position,
)
from bgfast.codecs.position_id import decode_position_id, encode_position_id
from bgfast.position import VARIANTS, starting_position

START_SIDE = [0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0]
DANCE_ID = "5nZGYABfDwAAAg"  # a movegen vector where 4-3 cannot be played at all


def side(**points: int) -> list[int]:
    """A 25-list from keywords ``p1``..``p24`` (that side's own points) and ``bar``."""
    counts = [0] * 25
    for name, n in points.items():
        counts[24 if name == "bar" else int(name[1:]) - 1] = n
    return counts


# ---------------------------------------------------------------- Position IDs


def test_the_ids_file_holds_200_position_cases(position_id_cases: list[dict]) -> None:
    assert len(position_id_cases) == 200


def test_every_position_id_decodes_to_its_board(position_id_cases: list[dict]) -> None:
    for case in position_id_cases:
        pos = Position.from_id(case["position_id"])
        assert [list(s) for s in pos.board] == case["board"], case["position_id"]


def test_every_board_encodes_to_its_position_id(position_id_cases: list[dict]) -> None:
    for case in position_id_cases:
        assert Position.from_board(case["board"]).id() == case["position_id"]


def test_the_default_position_is_the_starting_position() -> None:
    assert Position() == Position(None) == STARTING == Position.from_id(STARTING_POSITION_ID)
    assert STARTING.id() == "4HPwATDgc/ABMA"
    assert STARTING.board == (tuple(START_SIDE), tuple(START_SIDE))


def test_surrounding_whitespace_in_a_position_id_is_ignored() -> None:
    assert Position("  4HPwATDgc/ABMA\n") == STARTING


def test_the_empty_board_has_id_AAAAAAAAAAAAAA() -> None:
    assert Position.from_board([[0] * 25, [0] * 25]).id() == "AAAAAAAAAAAAAA"


# ---------------------------------------------------------------- from_board


def test_from_board_accepts_tuples_lists_and_numpy_arrays() -> None:
    expected = Position.from_board([START_SIDE, START_SIDE])
    assert Position.from_board((tuple(START_SIDE), tuple(START_SIDE))) == expected == STARTING
    assert Position.from_board(np.array([START_SIDE, START_SIDE], dtype=np.int64)) == STARTING


def test_from_board_accepts_fifteen_checkers_on_one_point_and_all_on_the_bar() -> None:
    pos = Position.from_board([side(bar=15), side(p1=15)])
    assert pos.checkers() == (15, 15)
    assert Position(pos.id()) == pos


def test_the_board_property_round_trips_through_from_board() -> None:
    pos = Position("4HPkQSDgc/ABMA")
    assert Position.from_board(pos.board) == pos
    assert pos.board[0] == tuple(side(p6=5, p8=3, p11=1, p13=4, p18=1, p24=1))


# ---------------------------------------------------------------- facts


def test_swap_sides_exchanges_the_two_sides_and_is_its_own_inverse() -> None:
    pos = Position("4HPkQSDgc/ABMA")
    swapped = pos.swap_sides()
    assert swapped.board == (pos.board[1], pos.board[0])
    assert swapped.swap_sides() == pos
    assert STARTING.swap_sides() == STARTING


def test_pip_count_is_opponent_then_side_on_roll() -> None:
    assert STARTING.pip_count() == (167, 167)
    # after 24/18 13/11 the opponent (side0) has 167 - 8 = 159 pips
    assert Position("4HPkQSDgc/ABMA").pip_count() == (159, 167)
    assert Position.from_board([side(bar=1), side(p1=2)]).pip_count() == (25, 2)


def test_checkers_counts_checkers_still_on_the_board() -> None:
    assert STARTING.checkers() == (15, 15)
    assert Position.from_board([side(bar=2, p3=1), side(p1=2)]).checkers() == (3, 2)


@pytest.mark.parametrize(
    ("board", "race"),
    [
        ([START_SIDE, START_SIDE], False),
        ([side(p6=15), side(p6=15)], True),  # both sides home: passed each other
        ([side(p20=1, p6=14), side(p6=15)], False),  # the opponent's 20-point is my 5-point: still to pass
        ([side(p18=1, p6=14), side(p6=15)], True),  # opponent's 18-point is my 7-point: passed
        ([side(bar=1, p1=14), side(p1=15)], False),  # a checker on the bar is in contact
        ([side(p1=15), side(bar=1, p1=14)], False),
        ([side(), side(p1=1)], True),
    ],
)
def test_is_race_is_true_only_when_the_sides_have_passed_each_other(board: list, race: bool) -> None:
    assert Position.from_board(board).is_race() is race


def test_is_over_is_true_when_a_side_has_borne_off_all_its_checkers() -> None:
    assert not STARTING.is_over()
    assert Position.from_board([side(), side(p1=3)]).is_over()
    assert Position.from_board([side(p1=3), side()]).is_over()
    assert STARTING.outcome() is None


@pytest.mark.parametrize(
    ("loser", "kind", "points"),
    [(side(p1=3), "single", 1), (side(p7=15), "gammon", 2), (side(p19=1, p1=14), "backgammon", 3),
     (side(bar=1, p1=14), "backgammon", 3)],
)
def test_outcome_scores_single_gammon_and_backgammon(loser: list[int], kind: str, points: int) -> None:
    outcome = Position.from_board([side(), loser]).outcome()
    assert outcome is not None
    assert (outcome.winner, outcome.kind, outcome.points) == (0, kind, points)


def test_the_diagram_shows_the_position_id_pips_and_the_bar() -> None:
    pos = Position.from_board([side(bar=1, p6=14), side(p24=2, p6=13)])
    text = pos.diagram()
    assert f"Position ID: {pos.id()}" in text
    assert "X bar 0, O bar 1" in text
    assert "pips 126" in text  # X: 2 x 24 + 13 x 6
    assert str(pos) == text
    assert "Position ID: 4HPwATDgc/ABMA" in str(STARTING)


# ---------------------------------------------------------------- the bytes form


def test_to_bytes_is_side0s_counts_then_side1s(position_id_cases: list[dict]) -> None:
    for case in position_id_cases:
        pos = Position.from_id(case["position_id"])
        raw = pos.to_bytes()
        assert isinstance(raw, bytes) and list(raw) == case["board"][0] + case["board"][1]
        assert Position.from_bytes(raw) == pos


@given(legal_boards())
def test_any_legal_board_round_trips_through_bytes_and_the_position_id(board: list[list[int]]) -> None:
    pos = Position.from_board(board)
    assert Position.from_bytes(pos.to_bytes()) == pos == Position.from_id(pos.id())
    assert decode_position_id(encode_position_id(pos.to_bytes())) == pos.to_bytes()


def test_from_bytes_takes_any_50_byte_buffer() -> None:
    rows = np.array([list(STARTING.to_bytes()), list(Position(DANCE_ID).to_bytes())], dtype=np.uint8)
    assert Position.from_bytes(rows[1]) == Position(DANCE_ID)
    assert Position.from_bytes(bytearray(STARTING.to_bytes())) == STARTING
    assert Position.from_bytes(memoryview(STARTING.to_bytes())) == STARTING


@pytest.mark.parametrize("data, message", [
    (b"\x00" * 49, "50 bytes, got 49"),
    (np.zeros(50, dtype=np.int64), "50 bytes, got 400"),
    (50, "a board is 50 bytes"),
    ("4HPwATDgc/ABMA", "a board is 50 bytes"),
    (bytes([16] + [0] * 49), "more than 15 checkers"),
    (bytes([0] * 24 + [1] + [1] + [0] * 24), None),  # side 0 on the bar, side 1 on its 1-point: fine
    (bytes([0] * 23 + [1, 0] + [1] + [0] * 24), "same point"),
])
def test_from_bytes_refuses_what_is_not_a_possible_board(data: object, message: str | None) -> None:
    if message is None:
        assert Position.from_bytes(data).checkers() == (1, 1)  # type: ignore[arg-type]
        return
    with pytest.raises(InvalidPositionError, match=message):
        Position.from_bytes(data)  # type: ignore[arg-type]


def test_the_signed_board_puts_the_side_on_roll_positive_its_bar_at_25_and_the_opponents_at_0() -> None:
    # Given the side on roll with 3 on its 6-point and 1 on the bar, the opponent with 2 on
    # its own 24-point (the mover's 1-point), 1 on its 3-point (the mover's 22) and 2 on the bar
    pos = Position.from_board([side(p24=2, p3=1, bar=2), side(p6=3, bar=1)])
    board = pos.signed_board()
    assert len(board) == 26
    assert board[0] == -2 and board[25] == 1
    assert board[1] == -2 and board[22] == -1 and board[6] == 3
    assert sum(abs(v) for v in board) == sum(pos.checkers())
    assert Position.from_signed_board(board) == pos


@given(legal_boards())
def test_any_legal_board_round_trips_through_the_signed_board(board: list[list[int]]) -> None:
    pos = Position.from_board(board)
    signed = pos.signed_board()
    assert Position.from_signed_board(signed) == pos
    assert Position.from_signed_board(tuple(signed)) == Position.from_signed_board(np.array(signed)) == pos
    assert pos.swap_sides().signed_board() == [-v for v in reversed(signed)]


@pytest.mark.parametrize("board, message", [
    ([0] * 25, "26 integers"),
    (["1"] * 26, "26 integers"),
    ([1] + [0] * 25, "index 0 is the opponent's bar"),
    ([0] * 25 + [-1], "index 25 the bar of the side on roll"),
    ([0, 16] + [0] * 24, "more than 15 checkers"),
    ([0, 1.5] + [0] * 24, "checker counts"),
])
def test_from_signed_board_refuses_what_is_not_a_possible_board(board: list, message: str) -> None:
    with pytest.raises(InvalidPositionError, match=message):
        Position.from_signed_board(board)


def test_the_private_key_names_stay_aliases_of_the_bytes_form() -> None:
    pos = Position("4HPkQSDgc/ABMA")
    assert pos._key == pos.to_bytes() and Position._from_key(pos.to_bytes()) == pos


# ---------------------------------------------------------------- the starting position


def test_every_spelling_of_the_standard_start_is_the_same_position() -> None:
    import bgfast.codecs.position_id

    assert Position() == starting_position() == starting_position("standard") == STARTING
    assert Position().id() == STARTING_POSITION_ID == bgfast.codecs.position_id.STARTING_POSITION_ID


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_each_variant_starts_with_both_sides_alike(variant: str) -> None:
    counts = VARIANTS[variant][1]
    start = starting_position(variant)
    assert start.board == (counts, counts) and start.swap_sides() == start


def test_an_unknown_variant_raises_invalid_position_error() -> None:
    with pytest.raises(InvalidPositionError, match="unknown variant 'acey-deucey'"):
        starting_position("acey-deucey")


# ---------------------------------------------------------------- value-type behaviour


def test_repr_rebuilds_the_position() -> None:
    for pid in (STARTING_POSITION_ID, "4HPkQSDgc/ABMA", DANCE_ID, "AAAAAAAAAAAAAA"):
        pos = Position(pid)
        assert repr(pos) == f"Position.from_id({pid!r})"
        assert eval(repr(pos)) == pos  # noqa: S307 - the point of the test


def test_positions_pickle_and_copy_by_value() -> None:
    pos = Position("4HPkQSDgc/ABMA")
    for clone in (pickle.loads(pickle.dumps(pos)), copy.copy(pos), copy.deepcopy(pos)):
        assert clone == pos and hash(clone) == hash(pos) and clone.id() == pos.id()


def test_equal_positions_hash_equal_and_work_as_dict_keys() -> None:
    a = Position("4HPwATDgc/ABMA")
    b = Position.from_board([START_SIDE, START_SIDE])
    assert a == b and hash(a) == hash(b) and a is not b
    assert {a: 1}[b] == 1
    assert len({a, b, a.swap_sides(), Position("4HPkQSDgc/ABMA")}) == 2
    assert a != "4HPwATDgc/ABMA"
    assert a != Position("4HPkQSDgc/ABMA")


def test_a_position_cannot_be_changed_in_place() -> None:
    with pytest.raises(AttributeError):
        STARTING.foo = 1  # type: ignore[attr-defined]


# ---------------------------------------------------------------- Move and LegalMoves


def test_legal_moves_has_a_length_and_yields_moves() -> None:
    moves = STARTING.legal_moves(3, 1)
    assert isinstance(moves, LegalMoves)
    assert len(moves) == moves.count() == 16 and bool(moves)
    listed = list(moves)
    assert len(listed) == 16 and all(isinstance(m, Move) for m in listed)
    assert len({m.position for m in listed}) == 16
    assert moves[0] == listed[0] and moves[-1] == listed[-1]
    with pytest.raises(IndexError):
        moves[16]
    assert moves.positions() == [m.position for m in listed]
    assert moves.dice == Dice(3, 1) and moves.position == STARTING


def test_legal_moves_shows_only_its_documented_api() -> None:
    public = {name for name in dir(STARTING.legal_moves(3, 1)) if not name.startswith("_")}
    assert public == {"count", "dice", "position", "positions"}


def test_legal_moves_does_not_care_about_the_order_of_the_dice() -> None:
    assert {m.position for m in STARTING.legal_moves(1, 3)} == {m.position for m in STARTING.legal_moves(3, 1)}


@pytest.mark.parametrize("dice", [Dice(3, 1), (1, 3), [3, 1], "31", "3-1", (np.int64(3), np.int64(1))])
def test_legal_moves_and_children_take_dice_the_way_parse_move_does(dice: object) -> None:
    expected = [m.position for m in STARTING.legal_moves(3, 1)]
    moves = STARTING.legal_moves(dice)  # type: ignore[arg-type]
    assert [m.position for m in moves] == expected and moves.dice == Dice(3, 1)
    assert STARTING.children(dice) == expected  # type: ignore[arg-type]


@pytest.mark.parametrize("d1, d2", [("71", None), (3, None), ((3, 1, 2), None), (Dice(3, 1), 2), ("31", 1)])
def test_dice_in_one_argument_that_are_not_a_roll_are_rejected(d1: object, d2: object) -> None:
    with pytest.raises(InvalidDiceError):
        STARTING.legal_moves(d1, d2)  # type: ignore[arg-type]


def test_in_accepts_notation_a_move_or_a_resulting_position() -> None:
    moves = STARTING.legal_moves(3, 1)
    point_on_5 = STARTING.parse_move("8/5 6/5", "31")
    assert "8/5 6/5" in moves and "6/5 8/5" in moves
    assert point_on_5 in moves
    assert point_on_5.position in moves
    assert "13/7" not in moves and "garbage" not in moves
    assert STARTING not in moves
    assert 42 not in moves
    other = Position("4HPkQSDgc/ABMA").legal_moves(3, 1)[0]
    assert other not in moves


def test_legal_moves_repr_lists_the_plays_in_notation() -> None:
    text = repr(STARTING.legal_moves(3, 1))
    assert text.startswith("<LegalMoves (31) ") and "8/5 6/5" in text and "24/20" in text
    assert repr(Position(DANCE_ID).legal_moves(4, 3)) == "<LegalMoves (43) (no play)>"


def test_a_move_knows_its_origin_result_dice_and_steps() -> None:
    move = STARTING.parse_move("24/18 13/11", "62")
    assert move.origin == STARTING and move.dice == Dice(6, 2)
    assert move.checker_moves == (CheckerMove(24, 18), CheckerMove(13, 11))
    assert move.position.board[1] == tuple(side(p6=5, p8=3, p11=1, p13=4, p18=1, p24=1))
    assert move.position.board[0] == STARTING.board[0]  # not swapped: the opponent's side is untouched
    assert str(move) == STARTING.move_notation(move) == "24/18 13/11"
    assert "24/18 13/11" in repr(move)
    assert move == STARTING.parse_move("13/11 24/18", "26") and hash(move) == hash(STARTING.parse_move("13/11 24/18", "26"))


def test_checker_moves_use_25_for_the_bar_and_0_for_off() -> None:
    assert (BAR, OFF) == (25, 0)
    entering = Position.from_board([side(p3=1, p4=2, p1=2), side(bar=1, p6=3)])
    (move,) = entering.legal_moves(3, 1)
    assert move.checker_moves == (CheckerMove(25, 22, True), CheckerMove(6, 5, False))
    assert str(CheckerMove(25, 22, True)) == "bar/22*" and str(CheckerMove(6, 0)) == "6/off"


def test_a_double_that_moves_one_checker_four_times_is_one_chain() -> None:
    pos = Position.from_board([side(p2=2), side(p24=1)])
    (move,) = pos.legal_moves(3, 3)
    assert str(move) == "24/12"
    assert len(move.checker_moves) == 4


# ---------------------------------------------------------------- parse_move


@pytest.mark.parametrize(
    ("board", "dice", "text"),
    [
        ([side(p3=1, p4=2, p1=2), side(bar=1, p6=3)], "31", "bar/22* 6/5"),
        ([side(p1=2), side(p6=2, p5=1)], "66", "6/off(2) 5/off"),
        ([side(p5=1, p13=2, p2=2), side(p24=1)], "44", "24/20*/16"),
        ([START_SIDE, START_SIDE], "33", "8/5(2) 6/3(2)"),
        ([START_SIDE, START_SIDE], "62", "24/18 13/11"),
        ([START_SIDE, START_SIDE], "31", "8/5 6/5"),
        ([START_SIDE, START_SIDE], "31", "6/2"),
    ],
)
def test_parse_move_reads_gnubg_notation_and_str_writes_it_back(board: list, dice: str, text: str) -> None:
    pos = Position.from_board(board)
    move = pos.parse_move(text, dice)
    assert str(move) == text
    assert move in pos.legal_moves(*Dice.parse(dice))


@pytest.mark.parametrize("dice", ["31", "3-1", (3, 1), (1, 3), Dice(3, 1)])
def test_parse_move_takes_dice_as_text_a_pair_or_dice(dice: object) -> None:
    assert str(STARTING.parse_move("8/5 6/5", dice)) == "8/5 6/5"  # type: ignore[arg-type]


def test_parse_move_accepts_intermediate_points_and_any_step_order() -> None:
    plain = STARTING.parse_move("24/20", "31")
    assert STARTING.parse_move("24/21/20", "31") == plain == STARTING.parse_move("24/23/20", "31")
    assert STARTING.parse_move("6/5 8/5", "31") == STARTING.parse_move("8/5 6/5", "31")
    assert STARTING.parse_move("8/5(2) 6/3(2)", "33") == STARTING.parse_move("6/3 8/5 6/3 8/5", "33")
    assert STARTING.parse_move("  8/5   6/5 ", "31") == STARTING.parse_move("8/5 6/5", "31")


def test_parse_move_needs_the_hit_on_an_intermediate_point_marked() -> None:
    pos = Position.from_board([side(p5=1, p13=2, p2=2), side(p24=1)])
    assert str(pos.parse_move("24/20*/16", "44")) == "24/20*/16"
    with pytest.raises(IllegalMoveError):
        pos.parse_move("24/16", "44")


def test_an_empty_move_is_the_no_play_when_nothing_can_be_played() -> None:
    pos = Position(DANCE_ID)
    for text in ("", "-"):
        move = pos.parse_move(text, "43")
        assert move.position == pos and move.checker_moves == () and str(move) == ""
    assert "" in pos.legal_moves(4, 3)


def test_an_empty_move_is_illegal_when_a_play_exists() -> None:
    with pytest.raises(IllegalMoveError):
        STARTING.parse_move("", "31")
    assert "" not in STARTING.legal_moves(3, 1)


# ---------------------------------------------------------------- errors, one test per raise site


def test_all_input_errors_are_value_errors_and_bgfast_errors() -> None:
    for cls in (InvalidPositionError, InvalidDiceError, InvalidMoveError, IllegalMoveError):
        assert issubclass(cls, ValueError) and issubclass(cls, BgfastError)


def test_a_position_id_of_the_wrong_length_is_rejected() -> None:
    with pytest.raises(InvalidPositionError, match=r"'4HPwATDgc/ABM'.*14 characters"):
        Position("4HPwATDgc/ABM")


def test_a_position_id_with_a_character_outside_base64_is_rejected() -> None:
    with pytest.raises(InvalidPositionError, match=r"'4HPwATDgc/AB!A'.*Base64"):
        Position.from_id("4HPwATDgc/AB!A")


def test_a_position_id_encoding_too_many_checkers_is_rejected() -> None:
    with pytest.raises(InvalidPositionError, match="more than 15 checkers"):
        Position("//////////////")


def test_a_position_id_that_is_not_a_string_is_rejected() -> None:
    with pytest.raises(InvalidPositionError, match="is a string, got 5"):
        Position(5)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "board",
    [[[0] * 25], [[0] * 25, [0] * 24], [[0] * 25] * 3, "abc", [[0] * 25, ["a"] + [0] * 24],
     [[0.5] + [0] * 24, [0] * 25], np.zeros((3, 25), dtype=int), None],
    ids=["one-side", "short-side", "three-sides", "text", "non-number", "fraction", "3x25-array", "none"],
)
def test_a_board_of_the_wrong_shape_is_rejected(board: object) -> None:
    with pytest.raises(InvalidPositionError, match="two lists of 25 checker counts"):
        Position.from_board(board)  # type: ignore[arg-type]


def test_a_board_with_a_negative_count_is_rejected() -> None:
    with pytest.raises(InvalidPositionError, match="negative"):
        Position.from_board([side(p1=-1), side()])


def test_a_board_with_more_than_15_checkers_on_a_point_is_rejected() -> None:
    with pytest.raises(InvalidPositionError, match="more than 15 checkers"):
        Position.from_board([side(p1=16), side()])


def test_a_board_with_more_than_15_checkers_a_side_is_rejected() -> None:
    with pytest.raises(InvalidPositionError, match="more than 15 checkers"):
        Position.from_board([side(), side(p1=8, p2=8)])


def test_a_board_with_both_sides_on_one_point_is_rejected() -> None:
    # side0's 1-point is side1's 24-point
    with pytest.raises(InvalidPositionError, match="same point"):
        Position.from_board([side(p1=1), side(p24=1)])


@pytest.mark.parametrize(("d1", "d2"), [(0, 3), (3, 7), (True, 2), (3.0, 1), ("3", 1)])
def test_dice_outside_1_to_6_or_not_integers_are_rejected(d1: object, d2: object) -> None:
    with pytest.raises(InvalidDiceError, match="two integers from 1 to 6"):
        STARTING.legal_moves(d1, d2)  # type: ignore[arg-type]


@pytest.mark.parametrize("text", ["71", "3", "", "30", "3-", "abc", "3/1/2", "3/1"])
def test_dice_text_that_is_not_two_digits_1_to_6_is_rejected(text: str) -> None:
    with pytest.raises(InvalidDiceError, match=repr(text).replace("/", ".")):
        STARTING.parse_move("8/5 6/5", text)


def test_children_rejects_bad_dice_too() -> None:
    with pytest.raises(InvalidDiceError):
        STARTING.children(0, 1)


@pytest.mark.parametrize("text", ["garbage", "8-5", "8/5/", "/5", "8/5(2", "bar", "8/5 x", "off/3", "8/bar"])
def test_notation_that_does_not_parse_is_an_invalid_move(text: str) -> None:
    with pytest.raises(InvalidMoveError, match="cannot parse"):
        STARTING.parse_move(text, "31")


@pytest.mark.parametrize("text", ["6/8", "5/5", "6/off/3", "13/24"])
def test_a_step_away_from_home_is_an_invalid_move(text: str) -> None:
    with pytest.raises(InvalidMoveError, match="does not move toward home"):
        STARTING.parse_move(text, "31")


def test_a_repeat_count_above_4_is_an_invalid_move() -> None:
    with pytest.raises(InvalidMoveError, match="repeat count"):
        STARTING.parse_move("8/5(5)", "33")


def test_a_point_above_25_is_an_invalid_move() -> None:
    with pytest.raises(InvalidMoveError, match="out of range"):
        STARTING.parse_move("30/27", "31")


def test_notation_that_is_not_a_string_is_an_invalid_move() -> None:
    with pytest.raises(InvalidMoveError, match="is a string"):
        STARTING.parse_move(85, "31")  # type: ignore[arg-type]


def test_a_well_formed_play_that_the_dice_do_not_allow_is_an_illegal_move() -> None:
    with pytest.raises(IllegalMoveError, match=r"no legal move '13/7' for dice 31 in 4HPwATDgc/ABMA"):
        STARTING.parse_move("13/7", "31")


def test_moving_a_checker_from_an_empty_point_is_an_illegal_move() -> None:
    with pytest.raises(IllegalMoveError, match="no checker on 7"):
        STARTING.parse_move("7/4 6/5", "31")
    with pytest.raises(IllegalMoveError, match="no checker on bar"):
        STARTING.parse_move("bar/22 6/5", "31")


def test_playing_only_one_die_when_both_can_be_played_is_an_illegal_move() -> None:
    with pytest.raises(IllegalMoveError):
        STARTING.parse_move("8/5", "31")


# ---------------------------------------------------------------- XGIDs in Position()


def test_position_reads_a_whole_xgid_as_from_xgid_does() -> None:
    # The README says positions are read as Position IDs and XGIDs: Position(text) takes both.
    # An XGID's board is from its player on roll (turn -1: the top player), as from_xgid reads it.
    for xgid in ("XGID=-b----E-C---eE---c-e----B-:1:1:1:52:3:2:0:7:10",
                 "XGID=-b----E-C---eE---c-e----B-:0:0:-1:00:0:0:0:0:10",
                 " XGID=aBBA-BBC-----c-b-bcb-A----:0:0:1:00:0:0:0:0:10 "):
        assert Position(xgid) == Position.from_xgid(xgid)
    assert Position("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10") == Position()


@pytest.mark.parametrize(("text", "hint"), [
    ("4HPwATDgc/ABMA:cAkAAAAAAAAA", "for PositionID:MatchID use bgfast.formats.text.read_position"),
    ("-b----E-C---eE---c-e----B-", "for an XGID's board field alone Position.from_xgid"),
])
def test_position_names_the_reader_of_text_it_does_not_take(text: str, hint: str) -> None:
    with pytest.raises(InvalidPositionError, match="a Position ID has 14 characters") as info:
        Position(text)
    assert hint in str(info.value)


def test_position_from_id_still_takes_only_a_position_id() -> None:
    with pytest.raises(InvalidPositionError, match="a Position ID has 14 characters"):
        Position.from_id("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10")


@given(st.integers(0, 2**32 - 1))
def test_no_position_of_a_played_game_is_unreachable(seed: int) -> None:
    """Every board a game passes through, either side's view, is one a game reaches."""
    rng = random.Random(seed)
    pos = Position()
    while not pos.is_over():
        assert pos.unreachable() is None and pos.swap_sides().unreachable() is None, pos.id()
        moves = pos.legal_moves(rng.randint(1, 6), rng.randint(1, 6))
        pos = rng.choice(list(moves)).position.swap_sides()
    assert pos.unreachable() is None


@pytest.mark.parametrize("bars, words", [
    ((15, 15), "has checkers on the bar and none on the points"),
    ((1, 2), "has checkers on the bar and none on the points"),
    ((0, 0), "has no checker left on either side"),
    ((1, 0), None),        # a finished game: the loser's last checker on the bar, a backgammon
])
def test_boards_no_game_reaches_say_why(bars: tuple[int, int], words: str | None) -> None:
    board = [[0] * 25, [0] * 25]
    board[0][24], board[1][24] = bars
    why = Position.from_board(board).unreachable()
    assert why is None if words is None else why is not None and why.startswith(words)


@pytest.mark.parametrize("closed, words", [
    ((6, 6), "has both sides on the bar against closed boards"),
    ((6, 5), None),        # one side can still enter: the other's five-point board let it be hit
    ((5, 6), None),
])
def test_both_sides_on_the_bar_against_closed_boards_is_unreachable(closed: tuple[int, int], words: str | None) -> None:
    # Each side: two on the bar, 2 on each of its first `closed` home points, the rest on its 13-point
    board = []
    for points in closed:
        side = [2] * points + [0] * (25 - points)
        side[24] = 2
        side[12] = 15 - sum(side)
        board.append(side)
    pos = Position.from_board(board)
    why = pos.unreachable()
    assert why is None if words is None else why is not None and why.startswith(words)
    assert (pos.swap_sides().unreachable() is None) == (why is None)
