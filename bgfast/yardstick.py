"""The equity yardstick: how far an evaluator's cubeless equity is from bgfast's rollouts.

The yardstick (``bgfast/data/yardstick/``, made by ``tools/build_yardstick.py``; its
``README.md`` says how) is a file of positions, each with its class
(:mod:`bgfast.position_class`) and a rollout's five probabilities, cubeless money equity
and that equity's standard error, all from the view of the side on roll before its roll.
``bgfast bench yardstick`` asks evaluators for the same positions' cubeless equity at some
plies and reports, per class and overall, the mean absolute error against the rollout:

* ``mae``: the mean over the class's positions of ``|evaluator - rollout|``, in thousandths
  of a point (millipoints, ×1000), with ``mae_se`` its standard error over positions
  (the sample standard deviation of the absolute errors over the square root of their number);
* ``rollout_se``: the rollout's own noise, the root mean square of its standard errors in
  the class (×1000).  The absolute error contains it: an evaluator equal to the true
  equity would still show a mean absolute error of about ``0.8 × rollout_se``;
* ``rms_excess``: the root of (mean squared error minus mean squared rollout standard
  error), the evaluator's own root mean square error once the rollout's noise variance is
  taken out (0 when the noise explains all of it; ×1000);
* and, with several evaluators, the first against each other at the same ply, position by
  position (:func:`paired_difference`): the mean difference of their absolute errors and
  its standard error, a sharper test than the two means side by side.

Evaluators: a bot spec whose bot gives probabilities (``neural``, ``neural:weights=FILE``,
``heuristic``: :class:`bgfast.analysis.judge.Judge`), or ``gnubg-nn``, GNU Backgammon's
nets through the ``gnubg-nn`` package (``gnubg_nn.probabilities(board, plies)``, cubeless
money: it only measures here).  Depths in gnubg's numbering (0 = the evaluator's own
value).

>>> rows = [Row("4HPwATDgc/ABMA", "contact", 0.010, 0.004), Row("4HPwATDgc/ABMA", "race", -0.5, 0.002)]
>>> stats = class_errors(rows, [0.030, -0.47])
>>> round(stats["contact"].mae, 6), round(stats["race"].mae, 6), stats["all"].positions
(20.0, 30.0, 2)
"""
from __future__ import annotations

import csv
import io
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from bgfast.errors import InvalidYardstickError
from bgfast.position import Position
from bgfast.position_class import PositionClass
from bgfast.probabilities import Probabilities
from bgfast.rollout.stats import estimate
from bgfast.validation import read_input_file

__all__ = ["ClassError", "GNUBG_NN", "Row", "class_errors", "equities", "load", "measure", "paired_difference",
           "report", "shipped_file"]

GNUBG_NN = "gnubg-nn"
"""The name of GNU Backgammon's nets as a measured evaluator."""

MAX_FILE_BYTES = 1 << 26
_FIELDS = ("position_id", "class", "equity", "equity_se")
_CLASSES = tuple(c.value for c in PositionClass)


@dataclass(frozen=True)
class Row:
    """One yardstick position: its Position ID, class, and the rollout's cubeless equity
    and standard error (the side on roll's view, points)."""

    position_id: str
    cls: str
    equity: float
    equity_se: float


@dataclass(frozen=True)
class ClassError:
    """An evaluator's error on one class (or ``all``); the figures ×1000 (module docstring)."""

    positions: int
    mae: float
    mae_se: float
    rollout_se: float
    rms_excess: float


def shipped_file() -> Path:
    """The shipped yardstick's rollouts file (``bgfast/data/yardstick/rollouts.csv``)."""
    return Path(str(resources.files("bgfast") / "data" / "yardstick" / "rollouts.csv"))


def load(path: str | Path | None = None) -> list[Row]:
    """The rows of a yardstick rollouts file (default :func:`shipped_file`), a partial one too.

    :raises InvalidYardstickError: a file that cannot be read, lacks a column, or has a row
        whose class is unknown, whose numbers do not parse or whose Position ID is invalid.
    """
    path = shipped_file() if path is None else Path(path)
    data = read_input_file(path, "yardstick file", limit=MAX_FILE_BYTES, error=InvalidYardstickError)
    reader = csv.DictReader(io.StringIO(data.decode("ascii", errors="replace")))
    missing = [f for f in _FIELDS if f not in (reader.fieldnames or ())]
    if missing:
        raise InvalidYardstickError(f"yardstick file {str(path)!r} has no column {missing[0]!r}")
    rows = []
    for line, rec in enumerate(reader, start=2):
        try:
            Position.from_id(rec["position_id"])
            row = Row(rec["position_id"], rec["class"], float(rec["equity"]), float(rec["equity_se"]))
        except (TypeError, ValueError) as exc:
            raise InvalidYardstickError(f"yardstick file {str(path)!r}, line {line}: {exc}") from None
        if row.cls not in _CLASSES:
            raise InvalidYardstickError(f"yardstick file {str(path)!r}, line {line}: unknown class {row.cls!r}")
        rows.append(row)
    return rows


def _evaluator(name: str, ply: int) -> Callable[[Position], float]:
    """The cubeless equity (side on roll, before its roll) of ``name`` at ``ply``."""
    if name == GNUBG_NN:
        from bgfast.bots.gnubg import _load_gnubg_nn

        nn = _load_gnubg_nn()
        nn.set.score(0, 0)
        nn.set.cube(1)
        if ply not in (0, 1, 2):
            raise InvalidYardstickError(f"gnubg-nn evaluates at 0, 1 or 2 plies, not {ply}")
        return lambda pos: Probabilities.of(nn.probabilities([list(b) for b in pos.board], ply)).equity()
    from bgfast.analysis.judge import Judge
    from bgfast.errors import BgfastError, InvalidAnalysisError, InvalidBotOptionsError

    try:
        judge = Judge.of(name, ply)
        judge.probabilities(Position())          # a depth the bot does not have fails here, once
    except InvalidAnalysisError as exc:
        raise InvalidYardstickError(str(exc)) from None
    except InvalidBotOptionsError as exc:
        raise InvalidYardstickError(f"evaluator {name!r} at {ply} plies: {exc}") from None
    except BgfastError:
        raise
    except ValueError as exc:
        raise InvalidYardstickError(f"evaluator {name!r} at {ply} plies: {exc}") from None
    return lambda pos: judge.probabilities(pos).equity()


def equities(rows: Sequence[Row], name: str, ply: int) -> list[float]:
    """The cubeless equity of each row's position by evaluator ``name`` at ``ply`` (points,
    the side on roll's view before its roll).

    :raises InvalidYardstickError: an evaluator that gives no probabilities or lacks the depth.
    :raises UnknownBotError: an unknown bot spec; :class:`~bgfast.errors.MissingExtraError`
        or :class:`~bgfast.errors.BotPackageMissingError`: gnubg-nn not installed.
    """
    value = _evaluator(name, ply)
    return [value(Position.from_id(r.position_id)) for r in rows]


def _stats(errors: np.ndarray, ses: np.ndarray) -> ClassError:
    mae, mae_se = estimate(np.abs(errors), 1)
    excess = float(np.mean(errors ** 2) - np.mean(ses ** 2))
    return ClassError(len(errors), 1000 * mae, 1000 * mae_se, 1000 * float(np.sqrt(np.mean(ses ** 2))),
                      1000 * math.sqrt(max(excess, 0.0)))


def class_errors(rows: Sequence[Row], estimates: Sequence[float]) -> dict[str, ClassError]:
    """The errors of ``estimates`` (one equity per row, points) against the rows' rollouts:
    per class present, in :class:`PositionClass` order, then ``all`` (figures ×1000)."""
    if len(rows) != len(estimates):
        raise ValueError(f"{len(estimates)} estimates for {len(rows)} positions")
    errors = np.asarray(estimates, dtype=np.float64) - np.array([r.equity for r in rows])
    ses = np.array([r.equity_se for r in rows])
    classes = np.array([r.cls for r in rows])
    out = {c: _stats(errors[classes == c], ses[classes == c]) for c in _CLASSES if np.any(classes == c)}
    if rows:
        out["all"] = _stats(errors, ses)
    return out


def paired_difference(rows: Sequence[Row], first: Sequence[float], second: Sequence[float]) -> dict[str, Any]:
    """How much larger the absolute error of ``first`` is than that of ``second`` on the same
    positions (the mean of ``|first - rollout| - |second - rollout|``, ×1000, and its standard
    error over positions: pairing cancels the rollouts' noise and the positions' difficulty
    that both share), per class present and ``all``: ``{"positions", "difference", "se"}``.
    Negative: ``first`` is the closer."""
    truth = np.array([r.equity for r in rows])
    gap = np.abs(np.asarray(first) - truth) - np.abs(np.asarray(second) - truth)
    classes = np.array([r.cls for r in rows])
    out: dict[str, Any] = {}
    for c in [c for c in _CLASSES if np.any(classes == c)] + ["all"]:
        values = gap if c == "all" else gap[classes == c]
        mean, se = estimate(values, 1)
        out[c] = {"positions": int(len(values)), "difference": 1000 * mean, "se": 1000 * se}
    return out


def measure(evaluators: Sequence[str], plies: Sequence[int], *, path: str | Path | None = None,
            positions: int | None = None) -> dict[str, Any]:
    """Each evaluator's error at each depth on the yardstick (``positions``: the first N rows).

    :returns: the JSON form: ``file``, ``positions`` (rows used), ``positions_per_class``,
        ``results``, one per evaluator and ply: ``evaluator``, ``ply``, ``seconds`` (CPU) and
        ``classes`` (class -> the fields of :class:`ClassError`, ×1000); and ``comparisons``,
        the first evaluator against each other one at the same ply: ``evaluator``, ``other``,
        ``ply`` and ``classes`` (class -> :func:`paired_difference`'s figures).
    :raises InvalidYardstickError: as :func:`load` and :func:`equities`, or an empty file.
    """
    rows = load(path)[:positions]
    if not rows:
        raise InvalidYardstickError("the yardstick file has no positions yet")
    results, estimates = [], {}
    for name in evaluators:
        for ply in plies:
            start = time.process_time()
            estimates[name, ply] = equities(rows, name, ply)
            stats = class_errors(rows, estimates[name, ply])
            results.append({"evaluator": name, "ply": ply, "seconds": round(time.process_time() - start, 2),
                            "classes": {c: asdict(s) for c, s in stats.items()}})
    comparisons = [{"evaluator": evaluators[0], "other": other, "ply": ply,
                    "classes": paired_difference(rows, estimates[evaluators[0], ply], estimates[other, ply])}
                   for ply in plies for other in evaluators[1:] if other != evaluators[0]]
    counts = {c: sum(1 for r in rows if r.cls == c) for c in _CLASSES}
    return {"file": str(shipped_file() if path is None else path), "positions": len(rows),
            "positions_per_class": {c: n for c, n in counts.items() if n}, "results": results,
            "comparisons": comparisons}


def report(result: dict[str, Any]) -> str:
    """:func:`measure`'s result as a table: one line per evaluator and ply, a column per class."""
    classes = list(result["positions_per_class"]) + ["all"]
    width = max(16, max(len(c) for c in classes) + 2)
    counts = result["positions_per_class"]
    labels = [f"{c['evaluator']} - {c['other']} {c['ply']}-ply" for c in result["comparisons"]]
    left = max([16] + [len(x) + 2 for x in labels])
    lines = [f"Yardstick: {result['positions']:,} positions ({result['file']}): cubeless equity error against "
             "bgfast's rollouts,", "mean absolute error ×1000 ± its standard error; the rollouts' own noise "
             "(rms standard error ×1000) on the last line.", "",
             f"{'evaluator':<{left}}" + "".join(f"{c:>{width}}" for c in classes),
             f"{'positions':<{left}}" + "".join(f"{counts.get(c, result['positions']):>{width},}" for c in classes)]
    for res in result["results"]:
        cells = (f"{res['classes'][c]['mae']:.1f} ± {res['classes'][c]['mae_se']:.1f}" for c in classes)
        lines.append(f"{res['evaluator'] + ' ' + str(res['ply']) + '-ply':<{left}}" + "".join(f"{x:>{width}}" for x in cells))
    if result["results"]:
        noise = result["results"][0]["classes"]
        lines.append(f"{'rollout noise':<{left}}" + "".join(f"{noise[c]['rollout_se']:>{width}.1f}" for c in classes))
    if result["comparisons"]:
        lines += ["", "paired: the first evaluator's absolute error minus the other's, ×1000 "
                  "(negative: the first is closer)"]
    for label, comp in zip(labels, result["comparisons"]):
        cells = (f"{comp['classes'][c]['difference']:+.1f} ± {comp['classes'][c]['se']:.1f}" for c in classes)
        lines.append(f"{label:<{left}}" + "".join(f"{x:>{width}}" for x in cells))
    return "\n".join(lines)
