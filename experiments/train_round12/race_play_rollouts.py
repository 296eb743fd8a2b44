"""Where two bots' race plays differ on the checker-play set, roll both plays out.

    python experiments/train_round12/race_play_rollouts.py NEW_SPEC OLD_SPEC

For the race decisions (``bgfast.position_class``) of the checker-play set's games
without the net (experiments/checker_play/decisions.csv), each bot's play; where they
differ, the mover's cubeless equity after each by a 1,296-trial rollout of the shipped net
(seed 5, variance reduction) and by gnubg-nn at 2 plies (the set's judge).  Prints the
mean difference (NEW minus OLD) a differing decision with its standard error, and the
sum over all race decisions a decision, in millipoints.
"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import checker_play_error as judge  # noqa: E402
import gnubg_nn  # noqa: E402

from bgfast.bots import get_bot  # noqa: E402
from bgfast.dice import Dice  # noqa: E402
from bgfast.match import MatchState  # noqa: E402
from bgfast.position import Position  # noqa: E402
from bgfast.position_class import classify  # noqa: E402
from bgfast.rollout import rollout  # noqa: E402

OTHER_BOTS = {"heuristic-heuristic", "heuristic-pubeval", "pubeval-pubeval"}


def main(new_spec: str, old_spec: str) -> None:
    gnubg_nn.set.score(0, 0)
    rows = [d for d in judge.read_decisions(Path("experiments/checker_play/decisions.csv"))
            if d["pairing"] in OTHER_BOTS and classify(Position.from_id(d["position_id"])).value == "race"]
    new, old = get_bot(new_spec, cube="never"), get_bot(old_spec, cube="never")
    rolled, judged = [], []
    for row in rows:
        pos, dice = Position.from_id(row["position_id"]), Dice.parse(row["dice"])
        a = new.choose_move(pos, dice, MatchState()).position
        b = old.choose_move(pos, dice, MatchState()).position
        if a == b:
            continue
        rolled.append(rollout(b.swap_sides(), trials=1296, seed=5).equity.value
                      - rollout(a.swap_sides(), trials=1296, seed=5).equity.value)
        judged.append(judge._after_equity(gnubg_nn, a, 2) - judge._after_equity(gnubg_nn, b, 2))
    r, g = np.array(rolled), np.array(judged)
    print(f"{len(rows)} race decisions, {len(r)} differ")
    print(f"rollouts: {r.mean():+.4f} +- {r.std(ddof=1) / np.sqrt(len(r)):.4f} a differing decision, "
          f"{1000 * r.sum() / len(rows):+.3f} millipoints a race decision")
    print(f"gnubg-nn 2-ply: {g.mean():+.4f} a differing decision, {1000 * g.sum() / len(rows):+.3f} millipoints a race decision")


if __name__ == "__main__":
    main(*sys.argv[1:3])
