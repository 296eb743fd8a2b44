"""Move generation speed: batch in C, the Python API, and gnubg_nn on the same positions.

Run with ``pytest benchmarks/`` (add ``--benchmark-json=out.json`` to keep the figures).
Each benchmark times one pass over a whole position set x all 21 rolls, except the
opening one; ``extra_info["generations"]`` says how many (position, roll) generations
a round holds, so the mean divided by it is the time per generation.  The CLI prints
the same comparison as ratios: ``bgfast bench movegen``.
"""
from __future__ import annotations

from typing import Any, Callable

import pytest

from bgfast import STARTING, Position
from bgfast._core.movegen import count_batch
from bgfast.batch import ROLLS_21 as ROLLS
from bgfast.batch import boards_array
from corpus import GNUBG_TOTALS, TOTALS

_ROLL_LIST = [(int(a), int(b)) for a, b in ROLLS]


def _api_pass(positions: list[Position]) -> int:
    total = 0
    for pos in positions:
        for d1, d2 in _ROLL_LIST:
            total += len(pos.legal_moves(d1, d2))
    return total


def _gnubg_pass(moves: Callable[..., Any], boards: list[list[list[int]]]) -> int:
    total = 0
    for board in boards:
        for d1, d2 in _ROLL_LIST:
            total += len(moves(board, d1, d2))
    return total


def _batch(benchmark: Any, positions: list[Position], name: str) -> None:
    boards = boards_array(positions)
    assert int(count_batch(boards, ROLLS).sum()) == TOTALS[name]
    benchmark.extra_info["generations"] = len(positions) * len(ROLLS)
    benchmark(count_batch, boards, ROLLS)


def test_movegen_batch_contact(benchmark: Any, contact: list[Position]) -> None:
    _batch(benchmark, contact, "contact")


def test_movegen_batch_race(benchmark: Any, race: list[Position]) -> None:
    _batch(benchmark, race, "race")


def test_movegen_api_contact(benchmark: Any, contact: list[Position]) -> None:
    assert _api_pass(contact) == TOTALS["contact"]
    benchmark.extra_info["generations"] = len(contact) * len(ROLLS)
    benchmark(_api_pass, contact)


def test_movegen_gnubg_nn_contact(benchmark: Any, contact: list[Position]) -> None:
    gnubg_nn = pytest.importorskip("gnubg_nn")
    boards = [[list(side) for side in pos.board] for pos in contact]
    assert _gnubg_pass(gnubg_nn.moves, boards) == GNUBG_TOTALS["contact"]
    benchmark.extra_info["generations"] = len(contact) * len(ROLLS)
    benchmark(_gnubg_pass, gnubg_nn.moves, boards)


def test_movegen_opening_31(benchmark: Any) -> None:
    assert len(STARTING.legal_moves(3, 1)) == 16
    benchmark.extra_info["generations"] = 1
    benchmark(lambda: len(STARTING.legal_moves(3, 1)))
