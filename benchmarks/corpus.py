"""The fixed position sets of the benchmarks and their known answers.

benchmarks/data/{contact,race}.csv are the wildbg benchmark sets (1000 gnubg Position
IDs each).  Every benchmark asserts the known total number of plays before it times
anything, so a fast wrong generator never shows up as a speed-up.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from bgfast import ALL_21, Position

DATA = Path(__file__).parent / "data"

ROLLS = np.array([(d.high, d.low) for d in ALL_21], dtype=np.int64)
"""The 21 distinct rolls as an int64 (21, 2) array, higher die first."""

TOTALS = {
    # distinct plays summed over 1000 positions x 21 rolls; a roll with no play counts as one
    "contact": 218_356 + 185_957,
    "race": 140_720 + 122_570,
}
GNUBG_TOTALS = {
    # the same sum as gnubg counts it (a roll with no play counts as none)
    "contact": 217_143 + 184_045,
}


def load_positions(name: str) -> list[Position]:
    return [Position(pid) for pid in (DATA / f"{name}.csv").read_text(encoding="ascii").split()]


def boards_array(positions: list[Position]) -> np.ndarray:
    """The (N, 50) uint8 array that count_batch takes: opponent's 25 counts, then the mover's."""
    return np.frombuffer(b"".join(p._key for p in positions), dtype=np.uint8).reshape(-1, 50).copy()
