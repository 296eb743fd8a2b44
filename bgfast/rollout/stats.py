"""Estimates and standard errors of a rollout, plain or stratified.

Trial ``i`` of a stratified rollout belongs to stratum ``i % strata`` (see
:mod:`bgfast.rollout.engine`: the first roll of trial ``i`` is
``ALL_36[i % 36]``, and the first two rolls rotate through the 1296 pairs).
Each stratum has probability ``w_h = 1 / strata`` exactly, so the stratified
estimator of the mean is ``sum_h w_h * mean_h`` and its variance
``sum_h w_h**2 * s_h**2 / n_h``, with ``s_h**2`` the sample variance *within*
stratum h.  Without stratification it is the plain mean and ``s / sqrt(n)``.

>>> import numpy as np
>>> values = np.array([1.0, -1.0, 1.0, -1.0, 1.0, -1.0])
>>> estimate(values, 1)
(0.0, 0.4472135954999579)
>>> estimate(values, 2)            # strata {1, 1, 1} and {-1, -1, -1}: no variance left
(0.0, 0.0)

The same estimator gives a player's points per game over *dice pairs*
(:func:`estimate_paired`), the figure of a bot or a net against a fixed opponent: the
training's learning curve (:func:`bgfast.train.curve.paired_ppg`) and the check of a
tournament's paired standard error (see :class:`bgfast.tournament.pairs.PairingStats`).
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = ["Z95", "estimate", "estimate_columns", "estimate_paired", "variance_strata"]

Z95 = 1.959963984540054
"""The standard normal quantile of a two-sided 95% interval."""


def variance_strata(n: int, strata: int) -> int:
    """The strata that the standard error of ``n`` trials can be computed over.

    The within-stratum variance needs at least two trials in every stratum.
    With the first two rolls stratified (1296 strata) and fewer than 2 x 1296
    trials, the error is computed over the 36 first-roll strata instead: that
    ignores the second roll's balance, so it can only overstate the error.

    >>> variance_strata(1296, 1296), variance_strata(2592, 1296), variance_strata(100, 36)
    (36, 1296, 36)
    """
    if strata == 1296 and n < 2 * 1296:
        strata = 36
    if strata > 1 and n < 2 * strata:
        return 1
    return strata


def estimate(values: np.ndarray, strata: int) -> tuple[float, float]:
    """The mean of ``values`` and its standard error, trial ``i`` in stratum ``i % strata``.

    ``strata`` 1 is plain sampling.  Otherwise every stratum must hold at
    least two trials (use :func:`variance_strata`).

    :returns: ``(mean, standard error)``.
    """
    mean, se = estimate_columns(np.asarray(values, dtype=np.float64)[:, None], strata)
    return float(mean[0]), float(se[0])


def estimate_paired(first: ArrayLike, second: ArrayLike) -> tuple[float, float]:
    """A player's points per game over dice pairs, and its standard error.

    Pair ``i`` is two games on the same dice with the seats swapped: ``first[i]`` is the
    player's net points (won minus lost) in the game where it sits in seat 0, ``second[i]``
    in the game where it sits in seat 1, both from the player's view.  Each pair's mean
    is one sample (the dice's luck cancels within a pair), estimated plainly by
    :func:`estimate`: the mean over pairs and ``s / sqrt(pairs)``.

    >>> estimate_paired([2, 1, -1, 1], [0, 1, 1, -1])
    (0.5, 0.28867513459481287)

    :returns: ``(ppg, standard error)``; with one pair the error is NaN, with none
        ``(0.0, nan)``.
    :raises ValueError: ``first`` and ``second`` of different lengths or not 1-D.
    """
    a, b = np.asarray(first, dtype=np.float64), np.asarray(second, dtype=np.float64)
    if a.ndim != 1 or a.shape != b.shape:
        raise ValueError(f"a pair is one game in each seat: got shapes {a.shape} and {b.shape}")
    if not a.size:
        return 0.0, math.nan
    return estimate((a + b) / 2.0, 1)


def estimate_columns(values: np.ndarray, strata: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`estimate` for each column of an ``(n, k)`` array at once."""
    values = np.asarray(values, dtype=np.float64)
    n = values.shape[0]
    if n == 0:
        raise ValueError("no trials to estimate from")
    if strata <= 1:
        mean = values.mean(axis=0)
        if n < 2:
            return mean, np.full(values.shape[1], math.nan)
        return mean, values.std(axis=0, ddof=1) / math.sqrt(n)
    h = np.arange(n) % strata
    counts = np.bincount(h, minlength=strata).astype(np.float64)
    if counts.min() < 2:
        raise ValueError(f"every one of {strata} strata needs two trials, got {n} trials")
    sums = np.stack([np.bincount(h, values[:, j], strata) for j in range(values.shape[1])], axis=1)
    means = sums / counts[:, None]
    dev = values - means[h]
    within = np.stack([np.bincount(h, dev[:, j] ** 2, strata) for j in range(values.shape[1])], axis=1)
    var_h = within / (counts[:, None] - 1.0)
    w = 1.0 / strata
    mean = w * means.sum(axis=0)
    se = np.sqrt(np.sum(w * w * var_h / counts[:, None], axis=0))
    return mean, se
