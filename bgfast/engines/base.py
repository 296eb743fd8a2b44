"""The common part of every outside player: lazy start, restarts, counters, cube fallback.

An :class:`OutsideBot` is a :class:`~bgfast.bots.base.Bot` whose decisions come from
outside bgfast (a UBGI engine, the GNU Backgammon program).  It starts its engine on the
first decision, not when it is built, so that checking a tournament spec starts no
process; it then keeps it for every later match.  A fault during a decision (a crash, a
hang, an illegal or unparsable answer) is counted in :attr:`OutsideBot.counters`, the
engine is stopped, and the fault is raised as an :class:`~bgfast.errors.EngineError`
naming the seat and the match state; the next decision starts the engine again (a
restart, also counted).  :func:`bgfast.engines.resilient.play_resilient` turns those
faults into replays and forfeits.

Cube decisions: a player built with ``cube=POLICY`` has them made by that bgfast cube
policy (:mod:`bgfast.bots.cube_policy`) and never asks its engine.  Otherwise the
engine decides where it can; where it cannot (it answers ``unsupported``), the
:data:`~bgfast.bots.cube_policy.DEFAULT_CUBE_POLICY` decides from then on.

New games: the Bot interface has no "new game" call, so an outside player starts a new
game (UBGI ``newgame``) when :meth:`OutsideBot.new_match` was called, when the score,
the match length or the Crawford flag changes, when the cube value goes down, or when
checkers come back on the board (borne-off checkers never return within a game).
"""
from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from typing import ClassVar, TypeVar

from bgfast.bots.base import Bot, CubeResponse, legal_plays
from bgfast.bots.cube_policy import DEFAULT_CUBE_POLICY, cube_policy
from bgfast.dice import Dice
from bgfast.engines.counters import EngineCounters
from bgfast.errors import EngineCrashedError, EngineError, EngineStartError
from bgfast.formats.text import parse_position
from bgfast.match import MatchState
from bgfast.position import Move, Position
from bgfast.validation import real_number

__all__ = ["DEFAULT_TIMEOUT_S", "MAX_FAILED_RESTARTS", "OutsideBot"]

Answer = TypeVar("Answer")

DEFAULT_TIMEOUT_S = 60.0
"""Seconds an engine may take over one decision before it counts as hung."""
START_TIMEOUT_S = 30.0
"""The least time an engine has to start and finish its handshake, whatever its
``timeout_s``: loading a net can take longer than a decision may."""
MAX_FAILED_RESTARTS = 3
"""Restarts in a row that fail before an engine counts as broken: the next failure is an
:class:`~bgfast.errors.EngineStartError`, which stops a tournament (its finished chunks
kept) instead of forfeiting match after match to an engine that can no longer start."""


class OutsideBot(Bot):
    """Base class of the players whose decisions come from an outside engine.

    Subclasses implement :meth:`_start`, :meth:`_stop`, :meth:`_new_game`,
    :meth:`_choose` and, if the engine makes cube decisions, :meth:`_double` and
    :meth:`_take`.

    :param label: the engine's name in messages and logs.
    :param timeout_s: seconds allowed per decision (a positive number).
    :param cube: a bgfast cube policy that decides instead of the engine, or None.
    :param start_timeout_s: seconds allowed for the start and the handshake (default:
        ``timeout_s`` or :data:`START_TIMEOUT_S`, whichever is longer).
    :raises UnknownBotError: an unknown cube policy.
    :raises ValueError: a timeout that is not a positive number.
    """

    name: ClassVar[str] = "outside"

    def __init__(self, *, label: str, timeout_s: float = DEFAULT_TIMEOUT_S, cube: str | None = None,
                 start_timeout_s: float | None = None) -> None:
        self.label = label
        self.timeout_s = real_number(timeout_s, "timeout_s", low=0.001)
        self.start_timeout_s = (max(self.timeout_s, START_TIMEOUT_S) if start_timeout_s is None
                                else real_number(start_timeout_s, "start_timeout_s", low=0.001))
        self.cube = cube
        self._policy: Bot | None = cube_policy(cube) if cube is not None else None
        self._fallback: Bot | None = None
        self._failed_restarts = 0
        self.counters = EngineCounters()
        """What this engine did (see :class:`~bgfast.engines.counters.EngineCounters`)."""
        self.games_started = 0
        """Games begun since the last :meth:`new_match`."""
        self._running = False
        self._restart_due = False
        self._game: tuple[tuple[int, tuple[int, int], bool], int, int] | None = None
        self._cube_supported = True
        self._take_supported = True

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.label!r}>"

    # ------------------------------------------------------------ lifecycle

    def start(self) -> None:
        """Start the engine now if it is not running (decisions start it anyway).

        :raises EngineStartError: the engine cannot be started or fails its handshake (on
            a restart after a fault this is an :class:`~bgfast.errors.EngineCrashedError`,
            counted, so that the match is replayed or forfeited; but once
            :data:`MAX_FAILED_RESTARTS` restarts in a row have failed, an EngineStartError).
        """
        if self._running:
            return
        restart = self._restart_due
        try:
            self._start()
        except EngineStartError as exc:
            self._stop()
            if not restart:
                raise
            self._failed_restarts += 1
            if self._failed_restarts > MAX_FAILED_RESTARTS:
                raise EngineStartError(f"engine {self.label!r} could not be restarted "
                                       f"{self._failed_restarts} times in a row: {exc}") from None
            raise EngineCrashedError(f"engine {self.label!r} could not be restarted: {exc}",
                                     engine=self.label) from None
        self._failed_restarts = 0
        if restart:
            self.counters.restarts += 1
        self._running = True
        self._restart_due = False
        self._game = None

    def restart(self) -> None:
        """Stop the engine; the next decision starts it again (counted as a restart)."""
        self._stop()
        self._running = False
        self._restart_due = True

    def close(self) -> None:
        """Stop the engine (a later decision starts it again, not counted as a restart)."""
        self._stop()
        self._running = False

    def new_match(self) -> None:
        """Tell the player a new match (or money game) begins: its next decision starts a
        new game."""
        self._game = None
        self.games_started = 0

    def __del__(self) -> None:
        try:
            self._stop()
        except Exception:  # noqa: BLE001 - nothing to do about it at collection time
            pass

    # ------------------------------------------------------------ what subclasses implement

    def _start(self) -> None:
        """Start the engine and make it ready for decisions; raise EngineStartError."""
        raise NotImplementedError

    def _stop(self) -> None:
        """Stop the engine if it runs (quietly; called after faults too)."""
        raise NotImplementedError

    def _new_game(self) -> None:
        """Tell the engine a new game begins (its next message may carry it)."""

    def _choose(self, position: Position, dice: Dice, match: MatchState) -> Move:
        """The engine's play; raise an EngineError subclass on a fault."""
        raise NotImplementedError

    def _double(self, position: Position, match: MatchState) -> bool | None:
        """The engine's double/no double, or None if it does not make cube decisions."""
        return None

    def _take(self, position: Position, match: MatchState) -> CubeResponse | None:
        """The engine's answer to a double (``position``: the doubler on roll), or None if
        it does not answer doubles."""
        return None

    # ------------------------------------------------------------ the Bot interface

    def _prepare(self, seat: int, match: MatchState, position: Position) -> None:
        """Start the engine if needed and tell it of a new game if one began."""
        if not self._running:
            self.start()
        on_board = sum(position.board[0]) + sum(position.board[1])
        key = (match.length, match.score, match.crawford)
        game = self._game
        if game is None or game[0] != key or on_board > game[1] or match.cube_value < game[2]:
            self.games_started += 1
            self._new_game()
        self._game = (key, on_board, match.cube_value)

    def _fault(self, exc: EngineError, seat: int, match: MatchState) -> EngineError:
        self.counters.count_fault(exc.kind)
        exc.engine = exc.engine or self.label
        exc.seat = seat
        exc.match = match
        self.restart()
        return exc

    def _decide(self, position: Position, match: MatchState,
                ask: Callable[[Position, MatchState], Answer | None]) -> Answer | None:
        """Ask the engine (``ask``), timing a decision it answers and charging a fault to it."""
        seat = match.turn
        try:
            self._prepare(seat, match, position)
            start = time.perf_counter()
            answer = ask(position, match)
        except EngineError as exc:
            raise self._fault(exc, seat, match) from None
        if answer is not None:
            self.counters.record((time.perf_counter() - start) * 1000.0)
        return answer

    def choose_move(self, position: Position | str, dice: Dice | str | tuple[int, int],
                    match: MatchState | None = None) -> Move:
        """The engine's play for ``dice``; ``position`` has this player on roll.  A roll with
        a single legal play is played without asking.

        :raises EngineError: the engine crashed, hung or answered wrongly (counted).
        :raises EngineStartError: the engine cannot be started (first start only).
        :raises InvalidPositionError: a finished game or a malformed position.
        """
        position, dice, legal = legal_plays(position, dice)
        if len(legal) == 1:
            return legal[0]
        match = match or MatchState()
        if match.dice != (dice.high, dice.low):
            match = dataclasses.replace(match, dice=(dice.high, dice.low))
        move = self._decide(position, match, lambda p, m: self._choose(p, dice, m))
        assert move is not None
        return move

    def _cube_bot(self) -> Bot:
        if self._policy is not None:
            return self._policy
        if self._fallback is None:
            self._fallback = cube_policy(DEFAULT_CUBE_POLICY)
        return self._fallback

    def should_double(self, position: Position, match: MatchState) -> bool:
        """Whether to double; from the cube policy named by ``cube``, else from the engine
        (else from the default cube policy).

        :raises EngineError: the engine crashed, hung or answered wrongly (counted).
        """
        if self._policy is None and self._cube_supported:
            answer = self._decide(parse_position(position)[0], match, self._double)
            if answer is not None:
                return answer
            self._cube_supported = False
        if self._policy is None:
            self.counters.cube_by_policy += 1
        return self._cube_bot().should_double(position, match)

    def accept_double(self, position: Position, match: MatchState) -> CubeResponse:
        """The answer to a double (``position``: the doubler on roll); as for
        :meth:`should_double`.

        :raises EngineError: the engine crashed, hung or answered wrongly (counted).
        """
        if self._policy is None and self._cube_supported and self._take_supported:
            answer = self._decide(parse_position(position)[0], match, self._take)
            if answer is not None:
                return answer
            self._take_supported = False
        if self._policy is None:
            self.counters.cube_by_policy += 1
        return self._cube_bot().accept_double(position, match)
