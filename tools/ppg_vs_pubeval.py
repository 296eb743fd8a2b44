"""Points per game of a bot against pubeval: paired cubeless money games, with the standard error.

Game ``i`` of run ``--seed`` is played twice with the same dice, the bot in seat 0
and then in seat 1; a pair's result is the mean of the two, and the standard
error is that of the mean over pairs.  No Jacoby rule, no cube.

    python tools/ppg_vs_pubeval.py --bot heuristic --games 100000 --seed 1
"""
from __future__ import annotations

import argparse
import math
import time

from bgfast.bots import Bot, get_bot
from bgfast.game import MatchPlayer
from bgfast.match import Rules


def paired_ppg(bot: str | Bot, games: int, seed: int) -> tuple[float, float, int]:
    """``(ppg, standard error, pairs)`` of ``bot`` (a name, played cubeless, or a bot) against
    pubeval over ``games`` games."""
    rules = Rules(jacoby=False)
    ours = get_bot(bot, cube="never") if isinstance(bot, str) else bot
    pub = get_bot("pubeval", cube="never")
    first, second = MatchPlayer(ours, pub, rules=rules), MatchPlayer(pub, ours, rules=rules)
    pairs = games // 2
    total = total_sq = 0.0
    for i in range(pairs):
        a, b = first.play(seed, i), second.play(seed, i)
        d = ((a.score0 - a.score1) + (b.score1 - b.score0)) / 2
        total += d
        total_sq += d * d
    mean = total / pairs
    var = (total_sq - pairs * mean * mean) / (pairs - 1)
    return mean, math.sqrt(var / pairs), pairs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bot", default="heuristic")
    ap.add_argument("--games", type=int, default=100000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    t = time.time()
    ppg, se, pairs = paired_ppg(args.bot, args.games, args.seed)
    print(f"{args.bot} vs pubeval: {ppg:+.4f} +- {se:.4f} ppg over {2 * pairs} games "
          f"({pairs} pairs, seed {args.seed}, {time.time() - t:.0f}s)")


if __name__ == "__main__":
    main()
