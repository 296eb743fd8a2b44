"""The batch entry points agree with Position.legal_moves and reject bad input."""
import numpy as np
import pytest

from bgfast import InvalidDiceError, InvalidPositionError, Position
from bgfast.batch import ROLLS_21, boards_array, count_plays, play_ids
from vectors import read_ids


def test_batch_counts_equal_legal_moves_on_wildbg_positions():
    ids = read_ids("contact.csv")[:50] + read_ids("race.csv")[:50]
    counts = count_plays(ids)
    expected = [[len(Position(pid).legal_moves(a, b)) for a, b in ROLLS_21] for pid in ids]
    assert counts.tolist() == expected


def test_batch_ids_are_the_resulting_positions_of_each_generation():
    ids = read_ids("contact.csv")[:20]
    counts, children = play_ids(ids)
    offset = 0
    for pid, row in zip(ids, counts):
        for (a, b), n in zip(ROLLS_21, row):
            got = sorted(x.decode() for x in children[offset:offset + n])
            offset += n
            assert got == sorted(m.position.id() for m in Position(pid).legal_moves(a, b)), (pid, a, b)
    assert offset == len(children)


def test_batch_rejects_a_die_of_seven():
    with pytest.raises(InvalidDiceError):
        count_plays(["4HPwATDgc/ABMA"], [(7, 1)])


def test_batch_rejects_an_impossible_board_row():
    boards = boards_array([Position()])
    boards[0, 30] = 15  # 15 more checkers for the side on roll
    with pytest.raises(ValueError, match="impossible"):
        count_plays(boards)


@pytest.mark.parametrize("generate", [count_plays, play_ids])
def test_an_impossible_board_row_raises_invalid_position_error_with_the_cores_message(generate) -> None:
    with pytest.raises(InvalidPositionError, match=r"^board 0 is impossible \(more than 15 checkers"):
        generate(np.full((1, 50), 255, dtype=np.uint8))
    boards = boards_array([Position(), Position()])
    boards[1, 30] = 15
    with pytest.raises(InvalidPositionError, match="^board 1 is impossible"):
        generate(boards)


def test_batch_rejects_a_wrongly_shaped_dice_array():
    with pytest.raises(ValueError):
        count_plays(["4HPwATDgc/ABMA"], np.array([1, 2, 3]))


def test_rolls_may_be_strings_and_pairs_and_bad_ones_raise_invalid_dice_error() -> None:
    assert count_plays(["4HPwATDgc/ABMA"], ["31", (6, 6), "2-1"]).tolist() == [[16, 11, 15]]
    for bad in ([(3, 1, 2)], [3], [("a", "b")], [(7, 1)], ["3x"]):
        with pytest.raises(InvalidDiceError):
            count_plays(["4HPwATDgc/ABMA"], bad)


def test_one_string_or_a_misshapen_board_array_is_refused_clearly() -> None:
    with pytest.raises(InvalidPositionError, match="not one:"):
        count_plays("4HPwATDgc/ABMA")
    with pytest.raises(ValueError, match=r"shape \(N, 50\)"):
        count_plays(np.zeros((2, 49), dtype=np.uint8))


@pytest.mark.parametrize("positions", [Position(), None, 5, np.full((1, 50), 261, dtype=np.int64),
                                       np.full((1, 50), 5.9), np.full((1, 50), np.nan)])
def test_input_a_cast_would_wrap_or_that_is_not_a_sequence_raises_invalid_position_error(positions: object) -> None:
    with pytest.raises(InvalidPositionError):
        count_plays(positions, [(3, 1)])  # type: ignore[arg-type]


def test_a_board_array_of_small_integers_in_another_dtype_is_counted() -> None:
    boards = np.array([list(Position().to_bytes())], dtype=np.int64)
    assert count_plays(boards, [(3, 1)]).tolist() == [[16]]
