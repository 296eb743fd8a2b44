# Type stub for bgfast._core.game (game.pyx): the compiled game and match loop (MatchRunner), single decisions.
import enum
from collections.abc import Sequence
from typing import Final, NamedTuple, Protocol, TypeAlias, type_check_only

import numpy as np
from _typeshed import ReadableBuffer
from numpy.typing import NDArray
from typing_extensions import Self, disjoint_base

from bgfast._core.cube import Met
from bgfast._core.evaluator import CoreEvaluator

_Probs: TypeAlias = tuple[float, float, float, float, float]
# (player, length, score0, score1, cube, owner, crawford, jacoby, beaver, max_cube)
_State: TypeAlias = tuple[int, int, int, int, int, int, bool, bool, bool, int]
# (score0, score1, winner, games, gammons0, gammons1, backgammons0, backgammons1, doubles, plies)
_Summary: TypeAlias = tuple[int, int, int, int, int, int, int, int, int, int]
# (crawford, cube, [(by, response), ...], points, winner, kind, (score0, score1) after, plies)
_GameRow: TypeAlias = tuple[bool, int, list[tuple[int, int]], int, int, str, tuple[int, int], int]
# (length, crawford, jacoby, beaver, max_cube, dead_cube_allowed)
_Rules: TypeAlias = tuple[int, int, int, int, int, int]

class PlayKind(enum.IntEnum):
    PLAY_RANDOM = 0
    PLAY_PUBEVAL = 1
    PLAY_EVALUATOR = 2
    PLAY_PYTHON = 3
    PLAY_HOOK = 4

class CubeKind(enum.IntEnum):
    CUBE_NEVER = 0
    CUBE_KEITH = 1
    CUBE_JANOWSKI = 2
    CUBE_MET = 3
    CUBE_PYTHON = 4
    CUBE_NEVER_MET = 5

class GameKind(enum.IntEnum):
    KIND_SINGLE = 0
    KIND_GAMMON = 1
    KIND_BACKGAMMON = 2
    KIND_PASS = 3

class TurnAction(enum.IntEnum):
    ACTION_MOVE = 0
    ACTION_DOUBLE = 1
    ACTION_TAKE = 2
    ACTION_PASS = 3
    ACTION_BEAVER = 4

class GameResult(NamedTuple):
    winner: int
    kind: str
    points: int
    cube: int
    plies: int
    truncated: bool
    final: bytes | None
    final_turn: int

@type_check_only
class _Adapter(Protocol):
    # the Python side of a PLAY_PYTHON / CUBE_PYTHON player (bgfast.game._PythonAdapter)
    def choose_play(self, board: bytes, d1: int, d2: int, state: _State, /) -> bytes: ...
    def illegal_play(self, board: bytes, d1: int, d2: int, result: bytes, /) -> int: ...
    def should_double(self, board: bytes, state: _State, /) -> object: ...
    def accept_double(self, board: bytes, state: _State, /) -> int: ...

_Player: TypeAlias = (tuple[int, int, float, CoreEvaluator | None, _Adapter | None]
                      | tuple[int, int, float, CoreEvaluator | None, _Adapter | None, int])

KIND_NAMES: Final[tuple[str, str, str, str]]
TURN_DTYPE: Final[np.dtype[np.void]]
JUDGE_CLOSE_CUBE: Final[float]

@disjoint_base
class MatchRunner:
    checkers: int
    def __new__(
        cls,
        rules: _Rules,
        start: Sequence[int],
        players: Sequence[_Player],
        met: Met | None = None,
    ) -> Self: ...
    def reseed(self, seed: int, index: int) -> None: ...
    def script(self, dice: Sequence[int]) -> None: ...
    def late_evaluation(self, after: int, evaluators: Sequence[CoreEvaluator] | None = None) -> None: ...
    def measure_luck(self, on: bool, filter: int = 0) -> None: ...
    def set_judge(self, evaluator: CoreEvaluator | None, met: Met | None = None,
                  cube_efficiency: float = 0.68, luck_filter: int = 0) -> None: ...
    def judged(self) -> tuple[float, ...]: ...
    def record_turns(self, on: bool) -> None: ...
    def turns(self) -> NDArray[np.void]: ...
    def luck(self, cube: bool = False) -> tuple[_Probs, _Probs]: ...
    def script_left(self) -> int: ...
    def play_from(
        self,
        board: ReadableBuffer,
        turn: int,
        cube: int = 1,
        owner: int = -1,
        d1: int = 0,
        d2: int = 0,
        max_plies: int = 0,
        score0: int = 0,
        score1: int = 0,
        crawford: bool = False,
    ) -> GameResult: ...
    def play(self, seed: int, index: int, board: ReadableBuffer | None = None, turn: int = 1) -> _Summary: ...
    def games(self) -> list[_GameRow]: ...

def play_many(
    seed: int,
    runners: Sequence[MatchRunner],
    which: NDArray[np.int32],
    indices: NDArray[np.uint64],
    out: NDArray[np.int64],
    starts: Sequence[ReadableBuffer] = (),
    start_of: NDArray[np.int32] | None = None,
    judged: NDArray[np.float64] | None = None,
) -> None: ...

@disjoint_base
class Decisions:
    def __new__(cls, rules: _Rules, player: _Player, met: Met | None = None) -> Self: ...
    def reseed(self, seed: int, index: int, lane: int) -> None: ...
    def choose(
        self,
        board: ReadableBuffer,
        d1: int,
        d2: int,
        player: int,
        score0: int = 0,
        score1: int = 0,
        cube: int = 1,
        owner: int = -1,
        crawford: bool = False,
    ) -> bytes: ...
    def offer(
        self,
        board: ReadableBuffer,
        player: int,
        score0: int = 0,
        score1: int = 0,
        cube: int = 1,
        owner: int = -1,
        crawford: bool = False,
    ) -> bool: ...
    def respond(
        self,
        board: ReadableBuffer,
        player: int,
        score0: int = 0,
        score1: int = 0,
        cube: int = 1,
        owner: int = -1,
        crawford: bool = False,
    ) -> int: ...
