# Type stub for bgfast._core.evaluator (evaluator.pyx): the dispatch of a player's evaluator.
import enum

from _typeshed import ReadableBuffer
from typing_extensions import Self, disjoint_base

from bgfast._core.heuristic import HeuristicWeights

_Probs = tuple[float, float, float, float, float]

class EvaluatorKind(enum.IntEnum):
    EVAL_HEURISTIC = 0

@disjoint_base
class CoreEvaluator:
    @property
    def weights(self) -> HeuristicWeights: ...
    def __new__(
        cls, weights: HeuristicWeights, kind: int | None = None, filter: int | None = None, blend: float | None = None
    ) -> Self: ...
    @property
    def kind(self) -> EvaluatorKind: ...
    @property
    def filter(self) -> int: ...
    @property
    def blend(self) -> float: ...
    def after(self, board: ReadableBuffer) -> _Probs: ...
    def on_roll(self, board: ReadableBuffer, plies: int = 0) -> _Probs: ...
