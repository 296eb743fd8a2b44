"""Fit the heuristic evaluator's weights to self-play results (logistic regression).

Each round plays ``--games`` games with the current policy (round 0: pubeval,
later rounds: the heuristic with the weights just fitted), records the features
of every position after a play and how the game ended for the side that had
just moved, and fits one logistic regression (Newton's method, small L2 penalty)
per class (contact, race) and output (win, win gammon, win backgammon, lose
gammon, lose backgammon).  After each round it measures the new weights against
pubeval over ``--check`` paired cubeless money games.

    python tools/fit_heuristic.py --rounds 3 --games 20000 --check 2000 \\
        --out bgfast/data/weights/heuristic.txt
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from bgfast._core import heuristic as H

TARGETS = (lambda y: y > 0, lambda y: y >= 2, lambda y: y >= 3, lambda y: y <= -2, lambda y: y <= -3)


def fit_logistic(X: np.ndarray, y: np.ndarray, l2: float = 1e-5, w0: np.ndarray | None = None) -> np.ndarray:
    """Weights minimising the mean log loss + ``l2 |w|^2`` (L-BFGS)."""
    from scipy.optimize import minimize

    n, d = X.shape

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        z = X @ w
        # log(1 + e^z) - y z, computed stably
        ll = np.logaddexp(0.0, z) - y * z
        p = 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))
        g = X.T @ (p - y) / n + 2 * l2 * w
        return float(ll.mean() + l2 * w @ w), g

    w = np.zeros(d) if w0 is None else w0.astype(np.float64).copy()
    res = minimize(loss, w, jac=True, method="L-BFGS-B", options={"maxiter": 400})
    return res.x


def fit(X: np.ndarray, C: np.ndarray, Y: np.ndarray, old: np.ndarray) -> np.ndarray:
    W = np.zeros((H.NCLASS, H.NOUT, H.NFEAT))
    for c in range(H.NCLASS):
        mask = C == c
        Xc = X[mask].astype(np.float64)
        Yc = Y[mask]
        for o, target in enumerate(TARGETS):
            t = target(Yc).astype(np.float64)
            if t.sum() < 20:
                W[c, o, :] = 0.0
                W[c, o, -6] = -12.0      # the bias feature: "never"
                continue
            W[c, o] = fit_logistic(Xc, t, w0=old[c, o])
    return W


def check(games: int, seed: int = 99) -> tuple[float, float]:
    """Points per game of the heuristic against pubeval over ``games`` paired money games."""
    from bgfast.bots import get_bot
    from bgfast.game import MatchPlayer

    h, p = get_bot("heuristic", cube="never"), get_bot("pubeval", cube="never")
    a, b = MatchPlayer(h, p), MatchPlayer(p, h)
    diffs = np.empty(games)
    for i in range(games):
        s = a.play(seed, i)
        t = b.play(seed, i)
        diffs[i] = ((s.score0 - s.score1) + (t.score1 - t.score0)) / 2
    return float(diffs.mean()), float(diffs.std(ddof=1) / np.sqrt(games))


def save(W: np.ndarray, path: str) -> None:
    with open(path, "w") as f:
        f.write("# bgfast heuristic evaluator weights: fitted by tools/fit_heuristic.py\n")
        f.write(f"# {H.NCLASS} classes (contact, race) x {H.NOUT} outputs "
                "(win, win gammon, win backgammon, lose gammon, lose backgammon), "
                f"{H.NFEAT} features a row\n")
        for c in range(H.NCLASS):
            for o in range(H.NOUT):
                f.write(" ".join(f"{v:.6g}" for v in W[c, o]) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--games", type=int, default=20000)
    ap.add_argument("--check", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--start", choices=("pubeval", "heuristic"), default="pubeval")
    ap.add_argument("--out", default=H.weights_path())
    args = ap.parse_args()
    W = H.get_weights().astype(np.float64)
    policy = 0 if args.start == "pubeval" else 1
    for r in range(args.rounds):
        t = time.time()
        X, C, Y = H.sample_positions(args.games, args.seed + r, policy=policy)
        t1 = time.time()
        W = fit(X, C, Y, W)
        H.set_weights(W)
        t2 = time.time()
        ppg, se = check(args.check) if args.check else (float("nan"), float("nan"))
        print(f"round {r}: {len(Y)} positions ({np.bincount(C)}) sample {t1 - t:.0f}s fit {t2 - t1:.0f}s; "
              f"vs pubeval {ppg:+.3f} +- {se:.3f} ppg", flush=True)
        save(W, args.out)
        policy = 1


if __name__ == "__main__":
    main()
