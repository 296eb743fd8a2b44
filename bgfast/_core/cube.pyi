# Type stub for bgfast._core.cube (cube.pyx): the cube math (equities, MET lookups, decisions).
import enum
from collections.abc import Sequence
from typing import Final

import numpy as np
from numpy.typing import NDArray
from typing_extensions import Self, disjoint_base

MET_ROWS: Final[int]

class CubeAnswer(enum.IntEnum):
    RESPONSE_PASS = 0
    RESPONSE_TAKE = 1
    RESPONSE_BEAVER = 2

@disjoint_base
class Met:
    @property
    def size(self) -> int: ...
    def __new__(cls, pre: Sequence[Sequence[float]], post: Sequence[float]) -> Self: ...

def decide(
    probs: Sequence[float],
    *,
    x: float = 0.68,
    length: int = 0,
    doubler_away: int = 0,
    taker_away: int = 0,
    cube: int = 1,
    owner: int = -1,
    doubler: int = 0,
    jacoby: bool = False,
    beaver: bool = False,
    max_cube: int = 64,
    met: Met | None = None,
    post_crawford: bool = False,
) -> tuple[bool, CubeAnswer, float, float, float]: ...
def money_equity(
    probs: Sequence[float], owner: int = -1, player: int = 0, x: float = 0.68, jacoby: bool = False,
    cube: int = 1, max_cube: int = 64,
) -> float: ...
def mwc(met: Met, away: int, opp_away: int, post_crawford: bool = False) -> float: ...
def dead_cube_mwc(probs: Sequence[float], met: Met, away: int, opp_away: int, cube: int = 1) -> float: ...
def cubeful_mwc(probs: Sequence[float], met: Met, away: int, opp_away: int, cube: int = 1, owner: int = -1,
                player: int = 0, x: float = 0.68, crawford: bool = False, max_cube: int = 64) -> float: ...
def play_mwc_of(probs: Sequence[float], met: Met, away: int, opp_away: int, cube: int = 1, owner: int = -1,
                player: int = 0, x: float = 0.68, crawford: bool = False, max_cube: int = 64) -> float: ...
def cubeless_equity(probs: Sequence[float]) -> float: ...
def cubeless_equities(probs: NDArray[np.float64]) -> NDArray[np.float64]: ...
def flip(probs: Sequence[float]) -> tuple[float, float, float, float, float]: ...
