"""UBGI v0.2 lines: parse and format every command and answer, and UBGI move tokens.

The Universal Backgammon Interface (UBGI) is the line-based text protocol between a
controller and an engine that bgci publishes (``docs/ubgi-v0.2-spec.md`` in
``bungogood/bgci``; the section numbers below are that document's).  One command or
answer a line, UTF-8, case-sensitive keywords.

Commands, controller to engine (section 3), each a frozen dataclass whose ``str`` is the
line: ``ubgi`` (:class:`Ubgi`), ``isready``, ``newgame``, ``quit``, ``keys``,
``position gnubgid <ID>`` / ``position xgid <XGID>`` (:class:`SetPosition`),
``dice <d1> <d2>``, ``go [chequer|cube|turn]``, ``set <key> <value>``, ``get <key>``.
Answers, engine to controller (section 4): ``id name|author ...``, ``proto 0.2``,
``ubgiok``, ``readyok``, ``key ...`` (:class:`KeySpec`), ``value <key> <value>``,
``info ...``, ``bestmove <payload>``, ``bestcube <action>``, ``bestturn cube=<action>
move=<payload>``, ``error <code> [detail]`` (section 5).

>>> parse_command("position gnubgid 4HPwATDgc/ABMA")
SetPosition(kind='gnubgid', value='4HPwATDgc/ABMA')
>>> str(Go("cube"))
'go cube'
>>> parse_answer("key engine.ply int 1..4 1 root-inclusive decision depth")
KeySpec(name='engine.ply', kind='int', default='1', low=1, high=4, choices=(), minor=False, description='root-inclusive decision depth')
>>> parse_answer("bestmove 24/18 18/13")
BestMove(payload='24/18 18/13')

**Moves** (section 6) are space-separated ``from/to`` tokens, one per checker step:
``24/18 18/13``, ``bar/20``, ``6/off``, and ``pass`` when no checker can move.  bgfast
writes one token per die, in an order that can be played left to right, never a hit
mark ``*`` nor a repeat count ``(2)`` (those are gnubg's notation, which is what bgfast
shows people).  When reading it also accepts a token that spans several dice
(``24/13``), a trailing ``*`` and a ``(n)`` repeat count, since they are unambiguous;
the result must be one of the legal plays of the roll.

>>> from bgfast.position import Position
>>> start = Position()
>>> format_move(start.parse_move("24/13", "65"))
'24/18 18/13'
>>> str(parse_move(start, "31", "8/5 6/5"))
'8/5 6/5'

**bgfast's extensions**, documented here and in the README:

* ``go cube`` answers ``bestcube take``, ``bestcube drop`` or ``bestcube beaver`` when
  the position shows a double offered (an XGID whose dice field is ``D``, or the key
  ``game.doubled`` set to true); UBGI v0.2 has no take/pass answer.
* ``bestturn cube=double move=<payload>`` gives the play the engine would make with the
  dice given if its double is taken.
* The ``game.*`` keys of :data:`GAME_KEYS` carry the match context to an engine that
  does not read XGIDs (``position gnubgid`` carries the checkers only).  They are from
  the view of the side on roll in the position sent: ``game.score.on_roll`` is that
  side's score, ``game.owner`` is ``centre``, ``on_roll`` or ``opponent``.
* ``position gnubgid`` also accepts gnubg's combined ``PositionID:MatchID``.

**Ply numbering.** UBGI's ``engine.ply`` is root-inclusive (section 3): 1-ply evaluates
each legal play's resulting position with no lookahead, which is GNU Backgammon's 0-ply.
bgfast's own ``ply`` options keep gnubg's numbering; :func:`ubgi_ply` and
:func:`native_ply` translate.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypeAlias, Union

from bgfast.dice import Dice
from bgfast.errors import IllegalMoveError, InvalidMatchIdError, InvalidMoveError, UbgiError
from bgfast.match import MatchState
from bgfast.position import BAR, OFF, Move, Position

__all__ = [
    "CUBE_ACTIONS", "DECISIONS", "ERROR_CODES", "GAME_KEYS", "GAME_KEY_NAMES", "PROTOCOL_VERSION",
    "BestCube", "BestMove", "BestTurn", "Command", "Answer", "ErrorLine", "GetOption", "Go",
    "Id", "Info", "IsReady", "KeySpec", "ListKeys", "NewGame", "Proto", "Quit", "ReadyOk",
    "SetDice", "SetOption", "SetPosition", "Ubgi", "UbgiOk", "Value",
    "format_move", "game_settings", "match_from_game_settings", "native_ply", "parse_answer",
    "parse_command", "parse_move", "parse_steps", "ubgi_ply",
]

PROTOCOL_VERSION = "0.2"
"""The UBGI version bgfast speaks (``proto 0.2``)."""

ERROR_CODES = ("bad_command", "bad_value", "bad_state", "unsupported")
"""The four standard error codes (section 5)."""

DECISIONS = ("chequer", "cube", "turn")
"""What ``go`` may ask for; a bare ``go`` asks for ``chequer``."""

CUBE_ACTIONS = ("double", "nodouble", "take", "drop", "beaver")
"""``bestcube`` answers: UBGI's ``double|nodouble``, and bgfast's ``take|drop|beaver``."""

KEY_KINDS = ("int", "bool", "enum", "string")


def ubgi_ply(native: int) -> int:
    """UBGI's root-inclusive ``engine.ply`` for a gnubg-numbered ply (0 = the raw net).

    >>> ubgi_ply(0), native_ply(1)
    (1, 0)
    """
    return native + 1


def native_ply(ubgi: int) -> int:
    """gnubg's ply numbering for UBGI's root-inclusive ``engine.ply`` (section 3)."""
    return ubgi - 1


def _bad(code: str, message: str) -> UbgiError:
    return UbgiError(code, message)


# ---------------------------------------------------------------- commands


@dataclass(frozen=True)
class Ubgi:
    """``ubgi``: start the handshake."""

    def __str__(self) -> str:
        return "ubgi"


@dataclass(frozen=True)
class IsReady:
    """``isready``: the engine answers ``readyok`` once it has handled everything before."""

    def __str__(self) -> str:
        return "isready"


@dataclass(frozen=True)
class NewGame:
    """``newgame``: a new game starts (no answer)."""

    def __str__(self) -> str:
        return "newgame"


@dataclass(frozen=True)
class Quit:
    """``quit``: the engine exits."""

    def __str__(self) -> str:
        return "quit"


@dataclass(frozen=True)
class ListKeys:
    """``keys``: the engine lists its ``key`` lines."""

    def __str__(self) -> str:
        return "keys"


@dataclass(frozen=True)
class SetPosition:
    """``position gnubgid <ID>`` or ``position xgid <XGID>``.

    :ivar kind: ``"gnubgid"`` (a gnubg Position ID, the side on roll to act) or ``"xgid"``.
    """

    kind: str
    value: str

    def __str__(self) -> str:
        return f"position {self.kind} {self.value}"


@dataclass(frozen=True)
class SetDice:
    """``dice <d1> <d2>``, larger die first as bgfast writes it."""

    dice: Dice

    def __str__(self) -> str:
        return f"dice {self.dice.high} {self.dice.low}"


@dataclass(frozen=True)
class Go:
    """``go <decision>``: ask for a decision, one of :data:`DECISIONS`."""

    decision: str = "chequer"

    def __str__(self) -> str:
        return f"go {self.decision}"


@dataclass(frozen=True)
class SetOption:
    """``set <key> <value>`` (also read from UBGI v0.1's ``setoption name <K> value <V>``)."""

    key: str
    value: str

    def __str__(self) -> str:
        return f"set {self.key} {self.value}"


@dataclass(frozen=True)
class GetOption:
    """``get <key>``: the engine answers ``value <key> <value>``."""

    key: str

    def __str__(self) -> str:
        return f"get {self.key}"


Command: TypeAlias = Union[Ubgi, IsReady, NewGame, Quit, ListKeys, SetPosition, SetDice, Go,
                           SetOption, GetOption]
"""Any controller-to-engine line."""

_NO_ARGUMENT: dict[str, Command] = {
    "ubgi": Ubgi(), "isready": IsReady(), "newgame": NewGame(), "quit": Quit(), "keys": ListKeys(),
}


def parse_command(line: str) -> Command:
    """Read one controller-to-engine line (section 3).

    >>> parse_command("dice 3 1")
    SetDice(dice=Dice(high=3, low=1))
    >>> parse_command("go")
    Go(decision='chequer')
    >>> parse_command("set engine.ply 2")
    SetOption(key='engine.ply', value='2')
    >>> parse_command("fly")
    Traceback (most recent call last):
    ...
    bgfast.errors.UbgiError: unknown command 'fly'

    :raises UbgiError: code ``bad_command`` for an unknown command or malformed
        syntax, ``bad_value`` for dice outside 1..6.
    """
    words = line.split()
    if not words:
        raise _bad("bad_command", "empty line")
    verb = words[0]
    simple = _NO_ARGUMENT.get(verb)
    if simple is not None:
        if len(words) != 1:
            raise _bad("bad_command", f"expected: {verb}")
        return simple
    if verb == "position":
        if len(words) != 3 or words[1] not in ("gnubgid", "xgid"):
            raise _bad("bad_command", "expected: position gnubgid <ID> | position xgid <XGID>")
        return SetPosition(words[1], words[2])
    if verb == "dice":
        if len(words) != 3 or not all(w.isdigit() for w in words[1:]):
            raise _bad("bad_command", "expected: dice <d1> <d2>")
        d1, d2 = int(words[1]), int(words[2])
        if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
            raise _bad("bad_value", f"dice must_be 1..6, got {d1} {d2}")
        return SetDice(Dice(d1, d2))
    if verb == "go":
        rest = words[1:]
        if rest[:1] == ["role"]:  # bgci's earlier controllers write "go role chequer"
            rest = rest[1:]
        if not rest:
            return Go("chequer")
        if len(rest) != 1 or rest[0] not in DECISIONS:
            raise _bad("bad_command", "expected: go [chequer|cube|turn]")
        return Go(rest[0])
    if verb == "set":
        if len(words) < 3:
            raise _bad("bad_command", "expected: set <key> <value>")
        return SetOption(words[1], " ".join(words[2:]))
    if verb == "setoption":  # UBGI v0.1, section 8
        if len(words) < 5 or words[1] != "name" or "value" not in words[3:]:
            raise _bad("bad_command", "expected: setoption name <name> value <value>")
        at = words.index("value", 3)
        return SetOption(" ".join(words[2:at]), " ".join(words[at + 1:]))
    if verb == "get":
        if len(words) != 2:
            raise _bad("bad_command", "expected: get <key>")
        return GetOption(words[1])
    raise _bad("bad_command", f"unknown command {verb!r}")


# ---------------------------------------------------------------- answers


@dataclass(frozen=True)
class Id:
    """``id name <EngineName>`` or ``id author <Author>``."""

    field: str
    value: str

    def __str__(self) -> str:
        return f"id {self.field} {self.value}"


@dataclass(frozen=True)
class Proto:
    """``proto <version>``."""

    version: str = PROTOCOL_VERSION

    def __str__(self) -> str:
        return f"proto {self.version}"


@dataclass(frozen=True)
class UbgiOk:
    """``ubgiok``: the end of the handshake."""

    def __str__(self) -> str:
        return "ubgiok"


@dataclass(frozen=True)
class ReadyOk:
    """``readyok``: the answer to ``isready``."""

    def __str__(self) -> str:
        return "readyok"


@dataclass(frozen=True)
class KeySpec:
    """One ``key`` line: an option the engine takes, its type, default and range.

    ``key <name> int [<min>..<max>] <default> [!] [description...]``, likewise ``bool``,
    ``enum <a|b|...>`` and ``string *``; ``!`` marks a minor option (section 4).

    >>> spec = KeySpec("engine.ply", "int", "1", low=1, high=4)
    >>> str(spec)
    'key engine.ply int 1..4 1'
    >>> spec.read("2")
    2
    >>> spec.read("5")
    Traceback (most recent call last):
    ...
    bgfast.errors.UbgiError: engine.ply must_be 1..4

    :ivar kind: one of ``int``, ``bool``, ``enum``, ``string``.
    :ivar default: the default value as written on the line.
    :ivar low: the smallest int (``None``: no bound); :ivar high: the largest.
    :ivar choices: an enum's values.
    """

    name: str
    kind: str
    default: str
    low: int | None = None
    high: int | None = None
    choices: tuple[str, ...] = ()
    minor: bool = False
    description: str = ""

    def __str__(self) -> str:
        parts = ["key", self.name, self.kind]
        if self.kind == "int" and (self.low is not None or self.high is not None):
            parts.append(f"{'' if self.low is None else self.low}..{'' if self.high is None else self.high}")
        elif self.kind == "enum":
            parts.append("|".join(self.choices))
        elif self.kind == "string":
            parts.append("*")
        parts.append(self.default)
        if self.minor:
            parts.append("!")
        if self.description:
            parts.append(self.description)
        return " ".join(parts)

    def read(self, text: str) -> object:
        """The value ``text`` stands for (an ``int``, a ``bool`` or a ``str``).

        :raises UbgiError: code ``bad_value``, with the allowed values.
        """
        if self.kind == "int":
            try:
                number = int(text)
            except ValueError:
                raise _bad("bad_value", f"{self.name} must_be an integer") from None
            if (self.low is not None and number < self.low) or (self.high is not None and number > self.high):
                low = "" if self.low is None else self.low
                high = "" if self.high is None else self.high
                raise _bad("bad_value", f"{self.name} must_be {low}..{high}")
            return number
        if self.kind == "bool":
            lowered = text.lower()
            if lowered in ("true", "1", "on", "yes"):
                return True
            if lowered in ("false", "0", "off", "no"):
                return False
            raise _bad("bad_value", f"{self.name} must_be true|false")
        if self.kind == "enum":
            if text not in self.choices:
                raise _bad("bad_value", f"{self.name} must_be {'|'.join(self.choices)}")
            return text
        return text


@dataclass(frozen=True)
class Value:
    """``value <key> <value>``: the answer to ``get``."""

    key: str
    value: str

    def __str__(self) -> str:
        return f"value {self.key} {self.value}"


@dataclass(frozen=True)
class Info:
    """``info <key> <value> ...``: optional search information, kept as text."""

    text: str

    def __str__(self) -> str:
        return f"info {self.text}"


@dataclass(frozen=True)
class BestMove:
    """``bestmove <payload>``: the play, as :func:`format_move` writes it (``pass``: none)."""

    payload: str

    def __str__(self) -> str:
        return f"bestmove {self.payload}"


@dataclass(frozen=True)
class BestCube:
    """``bestcube <action>``, one of :data:`CUBE_ACTIONS`."""

    action: str

    def __str__(self) -> str:
        return f"bestcube {self.action}"


@dataclass(frozen=True)
class BestTurn:
    """``bestturn cube=<double|nodouble> move=<payload>`` (the payload may hold spaces)."""

    cube: str
    payload: str

    def __str__(self) -> str:
        return f"bestturn cube={self.cube} move={self.payload}"


@dataclass(frozen=True)
class ErrorLine:
    """``error <code> [detail...]``, the code one of :data:`ERROR_CODES`."""

    code: str
    detail: str = ""

    def __str__(self) -> str:
        return f"error {self.code} {self.detail}" if self.detail else f"error {self.code}"


Answer: TypeAlias = Union[Id, Proto, UbgiOk, ReadyOk, KeySpec, Value, Info, BestMove, BestCube,
                          BestTurn, ErrorLine]
"""Any engine-to-controller line."""

_INT_RANGE = re.compile(r"(-?\d*)\.\.(-?\d*)\Z")


def _parse_key(words: list[str], line: str) -> KeySpec:
    if len(words) < 4 or words[2] not in KEY_KINDS:
        raise _bad("bad_command", f"expected: key <name> int|bool|enum|string ... in {line!r}")
    name, kind = words[1], words[2]
    rest = words[3:]
    low = high = None
    choices: tuple[str, ...] = ()
    if kind == "int":
        match = _INT_RANGE.match(rest[0])
        if match:
            low = int(match.group(1)) if match.group(1) not in ("", "-") else None
            high = int(match.group(2)) if match.group(2) not in ("", "-") else None
            rest = rest[1:]
        elif rest[0] == "*":
            rest = rest[1:]
    elif kind == "enum":
        choices = tuple(rest[0].split("|"))
        rest = rest[1:]
    elif kind == "string" and rest[0] == "*":
        rest = rest[1:]
    if not rest:
        raise _bad("bad_command", f"a key line needs a default value: {line!r}")
    default, rest = rest[0], rest[1:]
    minor = bool(rest) and rest[0] == "!"
    if minor:
        rest = rest[1:]
    spec = KeySpec(name, kind, default, low, high, choices, minor, " ".join(rest))
    try:
        spec.read(default)
    except UbgiError:
        raise _bad("bad_command", f"the default {default!r} is not a value of the key in {line!r}") from None
    return spec


def parse_answer(line: str) -> Answer:
    """Read one engine-to-controller line (sections 4 and 5).

    >>> parse_answer("bestcube take")
    BestCube(action='take')
    >>> parse_answer("error unsupported go cube")
    ErrorLine(code='unsupported', detail='go cube')
    >>> parse_answer("bestturn cube=nodouble move=8/5 6/5")
    BestTurn(cube='nodouble', payload='8/5 6/5')

    :raises UbgiError: code ``bad_command``: not a UBGI answer, or a malformed one.
    """
    words = line.split()
    if not words:
        raise _bad("bad_command", "empty line")
    verb = words[0]
    if verb == "bestmove":
        if len(words) < 2:
            raise _bad("bad_command", "expected: bestmove <payload>")
        return BestMove(" ".join(words[1:]))
    if verb == "bestcube":
        if len(words) != 2 or words[1] not in CUBE_ACTIONS:
            raise _bad("bad_command", f"expected: bestcube {'|'.join(CUBE_ACTIONS)}, got {line!r}")
        return BestCube(words[1])
    if verb == "bestturn":
        if len(words) < 3 or not words[1].startswith("cube=") or not words[2].startswith("move="):
            raise _bad("bad_command", f"expected: bestturn cube=<action> move=<payload>, got {line!r}")
        cube = words[1][len("cube="):]
        if cube not in ("double", "nodouble"):
            raise _bad("bad_command", f"bestturn cube must be double|nodouble, got {cube!r}")
        return BestTurn(cube, " ".join([words[2][len("move="):], *words[3:]]).strip())
    if verb == "ubgiok" and len(words) == 1:
        return UbgiOk()
    if verb == "readyok" and len(words) == 1:
        return ReadyOk()
    if verb == "id" and len(words) >= 3 and words[1] in ("name", "author"):
        return Id(words[1], " ".join(words[2:]))
    if verb == "proto" and len(words) == 2:
        return Proto(words[1])
    if verb == "key":
        return _parse_key(words, line)
    if verb == "value" and len(words) >= 2:
        return Value(words[1], " ".join(words[2:]))
    if verb == "info":
        return Info(" ".join(words[1:]))
    if verb == "error" and len(words) >= 2:
        return ErrorLine(words[1], " ".join(words[2:]))
    raise _bad("bad_command", f"not a UBGI answer: {line!r}")


# ---------------------------------------------------------------- moves


def format_move(move: Move) -> str:
    """The UBGI payload of ``move``: one ``from/to`` token per die, ``bar``/``off`` for 25/0,
    ``pass`` for the empty play.  The tokens are in an order that plays left to right
    (a checker's later steps start lower than its earlier ones)."""
    steps = move.checker_moves
    if not steps:
        return "pass"
    return " ".join(f"{'bar' if s.src == BAR else s.src}/{'off' if s.dst == OFF else s.dst}" for s in steps)


_STEP = re.compile(r"(bar|\d{1,2})((?:/(?:off|\d{1,2})\*?)+)(?:\(([1-4])\))?\Z")


def parse_steps(payload: str) -> tuple[tuple[int, int], ...]:
    """The ``(from, to)`` steps of a UBGI move payload, in the mover's numbering
    (``bar`` = 25, ``off`` = 0; ``pass`` = no step).  Besides UBGI's ``from/to`` tokens it
    reads gnubg's notation: a ``*`` after a hit, ``(n)`` for a token played ``n`` times, and
    one checker's steps chained (``24/20*/17`` is ``24/20 20/17``).

    >>> parse_steps("bar/20 6/off")
    ((25, 20), (6, 0))
    >>> parse_steps("13/10*(2)")
    ((13, 10), (13, 10))
    >>> parse_steps("24/20*/17 6/5")
    ((24, 20), (20, 17), (6, 5))

    :raises InvalidMoveError: a token that is not ``from/to`` (or a chain of them) with each
        ``from`` in bar, 1..24 and each ``to`` in 1..24, off, lower than its ``from``.
    """
    words = payload.split()
    if words == ["pass"]:
        return ()
    if not words:
        raise InvalidMoveError("an empty UBGI move; a play of no checker is 'pass'")
    steps: list[tuple[int, int]] = []
    for word in words:
        m = _STEP.match(word)
        if m is None:
            raise InvalidMoveError(f"cannot read {word!r} in UBGI move {payload!r}: expected from/to")
        points = [m.group(1), *(p.rstrip("*") for p in m.group(2).split("/")[1:])]
        chain = []
        for a, b in zip(points, points[1:]):
            if a == "off":
                raise InvalidMoveError(f"{word!r} in UBGI move {payload!r} goes on after bearing off")
            src = BAR if a == "bar" else int(a)
            dst = OFF if b == "off" else int(b)
            numbers_ok = (a == "bar" or 1 <= src <= 24) and (b == "off" or 1 <= dst <= 24)
            if not numbers_ok or dst >= src:
                raise InvalidMoveError(f"{word!r} in UBGI move {payload!r} does not move toward home "
                                       "from bar or 24..1 to 23..1 or off")
            chain.append((src, dst))
        steps.extend(chain * int(m.group(3) or 1))
    return tuple(steps)


def parse_move(position: Position, dice: Dice | str | tuple[int, int], payload: str) -> Move:
    """The legal play of ``dice`` in ``position`` that the UBGI payload describes.

    Each token moves one checker from ``from`` to ``to``, hitting a blot on ``to`` (a
    ``*`` mark is not needed, and not checked); no token may land on a point the opponent
    holds.  The steps are read by :func:`parse_steps` and played by
    :meth:`Position.parse_move <bgfast.position.Position.parse_move>`, so the checkers
    that result must be one of the roll's legal plays.

    >>> str(parse_move(Position(), "64", "24/18 18/14*"))
    '24/14'

    :raises InvalidMoveError: the payload does not parse (:func:`parse_steps`).
    :raises IllegalMoveError: it parses, but moves a checker that is not there, lands on a
        point the opponent holds, or is not a legal play of these dice.
    :raises InvalidDiceError: bad dice.
    """
    dice = Dice.of(dice)
    steps = parse_steps(payload)
    opponent = position.board[0]
    for _src, dst in steps:
        if dst != OFF and opponent[24 - dst] > 1:  # hits only empty a blot, so a point held stays held
            raise IllegalMoveError(f"UBGI move {payload!r} lands on {dst}, which the opponent holds, "
                                   f"in {position.id()}")
    # the steps as gnubg notation, one checker move a token ("-": no play); the hits follow
    notation = " ".join(f"{'bar' if src == BAR else src}/{'off' if dst == OFF else dst}" for src, dst in steps)
    try:
        return position.parse_move(notation or "-", dice)
    except IllegalMoveError as exc:
        raise IllegalMoveError(f"UBGI move {payload!r}: {exc}") from None


# ---------------------------------------------------------------- match context without xgid


GAME_KEYS: tuple[KeySpec, ...] = (
    KeySpec("game.length", "int", "0", 0, 32767, description="match length, 0 = money"),
    KeySpec("game.score.on_roll", "int", "0", 0, 32767, description="points of the side on roll"),
    KeySpec("game.score.opponent", "int", "0", 0, 32767, description="points of its opponent"),
    KeySpec("game.cube", "int", "1", 1, 32768, description="cube value"),
    KeySpec("game.owner", "enum", "centre", choices=("centre", "on_roll", "opponent"),
            description="who owns the cube"),
    KeySpec("game.crawford", "bool", "false", description="this game is the Crawford game"),
    KeySpec("game.jacoby", "bool", "false", description="the Jacoby rule is on (money)"),
    KeySpec("game.doubled", "bool", "false", description="the side on roll has doubled; go cube answers take|drop|beaver"),
)
"""bgfast's ``game.*`` keys: the match context, from the view of the side on roll in the
position sent (which, while a double is offered, is the doubler)."""

_GAME_DEFAULTS = {spec.name: spec.default for spec in GAME_KEYS}
GAME_KEY_NAMES = tuple(_GAME_DEFAULTS)


def game_settings(match: MatchState) -> dict[str, str]:
    """The ``game.*`` values (as text) that describe ``match`` from the view of its player
    on roll.

    >>> game_settings(MatchState(length=7, score=(2, 5), cube_value=2, cube_owner=0))["game.owner"]
    'on_roll'
    """
    me = match.player_on_roll
    owner = "centre" if match.cube_owner == -1 else "on_roll" if match.cube_owner == me else "opponent"
    return {
        "game.length": str(match.length),
        "game.score.on_roll": str(match.score[me]),
        "game.score.opponent": str(match.score[1 - me]),
        "game.cube": str(match.cube_value),
        "game.owner": owner,
        "game.crawford": "true" if match.crawford else "false",
        "game.jacoby": "true" if match.jacoby else "false",
        "game.doubled": "true" if match.double_offered else "false",
    }


def match_from_game_settings(values: Mapping[str, object]) -> MatchState:
    """The match state the ``game.*`` values describe, with the side on roll as player 1
    (side 1 of the board, as in :class:`~bgfast.position.Position`).

    Values may be typed (as :meth:`KeySpec.read` returns them) or text; missing keys take
    their defaults.

    >>> m = match_from_game_settings({"game.length": 7, "game.score.on_roll": 2, "game.score.opponent": 5})
    >>> m.score, m.player_on_roll
    ((5, 2), 1)

    :raises UbgiError: code ``bad_value`` for a combination no match can be in (a centred
        cube above 1, a Crawford game with nobody 1-away...).
    """
    specs = {spec.name: spec for spec in GAME_KEYS}

    def get(name: str) -> object:
        value = values.get(name, _GAME_DEFAULTS[name])
        return specs[name].read(value) if isinstance(value, str) else value

    owner = {"centre": -1, "on_roll": 1, "opponent": 0}[str(get("game.owner"))]
    doubled = bool(get("game.doubled"))
    length = int(get("game.length"))  # type: ignore[call-overload]
    on_roll, opponent = int(get("game.score.on_roll")), int(get("game.score.opponent"))  # type: ignore[call-overload]
    if length and length <= max(on_roll, opponent) and min(on_roll, opponent) < length:
        raise _bad("bad_value", f"game.* keys: score {on_roll}-{opponent} has won the {length}-point match, "
                   "so the game is over")
    if doubled and owner == 0:  # a state, not a value: the keys are set one by one (the server's own word)
        raise _bad("bad_state", "a double is offered on a cube the side to take owns: only the cube's owner, "
                   "or either side while it is centred, can double")
    try:
        return MatchState(
            length=length,
            score=(int(get("game.score.opponent")), int(get("game.score.on_roll"))),  # type: ignore[call-overload]
            cube_value=int(get("game.cube")),  # type: ignore[call-overload]
            cube_owner=owner,
            crawford=bool(get("game.crawford")),
            player_on_roll=1,
            turn=0 if doubled else 1,
            double_offered=doubled,
            jacoby=bool(get("game.jacoby")) and length == 0,
        )
    except InvalidMatchIdError as exc:
        raise _bad("bad_value", f"game.* keys: {exc}") from None

