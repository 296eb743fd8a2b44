# Type stub for bgfast._core.heuristic (heuristic.pyx): the feature-based heuristic evaluator and its weights.
from os import PathLike
from typing import Final

import numpy as np
from _typeshed import ReadableBuffer
from numpy.typing import ArrayLike, NDArray
from typing_extensions import Self, disjoint_base

NFEAT: Final[int]
NGLOBAL: Final[int]
DENSE: Final[int]
NDENSE: Final[int]
DENSE_COLUMNS: Final[tuple[int, ...]]
NCLASS: Final[int]
NOUT: Final[int]
OUTPUTS: Final[tuple[str, str, str, str, str]]
DEFAULT_FILTER: Final[int]
DEFAULT_BLEND: Final[float]
FILTER_MAX: Final[int]

def weights_path() -> str: ...

@disjoint_base
class HeuristicWeights:
    def __new__(cls, weights: ArrayLike) -> Self: ...
    def to_array(self) -> NDArray[np.float32]: ...

def read_weights(path: str | PathLike[str] | None = None) -> HeuristicWeights: ...
def features(board: ReadableBuffer) -> tuple[int, NDArray[np.float32]]: ...
def features_batch(boards: NDArray[np.uint8]) -> tuple[NDArray[np.int8], NDArray[np.float32]]: ...
def dense_features(boards: NDArray[np.uint8]) -> NDArray[np.float32]: ...
def dense_features_roll(parent: ReadableBuffer | NDArray[np.uint8], children: NDArray[np.uint8]) -> NDArray[np.float32]: ...
