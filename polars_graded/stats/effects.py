"""Effect sizes of paired comparisons: Cohen's d_z and the relative change in percent.

A p-value says whether a difference is more than chance; these say how large it is.
:func:`cohens_dz` scales the mean paired difference by the spread of the differences, and
:func:`change_pct` states the difference of the means as a percentage of the baseline's.
Both give NaN (null once in a frame) where they are undefined, never an infinity.
"""

from __future__ import annotations

import numpy as np

from polars_graded.stats.resampling import TIE_TOLERANCE


def cohens_dz(differences: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """Cohen's d_z of each row (last axis) of paired differences:
    ``mean(d) / std(d, ddof=1)``.

    With ``weights`` (one per query): the weighted mean ``m = Σ w d / Σ w`` over the
    weighted standard deviation ``sqrt(n / (n - 1) Σ w (d - m)² / Σ w)`` (the weighted
    variance with the same ``n / (n - 1)`` factor, so equal weights give the unweighted
    d_z). It describes the traffic: the typical difference a request sees, in units of the
    spread of the differences over the requests.

    NaN where the standard deviation is undefined or zero: fewer than two differences, or
    a standard deviation of at most ``TIE_TOLERANCE`` (1e-9) times the largest ``|d|``
    (all differences equal up to rounding, all 0 included), where the ratio would be
    infinite or rounding noise.

    Examples
    --------
    >>> d = np.array([[0.1, 0.2, 0.3], [0.2, 0.2, 0.2], [0.0, 0.0, 0.0]])
    >>> cohens_dz(d).round(6).tolist()
    [2.0, nan, nan]
    >>> cohens_dz(d, np.array([1.0, 1.0, 2.0])).round(6).tolist()
    [2.215647, nan, nan]
    """
    d = np.asarray(differences, dtype=np.float64)
    n = d.shape[-1]
    if n < 2:
        return np.full(d.shape[:-1], np.nan)
    if weights is None:
        mean, sd = d.mean(axis=-1), d.std(axis=-1, ddof=1)
    else:
        w = np.asarray(weights, dtype=np.float64)
        mean = (d @ w) / w.sum()
        variance = (((d - mean[..., None]) ** 2) @ w) / w.sum() * n / (n - 1)
        sd = np.sqrt(variance)
    flat = sd <= TIE_TOLERANCE * np.abs(d).max(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        dz = mean / sd
    out: np.ndarray = np.where(flat, np.nan, dz)
    return out


def change_pct(mean: np.ndarray, baseline_mean: np.ndarray) -> np.ndarray:
    """The relative change in percent, ``100 * (mean - baseline_mean) / baseline_mean``;
    NaN where the baseline's mean is 0.

    The sign follows the difference when the baseline's mean is positive (every measure
    of the library is at least 0); a negative baseline mean divides as it is.

    Examples
    --------
    >>> change_pct(np.array([0.3, 0.5, 0.1]), np.array([0.25, 0.5, 0.0])).round(6).tolist()
    [20.0, 0.0, nan]
    """
    mean = np.asarray(mean, dtype=np.float64)
    base = np.asarray(baseline_mean, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        pct = 100.0 * (mean - base) / base
    out: np.ndarray = np.where(base == 0, np.nan, pct)
    return out
