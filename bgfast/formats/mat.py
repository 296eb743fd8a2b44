"""Matches as Jellyfish ``.mat`` text, the exchange format GNU Backgammon, eXtreme Gammon
and BGBlitz import.

The layout, one game after another::

     7 point match

     Game 1
     alice : 0                        bob : 0
      1) 31: 8/5 6/5                  64: 24/18 13/9
      2) 52: 13/8 13/11               Doubles => 2
      3)  Takes                       66: 24/18 24/18 13/7 13/7
     ...
          Wins 2 points

Each numbered line holds one action of each player: the left column is
player 0 (``players[0]``), the right column player 1.  An action is a roll and
its play (``54: 24/20 13/8``; a roll that cannot be played is just ``54:``),
``Doubles => 4``, ``Takes``, ``Drops`` or ``Beavers => 4``.  Plays list one
checker step per die, ``*`` marking a hit, the bar as 25 and off as 0, as
Jellyfish wrote them.  ``Wins N point(s)`` ends a game under its winner's
column, with ``and the match`` after the last one; a game that ends with
``Drops`` has no ``Wins`` line (GNU Backgammon's importer would score it
again as a resignation, and stop early at match point).  A money game (length 0)
is written as a ``0 point match``.

The moves come from :func:`bgfast.game.play_match_with_history`; a plain
:class:`~bgfast.game.MatchRecord` holds only the results.

>>> from bgfast.bots import get_bot
>>> from bgfast.game import play_match_with_history
>>> pubeval = get_bot("pubeval", cube="never")
>>> h = play_match_with_history(pubeval, pubeval, length=3, seed=2)
>>> text = mat_text(h.record, players=("alice", "bob"), moves=h.games)
>>> print("\\n".join(text.splitlines()[:6]))
 3 point match
<BLANKLINE>
 Game 1
 alice : 0                       bob : 0
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

_NUMBER = 3          # width of the turn number: "  1) "
_COLUMN = 28         # width of the left player's column
_INDENT = " " * (_NUMBER + 2)


def _cell(turn: Turn) -> str:
    if turn.action == "move":
        assert turn.dice is not None and turn.move is not None
        steps = " ".join(f"{s.src}/{s.dst}{'*' if s.hit else ''}" for s in turn.move.checker_moves)
        return f"{turn.dice.high}{turn.dice.low}: {steps}".rstrip()
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


def _game_lines(number: int, score: tuple[int, int], names: tuple[str, str], turns: Sequence[Turn],
                winner: int, points: int, last: bool) -> list[str]:
    lines = ["", f" Game {number}"]
    head = f" {names[0]} : {score[0]}"
    lines.append(head.ljust(_NUMBER + 2 + _COLUMN) + ("" if len(head) < _NUMBER + 2 + _COLUMN else "  ")
                 + f"{names[1]} : {score[1]}")
    cells: list[str] = [] if not turns or turns[0].player == 0 else [""]
    for turn in turns:
        if len(cells) % 2 != turn.player:
            raise ValueError(f"game {number}: the players' actions do not alternate at {turn!r}")
        cells.append(_cell(turn))
    for row in range(0, len(cells), 2):
        left = cells[row]
        right = cells[row + 1] if row + 1 < len(cells) else ""
        if right:  # a long left cell still leaves two spaces before the right one
            left = left.ljust(_COLUMN) if len(left) <= _COLUMN - 2 else left + "  "
        text = f"{row // 2 + 1:{_NUMBER}d}) " + left + right
        lines.append(text.rstrip())
    if turns and turns[-1].action == "pass":
        return lines  # "Drops" ends the game: gnubg would score a "Wins" line after it again
    result = f"Wins {points} point{'s' if points != 1 else ''}" + (" and the match" if last else "")
    lines.append(_INDENT + " " + (" " * _COLUMN if winner == 1 else "") + result)
    return lines


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
    lines = [f" {record.length} point match"]
    score = (0, 0)
    for i, (game, turns) in enumerate(zip(record.games, moves)):
        last = record.length > 0 and i == len(record.games) - 1
        lines += _game_lines(game.number, score, names, turns, game.winner, game.points, last)
        score = game.score_after
    return "\n".join(lines) + "\n\n"


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
