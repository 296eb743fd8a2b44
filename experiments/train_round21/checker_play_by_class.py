"""Checker-play error by position class, for the bots named, paired with the second.

The 1,797 decisions of ``experiments/checker_play/`` from games between other bots
(heuristic and pubeval), each bot's play valued by gnubg-nn at 2 plies against the best
play of ``errors.csv`` (as ``tools/checker_play_error.py rejudge`` does), in millipoints
a decision, per class of ``bgfast.position_class.classify``.  Run from the repository root:

    python experiments/train_round21/checker_play_by_class.py neural:ply=1 \
        neural:weights=experiments/train_round21/start-round20.bgw,ply=1 gnubg:ply=1
"""
from __future__ import annotations

import csv
import math
import sys
from collections import defaultdict
from pathlib import Path

import gnubg_nn
import numpy as np

sys.path.insert(0, "tools")
from checker_play_error import _after_equity, read_decisions  # noqa: E402

from bgfast.bots import get_bot  # noqa: E402
from bgfast.dice import Dice  # noqa: E402
from bgfast.match import MatchState  # noqa: E402
from bgfast.position import Position  # noqa: E402
from bgfast.position_class import classify  # noqa: E402

SET = Path("experiments/checker_play")
PAIRINGS = {"heuristic-heuristic", "heuristic-pubeval", "pubeval-pubeval"}


def _mean_se(values: list[float]) -> tuple[float, float]:
    a = np.array(values)
    return float(a.mean()), float(a.std(ddof=1) / math.sqrt(len(a))) if len(a) > 1 else 0.0


def main(names: list[str]) -> None:
    with (SET / "errors.csv").open(encoding="ascii") as f:
        table = list(csv.DictReader(f))
    rows = [(d, t) for d, t in zip(read_decisions(SET / "decisions.csv"), table) if d["pairing"] in PAIRINGS]
    gnubg_nn.set.score(0, 0)
    gnubg_nn.set.cube(1)
    bots = {name: get_bot(name, cube="never") for name in names}
    judged: dict[bytes, float] = {}
    errors: dict[str, dict[str, list[float]]] = {name: defaultdict(list) for name in names}
    for decision, best in rows:
        position = Position.from_id(decision["position_id"])
        dice = Dice.parse(decision["dice"])
        kind = classify(position).value
        for name, bot in bots.items():
            play = bot.choose_move(position, dice, MatchState()).position
            if play.to_bytes() not in judged:
                judged[play.to_bytes()] = _after_equity(gnubg_nn, play, 2)
            error = 1000 * (float(best["best_equity"]) - judged[play.to_bytes()])
            errors[name][kind].append(error)
            errors[name]["all"].append(error)
    print(f"{len(rows):,} decisions; error (mp) a decision ± its standard error (decisions)")
    for kind in sorted(errors[names[0]]):
        cells = []
        for name in names:
            mean, se = _mean_se(errors[name][kind])
            cells.append(f"{name}: {mean:.2f} ± {se:.2f} ({len(errors[name][kind])})")
        if len(names) > 1:
            diff, se = _mean_se([a - b for a, b in zip(errors[names[0]][kind], errors[names[1]][kind])])
            cells.append(f"first minus second: {diff:+.2f} ± {se:.2f}")
        print(f"{kind:<16}" + "; ".join(cells))


if __name__ == "__main__":
    main(sys.argv[1:])
