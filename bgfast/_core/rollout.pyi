# Type stub for bgfast._core.rollout (rollout.pyx): a rollout's trials, a block of them in one call.
from collections.abc import Callable, Sequence
from typing import Final

import numpy as np
from _typeshed import ReadableBuffer
from numpy.typing import NDArray
from typing_extensions import Self, disjoint_base

from bgfast._core.cube import Met
from bgfast._core.evaluator import CoreEvaluator
from bgfast._core.game import MatchRunner

VALUES: Final[int]

@disjoint_base
class TrialRunner:
    @property
    def calls_python(self) -> bool: ...
    def __new__(
        cls,
        cubeless: MatchRunner,
        cubeful: MatchRunner | None = None,
        root: int = 0,
        score: Sequence[int] | None = None,
        crawford: bool = False,
        cube: int = 1,
        owner: int = -1,
        length: int = 0,
        jacoby: bool = False,
        met: Met | None = None,
        cube_efficiency: float = 0.68,
        max_cube: int = 64,
        max_plies: int = 0,
        stratified: int = 0,
        rolls: Sequence[tuple[int, int]] | None = None,
        luck: bool = False,
        cubeful_value: bool = False,
        luck_scale: Sequence[float] | None = None,
        evaluator: CoreEvaluator | None = None,
        evaluator_plies: int = 0,
        evaluate: Callable[[bytes], Sequence[float]] | None = None,
    ) -> Self: ...
    def play(
        self,
        seed: int,
        board: ReadableBuffer,
        turn: int,
        d1: int,
        d2: int,
        first: int,
        out: NDArray[np.float64],
        no_double: bool = False,
    ) -> None: ...
