# Type stub for bgfast._core.game (game.pyx): the compiled game and match loop (MatchRunner).
from collections.abc import Sequence
from typing import Final, Protocol, TypeAlias, type_check_only

from _typeshed import ReadableBuffer
from typing_extensions import Self, disjoint_base

_Probs: TypeAlias = tuple[float, float, float, float, float]
# (player, length, score0, score1, cube, owner, crawford, jacoby, beaver, max_cube)
_State: TypeAlias = tuple[int, int, int, int, int, int, bool, bool, bool, int]
# (score0, score1, winner, games, gammons0, gammons1, backgammons0, backgammons1, doubles, plies)
_Summary: TypeAlias = tuple[int, int, int, int, int, int, int, int, int, int]
# (winner, kind, points, cube, plies, truncated, final_board, final_turn)
_GameResult: TypeAlias = tuple[int, str, int, int, int, bool, bytes | None, int]
# (crawford, cube, [(by, response), ...], points, winner, kind, (score0, score1) after, plies)
_GameRow: TypeAlias = tuple[bool, int, list[tuple[int, int]], int, int, str, tuple[int, int], int]

@type_check_only
class _Adapter(Protocol):
    # the Python side of a PLAY_PYTHON / CUBE_PYTHON player (bgfast.game._PythonAdapter)
    def choose_play(self, board: bytes, d1: int, d2: int, state: _State, /) -> bytes: ...
    def illegal_play(self, board: bytes, d1: int, d2: int, result: bytes, /) -> int: ...
    def should_double(self, board: bytes, state: _State, /) -> object: ...
    def accept_double(self, board: bytes, state: _State, /) -> int: ...

KIND_NAMES: Final[tuple[str, str, str, str]]

@disjoint_base
class MatchRunner:
    checkers: int
    def __new__(
        cls,
        rules: tuple[int, int, int, int, int],
        start: Sequence[int],
        players: Sequence[tuple[int, int, float, _Adapter | None]],
        met: tuple[Sequence[Sequence[float]], Sequence[float]] | None = None,
    ) -> Self: ...
    def reseed(self, seed: int, index: int) -> None: ...
    def script(self, dice: Sequence[int]) -> None: ...
    def measure_luck(self, on: bool) -> None: ...
    def luck(self) -> tuple[_Probs, _Probs]: ...
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
    ) -> _GameResult: ...
    def play(self, seed: int, index: int) -> _Summary: ...
    def games(self) -> list[_GameRow]: ...
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
