"""Checkpoints of a training run: one weights file holding the run's state in its meta.

A run folder holds ``checkpoint.bgw`` (the weights after ``meta["games"]`` games,
with the config in ``meta["config"]``), ``best.bgw`` (the best net of the learning
curve so far), ``average.bgw`` (the moving average of the weights, when the run keeps
one), ``curve.jsonl`` (one JSON object a curve point) and ``log.txt``.
Every file is replaced atomically, so a run killed at any moment resumes from its
last checkpoint and replays exactly what it would have played.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bgfast.bots.neural_weights import Weights, read_weights, write_weights
from bgfast.errors import one_line
from bgfast.validation import write_output_file

__all__ = ["AVERAGE", "CHECKPOINT", "BEST", "CURVE", "LOG", "save_checkpoint", "load_checkpoint", "unreadable"]

CHECKPOINT = "checkpoint.bgw"
BEST = "best.bgw"
AVERAGE = "average.bgw"
CURVE = "curve.jsonl"
LOG = "log.txt"


def unreadable(exc: BaseException) -> str:
    """Why numpy could not read a run's ``.npz`` file, in one line for a user (numpy's own
    advice to load object arrays unsafely is not one to give about a damaged file)."""
    text = one_line(exc)
    return "not a file of plain arrays" if "pickle" in text else text


def save_checkpoint(run_dir: Path, weights: Weights, name: str = CHECKPOINT) -> None:
    """Write ``weights`` (whose meta carries the run state) as the run's checkpoint."""
    write_weights(run_dir / name, weights)


def load_checkpoint(run_dir: Path, name: str = CHECKPOINT) -> Weights | None:
    """The run's checkpoint, or None when it has none yet.

    :raises InvalidWeightsError: a damaged checkpoint.
    """
    path = run_dir / name
    if not path.exists():
        return None
    return read_weights(path)


def read_curve(run_dir: Path) -> list[dict[str, Any]]:
    """The learning curve's points, in order."""
    path = run_dir / CURVE
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def write_curve(run_dir: Path, points: list[dict[str, Any]]) -> None:
    write_output_file(run_dir / CURVE, "".join(json.dumps(p, sort_keys=True) + "\n" for p in points),
                      "the learning curve", sync=True)
