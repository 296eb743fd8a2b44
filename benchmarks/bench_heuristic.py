"""Speed of the heuristic bot: games per second on one core, and its cost relative to pubeval.

Run with ``pytest benchmarks/bench_heuristic.py``.  Each round plays games 0..199 of
run seed 1 (cubeless money games, no Jacoby rule) through the C loop; ``extra_info``
holds the games and plies of a round, so games/s is ``games / mean``.  Each suite
first checks the total plies of its round.  The last suite times pubeval self-play
on the same games and stores, in every heuristic suite's ``extra_info``, the ratio
``heuristic time per game / pubeval time per game`` (the issue asks for at most 3).
"""
from __future__ import annotations

from typing import Any

from bgfast.bench import _selfplay_pass, _selfplay_player
from bgfast.bots import get_bot
from bgfast.game import MatchPlayer
from bgfast.match import Rules

SEED, GAMES = 1, 200
PLIES = {"heuristic": 11_040, "heuristic-pubeval": 11_555, "pubeval": 12_391}
"""Plies in games 0..199 of seed 1 (cubeless, money, no Jacoby)."""

_MEANS: dict[str, float] = {}
_INFO: dict[str, dict[str, Any]] = {}


def _pass(player: MatchPlayer) -> int:
    return sum(p for _, p in _selfplay_pass(player, SEED, GAMES))


def _run(benchmark: Any, key: str, player: MatchPlayer) -> None:
    assert _pass(player) == PLIES[key]
    benchmark.extra_info.update(games=GAMES, plies=PLIES[key])
    benchmark(_pass, player)
    if benchmark.stats is not None:  # None under --benchmark-disable: nothing was timed
        _MEANS[key] = benchmark.stats.stats.mean / GAMES
        _INFO[key] = benchmark.extra_info


def test_selfplay_heuristic_money_games(benchmark: Any) -> None:
    _run(benchmark, "heuristic", _selfplay_player("heuristic"))


def test_heuristic_against_pubeval_money_games(benchmark: Any) -> None:
    player = MatchPlayer(get_bot("heuristic", cube="never"), get_bot("pubeval", cube="never"),
                         length=0, rules=Rules(jacoby=False))
    _run(benchmark, "heuristic-pubeval", player)


def test_selfplay_pubeval_money_games_for_the_ratio(benchmark: Any) -> None:
    _run(benchmark, "pubeval", _selfplay_player("pubeval"))
    base = _MEANS.get("pubeval")
    for key in ("heuristic", "heuristic-pubeval"):
        if key in _MEANS and base is not None:
            _INFO[key]["cost_vs_pubeval_selfplay"] = round(_MEANS[key] / base, 3)
            benchmark.extra_info[f"{key}_cost_ratio"] = round(_MEANS[key] / base, 3)


def test_heuristic_seven_point_matches_with_the_cube(benchmark: Any) -> None:
    player = MatchPlayer(get_bot("heuristic"), get_bot("heuristic"), length=7)

    def run() -> int:
        return sum(player.play(SEED, index).games for index in range(20))

    games = run()
    benchmark.extra_info.update(matches=20, games=games)
    benchmark(run)
