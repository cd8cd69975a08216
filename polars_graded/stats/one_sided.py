"""The gate's one-sided tests and bounds on paired differences, and the two one-sided tests
(TOST) of equivalence built from them.

:func:`shifted_p` tests ``H0: mean(d) <= -margin`` against ``H1: > -margin`` by the test the
gate is given (t, Wilcoxon or sign-flip randomization); :func:`tost_p` runs it on both sides
(``d`` and ``-d``) for ``|mean(d)| < margin``; :func:`bootstrap_bounds` reads one-sided bounds
of the mean difference from the bootstrap. Each takes optional traffic weights (one per
query): the statistic is then the weighted mean difference ``sum(w d) / sum(w)``, through
:mod:`polars_graded.stats.resampling`'s weighted t-test and bootstrap.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import numpy as np

from polars_graded.errors import InvalidValueError
from polars_graded.stats.limits import normal_randomization_p
from polars_graded.stats.options import DEFAULTS, BootstrapMethod, Statistics
from polars_graded.stats.resampling import (
    TIE_TOLERANCE,
    bootstrap_interval,
    bootstrap_means,
    jackknife_acceleration,
    weighted_t,
)
from polars_graded.stats.wilcoxon import wilcoxon_p

CHUNK_ELEMENTS: Final = 1 << 22
"""Drawn query indices per chunk of bootstrap resamples (32 MiB as int64)."""


def shifted_p(
    differences: np.ndarray,
    max_drop: float,
    statistics: Statistics,
    weights: np.ndarray | None = None,
    *,
    normal: bool = False,
) -> float:
    """The one-sided p-value of ``statistics.test`` on ``d + max_drop`` (H1: above 0):
    :func:`one_sided_p`, the Wilcoxon signed-rank test or :func:`sign_flip_greater_p`.

    With ``weights``: the weighted t-test
    (:func:`~polars_graded.stats.resampling.weighted_t`, HC1 standard error, df ``n - 1``)
    or the sign flips of ``w (d + max_drop)`` (the weighted mean's randomization test); the
    Wilcoxon test has no weighted form and refuses them. ``normal``: the randomization
    test's normal limit
    (:func:`~polars_graded.stats.limits.normal_randomization_p`, one-sided), for samples
    where drawing the flips would cost more than its precision buys.

    Examples
    --------
    >>> d = np.array([-0.1, 0.0, 0.1, 0.05, 0.2])
    >>> tests = ["t", "wilcoxon", "randomization"]
    >>> [round(shifted_p(d, 0.05, Statistics(test=t, trials=999)), 3) for t in tests]
    [0.058, 0.094, 0.09]
    """
    if statistics.test == "t":
        return one_sided_p(differences, max_drop, weights)
    with np.errstate(over="ignore"):  # a huge margin: +inf values still rank and sign
        shifted = differences + max_drop
    if statistics.test == "wilcoxon":
        if weights is not None:
            msg = (
                "test='wilcoxon' (--test wilcoxon) has no weighted form; with weight= "
                "(--weight) use test='t' or 'randomization'"
            )
            raise InvalidValueError(msg)
        return float(wilcoxon_p(shifted, alternative="greater"))
    if normal:
        return float(normal_randomization_p(shifted[None], weights, "greater")[0])
    rng = np.random.default_rng(np.random.SeedSequence(statistics.seed).spawn(1)[0])
    if weights is not None:
        shifted = shifted * weights
    return sign_flip_greater_p(shifted, statistics.trials, rng)


def tost_p(
    differences: np.ndarray,
    margin: float,
    statistics: Statistics,
    weights: np.ndarray | None = None,
    *,
    normal: bool = False,
) -> float:
    """The p-value of the two one-sided tests (TOST) of equivalence, ``H1: -margin <
    mean(d) < margin``: the larger of :func:`shifted_p` on ``d`` (``H0: mean <= -margin``)
    and on ``-d`` (``H0: mean >= margin``). With the t-test it is statsmodels'
    ``ttost_paired(candidate, baseline, -margin, margin)[0]``.

    Examples
    --------
    >>> d = np.array([0.01, -0.02, 0.0, 0.015, -0.005])
    >>> round(tost_p(d, 0.05, Statistics(test="t")), 5)
    0.00061
    """
    lower = shifted_p(differences, margin, statistics, weights, normal=normal)
    upper = shifted_p(-differences, margin, statistics, weights, normal=normal)
    return max(lower, upper)


def sign_flip_greater_p(values: np.ndarray, trials: int, rng: np.random.Generator) -> float:
    """One-sided sign-flip p-value of ``mean(values) > 0``: ``(1 + k) / (1 + trials)``, with
    ``k`` the trials whose sum of randomly signed values reaches the observed sum (within
    ``TIE_TOLERANCE * sum |values|``); 1.0 when every value is 0.

    The values are divided by the largest ``|value|`` first (the order of the sums stays),
    so a huge margin cannot overflow.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> sign_flip_greater_p(np.zeros(4), 99, rng), sign_flip_greater_p(np.ones(12), 99, rng)
    (1.0, 0.01)
    """
    scale = np.abs(values).max()
    if not scale > 0:
        return 1.0
    e = values / scale if np.isfinite(scale) else np.sign(values)
    n = e.size
    threshold = e.sum() - TIE_TOLERANCE * np.abs(e).sum()
    at_least = 0
    chunk = max(1, CHUNK_ELEMENTS // n)
    for start in range(0, trials, chunk):
        size = min(chunk, trials - start)
        signs = 1.0 - 2.0 * rng.integers(0, 2, size=(size, n))
        at_least += int(np.count_nonzero(signs @ e >= threshold))
    return (1 + at_least) / (1 + trials)


def one_sided_p(
    differences: np.ndarray, max_drop: float, weights: np.ndarray | None = None
) -> float:
    """p-value of ``H0: mean(d) <= -max_drop`` by the one-sided t-test; 1.0 when all
    ``d + max_drop`` are 0 (0/0, no evidence against H0).

    The value of ``ttest_1samp(d + max_drop, 0, alternative="greater")``, with the t
    statistic ``(mean(d) + max_drop) / (sd(d) / sqrt(n))``: shifting every value leaves
    the standard deviation as it is, and summing ``d + 1e308`` would overflow. Constant
    differences give t = +-inf, so p 0.0 (above the margin) or 1.0. With ``weights``:
    :func:`~polars_graded.stats.resampling.weighted_t` (``alternative="greater"``,
    ``shift=max_drop``).

    Examples
    --------
    >>> one_sided_p(np.array([0.1, 0.2, 0.3]), 0.0) < 0.05
    True
    >>> one_sided_p(np.zeros(3), 0.0), one_sided_p(np.array([0.1, 0.2]), 1e308)
    (1.0, 0.0)
    """
    if weights is not None:
        with np.errstate(over="ignore"):
            _, p = weighted_t(differences[None], weights, "greater", shift=max_drop)
        return float(p[0])
    t_distribution = import_t()
    with np.errstate(over="ignore"):  # a huge margin: t is +inf, so p is 0
        if not (differences + max_drop).any():
            return 1.0
        centre = differences.mean() + max_drop
        if np.ptp(differences) == 0:
            return 0.0 if centre > 0 else 1.0
        t = centre / (differences.std(ddof=1) / np.sqrt(differences.size))
    return float(t_distribution.sf(t, differences.size - 1))


def bootstrap_lower(
    differences: np.ndarray,
    alpha: float,
    resamples: int,
    seed: int,
    method: BootstrapMethod = DEFAULTS.bootstrap_method,
) -> float:
    """The ``alpha`` quantile (numpy's linear interpolation) of the mean of ``differences``
    over ``resamples`` resamples of them with replacement: a percentile lower bound; with
    ``method="bca"`` the BCa level in its place
    (:func:`~polars_graded.stats.resampling.bootstrap_interval`), as
    ``scipy.stats.bootstrap(..., confidence_level=1 - alpha, alternative="greater",
    method="BCa")``. :func:`bootstrap_bounds` at the one level ``alpha``.

    Resample ``b`` draws ``rng.integers(0, n, size=n)`` from ``np.random.default_rng(seed)``
    in order, so a plain loop with the same seed gives the same bound.

    Examples
    --------
    >>> bootstrap_lower(np.array([0.5, 0.5]), 0.05, 100, seed=0)
    0.5
    """
    return float(bootstrap_bounds(differences, (alpha,), resamples, seed, method)[0])


def bootstrap_bounds(
    differences: np.ndarray,
    levels: Sequence[float],
    resamples: int,
    seed: int,
    method: BootstrapMethod = DEFAULTS.bootstrap_method,
    *,
    weights: np.ndarray | None = None,
) -> np.ndarray:
    """Bootstrap bounds of the mean of ``differences`` at the quantile ``levels`` (e.g.
    ``(alpha, 1 - alpha)``: the ``1 - 2 alpha`` interval of the TOST), from one set of
    resamples (see :func:`bootstrap_lower`). With ``weights`` the resamples and their
    weighted means are :func:`~polars_graded.stats.resampling.bootstrap_means`'.

    Examples
    --------
    >>> bootstrap_bounds(np.array([0.0, 1.0]), (0.05, 0.95), 200, seed=0).tolist()
    [0.0, 1.0]
    """
    rng = np.random.default_rng(seed)
    if weights is None:
        means = _resampled_means(differences, resamples, rng)
    else:
        means = bootstrap_means(differences[None], resamples, rng, weights)[0]
    if method == "percentile":
        return np.asarray(np.quantile(means, levels), dtype=np.float64)
    rows = differences[None]
    w = weights
    estimate = rows.mean(axis=1) if w is None else (rows @ w) / w.sum()
    bounds = bootstrap_interval(
        means[None],
        tuple(levels),
        method,
        estimate=estimate,
        acceleration=lambda: jackknife_acceleration(rows, weights=w),
    )
    return np.asarray(bounds[:, 0], dtype=np.float64)


def _resampled_means(differences: np.ndarray, resamples: int, rng: np.random.Generator) -> Any:
    """Each resample's mean: ``rng.integers(0, n, size=n)`` per resample, in order, chunked."""
    n = differences.size
    means = np.empty(resamples)
    chunk = max(1, CHUNK_ELEMENTS // n)
    for start in range(0, resamples, chunk):
        size = min(chunk, resamples - start)
        drawn = rng.integers(0, n, size=(size, n))
        means[start : start + size] = differences[drawn].mean(axis=1)
    return means


def import_t() -> Any:
    """scipy's t distribution, or an ImportError saying how to install scipy."""
    try:
        from scipy.stats import t
    except ImportError as error:
        msg = (
            'gate() needs scipy for the t-test; install it with pip install "polars-graded[stats]"'
        )
        raise ImportError(msg) from error
    return t
