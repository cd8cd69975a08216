"""Multiple-testing corrections of p-values: Bonferroni, Holm–Bonferroni, Holm–Šidák,
Benjamini–Hochberg, none.

:func:`adjust` applies the correction a comparison was asked for (``correction=``, one of
:data:`~polars_graded.stats.options.CORRECTIONS`) along the last axis of an array of
p-values, each row a family of tests; :func:`bonferroni`, :func:`holm`, :func:`holm_sidak`
and :func:`benjamini_hochberg` are the adjustments, each equal to statsmodels'
``multipletests(p, method=...)`` (``"bonferroni"``, ``"holm"``, ``"holm-sidak"``,
``"fdr_bh"``). :func:`adjusted_column` names the column of adjusted p-values a comparison
against the baseline writes.

**NaN.** A NaN p-value (a test that is undefined, such as a t-test on one query) stays NaN
and is not one of the family: the others are adjusted as if it were absent, as R's
``p.adjust`` does (statsmodels would spread the NaN to the others).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import cast

import numpy as np

from polars_graded.stats.options import CORRECTIONS, Correction, check_correction


def bonferroni(p_values: np.ndarray) -> np.ndarray:
    """Bonferroni adjusted p-values along the last axis: ``min(1, m p)``.

    Examples
    --------
    >>> bonferroni(np.array([0.01, 0.04, 0.5])).round(4).tolist()
    [0.03, 0.12, 1.0]
    """
    p = np.asarray(p_values, dtype=np.float64)
    adjusted: np.ndarray = np.minimum(1.0, p.shape[-1] * p)
    return adjusted


def holm(p_values: np.ndarray) -> np.ndarray:
    """Holm–Bonferroni adjusted p-values along the last axis.

    The ``m`` p-values sorted ascending ``p_(1) <= ... <= p_(m)`` become
    ``min(1, max_{j <= i} (m - j + 1) p_(j))``, returned in the input's order. Tied p-values
    get the same adjusted value whatever their order.

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
    return _unsorted(adjusted, order)


def holm_sidak(p_values: np.ndarray) -> np.ndarray:
    """Holm–Šidák adjusted p-values along the last axis.

    As :func:`holm`, with Šidák's ``1 - (1 - p_(j))^(m - j + 1)`` in place of
    ``(m - j + 1) p_(j)``: a little less conservative, exact for independent tests.

    Examples
    --------
    >>> holm_sidak(np.array([0.01, 0.04, 0.03])).round(4).tolist()
    [0.0297, 0.0591, 0.0591]
    """
    p = np.asarray(p_values, dtype=np.float64)
    m = p.shape[-1]
    if m == 0:
        return p.copy()
    order = np.argsort(p, axis=-1, kind="stable")
    ordered = np.take_along_axis(p, order, axis=-1)
    # 1 - (1 - p)^k without the rounding of 1 - p near 0, as statsmodels computes it.
    with np.errstate(divide="ignore"):  # p = 1: log1p(-1) is -inf, and the result 1
        scaled = -np.expm1((m - np.arange(m)) * np.log1p(-ordered))
    adjusted = np.minimum(1.0, np.maximum.accumulate(scaled, axis=-1))
    return _unsorted(adjusted, order)


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
    return _unsorted(adjusted, order)


def _unsorted(adjusted: np.ndarray, order: np.ndarray) -> np.ndarray:
    """The adjusted values, sorted as ``order`` says, back in the input's order."""
    out = np.empty_like(adjusted)
    np.put_along_axis(out, order, adjusted, axis=-1)
    return out


def _unchanged(p_values: np.ndarray) -> np.ndarray:
    return np.asarray(p_values, dtype=np.float64).copy()


ADJUSTMENTS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "bonferroni": bonferroni,
    "holm": holm,
    "holm-sidak": holm_sidak,
    "bh": benjamini_hochberg,
    "none": _unchanged,
}
"""The adjustment of each correction (a test checks it covers
:data:`~polars_graded.stats.options.CORRECTIONS`)."""


def adjust(p_values: np.ndarray, correction: Correction) -> np.ndarray:
    """``p_values`` corrected along the last axis (each row one family of tests).

    A NaN stays NaN and leaves the family: the row's other p-values are adjusted as if it
    were absent (``m`` counts the others).

    Examples
    --------
    >>> p = np.array([0.01, 0.04, 0.03])
    >>> [adjust(p, c).round(4).tolist() for c in ("holm", "bh", "none")]
    [[0.03, 0.06, 0.06], [0.03, 0.04, 0.04], [0.01, 0.04, 0.03]]
    >>> adjust(np.array([0.01, np.nan, 0.04]), "bonferroni").tolist()
    [0.02, nan, 0.08]
    """
    check_correction(correction)
    adjustment = ADJUSTMENTS[correction]
    p = np.asarray(p_values, dtype=np.float64)
    missing = np.isnan(p)
    if not missing.any():
        return adjustment(p)
    out = np.full_like(p, np.nan)
    rows, flat = p.reshape(-1, p.shape[-1]), out.reshape(-1, p.shape[-1])
    for row, gaps, target in zip(rows, missing.reshape(rows.shape), flat, strict=True):
        target[~gaps] = adjustment(row[~gaps])
    return out


def adjusted_column(p_column: str, correction: Correction) -> str:
    """The name of the column of ``p_column`` adjusted by ``correction`` in a comparison
    against the baseline: ``p_column`` then the correction (``holm-sidak`` as
    ``holm_sidak``), so the default keeps the names ``p_ttest_holm`` and
    ``p_randomization_holm``.

    Examples
    --------
    >>> adjusted_column("p_randomization", "holm"), adjusted_column("p_ttest", "holm-sidak")
    ('p_randomization_holm', 'p_ttest_holm_sidak')
    """
    check_correction(correction)
    return f"{p_column}_{correction.replace('-', '_')}"


def correction_of(columns: Sequence[str], p_column: str) -> Correction | None:
    """The correction whose adjusted ``p_column`` (:func:`adjusted_column`) is among
    ``columns``: how a comparison's frame was corrected; None when none is.

    Examples
    --------
    >>> correction_of(["p_randomization", "p_randomization_holm_sidak"], "p_randomization")
    'holm-sidak'
    """
    for correction in CORRECTIONS:
        if adjusted_column(p_column, cast(Correction, correction)) in columns:
            return cast(Correction, correction)
    return None
