"""The net's hand-made inputs, computed for it alone, and the games they make.

The net reads 58 of the heuristic's 155 features (``heuristic.DENSE_COLUMNS``).  The core
computes just those (``heuristic_dense``), and for the plays of one roll it computes the
side on roll's own features once (``heuristic_dense_roll``/``_child``).  Both must give
the very values of ``heuristic_features``, bit for bit, so that the net and its games do
not change; tests/data/neural_games.json holds games and values recorded before that
routine existed (tests/neural_games.py; ``python tests/neural_games.py`` writes it).
"""
from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings

from bgfast._core import heuristic as h
from bgfast._core import neural as nn
import neural_games
from strategies import ALL_21_ROLLS, dice, legal_boards

GOLDEN = json.loads(neural_games.DATA.read_text())


def _rows(boards: list[bytes]) -> np.ndarray:
    return np.frombuffer(b"".join(boards), dtype=np.uint8).reshape(-1, 50)


def _selected(boards: np.ndarray) -> np.ndarray:
    return h.features_batch(boards)[1][:, list(h.DENSE_COLUMNS)]


@pytest.fixture(scope="module")
def model() -> nn.Model:
    return neural_games.net().model()


def test_the_dense_columns_are_each_sides_dense_block_and_the_globals_but_the_constant() -> None:
    assert h.NDENSE == nn.HAND_INPUTS == len(h.DENSE_COLUMNS) == 58
    assert h.DENSE_COLUMNS[:22] == tuple(range(22))
    assert h.DENSE_COLUMNS[22:44] == tuple(range(70, 92))
    assert h.DENSE_COLUMNS[44:] == tuple(range(141, 155))


def _assert_same_bits(new: np.ndarray, old: np.ndarray, boards: np.ndarray) -> None:
    differ = np.flatnonzero((new.view(np.uint32) != old.view(np.uint32)).any(axis=1))
    assert len(differ) == 0, f"board {boards[differ[0]].tobytes().hex()}: {new[differ[0]]} != {old[differ[0]]}"


@settings(max_examples=400, deadline=None)
@given(legal_boards(), dice())
def test_the_dense_features_are_the_heuristics_bit_for_bit(model: nn.Model, board: list[list[int]],
                                                           roll: tuple[int, int]) -> None:
    parent = bytes(board[0] + board[1])
    boards = np.frombuffer(parent, dtype=np.uint8).reshape(1, 50)
    _assert_same_bits(h.dense_features(boards), _selected(boards), boards)
    kids, _ = model.children(parent, *roll)
    children = _rows(kids)
    old = _selected(children)
    _assert_same_bits(h.dense_features(children), old, children)
    _assert_same_bits(h.dense_features_roll(np.frombuffer(parent, dtype=np.uint8), children), old, children)


def test_the_plays_of_every_roll_of_self_play_positions_get_the_heuristics_features(model: nn.Model) -> None:
    hits = 0
    for parent in (bytes.fromhex(p) for p in GOLDEN["positions"]):
        for roll in ALL_21_ROLLS:
            kids, _ = model.children(parent, *roll)
            children = _rows(kids)
            hits += int((children[:, 24] > parent[24]).sum())
            _assert_same_bits(h.dense_features_roll(np.frombuffer(parent, dtype=np.uint8), children),
                              _selected(children), children)
    assert hits > 100          # plays that hit, where the side on roll's features are computed anew


def test_a_child_that_is_not_a_play_of_the_parent_is_refused() -> None:
    parent = np.zeros(50, dtype=np.uint8)
    parent[5], parent[25 + 5] = 15, 15
    child = parent.copy().reshape(1, 50)
    child[0, 5], child[0, 6] = 14, 1           # side 0 moved, and nobody hit it
    with pytest.raises(ValueError, match="without a hit"):
        h.dense_features_roll(parent, child)
    with pytest.raises(ValueError, match="50 bytes"):
        h.dense_features_roll(parent[:49], child)
    with pytest.raises(ValueError, match="50 bytes"):
        h.dense_features(np.zeros((2, 49), dtype=np.uint8))


def test_the_net_reads_the_dense_features_as_its_hand_inputs(model: nn.Model) -> None:
    boards = np.array([list(bytes.fromhex(p)) for p in GOLDEN["positions"][:50]], dtype=np.uint8)
    for row in boards:
        swapped = np.concatenate([row[25:], row[:25]]).reshape(1, 50)   # after the opponent's play
        assert np.array_equal(nn.inputs(row.tobytes())[nn.RAW_INPUTS:], h.dense_features(swapped)[0])


# ---------------------------------------------------------------- the games, as recorded

recorded_here = pytest.mark.skipif(
    GOLDEN["kernel"] != neural_games.kernel(),
    reason=f"recorded on {GOLDEN['kernel']}, whose float arithmetic this machine's compiler may not do alike",
)


@recorded_here
def test_the_recorded_self_play_games_are_unchanged() -> None:
    assert neural_games.versus(neural_games.net()) == GOLDEN["versus"]


@recorded_here
def test_the_recorded_cube_matches_of_the_game_loop_are_unchanged() -> None:
    assert neural_games.records(neural_games.net()) == GOLDEN["records"]


@recorded_here
def test_the_nets_values_of_every_play_are_unchanged_bit_for_bit() -> None:
    weights = neural_games.net()
    boards = np.array([list(bytes.fromhex(p)) for p in GOLDEN["positions"]], dtype=np.uint8)
    assert np.array_equal(boards, neural_games.positions(weights))
    assert neural_games.children_digests(weights, boards) == GOLDEN["children"]
    assert neural_games.batch_digest(weights, boards) == GOLDEN["evaluate_batch"]
