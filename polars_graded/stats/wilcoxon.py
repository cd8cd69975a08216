"""The Wilcoxon signed-rank test of paired per-query differences, through scipy.

:func:`wilcoxon_p` gives the p-value of every row of differences as
``scipy.stats.wilcoxon(d)`` gives it, with scipy's defaults (``zero_method="wilcox"``,
``correction=False``, ``method="auto"``): the test ``test="wilcoxon"`` of
:func:`~polars_graded.stats.compare.compare` and of the gate. scipy is the optional extra
``stats`` (``pip install "polars-graded[stats]"``), imported when the test runs
(:func:`import_wilcoxon`).
"""

from __future__ import annotations

import warnings
from itertools import product
from typing import Any, Final, Literal

import numpy as np

EXACT_MOST: Final = 50
"""Up to this many differences scipy's ``method="auto"`` takes an exact p-value (above it,
the normal approximation). It decides from the ties and zeros of the whole call, so rows
this short are tested one at a time, each with its own decision."""

PERMUTATION_MOST: Final = 13
"""Up to this many differences, with a zero or a tie among them, ``method="auto"`` counts
every one of the ``2^n`` sign patterns (:func:`sign_flip_p`)."""

Alternative = Literal["two-sided", "greater"]


def import_wilcoxon() -> Any:
    """scipy's ``wilcoxon``, or an ImportError saying how to install scipy.

    Examples
    --------
    >>> import_wilcoxon().__name__
    'wilcoxon'
    """
    try:
        from scipy.stats import wilcoxon
    except ImportError as error:
        msg = (
            "the Wilcoxon signed-rank test (test='wilcoxon') needs scipy; install it with "
            'pip install "polars-graded[stats]"'
        )
        raise ImportError(msg) from error
    return wilcoxon


def wilcoxon_p(differences: np.ndarray, alternative: Alternative = "two-sided") -> np.ndarray:
    """The Wilcoxon signed-rank p-value of each row (last axis) of paired differences.

    Each row's value is ``scipy.stats.wilcoxon(row, alternative=alternative).pvalue``
    with scipy's other defaults: a zero difference is dropped (``zero_method="wilcox"``),
    tied ``|d|`` share their average rank, and ``method="auto"`` takes the exact null
    distribution when at most 50 differences, none zero or tied; with zeros or ties, an
    exact permutation over the ``2^n`` sign patterns when ``n <= 13``, else (and above 50
    differences) the normal approximation with the tie correction and no continuity
    correction. A row whose differences are all 0 has p 1.0 (no evidence of a difference;
    scipy 1.17 says the same, older releases raise).

    Examples
    --------
    >>> d = np.array([[0.1, 0.2, 0.3, 0.4], [0.0, 0.0, 0.0, 0.0], [0.5, -0.1, 0.2, 0.0]])
    >>> wilcoxon_p(d).tolist()
    [0.125, 1.0, 0.5]
    """
    wilcoxon = import_wilcoxon()
    rows = np.asarray(differences, dtype=np.float64)
    shape, n = rows.shape[:-1], rows.shape[-1]
    rows = rows.reshape(-1, n)
    p = np.ones(rows.shape[0])
    tested = rows.any(axis=1)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        # scipy warns about zeros, ties and the normal approximation; the docstring says when.
        warnings.simplefilter("ignore", RuntimeWarning)
        warnings.simplefilter("ignore", UserWarning)
        if n > EXACT_MOST:  # asymptotic: each row's p is computed on that row alone
            if tested.any():
                p[tested] = wilcoxon(rows[tested], alternative=alternative, axis=1).pvalue
        else:
            for i in np.flatnonzero(tested):
                if n <= PERMUTATION_MOST and _zeros_or_ties(rows[i]):
                    p[i] = sign_flip_p(rows[i], alternative)
                else:
                    p[i] = wilcoxon(rows[i], alternative=alternative).pvalue
    out: np.ndarray = p.reshape(shape)
    return out


def sign_flip_p(differences: np.ndarray, alternative: Alternative = "two-sided") -> float:
    """The exact permutation p-value of the signed-rank statistic over every sign pattern:
    scipy's ``method="auto"`` for at most 13 differences with a zero or a tie.

    scipy's own ``permutation_test`` calls the statistic once per pattern in Python (two
    seconds for 13 differences); the same count in one matrix product. The statistic is
    the sum ``W+`` of the ranks of the positive differences (zeros dropped, ties averaged);
    with ``W`` over all ``2^m`` patterns of the ``m`` non-zero differences (a zero's sign
    changes nothing, so each pattern of all ``n`` has the same share),
    ``p = min(1, 2 min(P(W <= W+), P(W >= W+)))``, or ``P(W >= W+)`` for
    ``alternative="greater"``.

    Examples
    --------
    >>> sign_flip_p(np.array([0.5, -0.1, 0.2, 0.0]))
    0.5
    """
    d = differences[differences != 0]
    magnitude = np.abs(d)
    # Average ranks of |d| among the non-zero differences.
    below = (magnitude[None, :] < magnitude[:, None]).sum(axis=1)
    equal = (magnitude[None, :] == magnitude[:, None]).sum(axis=1)
    ranks = below + (equal + 1) / 2
    observed = ranks[d > 0].sum()
    signs = np.array(list(product((0.0, 1.0), repeat=d.size)))
    null = signs @ ranks
    greater = float(np.mean(null >= observed))
    if alternative == "greater":
        return greater
    return min(1.0, 2 * min(greater, float(np.mean(null <= observed))))


def _zeros_or_ties(differences: np.ndarray) -> bool:
    """A zero among the differences, or two non-zero ones of the same size."""
    magnitude = np.abs(differences)
    nonzero = magnitude[magnitude != 0]
    return bool(nonzero.size < magnitude.size or np.unique(nonzero).size < nonzero.size)
