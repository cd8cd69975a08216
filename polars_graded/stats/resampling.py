"""Resampling and the paired tests: the bootstrap and its intervals (percentile or BCa), the
sign-flip randomization test, the randomized Tukey HSD and the paired t-test, vectorised in
numpy.

The random draws are chunked (:data:`CHUNK_ELEMENTS`) to bound memory, and each draws one
matrix shared by every row it is given (systems x measures, or pairs x measures), so all
are tested on the same random flips and resamples. scipy (``pip install
"polars-graded[stats]"``) gives the t-test's distribution (:func:`import_ttest`) and the
normal distribution of the BCa intervals (:func:`import_normal`); the rest is numpy.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from polars_graded.errors import InvalidValueError
from polars_graded.stats.options import BootstrapMethod, check_bootstrap_method

CHUNK_ELEMENTS = 1 << 22
"""Entries of one chunk of the sign or resample matrix (32 MiB as float64)."""

MAX_BOOTSTRAP_MEANS = 1 << 26
"""The most bootstrap means held at once, resamples x systems x measures (512 MiB as float64;
the quantiles copy them once or twice more)."""

TIE_TOLERANCE = 1e-9
"""Flipped sums within this fraction of ``sum |d|`` of the observed one count as ties."""


def import_ttest() -> Any:
    """scipy's ``ttest_rel``, or an ImportError saying how to install scipy."""
    try:
        from scipy.stats import ttest_rel
    except ImportError as error:
        msg = (
            "compare() needs scipy for the t-test; install it with "
            'pip install "polars-graded[stats]"'
        )
        raise ImportError(msg) from error
    return ttest_rel


def import_normal() -> tuple[Any, Any]:
    """scipy's normal distribution function and its inverse (``ndtr``, ``ndtri``), or an
    ImportError saying how to install scipy."""
    try:
        from scipy.special import ndtr, ndtri
    except ImportError as error:
        msg = (
            'bootstrap_method="bca" needs scipy for the normal quantiles; install it with '
            'pip install "polars-graded[stats]"'
        )
        raise ImportError(msg) from error
    return ndtr, ndtri


def bootstrap_means(rows: np.ndarray, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Means of each row over ``resamples`` resamples of its columns, shared by every row.

    A resample is stored as how often it draws each query, so a chunk of resamples is one
    matrix product.

    Examples
    --------
    >>> rows = np.array([[1.0, 1.0], [0.0, 2.0]])
    >>> means = bootstrap_means(rows, 5, np.random.default_rng(0))
    >>> means.shape, means[0].tolist()
    ((2, 5), [1.0, 1.0, 1.0, 1.0, 1.0])
    """
    n_rows, n = rows.shape
    _check_bootstrap_memory(n_rows, resamples)
    out = np.empty((n_rows, resamples))
    chunk = max(1, CHUNK_ELEMENTS // n)
    for start in range(0, resamples, chunk):
        size = min(chunk, resamples - start)
        drawn = rng.integers(0, n, size=(size, n)) + (np.arange(size) * n)[:, None]
        counts = np.bincount(drawn.ravel(), minlength=size * n).reshape(size, n)
        out[:, start : start + size] = rows @ counts.T.astype(np.float64)
    out /= n
    return out


def bootstrap_interval(
    means: np.ndarray,
    levels: Sequence[float],
    method: BootstrapMethod,
    *,
    estimate: np.ndarray,
    acceleration: Callable[[], np.ndarray],
) -> np.ndarray:
    """Bootstrap interval bounds of some means, read from their resampled ``means``, as
    ``(len(levels), *rows)``.

    ``means`` is ``(*rows, resamples)``: each row's mean over the resamples
    (:func:`bootstrap_means`, or a difference of two such rows); ``estimate`` (``rows``) the
    means on the data themselves; ``acceleration`` gives the rows' jackknife acceleration
    (:func:`jackknife_acceleration`), called for BCa only. ``levels`` are the bounds'
    levels as quantiles, e.g. ``((1 - confidence) / 2, (1 + confidence) / 2)``, or
    ``(alpha,)`` for a one-sided lower bound.

    - ``"percentile"``: the ``levels`` quantiles of ``means`` (numpy's linear
      interpolation).
    - ``"bca"``: bias-corrected and accelerated (Efron, JASA 1987; Efron and Tibshirani
      1993, §14.3), as ``scipy.stats.bootstrap(method="BCa")`` computes it from the same
      resamples: each level ``L`` becomes ``Φ(z0 + (z0 + z_L) / (1 - a (z0 + z_L)))``, with
      ``z_L = Φ⁻¹(L)``, the bias ``z0 = Φ⁻¹((#{means < estimate} + #{means <= estimate}) /
      (2 resamples))`` and the acceleration ``a``. Where BCa is undefined (every value of
      the row equal, or every resample on one side of the estimate: scipy gives NaN) the
      row keeps the percentile levels.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> values = rng.exponential(size=(1, 50))
    >>> means = bootstrap_means(values, 2000, rng)
    >>> keywords = {
    ...     "estimate": values.mean(axis=1),
    ...     "acceleration": lambda: jackknife_acceleration(values),
    ... }
    >>> low, high = bootstrap_interval(means, (0.025, 0.975), "percentile", **keywords)
    >>> bca_low, bca_high = bootstrap_interval(means, (0.025, 0.975), "bca", **keywords)
    >>> bool(bca_low[0] > low[0] and bca_high[0] > high[0])  # right-skewed: moved up
    True
    """
    check_bootstrap_method(method)
    if method == "percentile":
        interval: np.ndarray = np.quantile(means, levels, axis=-1)
        return interval
    ndtr, ndtri = import_normal()
    rows = means.shape[:-1]
    flat = means.reshape(-1, means.shape[-1])
    theta = np.asarray(estimate, dtype=np.float64).reshape(-1, 1)
    below = np.count_nonzero(flat < theta, axis=1)
    at_most = np.count_nonzero(flat <= theta, axis=1)
    a = np.asarray(acceleration(), dtype=np.float64).reshape(-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        z0 = ndtri((below + at_most) / (2 * flat.shape[1]))
        z = ndtri(np.asarray(levels, dtype=np.float64))[:, None]
        bca = ndtr(z0 + (z0 + z) / (1 - a * (z0 + z)))
    percentile = np.broadcast_to(np.asarray(levels, dtype=np.float64)[:, None], bca.shape)
    chosen = np.where(np.isfinite(bca), bca, percentile)
    out = np.stack([np.quantile(m, q) for m, q in zip(flat, chosen.T, strict=True)], axis=1)
    return out.reshape(len(levels), *rows)


def jackknife_acceleration(
    values: np.ndarray, pairs: tuple[np.ndarray, np.ndarray] | None = None
) -> np.ndarray:
    """The jackknife acceleration of BCa for the mean of each row of ``values`` (``(*rows,
    n)``), or with ``pairs = (first, second)`` of each paired difference
    ``values[..., second, :] - values[..., first, :]``; NaN for a constant row.

    The acceleration ``Σ U_i³ / (6 (Σ U_i²)^(3/2))`` takes ``U_i`` = (n - 1) times the mean
    of the leave-one-out means minus the ``i``-th; for a mean that is ``x_i - x̄``, so it
    costs one pass over the queries (O(n), no leave-one-out loop). The differences are
    formed a chunk of rows at a time (:data:`CHUNK_ELEMENTS`).

    Examples
    --------
    >>> jackknife_acceleration(np.array([[0.0, 0.0, 3.0], [1.0, 1.0, 1.0]])).round(4).tolist()
    [0.068, nan]
    """
    n = values.shape[-1]
    if pairs is None:
        flat = values.reshape(-1, n)
        return _acceleration(lambda part: flat[part], flat.shape[0], n).reshape(values.shape[:-1])
    first, second = pairs

    def differences(block: np.ndarray) -> Callable[[slice], np.ndarray]:
        return lambda part: block[second[part]] - block[first[part]]

    blocks = values.reshape(-1, *values.shape[-2:])
    out = [_acceleration(differences(block), first.size, n) for block in blocks]
    return np.stack(out).reshape(*values.shape[:-2], first.size)


def _acceleration(rows: Callable[[slice], np.ndarray], count: int, n: int) -> np.ndarray:
    """:func:`jackknife_acceleration` of ``count`` rows of ``n`` values, ``rows(part)``
    giving a chunk of them."""
    out = np.empty(count)
    chunk = max(1, CHUNK_ELEMENTS // max(n, 1))
    for start in range(0, count, chunk):
        part = slice(start, start + chunk)
        x = rows(part)
        centred = x - x.mean(axis=1, keepdims=True)
        squares = np.einsum("ij,ij->i", centred, centred)
        cubes = np.einsum("ij,ij,ij->i", centred, centred, centred)
        with np.errstate(divide="ignore", invalid="ignore"):
            out[part] = np.where(squares > 0, cubes / (6 * squares**1.5), np.nan)
    return out


def _check_bootstrap_memory(n_rows: int, resamples: int) -> None:
    """At most :data:`MAX_BOOTSTRAP_MEANS` means at once; else an error saying how many
    resamples fit (before numpy would try to allocate them)."""
    if n_rows * resamples > MAX_BOOTSTRAP_MEANS:
        gib = n_rows * resamples * 8 / 2**30
        msg = (
            f"bootstrap={resamples:,} resamples of {n_rows} means (systems x measures) "
            f"would hold {gib:,.1f} GiB in memory; the limit is {MAX_BOOTSTRAP_MEANS:,} "
            f"means ({MAX_BOOTSTRAP_MEANS * 8 >> 20} MiB): give bootstrap <= "
            f"{max(1, MAX_BOOTSTRAP_MEANS // n_rows):,}"
        )
        raise InvalidValueError(msg)


def randomization_p(differences: np.ndarray, trials: int, rng: np.random.Generator) -> np.ndarray:
    """Two-sided sign-flip p-value of each row's mean, ``(1 + k) / (1 + trials)``.

    The sums are compared rather than the means (the same order, one division less).

    Examples
    --------
    >>> randomization_p(np.zeros((1, 3)), 9, np.random.default_rng(0)).tolist()
    [1.0]
    """
    n_rows, n = differences.shape
    observed = np.abs(differences.sum(axis=1))
    threshold = observed - TIE_TOLERANCE * np.abs(differences).sum(axis=1)
    at_least = np.zeros(n_rows, dtype=np.int64)
    chunk = max(1, CHUNK_ELEMENTS // n)
    n_bytes = (n + 7) // 8
    for start in range(0, trials, chunk):
        size = min(chunk, trials - start)
        random_bytes = rng.integers(0, 256, size=(size, n_bytes), dtype=np.uint8)
        bits = np.unpackbits(random_bytes, axis=1, count=n)
        signs = 1.0 - 2.0 * bits
        flipped = differences @ signs.T
        at_least += (np.abs(flipped) >= threshold[:, None]).sum(axis=1)
    return (1.0 + at_least) / (1.0 + trials)


def paired_ttest(
    ttest_rel: Any, values: np.ndarray, differences: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """t statistic and two-sided p per (measure, non-baseline system); 0 and 1 if all d = 0.

    ``values`` is (measure, system, query), the baseline first; ``differences`` is
    ``values[:, 1:] - values[:, :1]``; ``ttest_rel`` is :func:`import_ttest`'s.
    """
    baseline = np.broadcast_to(values[:, :1], values[:, 1:].shape)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        # 0/0 for identical systems, df = 0 for a single query: handled below.
        warnings.simplefilter("ignore", RuntimeWarning)
        result = ttest_rel(values[:, 1:], baseline, axis=2)
    t_stat = np.asarray(result.statistic, dtype=np.float64).copy()
    p = np.asarray(result.pvalue, dtype=np.float64).copy()
    identical = (differences == 0).all(axis=2) & (values.shape[2] >= 2)
    t_stat[identical] = 0.0
    p[identical] = 1.0
    return t_stat, p


def tukey_hsd_p(values: np.ndarray, trials: int, rng: np.random.Generator) -> np.ndarray:
    """Randomized Tukey HSD p-value of every pair of systems (Carterette, TOIS 2012).

    ``values`` is (system, query). Each trial permutes every query's values across the
    systems independently and takes the range (max minus min) of the systems' means; with
    ``k`` the number of trials whose range is at least ``|mean_b - mean_a|`` (ties within
    ``TIE_TOLERANCE`` times the sum over queries of each query's range included),
    ``p = (1 + k) / (1 + trials)``, as the sign-flip test counts the observed arrangement.
    Returns the (system, system) matrix of p-values, 1 on the diagonal. Sums stand for
    means (the same order); the trials are chunked to bound memory.

    Examples
    --------
    >>> values = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 0.0]])
    >>> tukey_hsd_p(values, 99, np.random.default_rng(0)).shape
    (3, 3)
    """
    n_systems, n_queries = values.shape
    sums = values.sum(axis=1)
    observed = np.abs(sums[None, :] - sums[:, None])
    tolerance = TIE_TOLERANCE * np.ptp(values, axis=0).sum()
    ranges = np.empty(trials)
    chunk = max(1, CHUNK_ELEMENTS // (n_systems * n_queries))
    columns = values.T[None]
    for start in range(0, trials, chunk):
        size = min(chunk, trials - start)
        order = rng.random((size, n_queries, n_systems)).argsort(axis=2)
        permuted = np.take_along_axis(columns, order, axis=2).sum(axis=1)
        ranges[start : start + size] = permuted.max(axis=1) - permuted.min(axis=1)
    ranges.sort()
    at_least = trials - np.searchsorted(ranges, observed - tolerance, side="left")
    p: np.ndarray = (1.0 + at_least) / (1.0 + trials)
    return p
