"""Build bgfast's equity yardstick: positions in named classes, rolled out by bgfast.

Two steps, each resumable; the files are what ``bgfast bench yardstick`` reads:

    python tools/build_yardstick.py positions bgfast/data/yardstick/positions.csv
    nice -n 10 python tools/build_yardstick.py rollout bgfast/data/yardstick/positions.csv \
        bgfast/data/yardstick/rollouts.csv --trials 324 --ply 0

``positions`` draws them with :func:`bgfast.sampling.sample_positions` (its docstring has
the rules) from cubeless money games (no Jacoby rule) between bots other than the
neural net (:data:`~bgfast.sampling.YARDSTICK_PAIRINGS`: heuristic, pubeval and gnubg-nn at 0 ply through its
adapter, in turn), from the opening roll, a standard opening or a scrambled start (six
turns of random play), at most two positions of a class a game, no bear-off race.  Rows
``position_id,class,source`` are written class by class in turn (one of each class, then
the next of each), so a partial rollout covers every class alike.

``rollout`` rolls out each position with :func:`bgfast.rollout.rollout`: cubeless, with
its variance reduction (the first roll stratified over the 36 rolls, the first two over
the 1,296 pairs when the trials are a multiple of 1,296; every roll's luck subtracted), the
neural bot at ``--ply`` playing both sides to the end of the game (no truncation), trial
seeds ``--seed`` + the row's index.  It appends ``position_id,class,win,win_gammon,
win_backgammon,lose_gammon,lose_backgammon,equity,equity_se,trials,seed,ply`` every
``--checkpoint`` positions (the side on roll's view; the equity cubeless money,
``2 win - 1 + win gammon - lose gammon + win backgammon - lose backgammon``), so a killed
run loses at most that many and a rerun continues where the file ends.  ``--bot gnubg``
has gnubg-nn (the ``gnubg`` bot, its own move search at ``--ply``) play the trials instead:
the same positions rolled out by another player, to measure how much the yardstick
favours the net that played its rollouts (``experiments/yardstick/``); those numbers
measure only and are never training data.
"""
from __future__ import annotations

import argparse
import csv
import os
import sys
import time
from pathlib import Path

from bgfast.bots import get_bot
from bgfast.sampling import YARDSTICK_PAIRINGS, sample_positions

POSITION_FIELDS = ("position_id", "class", "source")
ROLLOUT_FIELDS = ("position_id", "class", "win", "win_gammon", "win_backgammon", "lose_gammon",
                  "lose_backgammon", "equity", "equity_se", "trials", "seed", "ply")


def _cmd_positions(args: argparse.Namespace) -> int:
    rows = sample_positions(args.per_class, args.seed, args.max_games, pairings=YARDSTICK_PAIRINGS)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", newline="", encoding="ascii") as f:
        writer = csv.DictWriter(f, fieldnames=POSITION_FIELDS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    print(f"{len(rows):,} positions -> {args.out}")
    return 0


def _done(path: Path) -> set[str]:
    if not path.exists():
        return set()
    with path.open(encoding="ascii") as f:
        return {row["position_id"] for row in csv.DictReader(f)}


def _append(path: Path, rows: list[dict[str, object]]) -> None:
    new = not path.exists() or path.stat().st_size == 0
    with path.open("a", newline="", encoding="ascii") as f:
        writer = csv.DictWriter(f, fieldnames=ROLLOUT_FIELDS, lineterminator="\n")
        if new:
            writer.writeheader()
        writer.writerows(rows)
        f.flush()
        os.fsync(f.fileno())


def _cmd_rollout(args: argparse.Namespace) -> int:
    from bgfast.rollout import rollout

    with args.positions.open(encoding="ascii") as f:
        positions = list(csv.DictReader(f))
    done = _done(args.out)
    bot = get_bot("neural", ply=args.ply, cube="never") if args.bot == "neural" else get_bot("gnubg", ply=args.ply)
    pending: list[dict[str, object]] = []
    start, rolled = time.process_time(), 0
    for index, row in enumerate(positions):
        if row["position_id"] in done:
            continue
        if args.limit is not None and rolled >= args.limit:
            break
        seed = args.seed + index
        r = rollout(row["position_id"], trials=args.trials, seed=seed, bot=bot)
        p = r.probabilities
        pending.append({"position_id": row["position_id"], "class": row["class"],
                        **{k: f"{v:.6f}" for k, v in zip(ROLLOUT_FIELDS[2:7], p)},
                        "equity": f"{r.equity.value:.6f}", "equity_se": f"{r.equity.se:.6f}",
                        "trials": r.trials, "seed": seed, "ply": args.ply})
        rolled += 1
        if len(pending) >= args.checkpoint:
            _append(args.out, pending)
            pending = []
            print(f"{len(done) + rolled:,} / {len(positions):,} rolled out, "
                  f"{time.process_time() - start:,.0f} CPU s this run", flush=True)
    if pending:
        _append(args.out, pending)
    print(f"{len(_done(args.out)):,} / {len(positions):,} rolled out -> {args.out}", flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="step", required=True)
    p = sub.add_parser("positions", help="sample the positions from other bots' games")
    p.add_argument("out", type=Path)
    p.add_argument("--per-class", type=int, default=450)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--max-games", type=int, default=200_000)
    p.set_defaults(run=_cmd_positions)
    r = sub.add_parser("rollout", help="roll the positions out (resumable: appends to OUT)")
    r.add_argument("positions", type=Path)
    r.add_argument("out", type=Path)
    r.add_argument("--trials", type=int, default=324)
    r.add_argument("--ply", type=int, default=0, help="the neural bot's ply in the trials (0 on a small machine)")
    r.add_argument("--bot", choices=("neural", "gnubg"), default="neural",
                   help="who plays the trials: the neural bot (the yardstick), or gnubg-nn through its "
                   "adapter (only to measure the yardstick's bias towards the neural net; never training data)")
    r.add_argument("--seed", type=int, default=1, help="trial seeds: this plus the row's index")
    r.add_argument("--checkpoint", type=int, default=25, help="append every this many positions")
    r.add_argument("--limit", type=int, default=None, help="stop after this many positions this run")
    r.set_defaults(run=_cmd_rollout)
    args = parser.parse_args(argv)
    return int(args.run(args))


if __name__ == "__main__":
    sys.exit(main())
