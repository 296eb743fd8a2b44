# Type stub for bgfast._core.cubeful (cubeful.pyx): the cubeful n-ply evaluation on the net's search.
from typing import Final

from bgfast._core.cube import CubeAnswer, Met
from bgfast._core.evaluator import CoreEvaluator

MAX_PLIES: Final[int]

def cube_values(
    evaluator: CoreEvaluator,
    board: bytes,
    plies: int,
    *,
    cube: int = 1,
    owner: int = -1,
    player: int = 0,
    x: float = 0.68,
    jacoby: bool = False,
    beaver: bool = False,
    max_cube: int = 64,
    met: Met | None = None,
    away: int = 0,
    opp_away: int = 0,
    crawford: bool = False,
) -> tuple[bool, CubeAnswer, float, float, float, tuple[float, float, float, float, float]]: ...
