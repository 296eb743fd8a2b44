"""The held-out odd set's error: each bot's 0-ply cubeless equity against the rollouts of
``labels-LODDtest`` (``tar xJf labels-LODDtest.tar.xz``), mean absolute error x1000 with its
standard error, the drawn positions (the first of each block) apart from the odd ones (its
last ``--odd``).

    python experiments/train_round15/odd_error.py LODDtest neural:weights=start-round14.bgw \
        neural:weights=pilot-R15a.bgw
"""
import argparse
import math
from pathlib import Path

import numpy as np

from bgfast.bots import get_bot
from bgfast.cube import cubeless_equity
from bgfast.position import Position


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("labels", type=Path, help="the label folder (blocks of drawn then odd positions)")
    parser.add_argument("bots", nargs="+", help="bot specs that evaluate (neural:weights=FILE)")
    parser.add_argument("--odd", type=int, default=240, help="odd positions at the end of each block")
    args = parser.parse_args()
    rows = []
    for block in sorted(args.labels.glob("block-*.npz")):
        with np.load(block) as data:
            n = len(data["boards"])
            rows += [(data["boards"][i], data["targets"][i], i >= n - args.odd) for i in range(n)]
    for spec in args.bots:
        bot = get_bot(spec, cube="never")
        errors: dict[bool, list[float]] = {False: [], True: []}
        for board, target, odd in rows:
            p = bot.evaluate(Position.from_bytes(board.tobytes()))
            errors[odd].append(1000 * abs(cubeless_equity(tuple(p)) - cubeless_equity(tuple(map(float, target)))))
        parts = [f"{'odd' if odd else 'drawn'} {np.mean(e):.1f} ± {np.std(e) / math.sqrt(len(e)):.1f} (n={len(e)})"
                 for odd, e in sorted(errors.items())]
        print(spec, "; ".join(parts))


if __name__ == "__main__":
    main()
