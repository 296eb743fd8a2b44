"""GNU Backgammon as the oracle: run jobs inside the program, and the cases and digests to ask it about.

The Debian/Ubuntu package ``gnubg`` (1.07) installs ``/usr/games/gnubg``, which can run a
Python script with its ``gnubg`` module (``gnubg.command``, ``gnubg.hint``,
``gnubg.matchid``...).  :func:`run_gnubg` sends a list of items to one job of
``gnubg_jobs.py`` (which runs inside gnubg) through JSON files and returns one answer
an item.  ``requires_gnubg`` skips a test, with the reason shown in ``pytest -rs``, where
the program is not installed.

The rest is shared by the tests and ``tests/gnubg_vectors.py`` (which makes the vectors
in tests/data/ from the program): :func:`notation_digest` (the fingerprint of every
play of a position in notation), :func:`random_xgid` and :func:`random_match_state`
(the cases the XGID vectors and live tests are made of), :func:`renumbered`.
Imported as ``from gnubg_oracle import ...`` (tests/ is on sys.path).
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import random
import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from bgfast.codecs.xgid import board_to_xgid_field
from bgfast.match import MatchState
from bgfast.position import Position

GNUBG = shutil.which("gnubg") or next(
    (p for p in ("/usr/games/gnubg", "/usr/bin/gnubg") if os.access(p, os.X_OK)), None
)
"""The path of the GNU Backgammon program, or None where it is not installed."""

JOBS = Path(__file__).with_name("gnubg_jobs.py")

requires_gnubg = pytest.mark.skipif(
    GNUBG is None, reason="the GNU Backgammon program is not installed (Debian package gnubg, /usr/games/gnubg)"
)

ROLLS = [(high, low) for high in range(1, 7) for low in range(1, high + 1)]
"""The 21 rolls ``(high, low)`` in the order of :func:`notation_digest`."""


def run_gnubg(job: str, items: list[Any], timeout: float = 3600.0) -> list[Any]:
    """The answers of ``gnubg_jobs.py``'s ``job`` for ``items``, in order.

    :raises RuntimeError: gnubg is not installed, or it ended without writing the answers
        (its last output lines are in the message).
    """
    if GNUBG is None:
        raise RuntimeError("the GNU Backgammon program is not installed")
    with tempfile.TemporaryDirectory(prefix="bgfast-gnubg-") as tmp:
        request, answer = Path(tmp, "request.json"), Path(tmp, "answer.json")
        request.write_text(json.dumps({"job": job, "items": items, "answer": str(answer)}), encoding="utf-8")
        # HOME: gnubg reads and writes its settings in ~/.gnubg; keep the user's out of it
        env = {**os.environ, "BGFAST_GNUBG_REQUEST": str(request), "HOME": tmp}
        done = subprocess.run([GNUBG, "-t", "-q", "-p", str(JOBS)], env=env, cwd=tmp, stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, errors="replace", timeout=timeout)
        if not answer.exists():
            tail = "\n".join((done.stdout + done.stderr).splitlines()[-15:])
            raise RuntimeError(f"gnubg (exit {done.returncode}) wrote no answer for job {job!r}:\n{tail}")
        answers: list[Any] = json.loads(answer.read_text(encoding="utf-8"))
    if len(answers) != len(items):
        raise RuntimeError(f"gnubg answered {len(answers)} of {len(items)} items of job {job!r}")
    return answers


def notation_digest(plays: Sequence[Mapping[str, str]]) -> str:
    """16 hex digits of SHA-256 over every play of a position, in notation.

    ``plays[k]`` is ``{resulting Position ID: notation}`` for roll ``ROLLS[k]``, without
    a no-play (gnubg lists none).  The text hashed is, for each roll, a line ``HL:``
    and then one line ``ID notation`` a play, sorted.
    """
    if len(plays) != len(ROLLS):
        raise ValueError(f"a digest is over the {len(ROLLS)} rolls, got {len(plays)}")
    lines = []
    for (high, low), by_id in zip(ROLLS, plays):
        lines.append(f"{high}{low}:")
        lines.extend(f"{pid} {text}" for pid, text in sorted(by_id.items()))
    return hashlib.sha256("\n".join(lines).encode("ascii")).hexdigest()[:16]


def bgfast_plays(pos: Position, high: int, low: int) -> dict[str, str]:
    """``{resulting Position ID: str(move)}`` for bgfast's plays of a roll, without a no-play."""
    return {m.position.id(): str(m) for m in pos.legal_moves(high, low) if m.checker_moves}


def random_xgid(rng: random.Random, position_ids: Sequence[str]) -> str:
    """An XGID with every field drawn: either player on roll, cube owned by either or
    centred, dice to roll, rolled (either order) or a double pending, money or match
    scores, Crawford, the maximum cube; now and then a field gnubg or bgfast refuses
    (a score at the match length, a centred cube above 1, Crawford away from match point)."""
    pos = Position(rng.choice(list(position_ids)))
    turn = rng.choice((1, -1))
    field = board_to_xgid_field(pos.board, turn)
    length = rng.choice((0, 0, 1, 2, 3, 5, 7, 11, 25))
    cube = rng.choice((0, 0, 0, 1, 1, 2, 3, 4, 6))
    owner = rng.choice((-1, 1)) if cube else 0
    if rng.random() < 0.05:
        owner = rng.choice((-1, 0, 1))
    dice = rng.choice(("00", "D", f"{rng.randint(1, 6)}{rng.randint(1, 6)}", f"{rng.randint(1, 6)}{rng.randint(1, 6)}"))
    if length:
        top = length if rng.random() < 0.05 else length - 1
        bottom, topscore = rng.randint(0, top), rng.randint(0, length - 1)
        at_point = (bottom == length - 1) != (topscore == length - 1)
        rules = int((at_point and cube == 0 and dice != "D" and rng.random() < 0.5) or rng.random() < 0.03)
    else:
        bottom, topscore, rules = rng.randint(0, 9), rng.randint(0, 9), rng.randint(0, 3)
    max_cube = rng.choice((10, 10, 10, 3, 6, 8, 12))
    return f"XGID={field}:{cube}:{owner}:{turn}:{dice}:{bottom}:{topscore}:{rules}:{length}:{max_cube}"


def random_match_state(rng: random.Random) -> MatchState:
    """A match state an XGID can hold: a game in play, either player on roll, the cube
    centred or owned, dice to roll, rolled, or a double offered; money or match play."""
    length = rng.choice((0, 1, 3, 5, 7, 9, 15))
    on_roll = rng.randint(0, 1)
    cube = rng.choice((1, 1, 2, 4, 8, 16))
    owner = -1 if cube == 1 else rng.randint(0, 1)
    if length:
        score = (rng.randint(0, length - 1), rng.randint(0, length - 1))
        crawford = (score.count(length - 1) == 1 and cube == 1 and rng.random() < 0.5)
    else:
        score, crawford = (rng.randint(0, 9), rng.randint(0, 9)), False
    doubled = not crawford and owner != 1 - on_roll and rng.random() < 0.2
    dice = (0, 0) if doubled or rng.random() < 0.3 else (rng.randint(1, 6), rng.randint(1, 6))
    return MatchState(length=length, score=score, cube_value=cube, cube_owner=owner, crawford=crawford,
                      player_on_roll=on_roll, turn=1 - on_roll if doubled else on_roll, double_offered=doubled,
                      dice=dice, jacoby=not length and rng.random() < 0.5)


def renumbered(state: MatchState) -> MatchState:
    """``state`` with players 0 and 1 swapped (scores, cube owner, who is on roll, who acts)."""
    return dataclasses.replace(
        state, score=(state.score[1], state.score[0]), player_on_roll=1 - state.player_on_roll,
        turn=1 - state.turn, cube_owner=state.cube_owner if state.cube_owner == -1 else 1 - state.cube_owner)


def without_double(match_id: str) -> str:
    """A Match ID with a pending double withdrawn (the doubler to roll), as gnubg reads an XGID's ``D``."""
    state = MatchState.from_match_id(match_id)
    return dataclasses.replace(state, double_offered=False, turn=state.player_on_roll).match_id()


# ---------------------------------------------------------------- matches, action by action

Action = tuple[Any, ...]
"""One action of a game as both sides are compared: ``(player, kind, dice, after, board)``
(``kind`` ``move``, ``double``, ``take``, ``drop``, ``resign``, or ``set`` for a game set up
from a position; ``dice`` (high, low) and ``after`` (the Position ID the play reaches, the
mover's view) for a move; ``board`` the Position ID before a move, a double or a setup,
from the actor's side), or the game's result ``("result", score0, score1, crawford,
winner, points, resigned)`` after its actions."""


def gnubg_actions(match: Mapping[str, Any]) -> list[list[Action]]:
    """The actions of each game of a match as ``gnubg.match()`` gives it (the ``import``
    and ``selfplay`` jobs of ``gnubg_jobs.py``), in the form of :data:`Action`."""
    games = []
    for game in match["games"]:
        actions: list[Action] = []
        for action in game["game"]:
            kind, player = action["action"], "XO".index(action["player"]) if action.get("player") in ("X", "O") else None
            if kind == "move":
                dice = tuple(sorted(action["dice"], reverse=True))
                steps = " ".join(f"{a}/{b}" for a, b in action["move"])
                after = Position(action["board"]).parse_move(steps, dice).position.id()
                actions.append((player, "move", dice, after, action.get("board")))
            elif kind == "double":
                actions.append((player, "double", None, None, action.get("board")))
            elif kind in ("take", "drop", "resign"):
                actions.append((player, kind, None, None, None))
            elif kind == "set" and "board" in action:
                actions.append((None, "set", None, None, action["board"]))
            else:
                actions.append((player, kind, None, None, None))   # setboard, setdice...: shown as they are
        info = game["info"]
        winner = "XO".index(info["winner"]) if info.get("winner") in ("X", "O") else None
        actions.append(("result", info["score-X"], info["score-O"], bool(info.get("crawford", False)), winner,
                        info.get("points-won"), bool(info.get("resigned"))))
        games.append(actions)
    return games


def bgfast_actions(history: Any) -> list[list[Action]]:
    """The actions of each game of a :class:`bgfast.game.MatchHistory` as gnubg records
    them (:data:`Action`): a beaver is gnubg's second double by the doubled player and a
    take by the first doubler (its board the first doubler's, on roll), a pass is a drop,
    a resigned game ends with the loser's ``resign``, a game that does not open with the
    opening roll from a starting position (one the same from both sides) starts with ``set``."""
    games = []
    score = (0, 0)
    for record, turns in zip(history.record.games, history.games):
        actions: list[Action] = []
        first = turns[0]
        opening = (first.action == "move" and not first.dice.is_double
                   and first.position.board[0] == first.position.board[1])
        if not opening:
            actions.append((None, "set", None, None, first.position.id()))
        for turn in turns:
            if turn.action == "move":
                after = turn.move.position.id()
                actions.append((turn.player, "move", (turn.dice.high, turn.dice.low), after, turn.position.id()))
            elif turn.action == "double":
                actions.append((turn.player, "double", None, None, turn.position.id()))
            elif turn.action == "beaver":   # gnubg's board: the doubler's, on roll
                actions.append((turn.player, "double", None, None, turn.position.swap_sides().id()))
                actions.append((1 - turn.player, "take", None, None, None))
            else:
                actions.append((turn.player, {"pass": "drop"}.get(turn.action, turn.action), None, None, None))
        if record.kind == "resign":
            actions.append((1 - record.winner, "resign", None, None, None))
        actions.append(("result", score[0], score[1], record.crawford, record.winner, record.points,
                        record.kind == "resign"))
        games.append(actions)
        score = record.score_after
    return games


def compare_actions(ours: list[list[Action]], theirs: list[list[Action]]) -> tuple[int, int, list[str]]:
    """``(actions compared, actions that agree, the first differences)`` of two matches'
    :data:`Action` lists, game by game and action by action (a missing or extra action
    counts as one that disagrees)."""
    compared = agree = 0
    differences: list[str] = []
    for g in range(max(len(ours), len(theirs))):
        a = ours[g] if g < len(ours) else []
        b = theirs[g] if g < len(theirs) else []
        for k in range(max(len(a), len(b))):
            x = a[k] if k < len(a) else None
            y = b[k] if k < len(b) else None
            compared += 1
            if x == y:
                agree += 1
            elif len(differences) < 5:
                differences.append(f"game {g + 1}, action {k + 1}: bgfast {x}, gnubg {y}")
    return compared, agree, differences


def compare_matches(cases: Sequence[tuple[str, Any, Mapping[str, Any]]]) -> tuple[int, int, list[tuple[str, list[str]]]]:
    """:func:`compare_actions` over ``(label, bgfast history, gnubg's match)`` cases: the
    actions compared, those that agree, and the first differences of each case that has any."""
    compared = agree = 0
    failures = []
    for label, history, answer in cases:
        n, same, differences = compare_actions(bgfast_actions(history), gnubg_actions(answer))
        compared, agree = compared + n, agree + same
        if differences:
            failures.append((label, differences))
    return compared, agree, failures
