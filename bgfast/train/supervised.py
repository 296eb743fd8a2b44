"""Supervised refinement: the 0-ply net taught by its own 1-ply look-ahead, round after round.

A round: the current net plays ``games`` self-play games at 0 ply (dice of run
``seed``, games numbered by round), every ``stride``-th position before a roll is
kept (pure bear-offs and decided positions are left out), and each is labelled
with the *current* net's 1-ply probabilities (the average over the 21 rolls of the
best 0-ply play's value), a deeper and better estimate than its 0-ply one.  The
net is then trained on these pairs by plain SGD for ``epochs`` passes in a seeded
random order and becomes the next round's teacher.  Every label comes from
bgfast's own evaluation (gnubg only measures the result).

Resumable: a round's labelled positions are saved (``round-NNNN.npz``) before the
training that uses them, and the net after each round (``checkpoint.bgw``, the
round in its meta); a run stopped at any point replays the same rounds.
"""
from __future__ import annotations

import dataclasses
import io
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

from bgfast.bots.neural_weights import Weights, write_bytes_atomic
from bgfast.errors import InvalidSpecError
from bgfast.train.checkpoint import BEST, LOG, load_checkpoint, read_curve, save_checkpoint, write_curve
from bgfast.train.curve import paired_ppg
from bgfast.validation import real_number, whole_number

__all__ = ["RefineConfig", "label_positions", "run_refine", "fit"]


@dataclass(frozen=True)
class RefineConfig:
    """Settings of a refinement run.

    :ivar seed: the run seed (dice of the self-play games, the training order).
    :ivar rounds: rounds to play; :ivar games: self-play games a round; :ivar stride: keep
        every ``stride``-th position of a game.
    :ivar plies: the teacher's look-ahead (1).
    :ivar epochs: passes over a round's positions; :ivar lr: the learning rate (both nets),
        times ``lr_decay`` after each round.
    :ivar eval_pairs: paired games against pubeval after each round (dice of run ``eval_seed``).
    """

    seed: int = 1
    rounds: int = 20
    games: int = 10000
    stride: int = 2
    plies: int = 1
    epochs: int = 2
    lr: float = 0.01
    lr_decay: float = 0.9
    eval_pairs: int = 5000
    eval_seed: int = 99

    def __post_init__(self) -> None:
        whole_number(self.seed, "seed", low=0, error=InvalidSpecError)
        for name in ("rounds", "games", "stride", "epochs", "eval_pairs"):
            whole_number(getattr(self, name), name, low=1 if name != "eval_pairs" else 0, error=InvalidSpecError)
        whole_number(self.plies, "plies", low=1, high=1, error=InvalidSpecError)
        whole_number(self.eval_seed, "eval_seed", low=0, error=InvalidSpecError)
        real_number(self.lr, "lr", low=0.0, error=InvalidSpecError)
        real_number(self.lr_decay, "lr_decay", low=0.0, high=1.0, error=InvalidSpecError)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def label_positions(model: Any, boards: np.ndarray, plies: int = 1, block: int = 4096) -> np.ndarray:
    """The ``plies``-ply probabilities of each board (side 1 on roll) by the net of ``model``
    through the core's evaluator dispatch: (n, 5) float32."""
    from bgfast._core.evaluator import CoreEvaluator, EvaluatorKind

    evaluator = CoreEvaluator(model, EvaluatorKind.EVAL_NEURAL)
    out = np.zeros((len(boards), 5), dtype=np.float32)
    for start in range(0, len(boards), block):
        out[start:start + block] = evaluator.on_roll_batch(boards[start:start + block], plies)
    return out


def fit(model: Any, boards: np.ndarray, targets: np.ndarray, *, epochs: int, lr: float, seed: int) -> None:
    """SGD on ``(boards, targets)``: ``epochs`` passes in the order of ``default_rng(seed)``."""
    rng = np.random.default_rng(seed)
    for _ in range(epochs):
        order = rng.permutation(len(boards)).astype(np.int64)
        model.train_positions(boards, targets, lr, lr, order)


def _save_npz(path: Path, boards: np.ndarray, targets: np.ndarray) -> None:
    buf = io.BytesIO()
    np.savez(buf, boards=boards, targets=targets)
    write_bytes_atomic(path, buf.getvalue())


def run_refine(config: RefineConfig, start: Weights, run_dir: str | Path, *,
               log: Callable[[str], None] | None = None) -> Weights:
    """Refine ``start`` for ``config.rounds`` rounds into ``run_dir`` (resuming its checkpoint).

    :raises InvalidSpecError: ``run_dir`` holds a run of another config (but for ``rounds``).
    """
    run = Path(run_dir)
    run.mkdir(parents=True, exist_ok=True)

    def say(text: str) -> None:
        line = time.strftime("%Y-%m-%d %H:%M:%S ") + text
        with (run / LOG).open("a", encoding="utf-8") as f:
            f.write(line + "\n")
        if log is not None:
            log(line)

    saved = load_checkpoint(run)
    if saved is None:
        weights = Weights(start.arrays, {**start.meta, "refine": config.to_dict(), "round": 0})
        save_checkpoint(run, weights)
        say(f"new refinement: {json.dumps(config.to_dict(), sort_keys=True)} from {start.meta.get('games')} TD games")
    else:
        weights = saved
        old = dict(weights.meta.get("refine", {}))
        if {k: v for k, v in old.items() if k != "rounds"} != {k: v for k, v in config.to_dict().items()
                                                               if k != "rounds"}:
            raise InvalidSpecError(f"{run} holds a refinement of another config: {old!r} (only rounds may change)")
        weights.meta["refine"] = config.to_dict()
        say(f"resuming after round {weights.meta['round']}")
    model = weights.model()
    best = float(weights.meta.get("best_ppg", -10.0))
    curve = [p for p in read_curve(run) if p["round"] <= weights.meta["round"]]
    if not curve and config.eval_pairs:
        ppg, se = paired_ppg(model, seed=config.eval_seed, pairs=config.eval_pairs)
        curve.append({"round": 0, "positions": 0, "ppg": ppg, "se": se, "pairs": config.eval_pairs})
        best = max(best, ppg)
        say(f"round 0: vs pubeval {ppg:+.3f} +- {se:.3f}")
    write_curve(run, curve)
    for r in range(int(weights.meta["round"]) + 1, config.rounds + 1):
        data = run / f"round-{r:04d}.npz"
        if data.exists():
            with np.load(data) as z:
                boards, targets = z["boards"], z["targets"]
        else:
            t = time.monotonic()
            boards = model.self_play_positions(config.seed, (r - 1) * config.games, config.games, config.stride)
            targets = label_positions(model, boards, config.plies)
            _save_npz(data, boards=boards, targets=targets)
            say(f"round {r}: {len(boards):,} positions labelled at {config.plies} ply in {time.monotonic() - t:,.0f} s")
        lr = config.lr * config.lr_decay ** (r - 1)
        fit(model, boards, targets, epochs=config.epochs, lr=lr, seed=config.seed * 1_000_003 + r)
        meta = {**weights.meta, "round": r, "positions_refined": int(weights.meta.get("positions_refined", 0))
                + len(boards) * config.epochs}
        if config.eval_pairs:
            ppg, se = paired_ppg(model, seed=config.eval_seed, pairs=config.eval_pairs)
            curve.append({"round": r, "positions": len(boards), "ppg": ppg, "se": se,
                          "pairs": config.eval_pairs, "lr": lr})
            write_curve(run, curve)
            say(f"round {r}: vs pubeval {ppg:+.3f} +- {se:.3f}  (lr {lr:.4f})")
            if ppg > best:
                best = ppg
                save_checkpoint(run, Weights.of(model, {**meta, "ppg_vs_pubeval": ppg, "se": se,
                                                        "pairs": config.eval_pairs}), BEST)
        meta["best_ppg"] = best
        weights = Weights.of(model, meta)
        save_checkpoint(run, weights)
    return weights
