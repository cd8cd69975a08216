"""Multiple-testing corrections of p-values: Holm–Bonferroni, Benjamini–Hochberg, none.

:func:`adjust` applies the correction a comparison was asked for (``correction=``, one of
:data:`~polars_graded.stats.options.CORRECTIONS`) along the last axis of an array of
p-values; :func:`holm` and :func:`benjamini_hochberg` are the two adjustments.
"""

from __future__ import annotations

import numpy as np

from polars_graded.stats.options import Correction, check_correction


def holm(p_values: np.ndarray) -> np.ndarray:
    """Holm–Bonferroni adjusted p-values along the last axis.

    The ``m`` p-values sorted ascending ``p_(1) <= ... <= p_(m)`` become
    ``min(1, max_{j <= i} (m - j + 1) p_(j))``, returned in the input's order. NaN sorts
    last and stays NaN.

    Examples
    --------
    >>> holm(np.array([0.01, 0.04, 0.03])).round(4).tolist()
    [0.03, 0.06, 0.06]
    """
    p = np.asarray(p_values, dtype=np.float64)
    m = p.shape[-1]
    if m == 0:
        return p.copy()
    order = np.argsort(p, axis=-1, kind="stable")
    scaled = (m - np.arange(m)) * np.take_along_axis(p, order, axis=-1)
    adjusted = np.minimum(1.0, np.maximum.accumulate(scaled, axis=-1))
    out = np.empty_like(adjusted)
    np.put_along_axis(out, order, adjusted, axis=-1)
    return out


def benjamini_hochberg(p_values: np.ndarray) -> np.ndarray:
    """Benjamini–Hochberg adjusted p-values along the last axis.

    The ``m`` p-values sorted ascending ``p_(1) <= ... <= p_(m)`` become
    ``min(1, min_{j >= i} m p_(j) / j)``, returned in the input's order.

    Examples
    --------
    >>> benjamini_hochberg(np.array([0.01, 0.04, 0.03])).round(4).tolist()
    [0.03, 0.04, 0.04]
    """
    p = np.asarray(p_values, dtype=np.float64)
    m = p.shape[-1]
    if m == 0:
        return p.copy()
    order = np.argsort(p, axis=-1, kind="stable")
    scaled = m / np.arange(1, m + 1) * np.take_along_axis(p, order, axis=-1)
    adjusted = np.minimum(1.0, np.flip(np.minimum.accumulate(np.flip(scaled, -1), -1), -1))
    out = np.empty_like(adjusted)
    np.put_along_axis(out, order, adjusted, axis=-1)
    return out


def adjust(p_values: np.ndarray, correction: Correction) -> np.ndarray:
    """``p_values`` corrected along the last axis: Holm, Benjamini–Hochberg or unchanged.

    Examples
    --------
    >>> p = np.array([0.01, 0.04, 0.03])
    >>> [adjust(p, c).round(4).tolist() for c in ("holm", "bh", "none")]
    [[0.03, 0.06, 0.06], [0.03, 0.04, 0.04], [0.01, 0.04, 0.03]]
    """
    check_correction(correction)
    if correction == "holm":
        return holm(p_values)
    if correction == "bh":
        return benjamini_hochberg(p_values)
    return np.asarray(p_values, dtype=np.float64).copy()
