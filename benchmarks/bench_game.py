"""Self-play speed: whole games in the C loop, beside a Python loop over gnubg_nn.

Run with ``pytest benchmarks/bench_game.py`` (add ``--benchmark-json=out.json`` to keep
the figures).  Each round plays games 0..199 of run seed 1, cubeless money games with
no Jacoby rule; ``extra_info`` holds the games and plies of a round, so games/s is
``games / mean``.  Before timing, each suite checks the total number of plies of its
round (and gnubg_nn's loop must play pubeval's games exactly).  The CLI prints the same
comparison as a ratio: ``bgfast bench games --bot pubeval``.
"""
from __future__ import annotations

from typing import Any

import pytest

from bgfast.bench import _peer_pass, _selfplay_pass, _selfplay_player
from bgfast.bots import get_bot
from bgfast.game import MatchPlayer

SEED, GAMES = 1, 200
PLIES = {"random": 19_041, "pubeval": 12_391}
"""Plies in games 0..199 of seed 1 (both bots cubeless, money, no Jacoby)."""


def _selfplay(benchmark: Any, bot: str) -> None:
    player = _selfplay_player(bot)
    assert sum(p for _, p in _selfplay_pass(player, SEED, GAMES)) == PLIES[bot]
    benchmark.extra_info.update(games=GAMES, plies=PLIES[bot])
    benchmark(_selfplay_pass, player, SEED, GAMES)


def test_selfplay_random_money_games(benchmark: Any) -> None:
    _selfplay(benchmark, "random")


def test_selfplay_pubeval_money_games(benchmark: Any) -> None:
    _selfplay(benchmark, "pubeval")


def test_selfplay_gnubg_nn_pub_best_move_python_loop(benchmark: Any) -> None:
    gnubg_nn = pytest.importorskip("gnubg_nn")
    ours = _selfplay_pass(_selfplay_player("pubeval"), SEED, GAMES)
    assert _peer_pass(gnubg_nn.pub_best_move, SEED, GAMES) == ours
    benchmark.extra_info.update(games=GAMES, plies=PLIES["pubeval"])
    benchmark(_peer_pass, gnubg_nn.pub_best_move, SEED, GAMES)


def test_pubeval_seven_point_matches_with_the_keith_cube(benchmark: Any) -> None:
    player = MatchPlayer(get_bot("pubeval"), get_bot("pubeval"), length=7)

    def run() -> int:
        return sum(player.play(SEED, index).games for index in range(20))

    assert run() == 201
    benchmark.extra_info.update(matches=20, games=201)
    benchmark(run)
