"""Tests that the reference move generator (tests/reference.py) is itself right.

It must reproduce every gnubg vector in tests/data/movegen.jsonl and ids.jsonl, the
wildbg benchmark totals, and a few invariants on random boards.
"""

from __future__ import annotations

from collections import defaultdict

import pytest
from hypothesis import given, settings

from reference import children, decode_position_id, encode_position_id
from strategies import ALL_21_ROLLS, dice, legal_boards
from vectors import WILDBG_TOTALS, read_jsonl

START = [0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0]


def _side(**points: int) -> list[int]:
    """A 25-list from keywords ``p1``..``p24`` (own point numbers) and ``bar``."""
    side = [0] * 25
    for name, count in points.items():
        side[24 if name == "bar" else int(name[1:]) - 1] = count
    return side


def _ids(results: set) -> list[str]:
    return sorted(encode_position_id(board) for board in results)


# --------------------------------------------------------------------------------------
# gnubg vectors
# --------------------------------------------------------------------------------------


def test_every_movegen_vector_gives_exactly_gnubgs_set_of_positions() -> None:
    cases = read_jsonl("movegen.jsonl")
    assert len(cases) == 3157
    failures: dict[str, list[str]] = defaultdict(list)
    for case in cases:
        pid, (d1, d2), tag = case["position_id"], case["dice"], case["tag"]
        got = _ids(children(decode_position_id(pid), d1, d2))
        if got != case["results"]:
            missing = sorted(set(case["results"]) - set(got))
            extra = sorted(set(got) - set(case["results"]))
            failures[tag].append(f"{pid} {d1}{d2}: missing {missing} extra {extra}")
    report = "\n".join(
        f"[{tag}] {len(lines)} failing:\n  " + "\n  ".join(lines)
        for tag, lines in sorted(failures.items())
    )
    assert not failures, report


def test_movegen_vectors_give_the_same_positions_for_both_die_orders() -> None:
    for case in read_jsonl("movegen.jsonl")[::7]:
        board, (d1, d2) = decode_position_id(case["position_id"]), case["dice"]
        assert children(board, d1, d2) == children(board, d2, d1), case["position_id"]


_POSITION_CASES = [c for c in read_jsonl("ids.jsonl") if c["kind"] == "position"]


def test_ids_file_has_200_position_cases() -> None:
    assert len(_POSITION_CASES) == 200


@pytest.mark.parametrize("case", _POSITION_CASES, ids=[c["position_id"] for c in _POSITION_CASES])
def test_position_id_decodes_to_the_board_and_the_board_encodes_to_it(case: dict) -> None:
    assert decode_position_id(case["position_id"]) == case["board"]
    assert encode_position_id(case["board"]) == case["position_id"]


def test_starting_position_id_is_4HPwATDgc_ABMA() -> None:
    assert encode_position_id([START, START]) == "4HPwATDgc/ABMA"
    assert decode_position_id("4HPwATDgc/ABMA") == [START, START]


@pytest.mark.parametrize("bad", ["", "4HPwATDgc/ABM", "4HPwATDgc/ABMAA", "4HPwATDgc/AB!A"])
def test_decoding_a_malformed_position_id_raises_value_error(bad: str) -> None:
    with pytest.raises(ValueError):
        decode_position_id(bad)


def test_decoding_an_id_with_too_few_entries_raises_value_error() -> None:
    with pytest.raises(ValueError):
        decode_position_id("//////////////")


# --------------------------------------------------------------------------------------
# wildbg benchmark totals (a roll with no legal move counts as one result)
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(WILDBG_TOTALS))
def test_wildbg_position_sets_give_the_published_numbers_of_children(
    name: str, wildbg_sets: dict[str, list[str]]
) -> None:
    doubles_total, non_doubles_total = WILDBG_TOTALS[name]
    pids = wildbg_sets[name]
    assert len(pids) == 1000
    doubles = non_doubles = 0
    for pid in pids:
        board = decode_position_id(pid)
        for high, low in ALL_21_ROLLS:
            count = len(children(board, high, low)) or 1
            if high == low:
                doubles += count
            else:
                non_doubles += count
    assert (doubles, non_doubles) == (doubles_total, non_doubles_total)


# --------------------------------------------------------------------------------------
# Hand-written rule checks (readable examples of the README's rules)
# --------------------------------------------------------------------------------------


def test_opening_21_has_fifteen_distinct_results() -> None:
    assert len(children([START, START], 2, 1)) == 15


def test_a_checker_on_the_bar_must_enter_before_any_other_moves() -> None:
    board = [_side(p1=2, p2=2, p3=2, p4=2, p5=2, p7=5), _side(bar=1, p6=14)]
    # Only side0's point 6 (side1's entry point 19 with a 6) is open.
    results = children(board, 6, 1)
    assert results
    assert all(side1[24] == 0 and side1[18] == 1 for _, side1 in results)


def test_dancing_on_the_bar_gives_no_result() -> None:
    board = [_side(p1=2, p2=2, p3=2, p4=2, p5=2, p6=2, p7=3), _side(bar=1, p6=14)]
    assert children(board, 6, 5) == set()


def test_hitting_a_blot_sends_it_to_the_opponents_bar() -> None:
    # side1's 8-point checker moves 3 to its 5-point, which is side0's 20-point blot.
    board = [_side(p20=1, p1=14), _side(p8=1, p6=14)]
    results = children(board, 3, 3)
    assert any(side0[24] == 1 and side0[19] == 0 for side0, _ in results)


def test_when_only_one_die_can_be_played_it_must_be_the_larger() -> None:
    # side1: checkers on its 9- and 24-points. side0 holds side1's 18- and 19-points, so
    # the back checker can't move a 5 or a 6, and bearing off stays closed. 9/3 (6) and
    # 9/4 (5) are each playable, but then the other die is not: the 6 must be played.
    board = [_side(p6=2, p7=2), _side(p9=1, p24=1)]
    assert children(board, 6, 5) == {(tuple(board[0]), tuple(_side(p3=1, p24=1)))}
    assert children(board, 5, 6) == children(board, 6, 5)


def test_when_only_the_smaller_die_can_be_played_it_is_played() -> None:
    # As above, but side0 also holds side1's 3-point: 9/3 is blocked, only 9/4 remains.
    board = [_side(p6=2, p7=2, p22=2), _side(p9=1, p24=1)]
    assert children(board, 6, 5) == {(tuple(board[0]), tuple(_side(p4=1, p24=1)))}


def test_last_checker_must_hit_and_bear_off_rather_than_bear_off_with_one_die() -> None:
    # README rule 6: one checker on the 2-point, an opposing blot on the 1-point, roll 2-1.
    board = [_side(p24=1), _side(p2=1)]
    assert children(board, 2, 1) == {(tuple(_side(bar=1)), tuple(_side()))}


def test_a_larger_die_bears_off_only_from_the_highest_point() -> None:
    # Checkers on the 6- and 1-points, roll 5-4: the 5 can't bear off the 1-point checker
    # while the 6-point is occupied, so every legal move ends with one checker on the 1-point.
    board = [_side(p24=2), _side(p6=1, p1=1)]
    assert children(board, 5, 4) == {(tuple(board[0]), tuple(_side(p1=1)))}


def test_doubles_play_up_to_four_moves() -> None:
    board = [_side(p24=2), _side(p24=1)]  # side1's lone checker on 24, side0 on side1's 1-point
    assert children(board, 3, 3) == {(tuple(board[0]), tuple(_side(p12=1)))}


def test_a_double_that_is_blocked_half_way_plays_as_many_moves_as_it_can() -> None:
    # side0 holds side1's 16-point: 24/20, then 20/16 is blocked. One move only.
    board = [_side(p9=2), _side(p24=1)]
    assert children(board, 4, 4) == {(tuple(board[0]), tuple(_side(p20=1)))}


def test_dice_outside_1_to_6_raise_value_error() -> None:
    with pytest.raises(ValueError):
        children([START, START], 0, 3)
    with pytest.raises(ValueError):
        children([START, START], 3, 7)


# --------------------------------------------------------------------------------------
# Properties on random boards
# --------------------------------------------------------------------------------------


def _pips(side) -> int:
    return sum((i + 1) * n for i, n in enumerate(side[:24])) + 25 * side[24]


@settings(max_examples=150, deadline=None)
@given(legal_boards())
def test_generated_boards_have_1_to_15_checkers_a_side_and_no_shared_point(board) -> None:
    side0, side1 = board
    assert len(side0) == len(side1) == 25
    assert 1 <= sum(side0) <= 15 and 1 <= sum(side1) <= 15
    assert min(side0) >= 0 and min(side1) >= 0
    assert all(not (side1[i] and side0[23 - i]) for i in range(24))


@settings(max_examples=400, deadline=None)
@given(legal_boards(), dice())
def test_every_result_keeps_checker_counts_and_the_shared_point_rule(board, roll) -> None:
    d1, d2 = roll
    start = (tuple(board[0]), tuple(board[1]))
    max_off = 4 if d1 == d2 else 2
    for side0, side1 in children(board, d1, d2):
        assert sum(side0) == sum(board[0]), "the opponent's checker count changed"
        assert 0 <= sum(board[1]) - sum(side1) <= max_off, "the mover gained or lost checkers"
        assert min(side0) >= 0 and min(side1) >= 0
        assert all(not (side1[i] and side0[23 - i]) for i in range(24)), "a point has both sides"
        assert (side0, side1) != start, "a result equals the input"


@settings(max_examples=300, deadline=None)
@given(legal_boards(), dice())
def test_the_opponent_only_loses_checkers_to_its_bar(board, roll) -> None:
    for side0, _ in children(board, *roll):
        hits = side0[24] - board[0][24]
        assert 0 <= hits <= (4 if roll[0] == roll[1] else 2)
        assert all(side0[j] <= board[0][j] for j in range(24))
        assert sum(board[0][j] - side0[j] for j in range(24)) == hits


@settings(max_examples=300, deadline=None)
@given(legal_boards(), dice())
def test_the_mover_advances_by_at_most_the_dice_total(board, roll) -> None:
    d1, d2 = roll
    total = 4 * d1 if d1 == d2 else d1 + d2
    for _, side1 in children(board, d1, d2):
        assert 0 < _pips(board[1]) - _pips(side1) <= total
        assert side1[24] <= board[1][24], "a mover's checker went to the bar"


@settings(max_examples=300, deadline=None)
@given(legal_boards(), dice())
def test_die_order_does_not_change_the_results(board, roll) -> None:
    d1, d2 = roll
    assert children(board, d1, d2) == children(board, d2, d1)


@settings(max_examples=200, deadline=None)
@given(legal_boards())
def test_position_id_round_trips_on_random_boards(board) -> None:
    pid = encode_position_id(board)
    assert len(pid) == 14
    assert decode_position_id(pid) == board
