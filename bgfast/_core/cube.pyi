# Type stub for bgfast._core.cube (cube.pyx): Janowski and match-equity-table cube decisions.
from collections.abc import Sequence

def decide(
    probs: Sequence[float],
    *,
    x: float = 0.68,
    length: int = 0,
    doubler_away: int = 0,
    taker_away: int = 0,
    cube: int = 1,
    centred: bool = True,
    jacoby: bool = False,
    beaver: bool = False,
    max_cube: int = 64,
    met: tuple[Sequence[Sequence[float]], Sequence[float]] | None = None,
    post_crawford: bool = False,
) -> tuple[bool, int, float, float, float]: ...
