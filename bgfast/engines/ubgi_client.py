"""Any engine that speaks UBGI v0.2 on stdin/stdout, as a bgfast player.

The protocol is bgci's UBGI v0.2 (``docs/ubgi-v0.2-spec.md`` in ``bungogood/bgci``;
lines in :mod:`bgfast.engines.ubgi`).  :class:`UbgiBot` starts the engine on its first
decision and keeps it for every later match:

1. handshake: ``ubgi``, then every line up to ``ubgiok`` (``id``, ``proto``, ``key``);
   each player option is sent as ``set KEY VALUE`` and must not be refused; two probes
   find out whether the engine reads XGIDs (``position xgid`` then ``isready``) and makes
   cube decisions (``go cube`` on the opening position);
2. per game ``newgame``; per decision the position and its match context, then ``dice
   d1 d2`` and ``go chequer``, or ``go cube``.  The context goes as ``position xgid
   <XGID>`` (which carries the cube, score, length and Crawford flag), or as ``position
   gnubgid <ID>`` plus ``set game.* ...`` for the ``game.*`` keys the engine lists (only
   those whose value changed).  With ``context="auto"`` (the default) an engine that
   lists every key of :data:`~bgfast.engines.ubgi.GAME_KEYS` (``bgfast engine`` does) gets
   the keys, which cost far less per decision than an XGID; one that reads XGIDs gets
   XGIDs; any other gets the keys it lists;
3. answers: ``bestmove`` (checked against the legal plays), ``bestcube
   double|nodouble``, and for a double offered ``bestcube take|drop|beaver`` (bgfast's
   extension); ``info`` lines are skipped.

An engine that answers ``unsupported`` to ``go cube`` (or cannot be told that a double
is offered: no XGIDs and no ``game.doubled`` key) has its cube decisions made by
bgfast's default cube policy; an engine that refuses XGIDs and lists no ``game.*`` key
plays without the match context.  The engine's stderr goes to the ``bgfast.engines``
log.  A decision has ``timeout_s`` seconds (60 by default); the start and handshake have
``start_timeout_s``, at least 30 s unless given (loading a net can take longer than a
decision may).

>>> import sys
>>> bot = UbgiBot([sys.executable, "-m", "bgfast.engines.ubgi_server", "--bot", "pubeval"])
>>> from bgfast.position import Position
>>> str(bot.choose_move(Position(), (3, 1)))
'8/5 6/5'
>>> bot.close()
"""
from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence
from typing import ClassVar

from bgfast.bots.base import CubeResponse
from bgfast.dice import Dice
from bgfast.engines import ubgi
from bgfast.engines.base import DEFAULT_TIMEOUT_S, OutsideBot
from bgfast.engines.process import EngineProcess, check_command, log
from bgfast.errors import (
    EngineCrashedError,
    EngineIllegalAnswerError,
    EngineProtocolError,
    EngineStartError,
    EngineTimeoutError,
    IllegalMoveError,
    InvalidMoveError,
    UbgiError,
)
from bgfast.match import MatchState
from bgfast.position import STARTING_POSITION_ID, Move, Position

__all__ = ["CONTEXTS", "UbgiBot", "option_text"]

CONTEXTS = ("auto", "xgid", "keys")
"""How :class:`UbgiBot` may send the match context."""

_START_XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"


def option_text(value: object) -> str:
    """How a player option is written in ``set KEY VALUE``: ``true``/``false`` for a bool,
    the number or the text otherwise.

    >>> option_text(True), option_text(2), option_text("big")
    ('true', '2', 'big')
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    text = str(value)
    if not text or any(ch in text for ch in "\r\n"):
        raise EngineStartError(f"a UBGI option value is one line of text, got {value!r}")
    return text


class UbgiBot(OutsideBot):
    """A UBGI engine as a player.

    :param command: the engine's program and arguments (checked now, started on the first
        decision).
    :param options: ``{"engine.ply": 2, ...}``, each sent as ``set KEY VALUE``.
    :param timeout_s: seconds per decision.
    :param start_timeout_s: seconds for the start and the handshake (default: ``timeout_s``
        or 30, whichever is longer).
    :param cube: a bgfast cube policy that decides instead of the engine, or None.
    :param label: the engine's name in messages (default: the program's file name).
    :param context: how the match context is sent: ``"auto"``, ``"xgid"`` or ``"keys"``
        (``position gnubgid`` and the ``game.*`` keys the engine lists).
    :raises EngineStartError: a command that is not an executable program, an option value
        that is not one line of text, an unknown ``context``; at the first decision, an
        engine that cannot start, fails its handshake, refuses an option, or does not
        read XGIDs with ``context="xgid"``.
    :raises UnknownBotError: an unknown cube policy.
    """

    name: ClassVar[str] = "ubgi"

    def __init__(self, command: Sequence[str], *, options: Mapping[str, object] | None = None,
                 timeout_s: float = DEFAULT_TIMEOUT_S, cube: str | None = None,
                 label: str | None = None, context: str = "auto",
                 start_timeout_s: float | None = None) -> None:
        self.command = check_command(command)
        if context not in CONTEXTS:
            raise EngineStartError(f"context must be one of {', '.join(CONTEXTS)}, got {context!r}")
        self.context = context
        super().__init__(label=label or os.path.basename(self.command[0]), timeout_s=timeout_s, cube=cube,
                         start_timeout_s=start_timeout_s)
        self.options = {str(key): option_text(value) for key, value in (options or {}).items()}
        self.engine_name = ""
        """The engine's ``id name``, once started."""
        self.keys: dict[str, ubgi.KeySpec] = {}
        """The engine's ``key`` lines, once started."""
        self.reads_xgid = False
        """Whether the engine accepts ``position xgid`` (found at the handshake)."""
        self.uses_xgid = False
        """Whether the match context goes as XGIDs (decided at the handshake)."""
        self._process: EngineProcess | None = None
        self._pending: list[str] = []
        self._sent_game: dict[str, str] = {}
        self._game_keys: tuple[str, ...] = ()
        self._starting = False

    # ------------------------------------------------------------ lines

    def _send(self, lines: Sequence[str]) -> None:
        assert self._process is not None
        try:
            self._process.write("\n".join(lines) + "\n")
        except OSError:
            raise EngineCrashedError(f"engine {self.label!r} {self._process.describe_exit()}",
                                     engine=self.label) from None

    def _limit(self) -> float:
        """Seconds for one answer: the start allowance until the handshake is done."""
        return self.start_timeout_s if self._starting else self.timeout_s

    def _read(self, deadline: float, asked: str) -> str:
        assert self._process is not None and self._process.reader is not None
        try:
            return self._process.reader.readline(deadline)
        except TimeoutError:
            raise EngineTimeoutError(f"engine {self.label!r} gave no answer to {asked!r} within "
                                     f"{self._limit():g} s", engine=self.label) from None
        except (EOFError, OSError):
            raise EngineCrashedError(f"engine {self.label!r} {self._process.describe_exit()} "
                                     f"while answering {asked!r}", engine=self.label) from None

    def _answer(self, lines: Sequence[str], asked: str) -> ubgi.Answer:
        """Send ``lines`` and return the first answer that is not ``info``."""
        self._send([*self._pending, *lines])
        self._pending = []
        deadline = time.monotonic() + self._limit()
        while True:
            line = self._read(deadline, asked)
            if not line:
                continue
            try:
                answer = ubgi.parse_answer(line)
            except UbgiError:
                raise EngineProtocolError(f"engine {self.label!r} answered {line!r} to {asked!r}, "
                                          "which is not UBGI", engine=self.label) from None
            if not isinstance(answer, ubgi.Info):
                return answer

    # ------------------------------------------------------------ start and stop

    def _start(self) -> None:
        process = EngineProcess(self.command, name=self.label)
        process.start()
        self._process = process
        self._pending = []
        self._sent_game = {}
        self._starting = True
        try:
            self._handshake()
        except (EngineCrashedError, EngineTimeoutError, EngineProtocolError) as exc:
            raise EngineStartError(f"{exc} (UBGI handshake)") from None
        finally:
            self._starting = False

    def _handshake(self) -> None:
        self._send(["ubgi"])
        deadline = time.monotonic() + self._limit()
        keys: dict[str, ubgi.KeySpec] = {}
        while True:
            line = self._read(deadline, "ubgi")
            try:
                answer = ubgi.parse_answer(line)
            except UbgiError:
                log.info("engine %s: skipped %r in its handshake", self.label, line)
                continue
            if isinstance(answer, ubgi.UbgiOk):
                break
            if isinstance(answer, ubgi.KeySpec):
                keys[answer.name] = answer
            elif isinstance(answer, ubgi.Id) and answer.field == "name":
                self.engine_name = answer.value
            elif isinstance(answer, ubgi.ErrorLine):
                raise EngineStartError(f"engine {self.label!r} answered {line!r} to 'ubgi'")
        self.keys = keys
        for key, value in self.options.items():
            spec = keys.get(key)
            if spec is not None:
                try:
                    spec.read(value)
                except UbgiError as exc:
                    raise EngineStartError(f"engine {self.label!r}: option {key} = {value!r}: {exc}") from None
            reply = self._until_ready([f"set {key} {value}"], f"set {key} {value}")
            if reply is not None:
                raise EngineStartError(f"engine {self.label!r} refuses option {key} = {value!r}: {reply!r}")
        self.reads_xgid = self._until_ready([f"position xgid {_START_XGID}"], "position xgid") is None
        self._game_keys = tuple(k for k in ubgi.GAME_KEY_NAMES if k in keys)
        if self.context == "xgid" and not self.reads_xgid:
            raise EngineStartError(f"engine {self.label!r} does not read XGIDs (context='xgid')")
        every_key = len(self._game_keys) == len(ubgi.GAME_KEY_NAMES)
        self.uses_xgid = self.reads_xgid and (self.context == "xgid" or (self.context == "auto" and not every_key))
        if self._policy is None:
            self._cube_supported = self._probe_cube()
            self._take_supported = self._cube_supported and (self.uses_xgid or "game.doubled" in keys)
        log.info("engine %s: ready (%s; context by %s, cube %s, game keys %s)", self.label,
                 self.engine_name or "no id name", "xgid" if self.uses_xgid else "keys",
                 "yes" if self._cube_supported else "no", ", ".join(self._game_keys) or "none")

    def _until_ready(self, lines: Sequence[str], asked: str) -> str | None:
        """Send ``lines`` and ``isready``; the first ``error`` line before ``readyok``, or None."""
        self._send([*lines, "isready"])
        deadline = time.monotonic() + self._limit()
        refused = None
        while True:
            line = self._read(deadline, asked)
            if line == "readyok":
                return refused
            if line.startswith("error") and refused is None:
                refused = line

    def _probe_cube(self) -> bool:
        answer = self._answer(["newgame", f"position gnubgid {STARTING_POSITION_ID}", "go cube"], "go cube")
        if isinstance(answer, ubgi.BestCube) and answer.action in ("double", "nodouble"):
            return True
        if isinstance(answer, ubgi.ErrorLine):
            return False
        raise EngineStartError(f"engine {self.label!r} answered {answer} to 'go cube' on the opening position")

    def _stop(self) -> None:
        process = self._process
        self._process = None
        if process is not None:
            process.close("quit\n", grace=0.5)

    def _new_game(self) -> None:
        self._pending.append("newgame")
        self._sent_game = {}  # an engine may forget its game.* values with the game

    # ------------------------------------------------------------ decisions

    def _position_lines(self, position: Position, match: MatchState) -> list[str]:
        if self.uses_xgid:
            return [f"position xgid {match.xgid(position.board)}"]
        lines = [f"position gnubgid {position.id()}"]
        if self._game_keys:
            values = ubgi.game_settings(match)
            for key in self._game_keys:
                if self._sent_game.get(key) != values[key]:
                    lines.append(f"set {key} {values[key]}")
                    self._sent_game[key] = values[key]
        return lines

    def _unexpected(self, answer: ubgi.Answer, asked: str) -> EngineProtocolError:
        return EngineProtocolError(f"engine {self.label!r} answered {str(answer)!r} to {asked!r}",
                                   engine=self.label)

    def _choose(self, position: Position, dice: Dice, match: MatchState) -> Move:
        lines = self._position_lines(position, match)
        lines += [f"dice {dice.high} {dice.low}", "go chequer"]
        answer = self._answer(lines, "go chequer")
        if not isinstance(answer, ubgi.BestMove):
            raise self._unexpected(answer, "go chequer")
        try:
            return ubgi.parse_move(position, dice, answer.payload)
        except InvalidMoveError as exc:
            raise EngineProtocolError(f"engine {self.label!r}: {exc}", engine=self.label) from None
        except IllegalMoveError as exc:
            raise EngineIllegalAnswerError(f"engine {self.label!r}: {exc}", engine=self.label) from None

    def _double(self, position: Position, match: MatchState) -> bool | None:
        answer = self._answer([*self._position_lines(position, match), "go cube"], "go cube")
        if isinstance(answer, ubgi.ErrorLine) and answer.code == "unsupported":
            return None
        if not isinstance(answer, ubgi.BestCube):
            raise self._unexpected(answer, "go cube")
        if answer.action not in ("double", "nodouble"):
            raise EngineIllegalAnswerError(f"engine {self.label!r} answered {str(answer)!r} to 'go cube' "
                                           "with no double offered", engine=self.label)
        return answer.action == "double"

    def _take(self, position: Position, match: MatchState) -> CubeResponse | None:
        answer = self._answer([*self._position_lines(position, match), "go cube"], "go cube (double offered)")
        if isinstance(answer, ubgi.ErrorLine) and answer.code == "unsupported":
            return None
        if not isinstance(answer, ubgi.BestCube):
            raise self._unexpected(answer, "go cube (double offered)")
        responses = {"take": CubeResponse.TAKE, "drop": CubeResponse.PASS, "beaver": CubeResponse.BEAVER}
        if answer.action not in responses:
            raise EngineIllegalAnswerError(f"engine {self.label!r} answered {str(answer)!r} to a double "
                                           "(expected take, drop or beaver)", engine=self.label)
        return responses[answer.action]
