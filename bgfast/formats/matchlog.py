"""A played match as text or JSON: the log ``bgfast play`` prints.

Both renderings are pure functions of a :class:`~bgfast.game.MatchRecord` and the two
player names, so the same match always prints the same bytes.  Seats are player 0 and
player 1 throughout, and scores are written in that order (player 0 first).

>>> from bgfast.game import CubeAction, GameRecord, MatchRecord
>>> game = GameRecord(number=1, crawford=False, cube=2, doubles=(CubeAction(1, True),),
...                   points=4, winner=0, kind="gammon", score_after=(4, 0))
>>> record = MatchRecord(length=3, seed=42, index=0, score=(4, 0), winner=0, games=(game,))
>>> print(match_text(record, ["pubeval", "random"]))
3-point match, seed 42, index 0: pubeval (player 0) vs random (player 1)
Game 1: random doubles to 2, pubeval takes. pubeval wins a gammon, 4 points. Score 4-0.
pubeval wins the match 4-0.
>>> match_json(record, ["pubeval", "random"])[:60]
'{"length": 3, "seed": 42, "players": ["pubeval", "random"], '
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from bgfast.game import GameRecord, MatchRecord

__all__ = ["game_line", "match_dict", "match_json", "match_text", "points_text"]

_KIND_WORDS = {"single": "a single game", "gammon": "a gammon", "backgammon": "a backgammon"}


def match_dict(record: MatchRecord, players: Sequence[str]) -> dict[str, Any]:
    """The match as plain data (what :func:`match_json` prints).

    Keys: ``length`` (0 = money game), ``seed``, ``players`` (player 0, player 1),
    ``score`` (final, player 0 first; a score past the length is kept), ``winner``
    (0 or 1), and ``games``, each with ``number`` (from 1), ``crawford``, ``cube`` (the
    value the game was played for: a passed double does not raise it), ``doubles``
    (``{"by": seat, "taken": bool}`` in order; a beaver is a take that quadruples the
    cube), ``points`` (won by ``winner``), ``winner``, ``kind`` (``"single"``,
    ``"gammon"``, ``"backgammon"`` or ``"pass"``) and ``score_after``.

    :raises ValueError: ``players`` is not two names.
    """
    names = _names(players)
    return {
        "length": record.length,
        "seed": record.seed,
        "players": names,
        "score": list(record.score),
        "winner": record.winner,
        "games": [
            {
                "number": g.number,
                "crawford": g.crawford,
                "cube": g.cube,
                "doubles": [{"by": d.by, "taken": d.taken} for d in g.doubles],
                "points": g.points,
                "winner": g.winner,
                "kind": g.kind,
                "score_after": list(g.score_after),
            }
            for g in record.games
        ],
    }


def match_json(record: MatchRecord, players: Sequence[str]) -> str:
    """The match as one line of JSON (keys in the order of :func:`match_dict`).

    :raises ValueError: ``players`` is not two names.
    """
    return json.dumps(match_dict(record, players))


def _names(players: Sequence[str]) -> list[str]:
    names = [str(p) for p in players]
    if len(names) != 2:
        raise ValueError(f"a match has two players, got {list(players)!r}")
    return names


def _labels(players: Sequence[str]) -> list[str]:
    """Names to write in sentences: the names, or ``name (0)`` / ``name (1)`` when they are the same."""
    names = _names(players)
    if names[0] == names[1]:
        return [f"{names[0]} ({seat})" for seat in (0, 1)]
    return names


def points_text(n: int) -> str:
    """``1 point``, ``2 points``: a score or a game's worth in words."""
    return f"{n} point" if n == 1 else f"{n} points"


def game_line(game: GameRecord, players: Sequence[str]) -> str:
    """One game in words: its cube actions, who won what, and the score after it.

    >>> from bgfast.game import CubeAction, GameRecord
    >>> g = GameRecord(number=5, crawford=True, cube=1, doubles=(), points=1, winner=1,
    ...                kind="single", score_after=(6, 5))
    >>> game_line(g, ["pubeval", "pubeval"])
    'Game 5 (Crawford): pubeval (1) wins a single game, 1 point. Score 6-5.'
    """
    who = _labels(players)
    parts = [f"Game {game.number}{' (Crawford)' if game.crawford else ''}:"]
    cube = 1
    actions = []
    for d in game.doubles:
        verb = "redoubles" if cube > 1 else "doubles"
        answer = "beavers" if d.beavered else "takes" if d.taken else "passes"
        actions.append(f"{who[d.by]} {verb} to {cube * 2}, {who[1 - d.by]} {answer}")
        if d.taken:
            cube *= 4 if d.beavered else 2
    if actions:
        parts.append("; ".join(actions) + ".")
    if game.kind == "pass":
        parts.append(f"{who[game.winner]} wins {points_text(game.points)}.")
    elif game.kind == "resign":   # a game read from a file
        parts.append(f"{who[1 - game.winner]} resigns, {who[game.winner]} wins {points_text(game.points)}.")
    else:
        parts.append(f"{who[game.winner]} wins {_KIND_WORDS[game.kind]}, {points_text(game.points)}.")
    parts.append(f"Score {game.score_after[0]}-{game.score_after[1]}.")
    return " ".join(parts)


def match_text(record: MatchRecord, players: Sequence[str]) -> str:
    """The match as a readable log: a header, one line per game, the result.

    :raises ValueError: ``players`` is not two names.
    """
    who, names = _labels(players), _names(players)
    kind = "money game" if record.length == 0 else f"{record.length}-point match"
    lines = [f"{kind}, seed {record.seed}, index {record.index}: {names[0]} (player 0) vs {names[1]} (player 1)"]
    lines.extend(game_line(g, players) for g in record.games)
    a, b = record.score
    if record.length == 0:
        lines.append(f"{who[record.winner]} wins {points_text(record.score[record.winner])}.")
    else:
        won, lost = (a, b) if record.winner == 0 else (b, a)     # the winner's score first, as one says it
        lines.append(f"{who[record.winner]} wins the match {won}-{lost}.")
    return "\n".join(lines)
