"""``bgfast engine``: any bgfast bot as a UBGI v0.2 engine on stdin/stdout.

The protocol is bgci's UBGI v0.2 (``docs/ubgi-v0.2-spec.md`` in ``bungogood/bgci``;
every line is parsed and formatted by :mod:`bgfast.engines.ubgi`).  The session is
:class:`UbgiServer`: one line in, zero or more lines out, and it never stops on a bad
line: an unknown command or malformed syntax is ``error bad_command``, a value out of
range ``error bad_value``, a command that cannot be applied now (``go`` with no
position) ``error bad_state``, an unknown key ``error unsupported``.

Keys (``keys`` lists them, ``set``/``get`` use them):

* ``engine.ply`` -- the bot's lookahead, UBGI's root-inclusive count: 1-ply is the bot
  with no lookahead (gnubg's 0-ply).  Bots without a ``ply`` option have only 1.
* ``engine.cube`` -- the bot's cube policy (for bots that have several).
* ``engine.seed`` -- the seed of the bot's own random choices (``random``), minor.
* ``game.*`` -- the match context for a controller that sends ``position gnubgid``
  (:data:`bgfast.engines.ubgi.GAME_KEYS`); ``position xgid`` carries it instead and
  takes precedence until the next ``position gnubgid``.

Answers: ``go``/``go chequer`` -> ``bestmove``; ``go cube`` -> ``bestcube
double|nodouble``, or with a double offered (XGID dice ``D`` or ``game.doubled``)
``bestcube take|drop|beaver`` (bgfast's extension); ``go turn`` -> ``bestturn
cube=... move=...`` (needs the dice; after ``cube=double`` the move is the play if the
double is taken).

>>> server = UbgiServer("pubeval")
>>> server.handle("position gnubgid 4HPwATDgc/ABMA")
[]
>>> server.handle("dice 3 1"), server.handle("go chequer")
([], ['bestmove 8/5 6/5'])
>>> server.handle("go fishing")
['error bad_command expected: go [chequer|cube|turn]']
"""
from __future__ import annotations

import argparse
import dataclasses
import inspect
import re
import sys
from collections.abc import Sequence
from typing import IO, Any

from bgfast.bots import get_bot
from bgfast.bots.base import Bot, CubeResponse
from bgfast.command_line import Parser
from bgfast.dice import Dice
from bgfast.engines import ubgi
from bgfast.errors import BgfastError, IllegalMoveError, InvalidMoveError, UbgiError
from bgfast.formats.text import parse_position
from bgfast.match import MatchState, Rules
from bgfast.position import Move, Position

__all__ = ["DEFAULT_BOT", "UbgiServer", "main", "serve"]

DEFAULT_BOT = "heuristic"
"""The bot ``bgfast engine`` serves without ``--bot``."""

AUTHOR = "the bgfast authors"

_MAX_SEED = 2**63 - 1
_ANY_PLY = 9  # the top of engine.ply for a bot with a ply option but no published range


def _split_spec(spec: str) -> tuple[str, dict[str, object]]:
    from bgfast.bots.spec import parse_bot_spec

    try:
        return parse_bot_spec(spec)
    except BgfastError:
        return spec, {}  # a plugin reference ("module:factory") is passed to get_bot whole


def _takes(bot: Bot, option: str) -> bool:
    try:
        parameters = inspect.signature(type(bot).__init__).parameters
    except (TypeError, ValueError):  # pragma: no cover - a builtin constructor
        return False
    return option in parameters


def _ply_range(bot: Bot) -> tuple[int, int] | None:
    """The UBGI ``engine.ply`` range of ``bot`` (gnubg plies + 1), or None."""
    if not _takes(bot, "ply"):
        return None
    plies = getattr(sys.modules.get(type(bot).__module__), "PLIES", None)
    if isinstance(plies, tuple) and plies and all(isinstance(p, int) for p in plies):
        return ubgi.ubgi_ply(min(plies)), ubgi.ubgi_ply(max(plies))
    return 1, _ANY_PLY


class UbgiServer:
    """One UBGI session serving a bgfast bot.

    :param spec: the bot, as a bot spec (``heuristic``, ``pubeval:cube=never``,
        ``gnubg:ply=1``) or a plugin reference (``module:factory``).
    :raises UnknownBotError: an unknown bot or bad options.
    """

    def __init__(self, spec: str = DEFAULT_BOT) -> None:
        self.spec = spec
        self._name, self._options = _split_spec(spec)
        self.bot = get_bot(self._name, **self._options)
        self.keys: dict[str, ubgi.KeySpec] = {}
        self.values: dict[str, object] = {}
        self._describe_keys()
        self.position: Position | None = None
        self.dice: Dice | None = None
        self._given_match: MatchState | None = None  # from an XGID or a gnubgid's Match ID
        self._rules = Rules()
        self._keys_match: MatchState | None = None  # the game.* keys' match, built once per change
        self._rolled: dict[tuple[MatchState, int, int], MatchState] = {}

    # ------------------------------------------------------------ keys

    def _describe_keys(self) -> None:
        bot = self.bot
        engine: list[ubgi.KeySpec] = []
        plies = _ply_range(bot)
        current_ply = getattr(bot, "ply", 0)
        if plies is not None and isinstance(current_ply, int):
            engine.append(ubgi.KeySpec("engine.ply", "int", str(ubgi.ubgi_ply(current_ply)), plies[0], plies[1],
                                       description="root-inclusive checker-play depth (gnubg's plies + 1)"))
        else:
            engine.append(ubgi.KeySpec("engine.ply", "int", "1", 1, 1,
                                       description="root-inclusive checker-play depth (this bot has no lookahead)"))
        policies = getattr(bot, "cube_policies", ())
        if _takes(bot, "cube") and isinstance(policies, tuple) and len(policies) > 1:
            engine.append(ubgi.KeySpec("engine.cube", "enum", str(getattr(bot, "cube", policies[0])),
                                       choices=tuple(policies), description="bgfast cube policy"))
        if _takes(bot, "seed"):
            engine.append(ubgi.KeySpec("engine.seed", "int", str(self._options.get("seed", 0)), 0, _MAX_SEED,
                                       minor=True, description="seed of the bot's own random choices"))
        self.keys = {k.name: k for k in (*engine, *ubgi.GAME_KEYS)}
        for spec in self.keys.values():
            self.values.setdefault(spec.name, spec.read(spec.default))

    def _set(self, key: str, text: str) -> list[str]:
        spec = self.keys.get(key)
        if spec is None:
            return [f"error unsupported key {key}"]
        value = spec.read(text)
        if key == "game.cube" and isinstance(value, int) and value & (value - 1):
            # checked here, not at the next go: the old value stays
            raise UbgiError("bad_value", f"game.cube must_be a power of two {spec.low}..{spec.high}, got {value}")
        if key.startswith("engine."):
            option = {"engine.ply": "ply", "engine.cube": "cube", "engine.seed": "seed"}[key]
            native = value
            if option == "ply":
                if spec.low == spec.high:  # a bot without lookahead: only 1-ply exists
                    self.values[key] = value
                    return []
                native = ubgi.native_ply(value)  # type: ignore[arg-type]
            options = {**self._options, option: native}
            try:
                self.bot = get_bot(self._name, **options)
            except BgfastError as exc:
                raise UbgiError("bad_value", f"{key} {' '.join(str(exc).split())}") from None
            self._options = options
        self.values[key] = value
        if key.startswith("game."):
            self._keys_match = None
        return []

    # ------------------------------------------------------------ state

    def _match(self) -> MatchState:
        if self._given_match is not None:
            return self._given_match
        if self._keys_match is None:
            self._keys_match = ubgi.match_from_game_settings(self.values)
        return self._keys_match

    def _with_dice(self, match: MatchState, dice: Dice) -> MatchState:
        key = (match, dice.high, dice.low)
        rolled = self._rolled.get(key)
        if rolled is None:
            if len(self._rolled) > 256:
                self._rolled.clear()
            rolled = self._rolled[key] = dataclasses.replace(match, dice=(dice.high, dice.low))
        return rolled

    def _set_position(self, kind: str, text: str) -> None:
        match: MatchState | None
        try:
            if kind == "xgid":
                position, match = Position.from_xgid(text), MatchState.from_xgid(text)
            else:   # a Position ID, or gnubg's PositionID:MatchID pair
                position, match = parse_position(text)
        except ValueError as exc:
            # the position asked for is not the one held: no answer for the old one
            self.position, self._given_match, self.dice = None, None, None
            raise UbgiError("bad_value", f"{kind} {_plain(str(exc))}") from None
        self.position = position
        self._given_match = match
        self.dice = Dice(*match.dice) if match is not None and match.dice != (0, 0) else None

    # ------------------------------------------------------------ decisions

    def _need_position(self) -> Position:
        if self.position is None:
            raise UbgiError("bad_state", "missing position")
        if self.position.is_over():
            raise UbgiError("bad_state", "the game in this position is over")
        return self.position

    def _play(self, position: Position, dice: Dice, match: MatchState) -> str:
        choice = self.bot.choose_move(position, dice, self._with_dice(match, dice))
        if isinstance(choice, Move):
            return ubgi.format_move(choice)
        if isinstance(choice, Position):
            legal = position.legal_moves(dice.high, dice.low)
            try:
                return ubgi.format_move(legal[legal.positions().index(choice)])
            except ValueError:
                raise IllegalMoveError(f"the bot played to {choice.id()}, not a legal play of {dice}") from None
        return ubgi.format_move(position.parse_move(str(choice), dice))

    def _may_double(self, match: MatchState) -> bool:
        return match.can_double(match.player_on_roll, self._rules)

    def _cube(self, position: Position, match: MatchState) -> str:
        if match.double_offered:
            if match.cube_owner == match.turn:
                raise UbgiError("bad_state", "a double is offered on a cube the side to take owns: only the "
                                "cube's owner, or either side while it is centred, can double")
            answer = CubeResponse(int(self.bot.accept_double(position, match)))
            return {CubeResponse.TAKE: "take", CubeResponse.PASS: "drop", CubeResponse.BEAVER: "beaver"}[answer]
        if not self._may_double(match):
            return "nodouble"
        return "double" if self.bot.should_double(position, match) else "nodouble"

    def _go(self, decision: str) -> list[str]:
        position = self._need_position()
        match = self._match()
        if decision == "chequer":
            if self.dice is None:
                raise UbgiError("bad_state", "missing dice")
            if match.double_offered:
                raise UbgiError("bad_state", "a double is offered: go cube answers it")
            return [f"bestmove {self._play(position, self.dice, match)}"]
        if decision == "cube":
            return [f"bestcube {self._cube(position, match)}"]
        if self.dice is None:
            raise UbgiError("bad_state", "missing dice (go turn plays them after the cube decision)")
        if match.double_offered:
            raise UbgiError("bad_state", "a double is offered: go cube answers it")
        cube = self._cube(position, dataclasses.replace(match, dice=(0, 0)))
        after = match
        if cube == "double":
            after = dataclasses.replace(match, cube_value=match.cube_value * 2, cube_owner=1 - match.player_on_roll)
        return [f"bestturn cube={cube} move={self._play(position, self.dice, after)}"]

    # ------------------------------------------------------------ lines

    def handshake(self) -> list[str]:
        """The answer to ``ubgi``: id, proto, the key lines, ``ubgiok``."""
        return [f"id name bgfast {self.spec}", f"id author {AUTHOR}", f"proto {ubgi.PROTOCOL_VERSION}",
                *map(str, self.keys.values()), "ubgiok"]

    def handle(self, line: str) -> list[str]:
        """The answer lines to one command line (none for ``position``, ``dice``,
        ``newgame``, a good ``set``).  Never raises; ``quit`` is the caller's to act on."""
        try:
            command = ubgi.parse_command(line)
            return self._dispatch(command)
        except UbgiError as exc:
            return [str(ubgi.ErrorLine(exc.code, " ".join(str(exc).split())))]
        except (InvalidMoveError, IllegalMoveError) as exc:
            return [f"error bad_state the bot's play is not legal: {' '.join(str(exc).split())}"]
        except Exception as exc:  # noqa: BLE001 - a bad line must never end the session
            return [f"error bad_state {type(exc).__name__}: {' '.join(str(exc).split())}"]

    def _dispatch(self, command: ubgi.Command) -> list[str]:
        if isinstance(command, ubgi.SetPosition):
            self._set_position(command.kind, command.value)
            return []
        if isinstance(command, ubgi.SetDice):
            self.dice = command.dice
            return []
        if isinstance(command, ubgi.Go):
            return self._go(command.decision)
        if isinstance(command, ubgi.IsReady):
            return ["readyok"]
        if isinstance(command, ubgi.NewGame):
            self.position = None
            self.dice = None
            self._given_match = None
            return []
        if isinstance(command, ubgi.SetOption):
            return self._set(command.key, command.value)
        if isinstance(command, ubgi.GetOption):
            if command.key not in self.keys:
                return [f"error unsupported key {command.key}"]
            return [str(ubgi.Value(command.key, _text(self.values[command.key])))]
        if isinstance(command, ubgi.ListKeys):
            return [str(k) for k in self.keys.values()]
        if isinstance(command, ubgi.Ubgi):
            return self.handshake()
        return []  # quit: the loop ends the session


def _plain(message: str) -> str:
    """``message`` on one line, without the match state's internal names: a won match says
    only that the game is over, not which ``game_state`` values would have fitted."""
    return _INTERNAL_GAME_STATE.sub("", " ".join(message.split()))


_INTERNAL_GAME_STATE = re.compile(r" \(game_state [^)]*\), not [A-Z]+")


def _text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def serve(spec: str = DEFAULT_BOT, stdin: IO[bytes] | None = None, stdout: IO[bytes] | None = None) -> int:
    """Run a UBGI session on ``stdin``/``stdout`` (binary streams; default the process's)
    until ``quit`` or the end of input; returns the exit status, 0.

    :raises UnknownBotError: the bot spec names no bot (before any line is read).
    """
    server = UbgiServer(spec)
    source: Any = stdin if stdin is not None else sys.stdin.buffer
    sink: Any = stdout if stdout is not None else sys.stdout.buffer
    try:
        for raw in iter(source.readline, b""):
            line = raw.decode("utf-8", "replace").strip()
            if not line:
                continue
            if line == "quit":
                break
            out = server.handle(line)
            if out:
                sink.write(("\n".join(out) + "\n").encode("utf-8"))
                sink.flush()
    except (BrokenPipeError, KeyboardInterrupt):
        pass
    return 0


def build_parser(prog: str = "bgfast engine") -> argparse.ArgumentParser:
    """The arguments of ``bgfast engine``."""
    parser = Parser(
        prog=prog,
        description="Serve a bgfast bot as a UBGI v0.2 engine on stdin/stdout (one command a line; "
        "'quit' or end of input stops it).  engine.ply counts root-inclusive plies: 1-ply is gnubg's 0-ply.")
    parser.add_argument("--bot", default=DEFAULT_BOT, metavar="SPEC",
                        help=f"the bot to serve, NAME[:KEY=VALUE,...] or module:factory (default {DEFAULT_BOT})")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """``bgfast engine [--bot SPEC]``: returns the exit status (0, or 2 for a bad bot spec,
    with one line on stderr)."""
    args = build_parser().parse_args(argv)
    try:
        return serve(args.bot)
    except (BgfastError, ValueError) as exc:
        print(f"bgfast: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
