# Type stub for bgfast._core.evaluator (evaluator.pyx): the dispatch of a player's evaluator.
import enum

from _typeshed import ReadableBuffer
from typing_extensions import Self, disjoint_base

import numpy as np
from numpy.typing import NDArray

from bgfast._core.heuristic import HeuristicWeights
from bgfast._core.neural import Model
from bgfast._core.search import _Filters

_Probs = tuple[float, float, float, float, float]

class EvaluatorKind(enum.IntEnum):
    EVAL_HEURISTIC = 0
    EVAL_NEURAL = 1

@disjoint_base
class CoreEvaluator:
    @property
    def weights(self) -> HeuristicWeights | Model: ...
    def __new__(
        cls,
        weights: HeuristicWeights | Model,
        kind: int | None = None,
        filter: int | None = None,
        blend: float | None = None,
        ply: int | None = None,
        cube_ply: int | None = None,
        filters: object = None,
        cache_size: int | None = None,
        replies: str | None = None,
        prune: bool | None = None,
        zero_ply_weight: float | None = None,
    ) -> Self: ...
    @property
    def kind(self) -> EvaluatorKind: ...
    @property
    def ply(self) -> int: ...
    @property
    def cube_ply(self) -> int: ...
    @property
    def filters(self) -> _Filters | None: ...
    @property
    def replies(self) -> str | None: ...
    @property
    def prune(self) -> bool | None: ...
    @property
    def zero_ply_weight(self) -> float | None: ...
    @property
    def cache_size(self) -> int: ...
    def cache_stats(self) -> tuple[int, int]: ...
    @property
    def filter(self) -> int: ...
    @property
    def blend(self) -> float: ...
    def after(self, board: ReadableBuffer) -> _Probs: ...
    def on_roll(self, board: ReadableBuffer, plies: int = 0) -> _Probs: ...
    def on_roll_batch(self, boards: NDArray[np.uint8], plies: int = 0) -> NDArray[np.float32]: ...
    def replies_batch(self, boards: NDArray[np.uint8]) -> NDArray[np.uint8]: ...
    def luck(self, board: ReadableBuffer, d1: int, d2: int, filter: int = 0) -> _Probs: ...
    def choose(self, board: ReadableBuffer, d1: int, d2: int) -> bytes: ...
