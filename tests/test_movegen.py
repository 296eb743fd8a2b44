"""The compiled move generator (bgfast._core.movegen) through its Python entry points.

Checked against GNU Backgammon's answers (movegen.jsonl), the wildbg benchmark totals,
and the pure-Python reference generator in tests/reference.py on random positions.
"""
from __future__ import annotations

from collections import defaultdict

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bgfast import ALL_21, STARTING, Position
from bgfast._core.movegen import Generator, count_batch
from vectors import WILDBG_TOTALS
from reference import children as reference_children
from reference import encode_position_id
from strategies import ALL_21_ROLLS, legal_boards

ROLLS = np.array(ALL_21_ROLLS, dtype=np.int64)
DOUBLES = ROLLS[:, 0] == ROLLS[:, 1]


def _result_ids(pos: Position, d1: int, d2: int) -> list[str]:
    """Sorted IDs of the distinct results, in the vectors' convention ([] for no play)."""
    moves = pos.legal_moves(d1, d2)
    if len(moves) == 1 and moves[0].position == pos and not moves[0].checker_moves:
        return []
    return sorted(m.position.id() for m in moves)


def _boards_array(pids: list[str]) -> np.ndarray:
    return np.frombuffer(b"".join(Position(p).to_bytes() for p in pids), dtype=np.uint8).reshape(-1, 50)


# ---------------------------------------------------------------- gnubg vectors


def test_the_movegen_vectors_hold_3157_cases(movegen_cases: list[dict]) -> None:
    assert len(movegen_cases) == 3157


def test_every_movegen_vector_gives_exactly_gnubgs_resulting_positions(movegen_cases: list[dict]) -> None:
    failures: dict[str, list[str]] = defaultdict(list)
    for case in movegen_cases:
        (d1, d2), pid = case["dice"], case["position_id"]
        got = _result_ids(Position(pid), d1, d2)
        if got != case["results"]:
            extra = sorted(set(got) - set(case["results"]))
            missing = sorted(set(case["results"]) - set(got))
            failures[case["tag"]].append(f"{pid} {d1}{d2}: missing {missing} extra {extra}")
    assert not failures, "\n".join(f"[{tag}] {lines}" for tag, lines in sorted(failures.items()))


def test_a_vector_with_no_legal_play_gives_one_empty_move_that_leaves_the_position_unchanged(
    movegen_cases: list[dict],
) -> None:
    dances = [c for c in movegen_cases if not c["results"]]
    assert len(dances) > 100
    for case in dances:
        pos = Position(case["position_id"])
        moves = pos.legal_moves(*case["dice"])
        assert len(moves) == 1
        (move,) = moves
        assert move.position == pos and move.checker_moves == () and str(move) == ""


def test_every_gnubg_move_string_of_the_vectors_parses_to_its_resulting_position(
    movegen_cases: list[dict],
) -> None:
    bad = []
    for case in movegen_cases:
        pos = Position(case["position_id"])
        for text, expected in zip(case["moves"], case["results"], strict=True):
            got = pos.parse_move(text, tuple(case["dice"])).position.id()
            if got != expected:
                bad.append(f"{case['position_id']} {case['dice']} {text!r}: {got} != {expected}")
    assert not bad, "\n".join(bad[:20])


def test_the_notation_of_every_generated_move_parses_back_to_the_same_position(
    movegen_cases: list[dict],
) -> None:
    bad = []
    for case in movegen_cases:
        pos = Position(case["position_id"])
        for move in pos.legal_moves(*case["dice"]):
            back = pos.parse_move(str(move), tuple(case["dice"]))
            if back.position != move.position:
                bad.append(f"{case['position_id']} {case['dice']} {str(move)!r}")
    assert not bad, "\n".join(bad[:20])


def test_the_generator_gives_the_same_results_for_both_orders_of_the_dice(movegen_cases: list[dict]) -> None:
    gen = Generator()
    for case in movegen_cases[::5]:
        key = Position(case["position_id"]).to_bytes()
        d1, d2 = case["dice"]
        assert sorted(gen.child_ids(key, d1, d2)) == sorted(gen.child_ids(key, d2, d1))


def test_child_ids_count_and_children_agree_with_legal_moves(movegen_cases: list[dict]) -> None:
    gen = Generator()
    for case in movegen_cases[::3]:
        pos = Position(case["position_id"])
        d1, d2 = case["dice"]
        ids = gen.child_ids(pos.to_bytes(), d1, d2)
        assert gen.count(pos.to_bytes(), d1, d2) == len(ids) == len(pos.legal_moves(d1, d2))
        assert sorted(ids) == sorted(c.id() for c in pos.children(d1, d2))


# ---------------------------------------------------------------- wildbg totals


@pytest.mark.parametrize("name", sorted(WILDBG_TOTALS))
def test_count_batch_gives_the_wildbg_totals_over_all_21_rolls(name: str, wildbg_sets: dict) -> None:
    pids = wildbg_sets[name]
    assert len(pids) == 1000
    counts = count_batch(_boards_array(pids), ROLLS)
    assert counts.shape == (1000, 21) and counts.dtype == np.int32
    assert (counts >= 1).all()
    assert (int(counts[:, DOUBLES].sum()), int(counts[:, ~DOUBLES].sum())) == WILDBG_TOTALS[name]


@pytest.mark.parametrize("name", sorted(WILDBG_TOTALS))
def test_legal_moves_gives_the_wildbg_totals_over_all_21_rolls(name: str, wildbg_sets: dict) -> None:
    doubles = non_doubles = 0
    for pid in wildbg_sets[name]:
        pos = Position(pid)
        for dice in ALL_21:
            n = len(pos.legal_moves(dice.high, dice.low))
            if dice.is_double:
                doubles += n
            else:
                non_doubles += n
    assert (doubles, non_doubles) == WILDBG_TOTALS[name]


def test_count_batch_agrees_with_the_per_call_generator_position_by_position(wildbg_sets: dict) -> None:
    pids = wildbg_sets["contact"][:200] + wildbg_sets["race"][:200]
    counts = count_batch(_boards_array(pids), ROLLS)
    gen = Generator()
    for i, pid in enumerate(pids):
        key = Position(pid).to_bytes()
        assert [gen.count(key, int(a), int(b)) for a, b in ROLLS] == counts[i].tolist(), pid


def test_count_batch_of_no_positions_is_an_empty_array() -> None:
    out = count_batch(np.zeros((0, 50), dtype=np.uint8), ROLLS)
    assert out.shape == (0, 21)


# ---------------------------------------------------------------- against the reference


def _check_children_against_reference(board: list[list[int]]) -> None:
    pos = Position.from_board(board)
    before = [sum(board[0]), sum(board[1])]
    for d1, d2 in ALL_21_ROLLS:
        kids = pos.children(d1, d2)
        expected = reference_children(board, d1, d2)
        if expected:
            assert {k.board for k in kids} == expected, (pos.id(), d1, d2)
        else:
            assert kids == [pos], (pos.id(), d1, d2)
        assert len(set(kids)) == len(kids), "duplicate children"
        for kid in kids:
            side0, side1 = kid.board
            assert sum(side0) == before[0], "the opponent's checkers stay on the board"
            assert sum(side1) <= before[1] <= 15
            assert all(side0[23 - i] == 0 or side1[i] == 0 for i in range(24)), "a point held by both sides"
            assert Position.from_id(kid.id()) == kid
            assert kid.id() == encode_position_id(kid.board)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(legal_boards())
def test_the_core_gives_the_reference_children_for_random_positions_and_all_21_rolls(
    board: list[list[int]],
) -> None:
    _check_children_against_reference(board)


@pytest.mark.slow
@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(legal_boards())
def test_the_core_gives_the_reference_children_for_thousands_of_random_positions(
    board: list[list[int]],
) -> None:
    _check_children_against_reference(board)


@settings(max_examples=60, deadline=None)
@given(legal_boards(), st.sampled_from(ALL_21_ROLLS))
def test_the_mover_of_every_child_has_played_as_many_pips_as_the_steps_say(
    board: list[list[int]], roll: tuple[int, int]
) -> None:
    pos = Position.from_board(board)
    for move in pos.legal_moves(*roll):
        played = sum(cm.src - cm.dst for cm in move.checker_moves)
        before, after = pos.pip_count()[1], move.position.pip_count()[1]
        assert before - after == played
        bear_off_slack = sum(1 for cm in move.checker_moves if cm.dst == 0)
        dice_pips = sum(roll) * (2 if roll[0] == roll[1] else 1)
        assert played <= dice_pips or bear_off_slack


# ---------------------------------------------------------------- perft from the start


def _perft_reference(board: list[list[int]]) -> int:
    return sum(len(reference_children(board, d1, d2)) or 1 for d1, d2 in ALL_21_ROLLS)


def test_perft_depth_1_from_the_starting_position_matches_the_reference() -> None:
    board = [list(side) for side in STARTING.board]
    core = sum(len(STARTING.legal_moves(d1, d2)) for d1, d2 in ALL_21_ROLLS)
    assert core == _perft_reference(board) == 447
    batch = count_batch(_boards_array([STARTING.id()]), ROLLS)
    assert int(batch.sum()) == core


@pytest.mark.slow
def test_perft_depth_2_from_the_starting_position_matches_the_reference() -> None:
    core = ref = 0
    for d1, d2 in ALL_21_ROLLS:
        for kid in STARTING.children(d1, d2):
            reply = kid.swap_sides()
            core += sum(len(reply.children(a, b)) for a, b in ALL_21_ROLLS)
            ref += _perft_reference([list(s) for s in reply.board])
    assert core == ref


# Distinct plays of each opening roll, as gnubg counts them (gnubg_nn.moves).
OPENING_PLAYS = {
    "11": 42, "21": 15, "22": 75, "31": 16, "32": 17, "33": 73, "41": 14, "42": 18, "43": 17, "44": 52, "51": 8,
    "52": 8, "53": 9, "54": 9, "55": 4, "61": 10, "62": 14, "63": 14, "64": 14, "65": 7, "66": 11,
}


@pytest.mark.parametrize(("roll", "count"), sorted(OPENING_PLAYS.items()))
def test_each_opening_roll_gives_gnubgs_number_of_plays(roll: str, count: int) -> None:
    assert len(STARTING.legal_moves(int(roll[0]), int(roll[1]))) == count


# ---------------------------------------------------------------- gnubg_nn, when installed


def test_gnubg_nn_reads_the_board_the_way_bgfast_does() -> None:
    gnubg_nn = pytest.importorskip("gnubg_nn")
    pos = Position("4HPkQSDgc/ABMA")  # the opponent opened 24/18 13/11; side1 (on roll) has not moved
    board = [list(side) for side in pos.board]
    assert gnubg_nn.board_from_position_id(pos.id()) == board
    assert len(gnubg_nn.moves(board, 6, 4)) == len(pos.legal_moves(6, 4)) == 15
    assert len(gnubg_nn.moves(board[::-1], 6, 4)) == len(pos.swap_sides().legal_moves(6, 4)) == 24


def test_gnubg_nn_counts_the_same_plays_on_every_generation_but_a_no_play(wildbg_sets: dict) -> None:
    gnubg_nn = pytest.importorskip("gnubg_nn")
    pids = wildbg_sets["contact"][::10] + wildbg_sets["race"][::10]
    counts = count_batch(_boards_array(pids), ROLLS)
    for i, pid in enumerate(pids):
        board = [list(side) for side in Position(pid).board]
        for j, (d1, d2) in enumerate(ALL_21_ROLLS):
            theirs, ours = len(gnubg_nn.moves(board, d1, d2)), int(counts[i, j])
            assert theirs == ours or (theirs == 0 and ours == 1), (pid, d1, d2, theirs, ours)
