"""Compact records of the decisions a player made in one match, and their replay.

A match between bots that play in the compiled core is a pure function of (spec, match
index): it can be played again to see its moves.  A match with a Python bot or an outside
engine cannot (the engine may not be there, or not the same), so its decisions are
written down as it is played: :class:`RecordingBot` wraps the player and keeps one small
integer per decision it is asked for, in the order the game loop asks, as LEB128 varints
(one byte each for nearly all of them):

* a checker play: its index in :meth:`Position.legal_moves` (the core's order, which is a
  function of the position and the dice);
* a double: 1 (double) or 0; an answer to a double: 0 pass, 1 take, 2 beaver
  (:class:`~bgfast.bots.base.CubeResponse`).

A player whose cube policy is ``"never"`` is asked no cube question: the game loop answers
for it (never doubles, always takes), so that a judge counts no double of its to make (its
answers to the opponent's doubles are judged as anyone's).  Its record begins with
:data:`NO_CUBE_MARK` and holds its plays alone; a record without the mark (any other
player's, and every record written before 2026-12-07) holds its cube answers too.

:class:`ReplayBot` plays those decisions back; seated in place of the recorded player with
the same dice (seed, index) it plays the same match, so
:func:`bgfast.game.play_match_with_history` rebuilds every move of it (for a ``.mat``
file).  A typical money game is about 30 bytes a player, a 7-point match a few hundred.

>>> from bgfast.bots import get_bot
>>> from bgfast.game import MatchPlayer
>>> recorder = RecordingBot(get_bot("pubeval"))
>>> first = MatchPlayer(recorder, get_bot("heuristic"), length=3).play(2, 0)
>>> again = MatchPlayer(ReplayBot(recorder.record()), get_bot("heuristic"), length=3).play(2, 0)
>>> first == again
True
"""
from __future__ import annotations

from typing import ClassVar

from bgfast.bots.base import Bot, CubeResponse
from bgfast.dice import Dice
from bgfast.errors import BgfastError
from bgfast.formats.text import parse_position
from bgfast.game import never_doubles, position_played
from bgfast.match import MatchState
from bgfast.position import Move, Position

__all__ = ["NO_CUBE_MARK", "RecordError", "RecordingBot", "ReplayBot", "decode_decisions", "encode_decisions",
           "plays_in_core"]

NO_CUBE_MARK = 1 << 28
"""The first value of the record of a player asked no cube question (its cube policy is
``"never"``): far above any play's index or cube answer, so it cannot be a decision."""


def plays_in_core(bot: object) -> bool:
    """True if ``bot`` plays in the compiled core (a built-in bot, whose matches are a pure
    function of their dice, so nothing of them needs recording).

    >>> from bgfast.bots import get_bot
    >>> plays_in_core(get_bot("pubeval")), plays_in_core(RecordingBot(get_bot("pubeval")))
    (True, False)
    """
    config = getattr(bot, "core_config", None)
    return callable(config) and config() is not None


class RecordError(BgfastError, ValueError):
    """A decision record that does not fit the match it is replayed in (corrupt, truncated,
    or from another match)."""


def encode_decisions(decisions: list[int]) -> bytes:
    """LEB128 varints of non-negative integers.

    >>> encode_decisions([0, 5, 300])
    b'\\x00\\x05\\xac\\x02'
    """
    out = bytearray()
    for value in decisions:
        if value < 0:
            raise ValueError(f"a decision is a non-negative integer, got {value}")
        while True:
            byte = value & 0x7F
            value >>= 7
            if value:
                out.append(byte | 0x80)
            else:
                out.append(byte)
                break
    return bytes(out)


def decode_decisions(data: bytes) -> list[int]:
    """The integers :func:`encode_decisions` wrote.

    >>> decode_decisions(b'\\x00\\x05\\xac\\x02')
    [0, 5, 300]

    :raises RecordError: the data ends inside a number.
    """
    values: list[int] = []
    value = shift = 0
    pending = False
    for byte in data:
        value |= (byte & 0x7F) << shift
        if byte & 0x80:
            shift += 7
            pending = True
        else:
            values.append(value)
            value = shift = 0
            pending = False
    if pending:
        raise RecordError("a decision record ends inside a number")
    return values


class RecordingBot(Bot):
    """``inner`` with every decision written down (see the module docstring).

    :meth:`new_match` starts a new record (and tells an outside player ``inner`` so);
    :meth:`record` is the current one, encoded.
    """

    name: ClassVar[str] = "recording"

    def __init__(self, inner: object) -> None:
        self.inner = inner
        self.decisions: list[int] = []

    def __repr__(self) -> str:
        return f"<RecordingBot of {self.inner!r}>"

    @property
    def cube(self) -> str | None:
        """``"never"`` when ``inner`` :func:`~bgfast.game.never_doubles`: the loop answers its
        cube actions; else None."""
        return "never" if never_doubles(self.inner) else None

    def new_match(self) -> None:
        """Start a new record."""
        self.decisions = []
        start = getattr(self.inner, "new_match", None)
        if callable(start):
            start()

    def record(self) -> bytes:
        """The decisions so far, as LEB128 varints (after :data:`NO_CUBE_MARK` for a
        player asked no cube question)."""
        return encode_decisions(([NO_CUBE_MARK] if self.cube == "never" else []) + self.decisions)

    def choose_move(self, position: Position, dice: Dice, match: MatchState) -> Move:
        position, dice = parse_position(position)[0], Dice.of(dice)
        choice = self.inner.choose_move(position, dice, match)  # type: ignore[attr-defined]
        legal = position.legal_moves(dice.high, dice.low)
        after = position_played(self.inner, choice, position, dice)
        try:
            index = legal.positions().index(after)
        except ValueError:
            raise ValueError(f"{self.inner!r} played to a position that is not a legal play of {dice}") from None
        self.decisions.append(index)
        return legal[index]

    def should_double(self, position: Position, match: MatchState) -> bool:
        method = getattr(self.inner, "should_double", None)
        answer = bool(method(position, match)) if method else False
        self.decisions.append(int(answer))
        return answer

    def accept_double(self, position: Position, match: MatchState) -> CubeResponse:
        method = getattr(self.inner, "accept_double", None)
        answer = CubeResponse(int(method(position, match))) if method else CubeResponse.TAKE
        self.decisions.append(int(answer))
        return answer


class ReplayBot(Bot):
    """Plays back a record of :class:`RecordingBot` (bytes or the list of integers).

    :raises RecordError: (when asked to decide) the record has no decision left, or one
        that does not fit (a play index beyond the legal plays, a cube answer above 2).
    """

    name: ClassVar[str] = "replay"

    def __init__(self, record: bytes | list[int]) -> None:
        self.decisions = decode_decisions(record) if isinstance(record, (bytes, bytearray)) else list(record)
        self.cube = "never" if self.decisions[:1] == [NO_CUBE_MARK] else None
        """``"never"`` for a record of a player asked no cube question: the loop answers for it
        again, as it did when the record was made."""
        if self.cube == "never":
            del self.decisions[0]
        self.used = 0
        self.failed = False
        """True once the record did not fit a decision asked for (a :class:`RecordError` was raised)."""

    def _next(self, what: str, high: int) -> int:
        if self.used >= len(self.decisions):
            self.failed = True
            raise RecordError(f"the record has no decision left for {what} (it holds {len(self.decisions)})")
        value = self.decisions[self.used]
        if value > high:
            self.failed = True
            raise RecordError(f"decision {self.used} of the record is {value}, beyond {high} for {what}")
        self.used += 1
        return value

    def exhausted(self) -> bool:
        """True once every recorded decision has been played."""
        return self.used == len(self.decisions)

    def choose_move(self, position: Position, dice: Dice, match: MatchState) -> Move:
        position, dice = parse_position(position)[0], Dice.of(dice)
        legal = position.legal_moves(dice.high, dice.low)
        return legal[self._next(f"a play of {dice}", len(legal) - 1)]

    def should_double(self, position: Position, match: MatchState) -> bool:
        return bool(self._next("a double", 1))

    def accept_double(self, position: Position, match: MatchState) -> CubeResponse:
        return CubeResponse(self._next("an answer to a double", 2))
