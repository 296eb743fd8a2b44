"""Tournament runner speed: scaling from 1 to 2 workers, and the runner's overhead over bare self-play.

Run with ``pytest benchmarks/bench_tournament.py`` (pytest-benchmark), or as a script,
``python benchmarks/bench_tournament.py [--matches N]``, which prints the figures:

- matches/s of a tournament with 1 and with 2 workers, and their ratio (the issue asks >= 1.8);
- games/s of the runner with 1 worker as a percentage of bare self-play games/s: the same
  matches played by one :class:`~bgfast.game.MatchPlayer` loop in one process, no pool,
  no SQLite (the issue asks >= 90%).

The bots are pubeval against heuristic at one-point matches (million.toml's setting), or
pubeval against cubeless pubeval where the heuristic bot is not built.  Each figure
first checks the number of matches played, then times it.
"""
from __future__ import annotations

import argparse
import json
import sqlite3
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

from bgfast.game import MatchPlayer
from bgfast.tournament import TournamentSpec, run_tournament
from bgfast.tournament.schedule import scheduler

MATCHES = 20_000


def _players() -> list[dict[str, Any]]:
    from bgfast.bots import get_bot

    try:
        get_bot("heuristic")
        other = {"name": "heuristic", "bot": "heuristic"}
    except Exception:  # noqa: BLE001 - not built yet
        other = {"name": "cubeless", "bot": "pubeval", "cube": "never"}
    return [{"name": "pubeval", "bot": "pubeval"}, other]


def bench_spec(matches: int = MATCHES, length: int = 1) -> TournamentSpec:
    return TournamentSpec.from_dict({"name": "bench", "seed": 7, "match_length": length,
                                     "matches_per_pairing": matches, "players": _players()})


def run_runner(spec: TournamentSpec, workers: int) -> dict[str, float]:
    """Play ``spec`` into a fresh file; matches/s and games/s over the whole call."""
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.sqlite"
        start = time.perf_counter()
        standings = run_tournament(spec, db, workers=workers)
        seconds = time.perf_counter() - start
        with sqlite3.connect(db) as conn:
            games = conn.execute("SELECT SUM(games) FROM matches").fetchone()[0]
    assert standings.matches_played == spec.total_matches()
    return {"seconds": seconds, "matches_per_s": spec.total_matches() / seconds, "games_per_s": games / seconds}


def run_bare(spec: TournamentSpec) -> dict[str, float]:
    """The same matches in one MatchPlayer loop per seating: no pool, no store."""
    bots = [p.build() for p in spec.players]
    players: dict[tuple[int, int, int], MatchPlayer] = {}
    games = 0
    n = 0
    start = time.perf_counter()
    schedule, total = scheduler(spec), spec.total_matches()
    for block in range(0, total, 4096):  # the schedule's rows a block at a time, then one play call a match
        for _, _, length, dice, a, b in schedule.seat_array(block, block + 4096).tolist():
            key = (a, b, length)
            if key not in players:
                players[key] = MatchPlayer(bots[a], bots[b], length=length, rules=spec.rules)
            games += players[key].play(spec.seed, dice).games
            n += 1
    seconds = time.perf_counter() - start
    assert n == spec.total_matches()
    return {"seconds": seconds, "matches_per_s": n / seconds, "games_per_s": games / seconds}


def figures(matches: int = MATCHES) -> dict[str, Any]:
    spec = bench_spec(matches)
    bare = run_bare(spec)
    one = run_runner(spec, 1)
    two = run_runner(spec, 2)
    return {
        "players": [p.name for p in spec.players], "matches": spec.total_matches(),
        "bare": bare, "workers_1": one, "workers_2": two,
        "scaling_2_over_1": two["matches_per_s"] / one["matches_per_s"],
        "runner_games_per_s_pct_of_bare": 100.0 * one["games_per_s"] / bare["games_per_s"],
    }


# ---------------------------------------------------------------- pytest-benchmark


@pytest.fixture(scope="module")
def spec() -> TournamentSpec:
    return bench_spec()


@pytest.mark.parametrize("workers", [1, 2])
def test_tournament_matches_per_second(benchmark: Any, spec: TournamentSpec, workers: int) -> None:
    result = benchmark.pedantic(run_runner, args=(spec, workers), rounds=1, iterations=1)
    benchmark.extra_info.update(result, workers=workers, matches=spec.total_matches())


def test_bare_self_play_games_per_second(benchmark: Any, spec: TournamentSpec) -> None:
    result = benchmark.pedantic(run_bare, args=(spec,), rounds=1, iterations=1)
    benchmark.extra_info.update(result, matches=spec.total_matches())


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=MATCHES, help=f"matches per run (default {MATCHES})")
    print(json.dumps(figures(parser.parse_args().matches), indent=2))
