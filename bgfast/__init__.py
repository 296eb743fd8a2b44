"""bgfast: backgammon by the full rules, very fast.

The core value types are re-exported here; bots, rollouts and tournaments are
imported explicitly (``import bgfast.tournament``).

>>> from bgfast import Position
>>> len(Position().legal_moves(6, 5))
7
"""
__version__ = "0.1.0"

from bgfast.dice import ALL_21, ALL_36, Dice
from bgfast.errors import (
    BgfastError,
    IllegalCubeActionError,
    IllegalMoveError,
    InvalidDiceError,
    InvalidMatchIdError,
    InvalidMoveError,
    InvalidPositionError,
    InvalidSpecError,
    UnknownBotError,
)
from bgfast.position import (
    BAR,
    NUM_CHECKERS,
    OFF,
    STARTING,
    STARTING_POSITION_ID,
    CheckerMove,
    LegalMoves,
    Move,
    Outcome,
    Position,
)

__all__ = [
    "__version__", "Position", "Move", "CheckerMove", "LegalMoves", "Outcome", "Dice",
    "ALL_21", "ALL_36", "BAR", "OFF", "NUM_CHECKERS", "STARTING", "STARTING_POSITION_ID",
    "BgfastError", "InvalidPositionError", "InvalidDiceError", "InvalidMoveError",
    "IllegalMoveError", "IllegalCubeActionError", "InvalidMatchIdError", "InvalidSpecError",
    "UnknownBotError",
]
