"""Checker play at 1 and 2 plies when a play's 0-ply (or 1-ply) value is weighed in.

The 1,797 decisions of ``experiments/checker_play/`` from games between other bots
(heuristic and pubeval).  For each, the plays the 0-ply filter keeps (gnubg's default: the
best 8 within 0.16 at 0 ply) are valued by the net at 0, 1 and 2 plies, and each is judged
by gnubg-nn at 2 plies (as ``tools/checker_play_error.py rejudge`` does: the error is the
best play of ``errors.csv`` less the chosen play's equity, in millipoints).  A choice ranks
the kept plays by ``w0 v0 + w1 v1 + w2 v2``; the table gives its mean error a decision and
its paired difference from the plain choice at that depth.  Run from the repository root:

    python experiments/zero_ply_weight/weights_on_checker_play.py [--weights FILE]

(about 5 minutes on 2 cores; ``checker_play.txt`` is its output for the shipped net).
"""
from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

import gnubg_nn
import numpy as np

sys.path.insert(0, "tools")
from checker_play_error import _after_equity, read_decisions  # noqa: E402

from bgfast.analysis.judge import Judge  # noqa: E402
from bgfast.dice import Dice  # noqa: E402
from bgfast.position import Position  # noqa: E402
from bgfast.position_class import classify  # noqa: E402

SET = Path("experiments/checker_play")
PAIRINGS = {"heuristic-heuristic", "heuristic-pubeval", "pubeval-pubeval"}
CHOICES = {
    1: [(0.0, 1.0, 0.0), (0.1, 0.9, 0.0), (0.2, 0.8, 0.0), (0.3, 0.7, 0.0), (0.5, 0.5, 0.0), (1.0, 0.0, 0.0)],
    2: [(0.0, 0.0, 1.0), (0.1, 0.0, 0.9), (0.2, 0.0, 0.8), (0.0, 0.1, 0.9), (0.0, 0.2, 0.8), (0.1, 0.1, 0.8)],
}


def values(spec: str) -> list[tuple[str, list[tuple[float, float, float, float]]]]:
    """Per decision its class and, per kept play, (v0, v1, v2, gnubg-nn 2-ply error)."""
    with (SET / "errors.csv").open(encoding="ascii") as f:
        table = list(csv.DictReader(f))
    rows = [(d, t) for d, t in zip(read_decisions(SET / "decisions.csv"), table) if d["pairing"] in PAIRINGS]
    gnubg_nn.set.score(0, 0)
    gnubg_nn.set.cube(1)
    judges = [Judge.resolve(spec, ply) for ply in (0, 1, 2)]
    out = []
    for decision, best in rows:
        pos = Position.from_id(decision["position_id"])
        dice = Dice.parse(decision["dice"])
        moves = pos.legal_moves(dice.high, dice.low)
        v0 = [judges[0].after_play(m.position).equity() for m in moves]
        kept = [i for i in sorted(range(len(moves)), key=lambda i: -v0[i])[:8] if v0[i] >= max(v0) - 0.16]
        plays = []
        for i in kept:
            after = moves[i].position
            error = 1000 * (float(best["best_equity"]) - _after_equity(gnubg_nn, after, 2))
            plays.append((v0[i], judges[1].after_play(after).equity(), judges[2].after_play(after).equity(), error))
        out.append((classify(pos).value, plays))
    return out


def error_of(plays: list[tuple[float, float, float, float]], w: tuple[float, float, float]) -> float:
    return max(plays, key=lambda p: w[0] * p[0] + w[1] * p[1] + w[2] * p[2])[3]   # the first of the best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--weights", help="a weights file (default: the shipped net)")
    args = parser.parse_args()
    spec = "neural" if args.weights is None else f"neural:weights={args.weights}"
    data = values(spec)
    print(f"{len(data):,} decisions; error (mp) a decision; paired difference from the plain choice ± its standard error")
    for ply, choices in CHOICES.items():
        plain = np.array([error_of(p, choices[0]) for _, p in data])
        contact = np.array([kind == "contact" for kind, _ in data])
        for w in choices:
            e = np.array([error_of(p, w) for _, p in data])
            d = e - plain
            se = d.std(ddof=1) / np.sqrt(len(d))
            sc = d[contact].std(ddof=1) / np.sqrt(contact.sum())
            print(f"{ply} ply, weights (0 ply, 1 ply, 2 plies) {w}: {e.mean():.2f}  {d.mean():+.2f} ± {se:.2f}  "
                  f"contact {e[contact].mean():.2f} ({d[contact].mean():+.2f} ± {sc:.2f})  "
                  f"changed {np.mean(d != 0):.1%}")


if __name__ == "__main__":
    main()
