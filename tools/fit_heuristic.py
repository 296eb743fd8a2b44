"""Fit the heuristic evaluator's weights to game results (logistic regression).

Each round plays ``--games`` games (round 0: pubeval against itself; later
rounds: ``--policy``, by default the heuristic with the weights just fitted),
records the features of every position after a play and how the game ended for
the side that had just moved, and fits one logistic regression (Newton's
method, small L2 penalty) per class (contact, race, bearing in, holding) and
output (win, win gammon, win backgammon, lose gammon, lose backgammon).  After
each round it measures the weights against pubeval over ``--check`` pairs of
cubeless money games.

The shipped weights are one round on 40,000 pubeval games (fitting to the
heuristic's own games, or adding them, measured weaker)::

    python tools/fit_heuristic.py --start pubeval --rounds 1 --games 40000 --seed 777 \
        --check 2000 --out bgfast/data/weights/heuristic.txt
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

from bgfast._core import heuristic as H
from bgfast._core.game import TurnAction
from bgfast.bots import get_bot
from bgfast.bots.heuristic import HeuristicBot
from bgfast.evaluator import heuristic_weights
from bgfast.game import MatchPlayer
from bgfast.match import Rules

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

_POINTS = {"single": 1, "gammon": 2, "backgammon": 3}


def sample_positions(games: int, seed: int, policy: int = 1, stride: int = 1,
                     weights: H.HeuristicWeights | None = None,
                     variant: str = "standard") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Self-play training data from the game loop: the positions after each play and how the game ended.

    Games ``0 .. games-1`` of run ``seed`` are cubeless money games of ``variant`` played
    by the C loop (its dice, opening roll and rules), with the record of every turn kept.

    :param policy: 0 pubeval plays both sides, 1 the heuristic (``weights``) both; 3 the
        heuristic against pubeval, the heuristic in seat 0 in even games and seat 1 in odd ones.
    :param stride: keep every ``stride``-th position of a game (the first kept varies by game).
    :returns: ``(X, cls, result)``: features (n, NFEAT) float32, class (n,) int8 and the
        mover's result (n,) int8 in -3..3 (points won, before any cube).
    """
    heuristic = HeuristicBot(cube="never", weights=weights)
    pubeval = get_bot("pubeval", cube="never")
    pairs = {0: [(pubeval, pubeval)], 1: [(heuristic, heuristic)], 3: [(heuristic, pubeval), (pubeval, heuristic)]}
    rules = Rules(jacoby=False, variant=variant)
    players = [MatchPlayer(a, b, rules=rules) for a, b in pairs[policy]]
    boards, results = [], []
    for gi in range(games):
        record, turns = players[gi % len(players)].turns(seed, gi)
        game = record.games[0]
        moves = turns[turns["action"] == TurnAction.ACTION_MOVE]
        kept = moves[(np.arange(len(moves)) + gi) % stride == 0]   # not anchored at the last play
        points = _POINTS[game.kind]
        boards.append(kept["after"])
        results.append(np.where(kept["player"] == game.winner, points, -points).astype(np.int8))
    cls, X = H.features_batch(np.ascontiguousarray(np.concatenate(boards)))
    return X, cls, np.concatenate(results)

TARGETS = (lambda y: y > 0, lambda y: y >= 2, lambda y: y >= 3, lambda y: y <= -2, lambda y: y <= -3)


def fit_logistic(X: np.ndarray, y: np.ndarray, l2: float = 1e-5, w0: np.ndarray | None = None,
                 iters: int = 40, hessian_rows: int = 80000, seed: int = 0) -> np.ndarray:
    """Weights minimising the mean log loss + ``l2 |w|^2``.

    Newton's method on standardised columns with a backtracking line search: the
    gradient and the loss over every row, the Hessian over a fixed random subset
    of ``hessian_rows`` rows (fast; the optimum is the full-data one since the
    gradient is exact).  Stops when the largest gradient component is below 1e-7.
    """
    n, d = X.shape
    scale = X.std(axis=0)
    scale[scale < 1e-6] = 1.0
    Xs = X / scale
    rng = np.random.default_rng(seed)
    sub = rng.choice(n, size=min(n, hessian_rows), replace=False)
    Xh = Xs[sub]

    def loss_at(w: np.ndarray) -> tuple[float, np.ndarray]:
        z = Xs @ w
        return float((np.logaddexp(0.0, z) - y * z).mean() + l2 * w @ w), z

    w = np.zeros(d) if w0 is None else w0.astype(np.float64) * scale
    f, z = loss_at(w)
    f0, z0 = loss_at(np.zeros(d))
    if f0 < f:
        w, f, z = np.zeros(d), f0, z0
    for _ in range(iters):
        p = 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))
        g = Xs.T @ (p - y) / n + 2 * l2 * w
        if np.abs(g).max() < 1e-7:
            break
        ph = p[sub]
        hess = (Xh * (ph * (1 - ph))[:, None]).T @ Xh / len(sub) + 2 * l2 * np.eye(d)
        step = np.linalg.solve(hess, g)
        t = 1.0
        while True:
            fn, zn = loss_at(w - t * step)
            if fn <= f - 1e-4 * t * (g @ step) or t < 1e-3:
                break
            t *= 0.5
        w, f, z = w - t * step, fn, zn
    return w / scale


def fit(X: np.ndarray, C: np.ndarray, Y: np.ndarray, old: np.ndarray) -> np.ndarray:
    W = np.zeros((H.NCLASS, H.NOUT, H.NFEAT))
    for c in range(H.NCLASS):
        mask = C == c
        Xc = X[mask].astype(np.float64)
        if len(Xc) == 0:
            continue
        Yc = Y[mask]
        for o, target in enumerate(TARGETS):
            t = target(Yc).astype(np.float64)
            if t.sum() < 20:
                W[c, o, :] = 0.0
                W[c, o, -H.NGLOBAL] = -12.0      # the bias feature: "never"
                continue
            W[c, o] = fit_logistic(Xc, t, w0=old[c, o])
    return W


def check(games: int, weights: H.HeuristicWeights, seed: int = 99) -> tuple[float, float]:
    """Points per game of the heuristic with ``weights`` against pubeval over ``games`` pairs
    of cubeless money games."""
    from bgfast.tournament.pairs import ppg_against

    return ppg_against(HeuristicBot(cube="never", weights=weights), get_bot("pubeval", cube="never"),
                       pairs=games, seed=seed)


def save(W: np.ndarray, path: str) -> None:
    with open(path, "w") as f:
        f.write("# bgfast heuristic evaluator weights: fitted by tools/fit_heuristic.py\n")
        f.write(f"# {H.NCLASS} classes (contact, race, contact with side 1 / side 0 home free) x {H.NOUT} outputs "
                "(win, win gammon, win backgammon, lose gammon, lose backgammon), "
                f"{H.NFEAT} features a row\n")
        for c in range(H.NCLASS):
            f.writelines(" ".join(f"{v:.6g}" for v in W[c, o]) + "\n" for o in range(H.NOUT))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--games", type=int, default=20000)
    ap.add_argument("--check", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--start", choices=("pubeval", "heuristic"), default="pubeval")
    ap.add_argument("--out", default=H.weights_path())
    ap.add_argument("--mix", action="store_true",
                    help="add as many games of the heuristic (current weights) against pubeval")
    ap.add_argument("--policy", choices=("pubeval", "heuristic"), default="heuristic",
                    help="the self-play policy of the rounds after the first")
    args = ap.parse_args()
    weights = heuristic_weights()
    W = weights.to_array().astype(np.float64)
    policy = 0 if args.start == "pubeval" else 1
    for r in range(args.rounds):
        t = time.time()
        X, C, Y = sample_positions(args.games, args.seed + r, policy=policy, weights=weights)
        if args.mix:
            X2, C2, Y2 = sample_positions(args.games, args.seed + 1000 + r, policy=3, weights=weights)
            X, C, Y = np.concatenate([X, X2]), np.concatenate([C, C2]), np.concatenate([Y, Y2])
        t1 = time.time()
        W = fit(X, C, Y, W)
        weights = H.HeuristicWeights(W)
        t2 = time.time()
        ppg, se = check(args.check, weights) if args.check else (float("nan"), float("nan"))
        print(f"round {r}: {len(Y)} positions ({np.bincount(C)}) sample {t1 - t:.0f}s fit {t2 - t1:.0f}s; "
              f"vs pubeval {ppg:+.3f} +- {se:.3f} ppg", flush=True)
        save(W, args.out)
        policy = 1 if args.policy == "heuristic" else 0


if __name__ == "__main__":
    main()
