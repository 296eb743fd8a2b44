"""Matches of every kind, for the format tests (tests/test_mat_gnubg.py, tests/test_sgf.py):
money and match play, doubles, takes, drops by either player, beavers, the Crawford game,
gammons, backgammons, dances, bear-offs, variants and starts from a position.

Imported as ``from match_cases import ...`` (tests/ is on sys.path).
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from bgfast.bots import Bot, CubeResponse, get_bot
from bgfast.game import MatchHistory, MatchPlayer, play_match_with_history
from bgfast.match import MatchState, Rules
from bgfast.position import Position


class PipCubeBot(Bot):
    """Plays like cubeless pubeval; doubles when 12+ pips ahead, passes when 30+ behind
    (beavers instead of taking when ``beaver``)."""

    name = "pipcube"

    def __init__(self, beaver: bool = False, lead: int = 12) -> None:
        self.pubeval = get_bot("pubeval", cube="never")
        self.beaver = beaver
        self.lead = lead

    def choose_move(self, position, dice, match):  # type: ignore[no-untyped-def]
        return self.pubeval.choose_move(position, dice, match)

    def should_double(self, position: Position, match: MatchState) -> bool:
        theirs, mine = position.pip_count()
        return mine + self.lead <= theirs

    def accept_double(self, position: Position, match: MatchState) -> CubeResponse:
        theirs, doubler = position.pip_count()  # the doubler is on roll
        if doubler + 30 <= theirs:
            return CubeResponse.PASS
        return CubeResponse.BEAVER if self.beaver else CubeResponse.TAKE


def standard_cases() -> Iterator[tuple[str, MatchHistory, Rules]]:
    """``(label, history, rules)`` of standard backgammon matches from the opening roll
    with the Crawford rule (what a .mat file can hold)."""
    pip, beaverer = PipCubeBot(), PipCubeBot(beaver=True)
    heuristic, weak_cube = get_bot("heuristic"), get_bot("heuristic", cube="janowski", cube_efficiency=0.2)
    pubeval, random_bot = get_bot("pubeval"), get_bot("random")
    for seed in range(10):
        yield f"pipcube-7-{seed}", play_match_with_history(pip, pip, length=7, seed=seed), Rules()
    for seed in range(3):
        yield f"heuristic-5-{seed}", play_match_with_history(heuristic, weak_cube, length=5, seed=seed), Rules()
        yield f"pubeval-random-3-{seed}", play_match_with_history(pubeval, random_bot, length=3, seed=seed), Rules()
        yield f"random-pubeval-1-{seed}", play_match_with_history(random_bot, pubeval, length=1, seed=seed), Rules()
    for seed in range(3):
        rules = Rules(beaver=True, jacoby=bool(seed % 2))
        seats = (pip, beaverer) if seed % 2 else (beaverer, pip)
        yield f"beaver-money-{seed}", play_match_with_history(*seats, length=0, seed=seed, rules=rules), rules
        rules = Rules(jacoby=bool(seed % 2))
        yield (f"random-money-{seed}", play_match_with_history(random_bot, pubeval, length=0, seed=seed + 10,
                                                                rules=rules), rules)
    eager = PipCubeBot(lead=-200)   # doubles whenever it may, dead cubes too
    for seed in range(2):
        rules = Rules(dead_cube="allow")
        yield f"dead-cube-allow-5-{seed}", play_match_with_history(eager, pip, length=5, seed=seed, rules=rules), rules


def other_cases() -> Iterator[tuple[str, MatchHistory, Rules]]:
    """``(label, history, rules)`` that a .mat file cannot hold: no Crawford rule, variants, a
    money game or a match from a position (an opening), the maximum cube."""
    pip, heuristic = PipCubeBot(), get_bot("heuristic")
    for seed in range(2):
        rules = Rules(crawford=False)
        yield f"no-crawford-5-{seed}", play_match_with_history(pip, pip, length=5, seed=seed, rules=rules), rules
        rules = Rules(variant="nackgammon")
        yield f"nackgammon-5-{seed}", play_match_with_history(pip, heuristic, length=5, seed=seed, rules=rules), rules
        rules = Rules(variant="hypergammon")
        yield f"hypergammon-3-{seed}", play_match_with_history(heuristic, pip, length=3, seed=seed, rules=rules), rules
    for seed, pid in enumerate(("0HPkATDgc/ABMA", "4PPgAyDgc/ABMA", "4HPhASLgc/ABMA")):
        rules = Rules()
        player = MatchPlayer(pip, heuristic, length=0, rules=rules)
        yield f"opening-money-{seed}", player.history_from(Position(pid), seed=seed, index=seed), rules
        player = MatchPlayer(pip, heuristic, length=5, rules=rules)
        yield f"opening-match-5-{seed}", player.history_from(Position(pid), seed=seed, index=seed), rules


def features(history: MatchHistory) -> Counter[str]:
    """What a match shows: cube actions by each player, the Crawford game, gammons, dances..."""
    seen: Counter[str] = Counter()
    for record, turns in zip(history.record.games, history.games):
        seen[record.kind] += 1
        if record.crawford:
            seen["crawford"] += 1
        for turn in turns:
            seen[f"{turn.action}{turn.player}"] += 1
            if turn.action == "move" and turn.move is not None:
                if not turn.move.checker_moves:
                    seen["dance"] += 1
                if any(s.dst == 0 for s in turn.move.checker_moves):
                    seen["bear-off"] += 1
                if any(s.src == 25 for s in turn.move.checker_moves):
                    seen["enter"] += 1
                if any(s.hit for s in turn.move.checker_moves):
                    seen["hit"] += 1
    return seen
