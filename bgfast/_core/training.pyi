# Type stub for bgfast._core.training (training.pyx): the neural net's self-play training on the game loop.
from collections.abc import Sequence
from typing import Final

import numpy as np
from numpy.typing import NDArray
from typing_extensions import Self, disjoint_base

from bgfast._core.neural import Model

PLAYERS: Final[dict[str, int]]
RULES: Final[tuple[int, int, int, int, int, int]]

@disjoint_base
class SelfPlay:
    @property
    def model(self) -> Model: ...
    @property
    def start(self) -> tuple[int, ...]: ...
    def __new__(cls, model: Model, start: Sequence[int]) -> Self: ...
    def td_train(
        self, seed: int, first: int, games: int, lam: float, lr_contact: float, lr_race: float
    ) -> tuple[tuple[int, int, int, int], int, tuple[float, float, float, float]]: ...
    def td_targets(
        self, seed: int, first: int, games: int, lam: float
    ) -> tuple[NDArray[np.uint8], NDArray[np.float32], int]: ...
    def versus(
        self, player0: str, player1: str, seed: int, first: int, games: int
    ) -> tuple[NDArray[np.int8], NDArray[np.int32]]: ...
    def positions(self, seed: int, first: int, games: int, stride: int = 1) -> NDArray[np.uint8]: ...
    def candidates(
        self, seed: int, first: int, games: int, stride: int = 1, most: int = 6, window: float = 0.16,
        explore: float = 0.0, opponent: str = "neural",
    ) -> tuple[NDArray[np.uint8], NDArray[np.int64]]: ...

def train_positions(
    model: Model,
    boards: NDArray[np.uint8],
    targets: NDArray[np.float32],
    lr_contact: float,
    lr_race: float,
    order: NDArray[np.int64],
) -> tuple[int, int, int, int]: ...
