"""The fixed position sets of the benchmarks and their known answers.

The position sets are the wildbg benchmark's (1000 gnubg Position IDs each), in the
package's copy ``bgfast/data/wildbg/{contact,race}.csv``.  Every benchmark asserts the
known total number of plays before it times anything, so a fast wrong generator never
shows up as a speed-up.
"""
from __future__ import annotations

from bgfast import Position
from bgfast.bench import load_wildbg_set

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
    return [Position(pid) for pid in load_wildbg_set(name)]
