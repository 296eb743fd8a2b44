"""Matches as Jellyfish ``.mat`` text, the exchange format GNU Backgammon, eXtreme Gammon
and BGBlitz import.

The layout, one game after another, is the one GNU Backgammon 1.07 writes (``export
match mat``)::

     7 point match

     Game 1
     alice : 0                      bob : 0
      1) 31: 8/5 6/5                 64: 24/18 13/9
      2) 52: 13/8 13/11               Doubles => 2
      3)  Takes                      66: 24/18 24/18 13/7 13/7
     ...
                                      Wins 2 points

Each numbered line holds one action of each player: the left column is player 0
(``players[0]``), the right column player 1.  An action is a roll and its play
(``54: 24/20 13/8``; a roll that cannot be played is just ``54:``), ``Doubles => 4``,
``Takes``, ``Drops`` or ``Beavers => 4``.  Plays list one checker step per die, ``*``
marking the first step onto a blot, the bar as 25 and off as 0, as Jellyfish wrote
them.  ``Wins N point(s)`` ends every game under its winner's column, with ``and the
match`` after the last one; after ``Drops`` it follows as gnubg writes it: on the
same line when player 0 drops, on the next line when player 1 does.  A money game
(length 0) is a ``0 point match``.

The columns are gnubg's to the character (a left cell padded to 27 characters, a
space after each step but a fourth), and that matters: gnubg's importer finds the right
column of a line with one roll by the first two spaces after its 15th character, and a
line too short to have them (a ``Drops`` alone, ``53: 3/0``) leaves it reading the end
of the line before, which here is always blank.

The moves come from :func:`bgfast.game.play_match_with_history`; a plain
:class:`~bgfast.game.MatchRecord` holds only the results.  :func:`read_mat` reads a
``.mat`` file back into a match history, checking every play and cube action.

>>> from bgfast.bots import get_bot
>>> from bgfast.game import play_match_with_history
>>> pubeval = get_bot("pubeval", cube="never")
>>> h = play_match_with_history(pubeval, pubeval, length=3, seed=2)
>>> text = mat_text(h.record, players=("alice", "bob"), moves=h.games)
>>> print("\\n".join(line.rstrip() for line in text.splitlines()[:6]))
 3 point match
<BLANKLINE>
 Game 1
 alice : 0                      bob : 0
  1)                             51: 24/23 23/18
  2) 53: 8/3 6/3                 33: 24/21 21/18 6/3 6/3
"""
from __future__ import annotations

import re
from collections.abc import Sequence

from bgfast.errors import InvalidMatchFileError, shortened
from bgfast.formats.match_file import (
    MAX_MATCH_LENGTH, MatchFile, MatchReplay, PathOrFile, decode_text, read_text, write_text,
)
from bgfast.formats.matchlog import points_text
from bgfast.game import MatchHistory, MatchRecord, Turn
from bgfast.match import Rules

__all__ = ["mat_move_numbers", "mat_text", "parse_mat", "read_mat", "write_mat"]

_CELL = 27           # a left cell is padded to 27 characters, then one space
_HEAD = 31           # the header's left part is padded to 31 characters
_LEFT = " " * 6      # where a Wins line under the left column starts
_RIGHT = " " * 34    # ... and under the right column


def _points(points: int) -> str:
    return f"Wins {points_text(points)}"


def _cell(turn: Turn) -> str:
    if turn.action == "move":
        assert turn.dice is not None and turn.move is not None
        steps = turn.move.checker_moves
        text = "".join(f"{s.src}/{s.dst}{'*' if s.hit else ''}" + (" " if k < 3 else "")
                       for k, s in enumerate(steps))
        return f"{turn.dice.high}{turn.dice.low}: {text}"
    if turn.action == "double":
        return f" Doubles => {turn.cube}"
    if turn.action == "take":
        return " Takes"
    if turn.action == "pass":
        return " Drops"
    if turn.action == "beaver":
        return f" Beavers => {turn.cube}"
    raise ValueError(f"unknown action {turn.action!r} in a game history")


def _name(name: object, which: int) -> str:
    text = re.sub(r"\s+", "_", str(name).strip()).replace(":", "_")
    if not text:
        raise ValueError(f"player {which} needs a non-empty name, got {name!r}")
    return text


def mat_move_numbers(turns: Sequence[Turn]) -> list[int]:
    """The ``.mat`` move number of each of a game's turns: the number of the row ``N)`` that
    holds it, as gnubg writes and numbers a game (player 0's action in a row's left column,
    player 1's in its right; a game player 1 starts begins with an empty left cell).

    >>> from bgfast.game import Turn
    >>> from bgfast.position import Position
    >>> start = Position()
    >>> mat_move_numbers([Turn(1, "move", start), Turn(0, "move", start), Turn(1, "move", start)])
    [1, 2, 2]
    """
    first = turns[0].player if turns else 0
    return [(k + first) // 2 + 1 for k in range(len(turns))]


def _game_text(number: int, score: tuple[int, int], names: tuple[str, str], turns: Sequence[Turn],
               winner: int, points: int, last: bool) -> str:
    """One game: ``Game N``, the score line, the numbered rows and the ``Wins`` line, as gnubg writes them."""
    left = f"{names[0]} : {score[0]}"
    # a name too long for gnubg's column still gets two spaces, which its importer needs
    out = [f" Game {number}\n", " " + (left.ljust(_HEAD) if len(left) < _HEAD else left + "  ")
           + f"{names[1]} : {score[1]}\n"]
    wins = _points(points) + (" and the match" if last else "")
    slot = 0                                   # even: the next action opens a row (player 0's column)
    if turns and turns[0].player == 1:
        out.append("  1)" + " " * (_CELL + 2))
        slot = 1
    for turn in turns:
        if slot % 2 != turn.player:
            raise ValueError(f"game {number}: the players' actions do not alternate at {turn!r}")
        cell = _cell(turn)
        if turn.action == "pass":              # the drop ends the game; its Wins line as gnubg places it
            if slot % 2 == 0:
                out.append(f"{slot // 2 + 1:3d}) " + f"{cell}{' ' * 23}{wins}".ljust(_CELL) + " \n\n")
            else:
                out.append(f"{cell}\n{_LEFT}{wins}\n\n")
            return "".join(out)
        if slot % 2 == 0:
            out.append(f"{slot // 2 + 1:3d}) " + cell.ljust(_CELL) + " ")
        else:
            out.append(cell + "\n")
        slot += 1
    if slot % 2:                               # the row ends with player 0's action
        out.append("\n")
    out.append((_RIGHT if winner == 1 else _LEFT) + wins + "\n\n")
    return "".join(out)


def _rule_tags(rules: Rules | None) -> str:
    """Header tags of the rules that differ from a ``.mat`` reader's defaults, which
    :func:`read_mat` reads back: gnubg's (Crawford, Jacoby in money play, no beavers) and
    bgfast's own for the highest cube and doubles of a dead cube (``; [MaxCube "2"]``,
    ``; [DeadCube "Allow"]``; other programs read them as comments).

    :raises ValueError: a variant other than standard backgammon (a Jellyfish file has none).
    """
    if rules is None:
        return ""
    if rules.variant != "standard":
        raise ValueError(f"a .mat file holds standard backgammon, not {rules.variant}")
    default = Rules()
    tags = [(name, "On" if on else "Off") for name, on, was in (("Crawford", rules.crawford, default.crawford),
                                                                ("Jacoby", rules.jacoby, default.jacoby),
                                                                ("Beaver", rules.beaver, default.beaver)) if on != was]
    if rules.max_cube != default.max_cube:
        tags.append(("MaxCube", str(rules.max_cube)))
    if rules.dead_cube != default.dead_cube:
        tags.append(("DeadCube", rules.dead_cube.capitalize()))
    return "".join(f' ; [{name} "{value}"]\n' for name, value in tags) + ("\n" if tags else "")


def mat_text(record: MatchRecord | MatchHistory, *, players: tuple[object, object] = ("player0", "player1"),
             moves: Sequence[Sequence[Turn]] | None = None, rules: Rules | None = None) -> str:
    """The ``.mat`` text of a match (see :func:`write_mat`)."""
    if isinstance(record, MatchHistory):
        moves = record.games if moves is None else moves
        record = record.record
    if moves is None:
        raise ValueError("a .mat file needs the moves: pass moves= (from play_match_with_history)")
    if len(moves) != len(record.games):
        raise ValueError(f"moves has {len(moves)} games, the record {len(record.games)}")
    names = (_name(players[0], 0), _name(players[1], 1))
    parts = [_rule_tags(rules), f" {record.length} point match\n\n"]
    score = (0, 0)
    for i, (game, turns) in enumerate(zip(record.games, moves)):
        last = record.length > 0 and i == len(record.games) - 1
        parts.append(_game_text(game.number, score, names, turns, game.winner, game.points, last))
        score = game.score_after
    return "".join(parts)


def write_mat(record: MatchRecord | MatchHistory, path_or_file: PathOrFile, *,
              players: tuple[object, object] = ("player0", "player1"),
              moves: Sequence[Sequence[Turn]] | None = None, rules: Rules | None = None) -> None:
    """Write a match as a Jellyfish ``.mat`` file that GNU Backgammon imports (``import mat``).

    :param record: the match; a :class:`~bgfast.game.MatchHistory` brings its own moves.
    :param path_or_file: a path, or a text file open for writing.
    :param players: the names of player 0 (left column) and player 1; spaces
        become underscores, as the format has no quoting.
    :param moves: each game's turns (``MatchHistory.games``); required with a
        plain :class:`~bgfast.game.MatchRecord`.
    :param rules: the rules the match was played by: those that differ from a ``.mat``
        reader's defaults (no Crawford rule, no Jacoby rule in money play, beavers) are
        written as gnubg's header tags (``; [Jacoby "Off"]``), a highest cube other than 64
        and doubles of a dead cube as bgfast's (``; [MaxCube "2"]``, ``; [DeadCube
        "Allow"]``), which :func:`read_mat` reads back; None writes none.
    :raises ValueError: no moves, a different number of games than the record,
        an empty player name, or a variant other than standard backgammon.
    :raises OutputFileError: a path that cannot be written (nothing is written to it).

    >>> import io
    >>> from bgfast.bots import get_bot
    >>> from bgfast.game import play_match_with_history
    >>> h = play_match_with_history(get_bot("pubeval", cube="never"), get_bot("random"), length=1, seed=4)
    >>> out = io.StringIO()
    >>> write_mat(h, out, players=("pubeval", "random"))
    >>> out.getvalue().splitlines()[-2]
    '      Wins 2 points and the match'
    """
    write_text(mat_text(record, players=players, moves=moves, rules=rules), path_or_file, "write_mat",
               "the .mat file")


# ---------------------------------------------------------------- reading

_MATCH = re.compile(r"^\s*(\d+)\s+[Pp]oint\s+[Mm]atch\b")
_GAME = re.compile(r"^\s*Game\s+(\d+)\s*$")
_SCORES = re.compile(r"^\s*(?P<n0>\S(?:.*?\S)?)\s*:\s*(?P<s0>\d+)\s+(?P<n1>\S(?:.*?\S)?)\s*:\s*(?P<s1>\d+)\s*$")
_ROW = re.compile(r"^\s*\d+\)")
_ROLL = re.compile(r"(?<![\d/])[1-6][1-6]:")
_TAG = re.compile(r'^[;#]\s*\[(\w+)\s+"([^"]*)"\]')
_VARIATIONS = {"Backgammon": "standard", "NackGammon": "nackgammon", "HyperGammon (3)": "hypergammon"}
_INFO_TAGS = {"Event": "event", "Round": "round", "Site": "place", "Transcriber": "annotator"}


def _columns(line: str) -> tuple[str, str]:
    """The left and right cells of a numbered line, found as gnubg's importer finds them:
    before a second roll when there are two, else at the first two spaces after the 15th
    character."""
    rolls = list(_ROLL.finditer(line))
    if len(rolls) >= 2:
        split = rolls[1].start()
    else:
        found = line.find("  ", 15)
        split = found if found >= 0 else len(line)
    left = line[:split]
    row = _ROW.match(left)
    return (left[row.end():] if row else left).strip(), line[split:].strip()


def _rules_from_tags(tags: dict[str, str], base: Rules) -> Rules:
    def on(name: str, default: bool) -> bool:
        value = tags.get(name)
        return default if value is None else value.strip().lower() in ("on", "yes", "true", "1")

    variant = base.variant
    if "Variation" in tags:
        name = tags["Variation"]
        if name not in _VARIATIONS:
            raise ValueError(f"variation {name!r}: bgfast plays {', '.join(repr(v) for v in _VARIATIONS)}")
        variant = _VARIATIONS[name]
    max_cube = base.max_cube
    if "MaxCube" in tags:
        text = tags["MaxCube"].strip()
        if not text.isdigit():
            raise ValueError(f"[MaxCube {tags['MaxCube']!r}]: the highest cube is a whole number, like \"64\"")
        max_cube = int(text)
    dead_cube = base.dead_cube
    if "DeadCube" in tags:
        dead_cube = tags["DeadCube"].strip().lower()
        if dead_cube not in ("refuse", "allow"):
            raise ValueError(f"[DeadCube {tags['DeadCube']!r}]: doubles of a dead cube are \"Refuse\" or \"Allow\"")
    return Rules(crawford=on("Crawford", base.crawford), jacoby=on("Jacoby", base.jacoby),
                 beaver=on("Beaver", base.beaver), max_cube=max_cube, variant=variant, dead_cube=dead_cube)


class _MatReader:
    """Reads the numbered lines of a ``.mat`` file into a :class:`MatchReplay`."""

    def __init__(self, replay: MatchReplay) -> None:
        self.replay = replay
        self.unplayed: tuple[str, int, str] | None = None   # a roll with no play, maybe before a resignation
        self.beaver_by: int | None = None                    # after a beaver, the first doubler's take may follow

    def _flush(self) -> None:
        if self.unplayed is not None:
            where, player, dice = self.unplayed
            self.unplayed = None
            self.replay.roll(where, player, dice, "")

    def cell(self, where: str, player: int, text: str) -> None:
        replay = self.replay
        if not text:
            return
        roll = re.match(r"^([1-6])([1-6]):\s*(.*)$", text)
        words = text.lower().split()
        if words[0] == "wins":
            match = re.match(r"^wins\s+(\d+)\s+points?\b", text.lower())
            if not match:
                raise replay.fail(where, f"{text!r} is not 'Wins N point(s)'")
            points = int(match.group(1))
            game = replay.game
            if game is not None and game.result is None:
                self.unplayed = None      # the roll was not played: its player resigned
                replay.resign(where, winner=player, points=points)
            # gnubg writes a money game's points without the Jacoby rule: their result is checked by the score
            replay.end_game(where, winner=player, points=points if replay.length else None)
            return
        self._flush()
        if roll:
            play = roll.group(3).strip()
            if play.startswith("???") or play.lower().startswith("cannot move"):
                play = ""
            game = replay.game
            if (not play and game is not None and game.result is None and game.doubled_by is None
                    and len(game.position.legal_moves(int(roll.group(1)), int(roll.group(2)))) > 1):
                self.unplayed = (where, player, roll.group(1) + roll.group(2))
                return
            self.beaver_by = None
            replay.roll(where, player, roll.group(1) + roll.group(2), play)
        elif words[0] in ("doubles", "double"):
            game = replay.game
            value = re.search(r"=>\s*(\d+)", text)
            cube = game.cube if game is not None else 1
            if game is not None and game.doubled_by == 1 - player:   # gnubg writes a beaver so
                self.cell(where, player, f"Beavers => {value.group(1) if value else 4 * cube}")
                return
            replay.double(where, player)
            if value and int(value.group(1)) != 2 * cube:
                raise replay.fail(where, f"{text!r}: the cube is at {cube}, so a double makes it {2 * cube}")
        elif words[0] in ("takes", "take", "accepts"):
            if self.beaver_by is not None and player == self.beaver_by:
                self.beaver_by = None     # the take of a beaver some programs write
                return
            replay.take(where, player)
        elif words[0] in ("drops", "drop", "passes", "pass", "rejects"):
            replay.drop(where, player)
        elif words[0] in ("beavers", "beaver"):
            game = replay.game
            value = re.search(r"=>\s*(\d+)", text)
            cube = game.cube if game is not None else 1
            replay.beaver(where, player)
            self.beaver_by = 1 - player
            if value and int(value.group(1)) != 4 * cube:
                raise replay.fail(where, f"{text!r}: the cube is at {cube}, so a beaver makes it {4 * cube}")
        else:
            raise replay.fail(where, f"{text!r} is not a roll, a cube action or a Wins line")

    def end(self) -> None:
        self._flush()


_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f]")
"""Control characters no text file holds (a tab, a line or page end aside): bytes that are not text."""


def _quoted(line: str) -> str:
    """A line of the file as a message quotes it: whole (shortened when long), and printable."""
    return repr(shortened(line.strip()))


def parse_mat(text: str | bytes, *, rules: Rules | None = None, source: str = "<mat>",
              unfinished: bool = False) -> MatchFile:
    """Read ``.mat`` text (see :func:`read_mat`; bytes are read by
    :func:`~bgfast.formats.match_file.decode_text`: UTF-8, UTF-16 or
    Windows-1252); ``source`` names it in error messages."""
    if isinstance(text, (bytes, bytearray)):
        text = decode_text(bytes(text), source)
    text = text.rstrip("\x1a")             # an old DOS editor's end-of-file mark
    control = _CONTROL.search(text)
    if control:
        at = text.count("\n", 0, control.start()) + 1
        raise InvalidMatchFileError(f"{source}: line {at}: control character {control.group()!r}: not a text "
                                    "file, so not a .mat file")
    lines = text.splitlines()
    tags: dict[str, str] = {}
    comments: list[str] = []
    length = None
    start = 0
    for number, line in enumerate(lines, start=1):
        stripped = line.strip().lstrip("\ufeff")
        if stripped.startswith((";", "#")):
            tag = _TAG.match(stripped)
            if tag:
                tags[tag.group(1)] = tag.group(2)
            elif stripped[1:].strip():
                comments.append(stripped[1:].strip())
            continue
        match = _MATCH.match(stripped)
        if match:
            length, start = int(match.group(1)), number
            break
        if stripped:
            raise InvalidMatchFileError(f"{source}: line {number}: {_quoted(stripped)} before the 'N point match' line")
    if length is None:
        raise InvalidMatchFileError(f"{source}: no 'N point match' line: not a .mat file")
    try:
        read_rules = _rules_from_tags(tags, rules or Rules())
    except ValueError as exc:
        raise InvalidMatchFileError(f"{source}: {exc}") from None
    if length > MAX_MATCH_LENGTH:
        raise InvalidMatchFileError(f"{source}: line {start}: a {length} point match; the longest a match ID "
                                    f"holds is {MAX_MATCH_LENGTH}")
    replay = MatchReplay(length=length, rules=read_rules, source=source)
    reader = _MatReader(replay)
    players: tuple[str, str] | None = None
    expect_scores = False
    for number, line in enumerate(lines[start:], start=start + 1):
        where = f"line {number}"
        if not line.strip():
            continue
        if line.lstrip().startswith((";", "#")):
            if line.lstrip()[1:].strip().startswith("Set Pos="):
                raise replay.fail(where, "a position set up in a .mat file (XG's Set Pos) is not read; use SGF")
            continue
        game = _GAME.match(line)
        if game:
            reader.end()
            expect_scores = True
            continue
        if expect_scores:
            scores = _SCORES.match(line)
            if not scores:
                raise replay.fail(where, f"{_quoted(line)} is not the score line 'name : N   name : N'")
            if players is None:
                players = (scores.group("n0"), scores.group("n1"))
            replay.start_game(where, score=(int(scores.group("s0")), int(scores.group("s1"))))
            expect_scores = False
            continue
        if replay.game is None:
            raise replay.fail(where, f"{_quoted(line)} before the first 'Game 1' line")
        if _ROW.match(line):
            left, right = _columns(line)
            if replay.game is not None:      # errors name the game and the move as well as the line
                where += f" (game {replay.game.number}, move {line.split(')', 1)[0].strip()})"
            reader.cell(where, 0, left)
            reader.cell(where, 1, right)
        elif line.strip().lower().startswith("wins"):
            reader.cell(where, 0 if line.index(line.strip()) < 20 else 1, line.strip())
        else:
            raise replay.fail(where, f"{_quoted(line)} is not a numbered line or a Wins line")
    if unfinished and replay.game is not None and replay.game.result is None:
        reader.unplayed = None        # a match in progress: its last roll may not be played yet
    reader.end()
    info = {key: tags[tag] for tag, key in _INFO_TAGS.items() if tags.get(tag)}
    date = re.match(r"^(\d{4})\.(\d{1,2})\.(\d{1,2})", tags.get("EventDate", ""))
    if date:
        info["date"] = f"{date.group(1)}-{int(date.group(2)):02d}-{int(date.group(3)):02d}"
    if comments:
        info["comment"] = "\n".join(comments)
    return replay.finish(f"line {len(lines)}", players=players or ("player0", "player1"), info=info,
                         unfinished=unfinished)


def read_mat(path_or_file: PathOrFile, *, rules: Rules | None = None, unfinished: bool = False) -> MatchFile:
    """Read a Jellyfish ``.mat`` file (as GNU Backgammon, eXtreme Gammon, BGBlitz or
    :func:`write_mat` write it) into a match history, checking every play and cube action.

    The columns are found as gnubg's importer finds them; a play may be written in any
    spelling :meth:`~bgfast.position.Position.parse_move` reads (``bar/22``, ``25/22``,
    ``13/7(2)``, ``6/off``).  A ``Wins`` line while the game is still being played is a
    resignation (a roll with no play just before it was never played); after a bear-off or
    a drop it must name the winner, and in match play the points.  A beaver is ``Beavers =>
    4`` or, as gnubg writes it, the doubled player's ``Doubles => 4`` at once; either may be
    followed by the first doubler's ``Takes`` or by the roll.  The header's tags
    ``; [Variation "NackGammon"]`` (``"HyperGammon (3)"``), ``[Crawford "Off"]``, ``[Jacoby
    ...]``, ``[Beaver ...]``, and bgfast's ``[MaxCube "N"]`` and ``[DeadCube "Allow"]``, set
    those rules; ``[Event]``, ``[Round]``, ``[Site]``,
    ``[EventDate]``, ``[Transcriber]`` and other comments become the match information.

    :param path_or_file: a path, or a text file open for reading.
    :param unfinished: keep a last game the file stops in the middle of
        (:attr:`~bgfast.formats.match_file.MatchFile.unfinished`) instead of refusing the file;
        a roll with no play at its end is one not played yet, and left out.
    :param rules: the rules the file does not state (default :class:`~bgfast.match.Rules`:
        Crawford, Jacoby in money play, no beavers, gnubg's dead-cube rule).
    :returns: a :class:`~bgfast.formats.match_file.MatchFile` (players from the first
        game's score line).
    :raises InvalidMatchFileError: not a ``.mat`` file, a line that does not parse, an
        illegal play or cube action, a score line that does not follow from the games
        before; the message starts with ``FILE: line N:``.
    """
    text, source = read_text(path_or_file, "<mat>")
    return parse_mat(text, rules=rules, source=source, unfinished=unfinished)
