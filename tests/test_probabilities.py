"""The one probabilities type (bgfast.probabilities): its forms, its flips, its outcomes."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bgfast import bots, cube
from bgfast._core import cube as _cube
from bgfast._core.game import KIND_NAMES
from bgfast.position import Position
from bgfast.probabilities import OUTCOME_KINDS, Probabilities, flip_changes, flip_rows, outcome_rows

chance = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
five = st.tuples(chance, chance, chance, chance, chance)


def test_the_bots_package_re_exports_the_one_type() -> None:
    assert bots.Probabilities is Probabilities


@given(five)
def test_flipped_is_the_cores_flip_and_flips_back(p: tuple[float, ...]) -> None:
    q = Probabilities(*p)
    assert tuple(q.flipped()) == _cube.flip(p)
    assert tuple(q.flipped().flipped()) == pytest.approx(p, abs=1e-15)   # 1 - (1 - win) may round
    assert q.flipped().equity() == pytest.approx(-q.equity(), abs=1e-12)


@given(st.lists(five, min_size=1, max_size=6))
def test_the_row_flip_is_the_cores_flip_to_the_last_bit(rows: list[tuple[float, ...]]) -> None:
    flipped = flip_rows(np.array(rows))
    assert [tuple(r) for r in flipped.tolist()] == [_cube.flip(r) for r in rows]


@given(five, five)
def test_a_change_flips_as_the_difference_of_the_flipped_probabilities(a: tuple[float, ...],
                                                                      b: tuple[float, ...]) -> None:
    change = np.subtract(a, b)
    assert flip_changes(change) == pytest.approx(flip_rows(a) - flip_rows(b), abs=1e-12)
    assert flip_changes(flip_changes(change)).tolist() == change.tolist()


def test_the_flips_take_rows_of_any_leading_shape_and_leave_their_input_alone() -> None:
    rows = np.zeros((2, 3, 5))
    assert flip_rows(rows).shape == (2, 3, 5) and np.all(flip_rows(rows)[..., 0] == 1.0)
    assert np.all(rows == 0.0)
    with pytest.raises(ValueError, match="rows of 5 numbers"):
        flip_changes([0.1, 0.2])


@pytest.mark.parametrize(("won", "kind", "expected"), [
    (True, "single", (1.0, 0.0, 0.0, 0.0, 0.0)),
    (True, "gammon", (1.0, 1.0, 0.0, 0.0, 0.0)),
    (True, "backgammon", (1.0, 1.0, 1.0, 0.0, 0.0)),
    (False, "single", (0.0, 0.0, 0.0, 0.0, 0.0)),
    (False, "gammon", (0.0, 0.0, 0.0, 1.0, 0.0)),
    (False, "backgammon", (0.0, 0.0, 0.0, 1.0, 1.0)),
])
def test_a_finished_game_is_one_or_zero_each(won: bool, kind: str, expected: tuple[float, ...]) -> None:
    p = Probabilities.from_outcome(won, kind)
    assert tuple(p) == expected
    assert p.equity() == (1 if won else -1) * (OUTCOME_KINDS.index(kind) + 1)
    assert Probabilities.from_outcome(not won, kind) == p.flipped()
    assert outcome_rows([won], [OUTCOME_KINDS.index(kind)]).tolist() == [list(expected)]


def test_the_outcome_kinds_are_the_game_loops_and_the_positions() -> None:
    assert OUTCOME_KINDS == KIND_NAMES[:3]
    won = Position.from_board([[0] * 5 + [15] + [0] * 19, [0] * 25])   # side 1 has borne off all
    outcome = won.outcome()
    assert outcome is not None and outcome.kind == "gammon"
    assert Probabilities.from_outcome(outcome.winner == 1, outcome.kind).equity() == outcome.points


def test_outcome_rows_keep_the_shape_of_their_arguments() -> None:
    rows = outcome_rows(np.array([[True, False], [False, True]]), np.array([[0, 2], [1, 1]]))
    assert rows.shape == (2, 2, 5)
    assert rows[0, 1].tolist() == [0.0, 0.0, 0.0, 1.0, 1.0] and rows[1, 1].tolist() == [1.0, 1.0, 0.0, 0.0, 0.0]
    assert outcome_rows([], []).shape == (0, 5)


@pytest.mark.parametrize(("won", "kind"), [([True], [3]), ([True], [-1]), ([True], [0.5]), ([True, False], [0])])
def test_outcome_rows_refuse_unknown_kinds_and_mismatched_shapes(won: list[bool], kind: list[float]) -> None:
    with pytest.raises(ValueError):
        outcome_rows(won, kind)


@pytest.mark.parametrize("kind", ["pass", "resign", "", 1])
def test_from_outcome_refuses_a_kind_that_is_not_a_games(kind: object) -> None:
    with pytest.raises(ValueError, match="a game's kind is one of single, gammon, backgammon"):
        Probabilities.from_outcome(True, kind)  # type: ignore[arg-type]


@given(five)
def test_the_array_form_round_trips(p: tuple[float, ...]) -> None:
    q = Probabilities(*p)
    arr = q.to_array()
    assert arr.dtype == np.float64 and arr.shape == (5,)
    assert Probabilities.from_array(arr) == q
    assert Probabilities.of(arr) == q == Probabilities.of(q) == Probabilities.of(list(p))
    win, wg, wbg, lg, lbg = q
    assert (win, wg, wbg, lg, lbg) == p
    assert cube.as_probs(q) == p


@pytest.mark.parametrize("bad", [np.zeros(4), np.zeros((1, 5)), [0.1] * 6])
def test_from_array_refuses_another_shape(bad: object) -> None:
    with pytest.raises(ValueError, match=r"shape \(5,\)"):
        Probabilities.from_array(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", ["abcde", [0.1, 0.2], None])
def test_of_refuses_what_is_not_five_numbers(bad: object) -> None:
    with pytest.raises(ValueError, match="5 numbers"):
        Probabilities.of(bad)
