"""The neural net's games and values that tests/data/neural_games.json records.

The file pins what the net computes, so that a change meant only to make it faster
(tests/test_neural_inputs.py) can show that every value and every game stayed the same.
``python tests/neural_games.py`` writes it with :func:`make`.

The net is made from a seed (``initial_weights``, 128 contact and 64 race hidden units),
so the file does not change when the shipped weights do.  Recorded are:

* the results of cubeless 0-ply self-play games as training plays them
  (``SelfPlay.versus``, on the C game loop) and of games with the cube through the C game loop
  (``MatchPlayer.record``, their move lists digested);
* a digest of the float32 bytes of the mover's probabilities after every play of all 21
  rolls (``Model.children``) and of ``Model.evaluate_batch``, for positions of those games.

The digests are of the exact bits, which depend on the build's arithmetic; the file
says on which machine (``kernel``) they were recorded.
"""
from __future__ import annotations

import hashlib
import json
import platform
from pathlib import Path
from typing import Any

import numpy as np

from bgfast.bots.neural import NeuralBot
from bgfast.bots.neural_weights import Weights
from bgfast.game import MatchPlayer
from bgfast.match import Rules
from bgfast.train import TrainConfig, initial_weights
from bgfast.train.config import self_play

DATA = Path(__file__).resolve().parent / "data" / "neural_games.json"
NET: dict[str, Any] = {"contact_hidden": 128, "race_hidden": 64, "init_seed": 5, "init_scale": 0.3}
SEED = 11
VERSUS_GAMES = 300
RECORD_MATCHES = 6
POSITIONS = 300
ROLLS = [(d1, d2) for d1 in range(1, 7) for d2 in range(d1, 7)]


def net() -> Weights:
    """The recorded net."""
    return initial_weights(TrainConfig(**NET))


def kernel() -> str:
    """The machine whose arithmetic the digests are of: the net's kernels do the same
    float operations on every x86-64 CPU (no fused multiply-adds, whichever clone runs),
    but compilers for other machines may fuse them."""
    return platform.machine()


def positions(weights: Weights) -> np.ndarray:
    """Positions (side 1 on roll) from the net's own self-play, every 7th of 40 games."""
    return self_play(weights.model()).positions(SEED, 1000, 40, 7)[:POSITIONS]


def children_digests(weights: Weights, boards: np.ndarray) -> list[str]:
    """Per position: a digest of the probabilities of every play of the 21 rolls, in order."""
    model = weights.model()
    out = []
    for row in boards:
        h = hashlib.sha256()
        for d1, d2 in ROLLS:
            kids, probs = model.children(row.tobytes(), d1, d2)
            h.update(b"".join(kids))
            h.update(np.ascontiguousarray(probs, dtype=np.float32).tobytes())
        out.append(h.hexdigest()[:16])
    return out


def batch_digest(weights: Weights, boards: np.ndarray) -> str:
    """A digest of ``evaluate_batch`` over the positions."""
    probs = weights.model().evaluate_batch(np.ascontiguousarray(boards))
    return hashlib.sha256(probs.astype(np.float32).tobytes()).hexdigest()[:16]


def versus(weights: Weights) -> dict[str, list[int]]:
    """Cubeless 0-ply self-play as training plays it: each game's points and plies."""
    points, plies = self_play(weights.model()).versus("neural", "neural", SEED, 0, VERSUS_GAMES)
    return {"points": [int(p) for p in points], "plies": [int(p) for p in plies]}


def records(weights: Weights) -> list[str]:
    """7-point matches with the cube (``auto``) in the C game loop, 0 ply against 1 ply
    (gnubg's plain 1-ply choice, as recorded: ``zero_ply_weight`` 0): a digest of each
    match's record (recorded again when a play's match value came to let the opponent, on
    roll after it, take its cube action first: :func:`bgfast.cube.play_mwc`)."""
    zero = NeuralBot(weights=weights, ply=0)
    one = NeuralBot(weights=weights, ply=1, zero_ply_weight=0)
    out = []
    for i in range(RECORD_MATCHES):
        a, b = (zero, one) if i % 2 == 0 else (one, zero)
        record = MatchPlayer(a, b, length=7, rules=Rules()).record(SEED, i)
        out.append(hashlib.sha256(repr(record).encode()).hexdigest()[:16])
    return out


def make() -> dict[str, Any]:
    weights = net()
    boards = positions(weights)
    return {
        "net": NET,
        "seed": SEED,
        "kernel": kernel(),
        "versus": versus(weights),
        "records": records(weights),
        "positions": [row.tobytes().hex() for row in boards],
        "children": children_digests(weights, boards),
        "evaluate_batch": batch_digest(weights, boards),
    }


def main() -> None:
    """Write :data:`DATA` with the code of the day: ``python tests/neural_games.py``."""
    DATA.write_text(json.dumps(make(), indent=1) + "\n")
    print(f"wrote {DATA}")


if __name__ == "__main__":
    main()
