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

import io
import os
import re
from collections.abc import Sequence
from typing import IO, Union

from bgfast.game import MatchHistory, MatchRecord, Turn

__all__ = ["write_mat", "mat_text"]

PathOrFile = Union[str, "os.PathLike[str]", IO[str]]

_CELL = 27           # a left cell is padded to 27 characters, then one space
_HEAD = 31           # the header's left part is padded to 31 characters
_LEFT = " " * 6      # where a Wins line under the left column starts
_RIGHT = " " * 34    # ... and under the right column


def _points(points: int) -> str:
    return f"Wins {points} point{'s' if points != 1 else ''}"


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


def mat_text(record: MatchRecord | MatchHistory, *, players: tuple[object, object] = ("player0", "player1"),
             moves: Sequence[Sequence[Turn]] | None = None) -> str:
    """The ``.mat`` text of a match (see :func:`write_mat`)."""
    if isinstance(record, MatchHistory):
        moves = record.games if moves is None else moves
        record = record.record
    if moves is None:
        raise ValueError("a .mat file needs the moves: pass moves= (from play_match_with_history)")
    if len(moves) != len(record.games):
        raise ValueError(f"moves has {len(moves)} games, the record {len(record.games)}")
    names = (_name(players[0], 0), _name(players[1], 1))
    parts = [f" {record.length} point match\n\n"]
    score = (0, 0)
    for i, (game, turns) in enumerate(zip(record.games, moves)):
        last = record.length > 0 and i == len(record.games) - 1
        parts.append(_game_text(game.number, score, names, turns, game.winner, game.points, last))
        score = game.score_after
    return "".join(parts)


def write_mat(record: MatchRecord | MatchHistory, path_or_file: PathOrFile, *,
              players: tuple[object, object] = ("player0", "player1"),
              moves: Sequence[Sequence[Turn]] | None = None) -> None:
    """Write a match as a Jellyfish ``.mat`` file that GNU Backgammon imports (``import mat``).

    :param record: the match; a :class:`~bgfast.game.MatchHistory` brings its own moves.
    :param path_or_file: a path, or a text file open for writing.
    :param players: the names of player 0 (left column) and player 1; spaces
        become underscores, as the format has no quoting.
    :param moves: each game's turns (``MatchHistory.games``); required with a
        plain :class:`~bgfast.game.MatchRecord`.
    :raises ValueError: no moves, a different number of games than the record,
        or an empty player name.

    >>> import io
    >>> from bgfast.bots import get_bot
    >>> from bgfast.game import play_match_with_history
    >>> h = play_match_with_history(get_bot("pubeval", cube="never"), get_bot("random"), length=1, seed=4)
    >>> out = io.StringIO()
    >>> write_mat(h, out, players=("pubeval", "random"))
    >>> out.getvalue().splitlines()[-2]
    '      Wins 2 points and the match'
    """
    text = mat_text(record, players=players, moves=moves)
    if isinstance(path_or_file, (str, os.PathLike)):
        with open(path_or_file, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
    elif isinstance(path_or_file, io.TextIOBase) or hasattr(path_or_file, "write"):
        path_or_file.write(text)
    else:
        raise TypeError(f"write_mat needs a path or a text file, got {path_or_file!r}")
