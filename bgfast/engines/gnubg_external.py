"""The GNU Backgammon program as a player, through its external-player interface.

``gnubg -t -q -r`` (the Debian/Ubuntu package ``gnubg``, version 1.07) is started with its
evaluation depth and told to listen on a unix socket::

    set threads 1
    set evaluation chequerplay evaluation plies N
    set evaluation cubedecision evaluation plies N
    external /tmp/bgfast-gnubg-XXXX/external.sock

It then reads FIBS board lines (:mod:`bgfast.formats.fibs`) on the socket and answers each
with one line: a move in its own notation (``8/5 6/5``, ``25/21`` for a bar entry, ``6/0``
to bear off, ``13/10*`` for a hit; an empty line when nothing can be played), or, when
the dice are 0:0, ``double`` or ``roll``, or, when the "was doubled" field is set,
``take``, ``drop`` or ``beaver``.  A board line may be followed by session options,
``jacobyrule on|off`` among them (gnubg's ``external_y.y`` grammar).

How gnubg 1.07 reads a board, measured with the real program (``tests/test_gnubg_program.py``
checks each fact):

* the two score fields in the opposite order from the FIBS documentation: with the player
  on turn, field 5 ("player got") is taken as the *opponent's* score and field 6 as the
  player's own; in general field 5 is the score of the side not on turn;
* while a double waits for an answer ("was doubled" 1), the turn field must name the
  doubler (FIBS's state: the doubler rolls next); with the player's own turn gnubg misreads
  the position (it even beavers in match play);
* the last-but-one field ("did crawford", which FIBS says not to use) means the Crawford
  game has been played: with a player 1-away and the field 0 this is the Crawford game;
* a match length of 9999 (FIBS's "unlimited") is money play;
* the cube field of a pending double is the value before the double;
* the "may double" fields say who owns the cube: with both 0 and the cube at 1 gnubg takes
  a double to be pending (it answers ``take`` to a checker play), so they are sent from the
  cube's owner even in the Crawford game, which the scores and the Crawford field mark;
* after the connection closes, ``external`` listens again forever, so the process must be
  killed: each player has its own process and socket, and the process ends with the
  process that started it (:mod:`bgfast.engines.process`).

Every decision is gnubg's own, at its ply, cubeful (its money cube decisions too).  The
player numbers plies as gnubg does (0 = the raw net); a UBGI engine.ply would be one more.
"""
from __future__ import annotations

import os
import shutil
import socket
import tempfile
import time
from typing import ClassVar

from bgfast.bots.base import CubeResponse
from bgfast.dice import Dice
from bgfast.engines.base import DEFAULT_TIMEOUT_S, START_TIMEOUT_S, OutsideBot
from bgfast.engines.process import EngineProcess, LineReader, check_command
from bgfast.errors import (
    InvalidBotOptionsError,
    EngineCrashedError,
    EngineIllegalAnswerError,
    EngineProtocolError,
    EngineStartError,
    EngineTimeoutError,
    IllegalMoveError,
    InvalidMoveError,
    UnknownBotError,
)
from bgfast.formats.fibs import UNLIMITED, FibsBoard, format_fibs_board
from bgfast.match import MatchState
from bgfast.position import Move, Position
from bgfast.validation import whole_number

__all__ = ["DEFAULT_PROGRAM", "MAX_PLY", "GnubgExternal", "GnubgProgramBot", "gnubg_board"]

DEFAULT_PROGRAM = "/usr/games/gnubg"
"""Where the Debian package installs the program; ``gnubg`` on ``PATH`` is tried next."""

MAX_PLY = 4
"""The deepest evaluation the player asks for (gnubg's plies; 0 is the raw net)."""


def find_program(program: str | None = None) -> str:
    """The GNU Backgammon program to run: ``program``, else :data:`DEFAULT_PROGRAM`, else
    ``gnubg`` on ``PATH``.

    :raises EngineStartError: none of them is an executable program (the message says how
        to install it).
    """
    if program is not None:
        return check_command([program], "the gnubg program")[0]
    for candidate in (DEFAULT_PROGRAM, "gnubg"):
        try:
            return check_command([candidate], "the gnubg program")[0]
        except EngineStartError:
            continue
    raise EngineStartError("the GNU Backgammon program is not installed (Debian/Ubuntu: apt-get install gnubg)")


def gnubg_board(position: Position, match: MatchState, me: int, *, dice: tuple[int, int] = (0, 0),
                doubled: bool = False) -> str:
    """The board line (with its session options) that asks gnubg 1.07 for ``me``'s decision.

    ``me`` is the player (O, colour 1, moving from 24 to 1).  It is on turn, except when
    ``doubled``: then the doubler is on turn (FIBS's state while a double waits).  The
    scores go in the order gnubg reads them (the side not on turn first).

    :param position: the board with ``me`` as the side on roll.
    :param match: the match state (seats 0 and 1 as in the game loop).
    :param dice: the roll to play, or 0:0 for a cube decision before the roll.
    :param doubled: the opponent has just doubled: gnubg answers take, drop or beaver.
    """
    other = 1 - me
    on_turn = other if doubled else me
    one_away = match.length > 0 and (match.length - 1) in match.score
    board = FibsBoard.from_position(
        position, dice=dice,
        match_length=match.length if match.length else UNLIMITED,
        turn=-1 if doubled else 1,
        player_score=match.score[1 - on_turn], opponent_score=match.score[on_turn],
        cube=match.cube_value,
        # the cube's owner only: with both flags 0 and the cube at 1, gnubg 1.07 takes a double
        # to be pending (it answers "take" to a checker play); the Crawford game is in the scores
        player_may_double=match.cube_owner in (-1, me),
        opponent_may_double=match.cube_owner in (-1, other),
        was_doubled=doubled,
        did_crawford=int(one_away and not match.crawford),
    )
    line = format_fibs_board(board)
    if not match.length:
        line += " jacobyrule on" if match.jacoby else " jacobyrule off"
    return line


class GnubgExternal:
    """One ``gnubg`` process and its external-player socket: board lines in, answers out.

    :param ply: gnubg's evaluation plies for checker play and cube decisions.
    :param program: the program (see :func:`find_program`).
    :param timeout_s: seconds for each answer.
    :param start_timeout_s: seconds for the start (default: ``timeout_s`` or
        :data:`~bgfast.engines.base.START_TIMEOUT_S`, whichever is longer).
    """

    def __init__(self, ply: int = 0, *, program: str | None = None, timeout_s: float = DEFAULT_TIMEOUT_S,
                 label: str = "gnubg", start_timeout_s: float | None = None) -> None:
        self.ply = ply
        self.program = find_program(program)
        self.timeout_s = timeout_s
        self.start_timeout_s = max(timeout_s, START_TIMEOUT_S) if start_timeout_s is None else start_timeout_s
        self.label = label
        self.process: EngineProcess | None = None
        self._dir: str | None = None
        self._socket: socket.socket | None = None
        self._reader: LineReader | None = None

    @property
    def socket_path(self) -> str:
        """The unix socket gnubg listens on (valid while started)."""
        assert self._dir is not None, "start() first"
        return os.path.join(self._dir, "external.sock")

    def start(self) -> None:
        """Start gnubg and connect to its socket.

        :raises EngineStartError: it cannot be started, exits, or does not listen in time.
        """
        self._dir = tempfile.mkdtemp(prefix="bgfast-gnubg-")
        process = EngineProcess([self.program, "-t", "-q", "-r"], name=self.label, merge_stdout=True)
        process.start()
        self.process = process
        try:
            process.write(f"set threads 1\nset evaluation chequerplay evaluation plies {self.ply}\n"
                          f"set evaluation cubedecision evaluation plies {self.ply}\nexternal {self.socket_path}\n")
        except BrokenPipeError:
            raise EngineStartError(f"the gnubg program {process.describe_exit()} before it read its setup") from None
        self.connect()

    def connect(self) -> None:
        """(Re)connect to the socket; gnubg accepts a new connection after each one closes.

        :raises EngineStartError: no connection within the time limit, or gnubg exited.
        """
        assert self.process is not None
        self.disconnect()
        deadline = time.monotonic() + self.start_timeout_s
        while True:
            if self.process.returncode() is not None:
                raise EngineStartError(f"the gnubg program {self.process.describe_exit()} before it listened")
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                sock.connect(self.socket_path)
            except (FileNotFoundError, ConnectionRefusedError):
                sock.close()
                if time.monotonic() > deadline:
                    raise EngineStartError(f"the gnubg program did not listen on {self.socket_path} "
                                           f"within {self.start_timeout_s:g} s") from None
                time.sleep(0.01)
                continue
            break
        self._socket = sock
        self._reader = LineReader(sock.fileno())

    def disconnect(self) -> None:
        """Close the connection (gnubg keeps running and listens again)."""
        if self._socket is not None:
            self._socket.close()
        self._socket = None
        self._reader = None

    def ask(self, line: str) -> str:
        """Send one line and return gnubg's one-line answer, stripped.

        :raises EngineCrashedError: the connection closed (gnubg died).
        :raises EngineTimeoutError: no answer within the time limit.
        """
        assert self._socket is not None and self._reader is not None and self.process is not None
        try:
            self._socket.sendall((line + "\n").encode("ascii"))
            return self._reader.readline(time.monotonic() + self.timeout_s)
        except TimeoutError:
            raise EngineTimeoutError(f"the gnubg program gave no answer within {self.timeout_s:g} s",
                                     engine=self.label) from None
        except (EOFError, OSError):
            raise EngineCrashedError(f"the gnubg program {self.process.describe_exit()}",
                                     engine=self.label) from None

    def stop(self) -> None:
        """Kill gnubg (it never exits by itself once ``external`` runs) and remove its socket."""
        self.disconnect()
        if self.process is not None:
            self.process.kill()
            self.process = None
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None


class GnubgProgramBot(OutsideBot):
    """The GNU Backgammon program (``engine = "gnubg"``) at ``ply``, all its decisions its own.

    Measured against pubeval (cubeless money games, see the report of issue 13): about
    +0.6 points per game at 0-ply, and several thousand checker plays a second.

    :param ply: gnubg's plies, 0 (its raw net) to :data:`MAX_PLY`.
    :param cube: a bgfast cube policy that decides instead of gnubg, or None.
    :param timeout_s: seconds per decision.
    :param program: the gnubg program (default: :func:`find_program`).
    :raises UnknownBotError: a bad ply or cube policy.
    :raises EngineStartError: the program is not installed (checked now, started later).
    """

    name: ClassVar[str] = "gnubg-program"

    def __init__(self, ply: int = 0, *, cube: str | None = None, timeout_s: float = DEFAULT_TIMEOUT_S,
                 program: str | None = None, label: str | None = None) -> None:
        self.ply = whole_number(ply, "ply", low=0, high=MAX_PLY, error=InvalidBotOptionsError)
        super().__init__(label=label or f"gnubg-{self.ply}ply", timeout_s=timeout_s, cube=cube)
        self.program = find_program(program)
        self._external: GnubgExternal | None = None

    def options(self) -> dict[str, object]:
        """The options that rebuild this player."""
        return {"ply": self.ply, "cube": self.cube, "timeout_s": self.timeout_s}

    def _start(self) -> None:
        external = GnubgExternal(self.ply, program=self.program, timeout_s=self.timeout_s, label=self.label,
                                 start_timeout_s=self.start_timeout_s)
        try:
            external.start()
        except EngineStartError:
            external.stop()
            raise
        self._external = external

    def _stop(self) -> None:
        external = self._external
        self._external = None
        if external is not None:
            external.stop()

    @property
    def pid(self) -> int | None:
        """The gnubg process id while it runs."""
        external = self._external
        return external.process.pid if external is not None and external.process is not None else None

    def _ask(self, line: str) -> str:
        assert self._external is not None
        answer = self._external.ask(line)
        if answer.startswith("Error"):
            raise EngineProtocolError(f"the gnubg program answered {answer!r} to {line!r}", engine=self.label)
        return answer

    def _choose(self, position: Position, dice: Dice, match: MatchState) -> Move:
        answer = self._ask(gnubg_board(position, match, match.turn, dice=(dice.high, dice.low)))
        try:
            return position.parse_move(answer, dice)
        except InvalidMoveError:
            raise EngineProtocolError(f"the gnubg program answered {answer!r} to a {dice} in {position.id()}",
                                      engine=self.label) from None
        except IllegalMoveError as exc:
            raise EngineIllegalAnswerError(f"the gnubg program: {exc}", engine=self.label) from None

    def _double(self, position: Position, match: MatchState) -> bool | None:
        answer = self._ask(gnubg_board(position, match, match.turn))
        if answer not in ("double", "roll"):
            raise EngineIllegalAnswerError(f"the gnubg program answered {answer!r} to a cube decision "
                                           "(expected double or roll)", engine=self.label)
        return answer == "double"

    def _take(self, position: Position, match: MatchState) -> CubeResponse | None:
        me = match.turn
        answer = self._ask(gnubg_board(position.swap_sides(), match, me, doubled=True))
        responses = {"take": CubeResponse.TAKE, "drop": CubeResponse.PASS, "beaver": CubeResponse.BEAVER}
        if answer not in responses:
            raise EngineIllegalAnswerError(f"the gnubg program answered {answer!r} to a double "
                                           "(expected take, drop or beaver)", engine=self.label)
        return responses[answer]
