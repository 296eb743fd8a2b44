"""The core's evaluators, from Python: their kinds, their settings, the heuristic's weights.

Every player of the C game loop carries an evaluator
(:class:`~bgfast._core.evaluator.CoreEvaluator`): the heuristic bot plays by it, and
the cube policies (Janowski, the match equity table) and the luck measure of
rollouts ask it, whatever plays the checkers.  A bot without an evaluator of its own
(pubeval, random, a Python bot) gets :func:`default_evaluator`, the heuristic with
its shipped weights.  An evaluator's settings (weights, move filter, blend) belong to
it, not to the process: two heuristic bots with different weights play side by side.

>>> ev = default_evaluator()
>>> ev.kind.name, ev.filter
('EVAL_HEURISTIC', 5)
>>> from bgfast.position import Position
>>> 0.45 < ev.on_roll(Position().to_bytes())[0] < 0.6
True
"""
from __future__ import annotations

import functools
import os

from bgfast._core import heuristic as _heuristic
from bgfast._core.evaluator import CoreEvaluator, EvaluatorKind
from bgfast._core.heuristic import DEFAULT_BLEND, DEFAULT_FILTER, HeuristicWeights
from bgfast.errors import InvalidWeightsError
from bgfast.validation import check_input_file

__all__ = [
    "DEFAULT_BLEND", "DEFAULT_FILTER", "CoreEvaluator", "EvaluatorKind", "HeuristicWeights",
    "MAX_HEURISTIC_WEIGHTS_BYTES", "default_evaluator", "heuristic_evaluator", "heuristic_weights",
]

MAX_HEURISTIC_WEIGHTS_BYTES = 1 << 24
"""The largest heuristic weights file :func:`heuristic_weights` reads (16 MiB): its rows of
numbers are some 30 kB, the rest is room for comments."""


def heuristic_weights(path: str | os.PathLike[str] | None = None) -> HeuristicWeights:
    """The heuristic evaluator's weights read from ``path`` (the shipped file by default,
    ``bgfast/data/weights/heuristic.txt``, read once).

    The file has ``NCLASS * NOUT`` rows of ``NFEAT`` numbers (see
    :mod:`bgfast._core.heuristic`); ``#`` starts a comment.

    :raises InvalidWeightsError: a file that cannot be read, that is not a regular file
        (``/dev/zero``, a folder) or is larger than :data:`MAX_HEURISTIC_WEIGHTS_BYTES`, that is
        not rows of numbers, or whose rows or columns do not fit the evaluator.
    """
    if path is None:
        return _shipped_weights()
    check_input_file(path, "heuristic weights", limit=MAX_HEURISTIC_WEIGHTS_BYTES, error=InvalidWeightsError)
    try:
        return _heuristic.read_weights(path)
    except ValueError as exc:
        raise InvalidWeightsError(str(exc)) from None


@functools.cache
def _shipped_weights() -> HeuristicWeights:
    try:
        return _heuristic.read_weights(_heuristic.weights_path())
    except ValueError as exc:
        raise InvalidWeightsError(f"the shipped weights do not fit the evaluator: {exc}") from None


def heuristic_evaluator(weights: HeuristicWeights | None = None, *, filter: int = DEFAULT_FILTER,
                        blend: float = DEFAULT_BLEND) -> CoreEvaluator:
    """A heuristic evaluator with these settings.

    :param weights: its weights (:func:`heuristic_weights`); the shipped ones by default.
    :param filter: its checker play evaluates pubeval's best ``filter`` plays of a roll
        (1 to 64), or every play (0).
    :param blend: the weight of pubeval's score beside the equity among the kept plays (0 to 1).
    :raises InvalidWeightsError: the shipped weights do not fit (when ``weights`` is None).
    :raises ValueError: ``filter`` or ``blend`` out of range.
    """
    if weights is None and filter == DEFAULT_FILTER and blend == DEFAULT_BLEND:
        return default_evaluator()
    return CoreEvaluator(_shipped_weights() if weights is None else weights, EvaluatorKind.EVAL_HEURISTIC,
                         filter, blend)


@functools.cache
def default_evaluator() -> CoreEvaluator:
    """The evaluator of bots that have none of their own: the heuristic, shipped weights,
    default move filter and blend.

    :raises InvalidWeightsError: the shipped weights do not fit.
    """
    return CoreEvaluator(_shipped_weights(), EvaluatorKind.EVAL_HEURISTIC, DEFAULT_FILTER, DEFAULT_BLEND)
