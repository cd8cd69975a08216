"""Resampling and the paired tests: the bootstrap and its intervals (percentile or BCa), the
sign-flip randomization test, the randomized Tukey HSD and the paired t-test, vectorised in
numpy; each takes optional traffic weights (one per query: the statistic becomes the weighted
mean ``Σ w v / Σ w``, the queries stay the resampled units). Their normal limits, for large
samples, are in :mod:`polars_graded.stats.limits`.

The random draws are chunked (:data:`CHUNK_ELEMENTS`) to bound memory, and each draws one
matrix shared by every row it is given (systems x measures, or pairs x measures), so all
are tested on the same random flips and resamples. scipy (``pip install
"polars-graded[stats]"``) gives the t-test's distribution (:func:`import_ttest`) and the
normal distribution of the BCa intervals (:func:`import_normal`); the rest is numpy.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, Final, Literal

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


def bootstrap_means(
    rows: np.ndarray,
    resamples: int,
    rng: np.random.Generator,
    weights: np.ndarray | None = None,
) -> np.ndarray:
    """Means of each row over ``resamples`` resamples of its columns, shared by every row.

    A resample is stored as how often it draws each query, so a chunk of resamples is one
    matrix product. With ``weights`` (one per query, column) each resample's mean is the
    weighted mean of the queries it draws, ``counts @ (w v) / counts @ w``: the queries
    stay the resampled units, their traffic weights travel with them. Without weights the
    draws and the numbers are those of every earlier release.

    Examples
    --------
    >>> rows = np.array([[1.0, 1.0], [0.0, 2.0]])
    >>> means = bootstrap_means(rows, 5, np.random.default_rng(0))
    >>> means.shape, means[0].tolist()
    ((2, 5), [1.0, 1.0, 1.0, 1.0, 1.0])
    >>> bootstrap_means(rows, 3, np.random.default_rng(0), np.array([1.0, 1.0])).shape
    (2, 3)
    """
    n_rows, n = rows.shape
    _check_bootstrap_memory(n_rows, resamples)
    out = np.empty((n_rows, resamples))
    w = None if weights is None else np.asarray(weights, dtype=np.float64)
    weighted = rows if w is None else rows * w
    chunk = max(1, CHUNK_ELEMENTS // n)
    for start in range(0, resamples, chunk):
        size = min(chunk, resamples - start)
        drawn = rng.integers(0, n, size=(size, n)) + (np.arange(size) * n)[:, None]
        counts = np.bincount(drawn.ravel(), minlength=size * n).reshape(size, n)
        counts_t = counts.T.astype(np.float64)
        out[:, start : start + size] = weighted @ counts_t
        if w is not None:
            with np.errstate(divide="ignore", invalid="ignore"):
                # A resample of only weight-0 queries has no weighted mean: NaN, dropped
                # by the quantiles' callers only if it happens (it needs sum(w > 0) tiny).
                out[:, start : start + size] /= w @ counts_t
    if w is None:
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
    values: np.ndarray,
    pairs: tuple[np.ndarray, np.ndarray] | None = None,
    weights: np.ndarray | None = None,
) -> np.ndarray:
    """The jackknife acceleration of BCa for the mean of each row of ``values`` (``(*rows,
    n)``), or with ``pairs = (first, second)`` of each paired difference
    ``values[..., second, :] - values[..., first, :]``; NaN for a constant row.

    The acceleration ``Σ U_i³ / (6 (Σ U_i²)^(3/2))`` takes ``U_i`` = (n - 1) times the mean
    of the leave-one-out means minus the ``i``-th; for a mean that is ``x_i - x̄``, so it
    costs one pass over the queries (O(n), no leave-one-out loop). With ``weights`` the
    leave-one-out weighted means ``(Σ w x - w_i x_i) / (Σ w - w_i)`` are formed directly
    (still O(n)). The differences are formed a chunk of rows at a time
    (:data:`CHUNK_ELEMENTS`).

    Examples
    --------
    >>> jackknife_acceleration(np.array([[0.0, 0.0, 3.0], [1.0, 1.0, 1.0]])).round(4).tolist()
    [0.068, nan]
    >>> x = np.array([[0.0, 0.0, 3.0]])
    >>> jackknife_acceleration(x, weights=np.full(3, 2.0)).round(4).tolist()
    [0.068]
    """
    n = values.shape[-1]
    influence = _influence if weights is None else partial(_weighted_influence, weights=weights)
    if pairs is None:
        flat = values.reshape(-1, n)
        out = _acceleration(lambda part: flat[part], flat.shape[0], n, influence)
        return out.reshape(values.shape[:-1])
    first, second = pairs

    def differences(block: np.ndarray) -> Callable[[slice], np.ndarray]:
        return lambda part: block[second[part]] - block[first[part]]

    blocks = values.reshape(-1, *values.shape[-2:])
    out = np.stack([_acceleration(differences(b), first.size, n, influence) for b in blocks])
    return out.reshape(*values.shape[:-2], first.size)


def _influence(x: np.ndarray) -> np.ndarray:
    """The jackknife's ``U_i`` of each row's mean: ``x_i - x̄``."""
    out: np.ndarray = x - x.mean(axis=1, keepdims=True)
    return out


def _weighted_influence(x: np.ndarray, *, weights: np.ndarray) -> np.ndarray:
    """The jackknife's ``U_i`` of each row's weighted mean, from the leave-one-out means."""
    w = np.asarray(weights, dtype=np.float64)
    total, sums = w.sum(), x @ w
    with np.errstate(divide="ignore", invalid="ignore"):
        loo = (sums[:, None] - x * w) / (total - w)
    out: np.ndarray = (x.shape[1] - 1) * (loo.mean(axis=1, keepdims=True) - loo)
    return out


def _acceleration(
    rows: Callable[[slice], np.ndarray],
    count: int,
    n: int,
    influence: Callable[[np.ndarray], np.ndarray],
) -> np.ndarray:
    """:func:`jackknife_acceleration` of ``count`` rows of ``n`` values, ``rows(part)``
    giving a chunk of them and ``influence`` their ``U_i``."""
    out = np.empty(count)
    chunk = max(1, CHUNK_ELEMENTS // max(n, 1))
    for start in range(0, count, chunk):
        part = slice(start, start + chunk)
        centred = influence(rows(part))
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


def randomization_p(
    differences: np.ndarray,
    trials: int,
    rng: np.random.Generator,
    weights: np.ndarray | None = None,
) -> np.ndarray:
    """Two-sided sign-flip p-value of each row's mean, ``(1 + k) / (1 + trials)``.

    The sums are compared rather than the means (the same order, one division less). With
    ``weights`` (one per query) the signs flip ``w_i d_i``: the statistic is the weighted
    mean difference ``Σ w d / Σ w`` (its null: the traffic-weighted mean difference is 0,
    each query's sign arbitrary). The normal limit of this test is
    :func:`~polars_graded.stats.limits.normal_randomization_p`.

    Examples
    --------
    >>> randomization_p(np.zeros((1, 3)), 9, np.random.default_rng(0)).tolist()
    [1.0]
    """
    if weights is not None:
        differences = differences * np.asarray(weights, dtype=np.float64)
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
    ttest_rel: Any,
    values: np.ndarray,
    differences: np.ndarray,
    weights: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """t statistic and two-sided p per (measure, non-baseline system); 0 and 1 if all d = 0.

    ``values`` is (measure, system, query), the baseline first; ``differences`` is
    ``values[:, 1:] - values[:, :1]``; ``ttest_rel`` is :func:`import_ttest`'s. With
    ``weights`` the test is :func:`weighted_t` on the differences (``ttest_rel`` unused).
    """
    if weights is not None:
        return weighted_t(differences, weights)
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


def weighted_t(
    differences: np.ndarray,
    weights: np.ndarray,
    alternative: Literal["two-sided", "greater"] = "two-sided",
    shift: float = 0.0,
) -> tuple[np.ndarray, np.ndarray]:
    """The t statistic and p-value of each row's weighted mean difference (last axis).

    The estimate is ``m = Σ w d / Σ w``; its standard error is the linearization (sandwich)
    one with the HC1 factor, ``se² = n / (n - 1) Σ w² (d - m)² / (Σ w)²``, and ``t = (m +
    shift) / se`` on ``n - 1`` degrees of freedom: statsmodels' ``WLS(d, 1,
    weights=w).fit(cov_type="HC1", use_t=True)`` (whose robust df is ``n - 1``). Equal
    weights give ``scipy.stats.ttest_rel``'s numbers. ``alternative="greater"`` (H1: ``m +
    shift > 0``) and ``shift`` (the gate's margin) serve one-sided tests. All ``d`` equal
    to ``-shift`` (``se = 0`` and ``m + shift = 0``): t 0 and p 1; ``se = 0`` otherwise:
    t ±inf; fewer than two queries: NaN. This signature is stable (the gate calls it).

    Examples
    --------
    >>> d = np.array([[0.1, 0.2, -0.05, 0.3]])
    >>> t, p = weighted_t(d, np.ones(4))
    >>> from scipy.stats import ttest_1samp
    >>> bool(np.isclose(t[0], ttest_1samp(d[0], 0).statistic))
    True
    """
    from scipy.stats import t as t_distribution

    d = np.asarray(differences, dtype=np.float64)
    w = np.asarray(weights, dtype=np.float64)
    n = d.shape[-1]
    total = w.sum()
    mean = (d @ w) / total
    residual = (d - mean[..., None]) * w
    se = np.sqrt(n / max(n - 1, 1) * np.einsum("...i,...i->...", residual, residual)) / total
    centre = mean + shift
    with np.errstate(divide="ignore", invalid="ignore"):
        t_stat = np.where(se > 0, centre / se, np.sign(centre) * np.inf)
    t_stat = np.where((se == 0) & (centre == 0), 0.0, t_stat)
    df = n - 1
    if df < 1:
        nan = np.full(d.shape[:-1], np.nan)
        return nan, nan.copy()
    if alternative == "greater":
        p = t_distribution.sf(t_stat, df)
    else:
        p = 2 * t_distribution.sf(np.abs(t_stat), df)
    p = np.where((se == 0) & (centre == 0), 1.0, p)
    return np.asarray(t_stat, dtype=np.float64), np.asarray(p, dtype=np.float64)


TUKEY_PERMUTATION_MOST: Final = 4
"""Up to this many systems the randomized Tukey HSD draws one of the ``k!`` permutations of a
query by its index and sums each permutation's share in one matrix product (ten times faster
than ordering random floats); above it, it orders random floats per query."""


def tukey_hsd_p(
    values: np.ndarray,
    trials: int,
    rng: np.random.Generator,
    weights: np.ndarray | None = None,
) -> np.ndarray:
    """Randomized Tukey HSD p-value of every pair of systems (Carterette, TOIS 2012).

    ``values`` is (system, query), or (measure, system, query) for several measures at
    once. Each trial permutes every query's values across the systems independently and
    takes the range (max minus min) of the systems' means; with ``k`` the number of trials
    whose range is at least ``|mean_b - mean_a|`` (ties within ``TIE_TOLERANCE`` times the
    sum over queries of each query's range included), ``p = (1 + k) / (1 + trials)``, as
    the sign-flip test counts the observed arrangement. Returns the (system, system) matrix
    of p-values, 1 on the diagonal (per measure: (measure, system, system)). Sums stand for
    means (the same order); the trials are chunked to bound memory. With ``weights`` (one
    per query) the means are weighted: each query's values are scaled by its weight before
    they are permuted. The normal limit is
    :func:`~polars_graded.stats.limits.normal_tukey_p`.

    Up to :data:`TUKEY_PERMUTATION_MOST` systems a trial draws each query's permutation by
    its index among the ``k!``, and every measure is permuted by the same draws (since
    issue 29: the same seed gives other, equally valid, draws than before, and 6 measures
    cost about what one did); with more systems it orders random floats, a stream of
    trials per measure in the measures' order.

    Examples
    --------
    >>> values = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 0.0]])
    >>> tukey_hsd_p(values, 99, np.random.default_rng(0)).shape
    (3, 3)
    >>> tukey_hsd_p(np.stack([values, values]), 99, np.random.default_rng(0)).shape
    (2, 3, 3)
    """
    if values.ndim == 2:
        one: np.ndarray = tukey_hsd_p(values[None], trials, rng, weights)[0]
        return one
    if weights is not None:
        values = values * np.asarray(weights, dtype=np.float64)
    n_systems = values.shape[1]
    if n_systems <= TUKEY_PERMUTATION_MOST:
        ranges = _ranges_by_index(values, trials, rng)
    else:
        ranges = np.stack([_ranges_by_order(v, trials, rng) for v in values])
    out = np.empty((values.shape[0], n_systems, n_systems))
    for m, (v, r) in enumerate(zip(values, ranges, strict=True)):
        sums = v.sum(axis=1)
        observed = np.abs(sums[None, :] - sums[:, None])
        tolerance = TIE_TOLERANCE * np.ptp(v, axis=0).sum()
        r.sort()
        at_least = trials - np.searchsorted(r, observed - tolerance, side="left")
        out[m] = (1.0 + at_least) / (1.0 + trials)
    return out


def _ranges_by_index(values: np.ndarray, trials: int, rng: np.random.Generator) -> np.ndarray:
    """Each trial's range of the permuted systems' sums, per measure of ``values``
    (measure, system, query): a permutation index per (trial, query), shared by the
    measures, and per permutation one product of its indicator with the permuted values."""
    n_measures, n_systems, n_queries = values.shape
    permutations = np.array(list(itertools.permutations(range(n_systems))))
    columns = values.transpose(2, 0, 1)  # (query, measure, system)
    permuted_columns = [columns[:, :, order].reshape(n_queries, -1) for order in permutations]
    ranges = np.empty((n_measures, trials))
    chunk = max(1, CHUNK_ELEMENTS // n_queries)
    for start in range(0, trials, chunk):
        size = min(chunk, trials - start)
        index = rng.integers(0, len(permutations), size=(size, n_queries), dtype=np.int8)
        permuted = np.zeros((size, n_measures * n_systems))
        for i, block in enumerate(permuted_columns):
            permuted += (index == i).astype(np.float64) @ block
        permuted = permuted.reshape(size, n_measures, n_systems)
        ranges[:, start : start + size] = (permuted.max(axis=2) - permuted.min(axis=2)).T
    return ranges


def _ranges_by_order(values: np.ndarray, trials: int, rng: np.random.Generator) -> np.ndarray:
    """Each trial's range of the permuted systems' sums, each query permuted by ordering
    random floats."""
    n_systems, n_queries = values.shape
    ranges = np.empty(trials)
    chunk = max(1, CHUNK_ELEMENTS // (n_systems * n_queries))
    columns = values.T[None]
    for start in range(0, trials, chunk):
        size = min(chunk, trials - start)
        order = rng.random((size, n_queries, n_systems)).argsort(axis=2)
        permuted = np.take_along_axis(columns, order, axis=2).sum(axis=1)
        ranges[start : start + size] = permuted.max(axis=1) - permuted.min(axis=1)
    return ranges
