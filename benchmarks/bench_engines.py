"""Outside engines: the cost of the UBGI protocol, and the GNU Backgammon program's speed.

Run with ``pytest benchmarks/bench_engines.py``.  Each round plays money games 0..59 of
run seed 1 between pubeval and the heuristic bot (cube as their defaults, Jacoby rule
off): in process, with pubeval in its Python path (the same decisions one by one), and
with pubeval served by ``bgfast engine`` and seated through a UBGI client.  Before timing,
each suite checks that the games are exactly those of the in-process round.
``extra_info`` holds the games and the engine decisions of a round, so the protocol's
cost per decision is ``(mean(ubgi) - mean(python path)) / decisions``.
"""
from __future__ import annotations

import sys
from typing import Any

import pytest

from bgfast.bots import get_bot
from bgfast.bots.base import Bot
from bgfast.engines.ubgi_client import UbgiBot
from bgfast.game import MatchPlayer
from bgfast.match import Rules

SEED, GAMES = 1, 60
RULES = Rules(jacoby=False)


class _PythonPath(Bot):
    """pubeval through the Python callback path of the game loop (no fast path)."""

    name = "pubeval-python"

    def __init__(self) -> None:
        self.inner = get_bot("pubeval")

    def choose_move(self, position: Any, dice: Any, match: Any) -> Any:
        return self.inner.choose_move(position, dice, match)

    def should_double(self, position: Any, match: Any) -> bool:
        return self.inner.should_double(position, match)

    def accept_double(self, position: Any, match: Any) -> Any:
        return self.inner.accept_double(position, match)


def _round(player: MatchPlayer, bot: object) -> list[tuple[int, ...]]:
    rows = []
    for index in range(GAMES):
        if isinstance(bot, UbgiBot):
            bot.new_match()
        rows.append(tuple(player.play(SEED, index)))
    return rows


@pytest.fixture(scope="module")
def reference() -> list[tuple[int, ...]]:
    return _round(MatchPlayer(get_bot("pubeval"), get_bot("heuristic"), length=0, rules=RULES), None)


def test_pubeval_vs_heuristic_in_process(benchmark: Any, reference: list[tuple[int, ...]]) -> None:
    player = MatchPlayer(get_bot("pubeval"), get_bot("heuristic"), length=0, rules=RULES)
    benchmark.extra_info.update(games=GAMES)
    assert benchmark(_round, player, None) == reference


def test_pubeval_vs_heuristic_python_path(benchmark: Any, reference: list[tuple[int, ...]]) -> None:
    player = MatchPlayer(_PythonPath(), get_bot("heuristic"), length=0, rules=RULES)
    benchmark.extra_info.update(games=GAMES)
    assert benchmark(_round, player, None) == reference


def test_pubeval_vs_heuristic_through_bgfast_engine(benchmark: Any, reference: list[tuple[int, ...]]) -> None:
    bot = UbgiBot([sys.executable, "-m", "bgfast.engines.ubgi_server", "--bot", "pubeval"])
    player = MatchPlayer(bot, get_bot("heuristic"), length=0, rules=RULES)
    assert _round(player, bot) == reference
    before = bot.counters.decisions
    _round(player, bot)
    benchmark.extra_info.update(games=GAMES, decisions=bot.counters.decisions - before)
    assert benchmark(_round, player, bot) == reference
    bot.close()
