"""bgfast: backgammon by the full rules, very fast.

The core value types are re-exported here: positions and moves
(:mod:`bgfast.position`), dice (:mod:`bgfast.dice`), the match state and its rules
(:mod:`bgfast.match`), match equity tables (:mod:`bgfast.met`) and the errors.
The ID codecs are in :mod:`bgfast.codecs`, the text formats in :mod:`bgfast.formats`;
bots, rollouts and tournaments are imported explicitly (``import bgfast.tournament``).

>>> from bgfast import MatchState, Position
>>> len(Position().legal_moves(6, 5))
7
>>> MatchState.from_match_id("cAkXAAAAAAAA").dice
(6, 5)
"""
__version__ = "0.1.0"

import importlib as _importlib
import os as _os

try:  # the compiled core, which pip builds: without it nothing below can work
    _importlib.import_module("bgfast._core.board")
except ModuleNotFoundError as exc:
    if exc.name != "bgfast._core.board":
        raise
    raise ImportError(
        f"bgfast's compiled core is not built in {_os.path.dirname(__file__)!r}: Python found this "
        "uncompiled copy of bgfast first (in a clone's root, its bgfast/ folder comes before the installed "
        "one); run from another folder, or build the core in place here with: pip install -e ."
    ) from None
del _importlib, _os

from bgfast.dice import ALL_21, ALL_36, Dice
from bgfast.errors import (
    BgfastError,
    IllegalCubeActionError,
    IllegalMoveError,
    InvalidDiceError,
    InvalidMatchIdError,
    InvalidMetError,
    InvalidMoveError,
    InvalidPositionError,
    InvalidSpecError,
    UnknownBotError,
)
from bgfast.match import MatchState, Rules
from bgfast.met import MatchEquityTable
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
    "MatchState", "Rules", "MatchEquityTable",
    "BgfastError", "InvalidPositionError", "InvalidDiceError", "InvalidMoveError",
    "IllegalMoveError", "IllegalCubeActionError", "InvalidMatchIdError", "InvalidMetError",
    "InvalidSpecError", "UnknownBotError",
]
