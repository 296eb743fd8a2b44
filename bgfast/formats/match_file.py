"""A match read from a file, and the one place the readers check it against the rules.

:func:`bgfast.formats.sgf.read_sgf` and :func:`bgfast.formats.mat.read_mat` parse their
format and hand each action to a :class:`MatchReplay`, which plays it on bgfast's model:
every roll's play must be a legal play of the dice in the position reached (found by
:meth:`bgfast.position.Position.parse_move`, so every spelling of it reads), every double,
take, pass and beaver must be one the rules allow then (:meth:`bgfast.match.MatchState.double`
and the rest), each game's score must be the score the games before it left, and a result
the file states must be the one its actions reach.  The result is a :class:`MatchFile`: the
players' names, the rules, what the file says about the match (event, date...), and a
:class:`~bgfast.game.MatchHistory` with every turn and the position before it, which can be
rolled out, replayed or written again.

A read history differs from a played one in two ways only: its record's ``seed`` and
``index`` are 0 (the dice came from the file), and a game may end by a resignation
(:attr:`~bgfast.game.GameRecord.kind` ``"resign"``, with no turn for it).  A match that
stops before anyone reaches the match length (an abandoned match, a money session) is
won, in the record, by the player ahead (on a tie, by the winner of the last game). A
reader asked to (``unfinished=True``) also keeps a last game the file stops in the middle
of, apart (:attr:`MatchFile.unfinished`), for analysing a match in progress.

>>> from bgfast.match import Rules
>>> replay = MatchReplay(length=1, rules=Rules(), source="example")
>>> replay.start_game("line 1")
>>> replay.roll("line 2", 0, "31", "8/5 6/5")
>>> replay.roll("line 2", 1, "65", "24/13")
>>> replay.resign("line 3", winner=1, points=1)
>>> match = replay.finish("line 3", players=("alice", "bob"))
>>> match.history.record.score, match.history.record.games[0].kind
((0, 1), 'resign')
>>> replay = MatchReplay(length=1, rules=Rules(), source="example")
>>> replay.start_game("line 1")
>>> replay.roll("line 2", 0, "31", "8/3")
Traceback (most recent call last):
...
bgfast.errors.InvalidMatchFileError: example: line 2: player 0's 31 '8/3' is not a legal play: ...
"""
from __future__ import annotations

import codecs
import io
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import IO, Union

from bgfast.dice import Dice
from bgfast.errors import (
    IllegalCubeActionError,
    IllegalMoveError,
    InvalidDiceError,
    InvalidMatchFileError,
    InvalidMatchIdError,
    InvalidMoveError,
)
from bgfast.formats.matchlog import points_text
from bgfast.game import CubeAction, GameRecord, MatchHistory, MatchRecord, Turn
from bgfast.match import MatchState, Rules
from bgfast.position import VARIANTS, Position, starting_position
from bgfast.validation import read_input_file, write_output_file

__all__ = ["MatchFile", "MatchReplay", "PathOrFile", "UnfinishedGame", "decode_text", "read_text", "write_text"]

MAX_MATCH_LENGTH = 32767
"""The longest match a Match ID (and so bgfast's match state) holds; a match file of a
longer one is refused."""

PathOrFile = Union[str, "os.PathLike[str]", IO[str]]
"""A file name, or a text file open for reading or writing."""


def write_text(text: str, path_or_file: PathOrFile, writer: str, what: str) -> None:
    """Write a format's ``text`` to a path (UTF-8, ``\\n`` line ends; written beside and renamed
    into place, :func:`bgfast.validation.output_file`) or an open text file.

    :param what: what the file is in an error's message (``"the .mat file"``).
    :raises TypeError: neither; the message names ``writer``.
    :raises OutputFileError: the path cannot be written (the message names it; nothing is written).
    """
    if isinstance(path_or_file, (str, os.PathLike)):
        write_output_file(path_or_file, text, what)
    elif isinstance(path_or_file, io.TextIOBase) or hasattr(path_or_file, "write"):
        path_or_file.write(text)
    else:
        raise TypeError(f"{writer} needs a path or a text file, got {path_or_file!r}")


MAX_FILE_BYTES = 1 << 26
"""The largest match file the readers read (64 MiB): a 25-point match is some 50 kB, and
the longest sessions a few MB."""


def _utf16_without_bom(data: bytes) -> str | None:
    """``"utf-16-le"`` or ``"utf-16-be"`` when ``data`` looks like UTF-16 text with no
    byte-order mark: mostly ASCII (as a match file is), so that most bytes at odd offsets
    (little-endian) or at even offsets (big-endian) are NUL, and next to none of the others;
    None otherwise."""
    if len(data) < 2 or b"\0" not in data:
        return None
    even, odd = data[0::2], data[1::2]
    for high, low, name in ((odd, even, "utf-16-le"), (even, odd, "utf-16-be")):
        if high.count(0) * 2 > len(high) and low.count(0) * 10 < len(low):
            return name
    return None


def decode_text(data: bytes, source: str = "<text>") -> str:
    """The text of a match file's bytes, in the encoding the program that saved it used:

    * UTF-16 when the bytes start with its byte-order mark (as some Windows programs save
      text), or when they have none but are laid out as UTF-16 of mostly ASCII text is
      (every other byte NUL), little- or big-endian;
    * UTF-8 when they decode as UTF-8 (its byte-order mark dropped);
    * otherwise Windows-1252, the "ANSI" text of older Windows tools (Latin-1 with some
      punctuation in 0x80-0x9F; a byte it leaves undefined reads as in Latin-1), so that
      ``Müller`` saved by such a tool reads as ``Müller``, not with replacement characters.

    Line ends ``\r\n`` and ``\r`` read as ``\n`` (as a file opened as text reads them).

    >>> decode_text("Müller".encode("cp1252")), decode_text("Müller".encode("utf-16-le"))
    ('Müller', 'Müller')

    :param source: names the file in the error.
    :raises InvalidMatchFileError: bytes laid out as UTF-16 without a byte-order mark that
        do not decode as it (an odd length, a broken surrogate pair); the message names the
        encoding.
    """
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        text = data.decode("utf-16", errors="replace")
    elif (utf16 := _utf16_without_bom(data)) is not None:
        try:
            text = data.decode(utf16)
        except UnicodeDecodeError as exc:
            raise InvalidMatchFileError(
                f"{source}: text in {utf16.upper()} without a byte-order mark, it seems, but it does not "
                f"decode as such ({exc.reason} at byte {exc.start}); save it as UTF-8") from None
    else:
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            try:
                text = data.decode("cp1252")
            except UnicodeDecodeError:
                text = data.decode("latin-1")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def read_text(path_or_file: PathOrFile, unnamed: str) -> tuple[str, str]:
    """``(text, name)`` of a path or an open file, text or binary (named ``unnamed`` when it
    has no name); bytes are read by :func:`decode_text`.

    :raises InvalidMatchFileError: a path that cannot be read, that is not a regular file
        (``/dev/zero``, a folder) or that is larger than :data:`MAX_FILE_BYTES`; bytes that
        :func:`decode_text` refuses.
    """
    if isinstance(path_or_file, (str, os.PathLike)):
        source = os.fspath(path_or_file)
        data = read_input_file(path_or_file, "match file", limit=MAX_FILE_BYTES, error=InvalidMatchFileError)
        return decode_text(data, source), source
    text = path_or_file.read()
    name = str(getattr(path_or_file, "name", unnamed))
    if isinstance(text, bytes):
        text = decode_text(text, name)
    if not isinstance(text, str):
        raise InvalidMatchFileError(f"{name}: read() gave {type(text).__name__}, not text")
    return text, name


@dataclass(frozen=True)
class MatchFile:
    """A match read from a file (or to be written to one).

    :ivar history: the games, turn by turn (:class:`~bgfast.game.MatchHistory`).
    :ivar players: the names of player 0 and player 1 (gnubg's X / White / the left column).
    :ivar rules: the rules the match was read under: those the file states, the others as
        the reader was given them.
    :ivar info: what the file says about the match, by key: ``event``, ``round``,
        ``place``, ``date`` (``YYYY-MM-DD``), ``annotator``, ``comment``.
    """

    history: MatchHistory
    players: tuple[str, str] = ("player0", "player1")
    rules: Rules = field(default_factory=Rules)
    info: Mapping[str, str] = field(default_factory=dict)
    unfinished: UnfinishedGame | None = None
    """The game the file stops in the middle of, read only when the reader was asked to
    (``unfinished=True``: a match in progress, to analyse); None otherwise. ``history``
    holds the finished games before it."""


@dataclass(frozen=True)
class UnfinishedGame:
    """The last game of a match file that stops before it ends: the turns played so far
    (each :class:`~bgfast.game.Turn` with the position before it; the last may be a double
    not yet answered)."""

    number: int
    """The game's number, 1 for the first."""
    crawford: bool
    """Whether it is the Crawford game."""
    score: tuple[int, int]
    """The score before it (player 0, player 1)."""
    turns: tuple[Turn, ...]


INFO_KEYS = ("event", "round", "place", "date", "annotator", "comment")
"""The keys of :attr:`MatchFile.info`."""


class _Game:
    """The game being read: the board from the view of the player to act, the cube, the turns."""

    def __init__(self, number: int, crawford: bool, position: Position, on_roll: int | None) -> None:
        self.number = number
        self.crawford = crawford
        self.position = position          # the view of ``on_roll`` (either side at the opening roll)
        self.on_roll = on_roll            # None: the opening roll decides
        self.opening = on_roll is None
        self.cube = 1
        self.owner = -1
        self.doubled_by: int | None = None
        self.turns: list[Turn] = []
        self.doubles: list[CubeAction] = []
        self.plies = 0
        self.result: tuple[int, int, str] | None = None   # (winner, points, kind) once over


class MatchReplay:
    """Plays a file's actions on bgfast's model, one call an action; see the module docstring.

    Each call names ``where`` the action is in the file (``"line 12"``, ``"game 2, node
    14"``), and every error is an :class:`~bgfast.errors.InvalidMatchFileError` whose
    message starts with ``source: where:``.

    :param length: the match length, 0 = money play.
    :param rules: the rules to check the actions against.
    :param source: how messages name the file.
    """

    def __init__(self, *, length: int, rules: Rules, source: str) -> None:
        self.length = length
        self.rules = rules
        self.source = source
        self.checkers = sum(VARIANTS[rules.variant][1])
        self.score = [0, 0]
        self.crawford_played = False
        self.records: list[GameRecord] = []
        self.games: list[tuple[Turn, ...]] = []
        self.game: _Game | None = None

    # ------------------------------------------------------------ helpers

    def fail(self, where: str, message: str) -> InvalidMatchFileError:
        """The error for ``message`` at ``where``, to raise."""
        return InvalidMatchFileError(f"{self.source}: {where}: {message}")

    def _playing(self, where: str, what: str) -> _Game:
        game = self.game
        if game is None:
            raise self.fail(where, f"{what} before any game has started")
        if game.result is not None:
            winner, points, _kind = game.result
            raise self.fail(where, f"{what} after game {game.number} is over (player {winner} won {points})")
        return game

    def _state(self, game: _Game, player: int, *, doubled: bool = False) -> MatchState:
        return MatchState(length=self.length, score=(self.score[0], self.score[1]), cube_value=game.cube,
                          cube_owner=game.owner, crawford=game.crawford, player_on_roll=player,
                          turn=1 - player if doubled else player, double_offered=doubled,
                          jacoby=self.rules.jacoby and self.length == 0)

    def _end(self, game: _Game, winner: int, points: int, kind: str) -> None:
        game.result = (winner, points, kind)

    # ------------------------------------------------------------ games

    def start_game(self, where: str, *, score: tuple[int, int] | None = None, crawford: bool | None = None,
                   position: Position | None = None, on_roll: int | None = None) -> None:
        """A new game: from the variant's start and the opening roll, or from ``position``
        (the view of ``on_roll``, who acts first).  ``score`` and ``crawford``, when the
        file states them, must be those the games before leave."""
        if self.game is not None and self.game.result is None:
            raise self.fail(where, f"game {self.game.number + 1} starts before game {self.game.number} has ended")
        self._close_game()
        if self.length and max(self.score) >= self.length:
            raise self.fail(where, f"a game after the match is over ({self.score[0]}-{self.score[1]} in a "
                                   f"{self.length}-point match)")
        if score is not None and tuple(score) != tuple(self.score):
            hint = " (is the Jacoby rule as the match played it?)" if self.length == 0 else ""
            raise self.fail(where, f"the game starts at {score[0]}-{score[1]}, but the games before it leave "
                                   f"{self.score[0]}-{self.score[1]}{hint}")
        is_crawford = (self.length > 1 and self.rules.crawford and not self.crawford_played
                       and self.length - 1 in self.score)
        if crawford is not None and crawford != is_crawford:
            said = "is" if crawford else "is not"
            raise self.fail(where, f"the file says this {said} the Crawford game; by the rules "
                                   f"(crawford={self.rules.crawford}) at {self.score[0]}-{self.score[1]} it "
                                   f"{'is' if is_crawford else 'is not'}")
        self.crawford_played |= is_crawford
        if position is None:
            position, on_roll = starting_position(self.rules.variant), None
        else:
            if on_roll not in (0, 1):
                raise self.fail(where, "a game set up from a position needs the player on roll")
            if position.is_over():
                raise self.fail(where, f"the game starts from a finished position ({position.id()})")
            if max(position.checkers()) > self.checkers:
                raise self.fail(where, f"the position {position.id()} has more than the variant's "
                                       f"{self.checkers} checkers on a side")
        self.game = _Game(len(self.records) + 1, is_crawford, position, on_roll)

    def set_position(self, where: str, position: Position, on_roll: int) -> None:
        """The game's position is set before its first action (an SGF setup node)."""
        game = self._playing(where, "a position set up")
        if game.turns:
            raise self.fail(where, "the position is set up in the middle of a game (bgfast keeps played games only)")
        if position.is_over() or max(position.checkers()) > self.checkers:
            raise self.fail(where, f"the position set up ({position.id()}) is finished or has more than "
                                   f"{self.checkers} checkers on a side")
        game.position, game.on_roll, game.opening = position, on_roll, False

    def set_cube(self, where: str, *, value: int | None = None, owner: int | None = None) -> None:
        """The cube is set up before the game's first action (value, and owner -1/0/1)."""
        game = self._playing(where, "the cube set up")
        if game.turns:
            raise self.fail(where, "the cube is set up in the middle of a game")
        if value is not None:
            game.cube = value
        if owner is not None:
            game.owner = owner
        try:
            self._state(game, game.on_roll if game.on_roll is not None else 0)
        except InvalidMatchIdError as exc:
            raise self.fail(where, f"impossible cube: {exc}") from None

    # ------------------------------------------------------------ actions

    def roll(self, where: str, player: int, dice: str | tuple[int, int], play: str) -> None:
        """``player`` rolls ``dice`` and plays ``play`` (notation; ``""`` when nothing can be
        played; ``*`` marks are not needed and are not checked)."""
        game = self._playing(where, f"player {player}'s roll")
        try:
            roll = Dice.of(dice)
        except InvalidDiceError as exc:
            raise self.fail(where, str(exc)) from None
        if game.doubled_by is not None:
            raise self.fail(where, f"player {player} rolls while player {game.doubled_by}'s double waits "
                                   f"for player {1 - game.doubled_by}'s answer")
        if game.on_roll is None:
            if roll.is_double:
                raise self.fail(where, f"the opening roll cannot be a double, got {roll}")
            game.on_roll = player
        elif player != game.on_roll:
            raise self.fail(where, f"player {player} rolls, but player {game.on_roll} is on roll")
        pos = game.position
        try:
            move = pos.parse_move(play.replace("*", ""), roll)
        except (InvalidMoveError, IllegalMoveError) as exc:
            raise self.fail(where, f"player {player}'s {roll} {play!r} is not a legal play: {exc}") from None
        game.turns.append(Turn(player, "move", pos, roll, move, game.cube))
        game.plies += 1
        game.opening = False
        after = move.position
        if after.checkers()[1] == 0:
            outcome = after.outcome(self.checkers)
            assert outcome is not None
            single = self.length == 0 and self.rules.jacoby and game.owner == -1
            self._end(game, player, game.cube * (1 if single else outcome.points), outcome.kind)
            return
        game.position, game.on_roll = after.swap_sides(), 1 - player

    def double(self, where: str, player: int) -> None:
        """``player`` doubles, before rolling."""
        game = self._playing(where, f"player {player}'s double")
        if game.doubled_by is not None:
            raise self.fail(where, f"player {player} doubles while a double waits for an answer "
                                   "(bgfast knows beavers, not raccoons)")
        if game.on_roll is None or game.opening:
            raise self.fail(where, f"player {player} doubles before the opening roll")
        if player != game.on_roll:
            raise self.fail(where, f"player {player} doubles, but player {game.on_roll} is on roll")
        try:
            self._state(game, player).double(player, self.rules)
        except IllegalCubeActionError as exc:
            raise self.fail(where, str(exc)) from None
        game.turns.append(Turn(player, "double", game.position, cube=2 * game.cube))
        game.doubled_by = player

    def _answer(self, where: str, player: int, what: str) -> tuple[_Game, int]:
        game = self._playing(where, f"player {player}'s {what}")
        if game.doubled_by is None:
            raise self.fail(where, f"player {player}'s {what} with no double offered")
        if player != 1 - game.doubled_by:
            raise self.fail(where, f"player {player} answers their own double")
        return game, game.doubled_by

    def take(self, where: str, player: int) -> None:
        """``player`` takes the double offered."""
        game, doubler = self._answer(where, player, "take")
        game.turns.append(Turn(player, "take", game.position.swap_sides(), cube=2 * game.cube))
        game.doubles.append(CubeAction(doubler, True))
        game.cube, game.owner, game.doubled_by = 2 * game.cube, player, None

    def beaver(self, where: str, player: int) -> None:
        """``player`` beavers the double offered: takes and redoubles at once, keeping the cube."""
        game, doubler = self._answer(where, player, "beaver")
        try:
            self._state(game, doubler, doubled=True).beaver(self.rules)
        except IllegalCubeActionError as exc:
            raise self.fail(where, str(exc)) from None
        game.turns.append(Turn(player, "beaver", game.position.swap_sides(), cube=4 * game.cube))
        game.doubles.append(CubeAction(doubler, True, True))
        game.cube, game.owner, game.doubled_by = 4 * game.cube, player, None

    def drop(self, where: str, player: int) -> None:
        """``player`` passes the double offered: the doubler wins the cube before the double."""
        game, doubler = self._answer(where, player, "pass")
        game.turns.append(Turn(player, "pass", game.position.swap_sides(), cube=2 * game.cube))
        game.doubles.append(CubeAction(doubler, False))
        game.doubled_by = None
        self._end(game, doubler, game.cube, "pass")

    def resign(self, where: str, *, winner: int, points: int) -> None:
        """The game ends by a resignation: ``winner`` wins ``points`` (the cube times 1, 2 or 3)."""
        game = self._playing(where, "a resignation")
        if game.doubled_by is not None:
            raise self.fail(where, "a resignation while a double waits for its answer")
        if points % game.cube or not 1 <= points // game.cube <= 3:
            raise self.fail(where, f"a resignation wins {points} points, which is not a single, gammon or "
                                   f"backgammon at cube {game.cube}")
        self._end(game, winner, points, "resign")

    def end_game(self, where: str, *, winner: int | None = None, points: int | None = None) -> None:
        """The file says the game is over (and, when given, who won how many points): check it."""
        game = self.game
        if game is None:
            raise self.fail(where, "a game result before any game")
        if game.result is None:
            raise self.fail(where, f"game {game.number} ends without a finish: no bear-off, pass or resignation")
        won, got, _kind = game.result
        if winner is not None and winner != won:
            raise self.fail(where, f"the file says player {winner} won game {game.number}; its play has player "
                                   f"{won} win")
        if points is not None and points != got:
            raise self.fail(where, f"the file says game {game.number} was won for {points_text(points)}; its play "
                                   f"wins {points_text(got)}")

    def _close_game(self) -> None:
        game = self.game
        if game is None or game.result is None:
            return
        winner, points, kind = game.result
        self.score[winner] += points
        self.records.append(GameRecord(number=game.number, crawford=game.crawford, cube=game.cube,
                                       doubles=tuple(game.doubles), points=points, winner=winner, kind=kind,
                                       score_after=(self.score[0], self.score[1]), plies=game.plies))
        self.games.append(tuple(game.turns))
        self.game = None

    def finish(self, where: str, *, players: tuple[str, str] = ("player0", "player1"),
               info: Mapping[str, str] | None = None, unfinished: bool = False) -> MatchFile:
        """The match read: the last game must have ended, or, ``unfinished``, may stop in the
        middle (it is then :attr:`MatchFile.unfinished`, after at least one turn).

        :raises InvalidMatchFileError: no game, or a last game with no end (not ``unfinished``).
        """
        last = None
        if self.game is not None and self.game.result is None:
            game = self.game
            if not unfinished:
                raise self.fail(where, f"game {game.number} has no end (the file stops in the middle of it)")
            if game.turns:
                last = UnfinishedGame(game.number, game.crawford, (self.score[0], self.score[1]), tuple(game.turns))
            self.game = None
        self._close_game()
        if not self.records and last is None:
            raise self.fail(where, "no game in the file")
        score = (self.score[0], self.score[1])
        if self.length and max(score) >= self.length:
            winner = 0 if score[0] >= self.length else 1
        elif score[0] != score[1]:
            winner = 0 if score[0] > score[1] else 1
        else:
            winner = self.records[-1].winner if self.records else 0
        record = MatchRecord(self.length, 0, 0, score, winner, tuple(self.records))
        return MatchFile(MatchHistory(record, tuple(self.games)), players, self.rules, dict(info or {}), last)
