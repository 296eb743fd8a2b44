"""Positions drawn from varied games: where the equity yardstick and the rollout-labelled
training data find their positions.

:func:`sample_positions` plays cubeless money games (no Jacoby rule) between the bots of
some pairings, in turn, each game from one of three kinds of start (:data:`STARTS`): the
opening roll, one of the given openings (by default :func:`standard_openings`), or a
*scrambled start*, the position after
:data:`SCRAMBLE_TURNS` turns of two random bots (hits and odd structures: where most back
games come from).  It keeps, from the view of the side on roll before its roll, each
position whose class (:func:`bgfast.position_class.classify`) still wants positions: at
most ``per_game`` of one class a game, drawn at random among the game's positions of that
class (the draw seeded by the seed and the game's number), no position twice, none of
``exclude``, and no race that both sides bear off in their home boards (the bear-off
database's ground, exact for every evaluator).  It stops when every class has its quota or
after ``max_games`` games: rare classes are not constructed, only taken more readily.
Rows come class by class in turn (one of each class, then the next of each), so that any
first N rows cover the classes alike.

No evaluation picks a position: only the bots' play and the dice do.
"""
from __future__ import annotations

import random
from collections.abc import Callable, Collection, Mapping, Sequence
from importlib import resources

from bgfast.bots import get_bot
from bgfast.game import MatchPlayer
from bgfast.match import Rules
from bgfast.position import Position
from bgfast.position_class import PositionClass, classify

YARDSTICK_PAIRINGS: tuple[tuple[str, str], ...] = (
    ("heuristic", "pubeval"), ("pubeval", "pubeval"), ("heuristic", "heuristic"),
    ("gnubg", "heuristic"), ("gnubg", "pubeval"))
"""The yardstick's games: bots other than the neural net (``gnubg`` = gnubg-nn 0-ply, which
only plays there), cubeless."""

TRAINING_PAIRINGS: tuple[tuple[str, str], ...] = (
    ("neural", "neural"), ("neural", "pubeval"), ("heuristic", "pubeval"), ("neural", "heuristic"),
    ("pubeval", "pubeval"), ("heuristic", "heuristic"))
"""The rollout-labelled training data's games: bgfast's own bots against each other and
themselves, never another engine."""

STARTS = ("opening", "standard", "scrambled")
"""Where a game starts: the opening roll, a standard opening, a scrambled start."""

SCRAMBLE_TURNS = 6
"""Turns of random play that make a scrambled start."""

PER_GAME = 2
"""At most this many positions of one class from one game (the default)."""


def standard_openings() -> list[Position]:
    """The 15 non-double opening rolls as experts play them (``bgfast/data/openings/standard.txt``,
    which ``tournaments/openings/standard.txt`` links to), in file order."""
    from bgfast.tournament.openings import parse_openings

    text = (resources.files("bgfast") / "data" / "openings" / "standard.txt").read_text(encoding="utf-8")
    return [opening.position for opening in parse_openings(text, source="standard.txt", match_length=None)]


def _bearoff_race(pos: Position) -> bool:
    opp, mover = pos.board
    return pos.is_race() and not any(opp[6:]) and not any(mover[6:])


def _scrambled(scrambler: MatchPlayer, seed: int, game: int) -> Position | None:
    """The position after SCRAMBLE_TURNS turns of random play, the side to play next on roll
    (its opponent made the last move), or None when the game ended first."""
    turns = [t for t in scrambler.history(seed, game).games[0] if t.action == "move"]
    if len(turns) <= SCRAMBLE_TURNS:
        return None
    return turns[SCRAMBLE_TURNS].position


def sample_positions(per_class: int | Mapping[PositionClass, int], seed: int, max_games: int, *,
                     pairings: Sequence[tuple[str, str]] = YARDSTICK_PAIRINGS, per_game: int = PER_GAME,
                     exclude: Collection[str] = (), openings: Sequence[Position] | None = None,
                     say: Callable[[str], object] | None = print) -> list[dict[str, str]]:
    """Rows ``{"position_id", "class", "source"}`` (``source`` = ``pairing/start/seed/game``)
    of positions drawn as the module says: ``per_class`` of each class (a number, or one per
    class; a class left out of the mapping gets none), games ``0, 1, ...`` of run ``seed``.
    ``openings`` default to :func:`standard_openings`.  ``say`` hears the progress every
    2,000 games and at the end."""
    quota = {c: (per_class.get(c, 0) if isinstance(per_class, Mapping) else per_class) for c in PositionClass}
    rules = Rules(jacoby=False)
    players = [(f"{a}-{b}", MatchPlayer(get_bot(a, cube="never"), get_bot(b, cube="never"), rules=rules))
               for a, b in pairings]
    scrambler = MatchPlayer(get_bot("random"), get_bot("random"), rules=rules)
    openings = list(standard_openings() if openings is None else openings)
    found: dict[PositionClass, list[dict[str, str]]] = {c: [] for c in PositionClass}
    seen: set[str] = set(exclude)
    game = 0
    while game < max_games and any(len(found[c]) < quota[c] for c in PositionClass):
        name, player = players[game % len(players)]
        start_kind = STARTS[(game // len(players)) % len(STARTS)]
        start: Position | None = None
        if start_kind == "standard":
            start = openings[(game // (len(players) * len(STARTS))) % len(openings)]
        elif start_kind == "scrambled":
            start = _scrambled(scrambler, seed, game)
        history = player.history(seed, game) if start is None else player.history_from(start, seed, game)
        candidates: dict[PositionClass, list[Position]] = {}
        for turn in history.games[0]:
            pos = turn.position
            if turn.action != "move" or pos.is_over() or _bearoff_race(pos):
                continue
            candidates.setdefault(classify(pos), []).append(pos)
        pick = random.Random(seed * 1_000_003 + game)
        for cls, positions in candidates.items():
            fresh = list(dict.fromkeys(p for p in positions if p.id() not in seen))
            for pos in pick.sample(fresh, max(0, min(per_game, len(fresh), quota[cls] - len(found[cls])))):
                seen.add(pos.id())
                found[cls].append({"position_id": pos.id(), "class": cls.value,
                                   "source": f"{name}/{start_kind}/{seed}/{game}"})
        game += 1
        if game % 2000 == 0 and say is not None:
            say(f"{game:,} games: " + ", ".join(f"{c.value} {len(r)}" for c, r in found.items()))
    if say is not None:
        say(f"{game:,} games: " + ", ".join(f"{c.value} {len(r)}" for c, r in found.items()))
    rows: list[dict[str, str]] = []
    for k in range(max(quota.values(), default=0)):
        rows.extend(found[c][k] for c in PositionClass if k < len(found[c]))
    return rows
