"""Rollouts: what a position is worth, and which play is best, by playing it out.

>>> from bgfast.rollout import rollout
>>> result = rollout("4HPwATDgc/ABMA", trials=72, seed=3)
>>> len(result.probabilities), result.trials
(5, 72)

Every number is from the view of the side on roll in the position given,
before any dice (or, with dice given, with them to play).  :func:`rollout` is the entry point; :class:`RolloutResult`
and :class:`PlayResult` what it returns (estimates with standard errors and
95% intervals); :class:`RolloutRequest` (:mod:`bgfast.rollout.request`) checks its
arguments; :mod:`bgfast.rollout.engine` describes the trials and the
variance reduction, :mod:`bgfast.rollout.stats` the standard errors.
"""
from bgfast.rollout.engine import (
    CHECK_EVERY,
    MIN_STRATIFIED_TRIALS,
    Evaluator,
    rollout,
    run_rollout,
)
from bgfast.rollout.request import RolloutRequest
from bgfast.rollout.result import Estimate, PlayResult, RolloutResult

__all__ = [
    "CHECK_EVERY",
    "MIN_STRATIFIED_TRIALS",
    "Estimate",
    "Evaluator",
    "PlayResult",
    "RolloutRequest",
    "RolloutResult",
    "rollout",
    "run_rollout",
]
