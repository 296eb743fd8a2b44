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

:func:`odd_variants` makes positions no game between these bots reaches, from drawn ones:
one side's checkers piled onto its bar or into a tower on one point, where a net's inputs
for a point's count run past anything its games showed it.

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


ODD_KINDS = ("bar", "tower")
"""How :func:`odd_variants` changes a position: checkers piled onto the bar, or into a tower."""


def odd_variants(position_ids: Sequence[str], count: int, seed: int, *,
                 exclude: Collection[str] = ()) -> list[dict[str, str]]:
    """``count`` rows ``{"position_id", "class", "source"}`` of odd positions made from
    ``position_ids`` (drawn positions, the side on roll's view; a seeded choice of them):
    one side (either, at random) moves 2 to 14 of its checkers on the board (:data:`ODD_KINDS`)
    onto its bar, or onto one of its points (one it holds, or an empty one) so that the
    point holds 6 to 15.  Checkers borne off stay off; no point is ever held by both sides.
    A variant that is a finished game, or in ``exclude``, or made twice, is skipped, so
    fewer may come back (``source`` is ``odd/KIND/seed/index``).

    >>> rows = odd_variants(["4HPwATDgc/ABMA"], 3, seed=1)
    >>> len(rows), {r["source"].split("/")[1] for r in rows} <= set(ODD_KINDS)
    (3, True)
    """
    rng = random.Random(seed * 1_000_003 + 17)
    seen = set(exclude)
    rows: list[dict[str, str]] = []
    tries = 0
    while len(rows) < count and position_ids and tries < 20 * count:
        tries += 1
        board = [list(side) for side in Position.from_id(rng.choice(position_ids)).board]
        side = rng.randrange(2)
        mine, theirs = board[side], board[1 - side]
        on_points = [p for p in range(24) for _ in range(mine[p])]
        if len(on_points) < 2:
            continue
        kind = rng.choice(ODD_KINDS)
        if kind == "bar":
            moved = rng.sample(on_points, rng.randint(2, min(14, len(on_points))))
            for p in moved:
                mine[p] -= 1
            mine[24] += len(moved)
        else:
            open_points = [p for p in range(24) if theirs[23 - p] == 0]
            target = rng.choice(open_points)
            others = [p for p in on_points if p != target]
            low, high = max(6, mine[target] + 1), min(15, mine[target] + len(others))
            if low > high:
                continue
            want = rng.randint(low, high)
            for p in rng.sample(others, want - mine[target]):
                mine[p] -= 1
            mine[target] = want
        pos = Position.from_board(board)
        if pos.is_over() or pos.id() in seen:
            continue
        seen.add(pos.id())
        rows.append({"position_id": pos.id(), "class": classify(pos).value, "source": f"odd/{kind}/{seed}/{len(rows)}"})
    return rows

