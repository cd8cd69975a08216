"""Stability of a verdict: does the order of the systems survive the analyst's choices?

Two orders of the same systems (by their means under two measures, thresholds, gains or tie
policies) are compared by Kendall's tau (:func:`kendall_tau`, tau-b) and by the AP rank
correlation of Yilmaz, Aslam & Robertson (2008, :func:`tau_ap`), which weighs a swap near
the top more than one near the bottom; :func:`rank_correlations` gives both for every
ordered pair of variants of a long table of means. :func:`discriminative_power` (Sakai 2006)
counts, per measure, the pairs of systems a test finds significantly different, from the
output of :func:`~polars_graded.stats.pairs.compare_pairs`.

A larger value ranks first everywhere here (means of effectiveness). Each correlation is
O(n^2) in numpy for n systems; :func:`rank_correlations` computes one per ordered pair of
variants, so O(v^2 n^2) for v variants: milliseconds for tens of each.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
import polars as pl

from polars_graded.errors import (
    ColumnTypeError,
    DuplicateKeyError,
    InvalidValueError,
    MissingColumnError,
)
from polars_graded.frames import Table, as_dataframe
from polars_graded.stats.options import DEFAULTS, check_fraction

CORRELATION_COLUMNS = ("variant_a", "variant_b", "n_systems", "tau", "tau_ap")
"""The columns of :func:`rank_correlations`."""
POWER_COLUMNS = ("measure", "n_pairs", "n_significant", "significant_share")
"""The columns of :func:`discriminative_power`."""


def kendall_tau(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray) -> float:
    """Kendall's tau-b between two score vectors over the same systems.

    With ``C`` and ``D`` the concordant and discordant pairs, and ``Tx``, ``Ty`` the pairs
    tied in ``x`` and in ``y``, out of ``N = n(n - 1)/2``:
    ``(C - D) / sqrt((N - Tx)(N - Ty))``, as :func:`scipy.stats.kendalltau` (its default
    variant). Values tie when they are equal. NaN when fewer than two systems, or when
    every value of ``x`` or of ``y`` ties.

    Parameters
    ----------
    x, y
        Finite scores, one per system, in the same order of systems.

    Raises
    ------
    InvalidValueError
        Lengths differ, more than one dimension, or a value is not finite.

    Examples
    --------
    >>> kendall_tau([0.4, 0.3, 0.2, 0.1], [0.3, 0.4, 0.2, 0.1])  # one pair of six swapped
    0.6666666666666666
    >>> round(kendall_tau([1, 2, 3], [1, 1, 2]), 4)  # a tie in y
    0.8165
    """
    a, b = _paired(x, y)
    sx, sy = _signs(a), _signs(b)
    # Each unordered pair appears twice in the sign matrices; the factors of 2 cancel.
    untied = float(np.abs(sx).sum()) * float(np.abs(sy).sum())
    if untied == 0:
        return float("nan")
    return float((sx * sy).sum() / np.sqrt(untied))


def tau_ap(
    truth: Sequence[float] | np.ndarray,
    other: Sequence[float] | np.ndarray,
    *,
    symmetric: bool = False,
) -> float:
    """AP rank correlation of ``other``'s order with ``truth``'s (Yilmaz, Aslam & Robertson 2008).

    Without ties: rank the n systems by ``other`` (largest first) and let ``C(i)`` be the
    number of systems above rank ``i`` that ``truth`` also ranks above the system at rank
    ``i``; ``tau_ap = 2 / (n - 1) * sum_{i=2..n} C(i) / (i - 1) - 1``. It is 1 when the orders
    agree, -1 when reversed, and it weighs a swap near the top of ``other`` more than one
    near the bottom. It is asymmetric: ``truth`` is the reference order, ``other`` the
    order judged against it (the positions ``i`` are ``other``'s).

    Ties are broken at random: the value is the expected tau_ap over uniformly random
    orders of each group of tied systems, in both vectors independently. A pair tied in
    ``truth`` counts as half concordant; a system in a tie group of ``other`` takes each of
    the group's positions with equal chance. With ties in ``other`` only, this is Urbano &
    Marrero's tau_AP_a (ICTIR 2017); without ties, Yilmaz et al.'s tau_ap.

    Parameters
    ----------
    truth
        The reference order's scores, one per system (larger ranks first).
    other
        The other order's scores, for the same systems in the same order.
    symmetric
        Return the mean of ``tau_ap(truth, other)`` and ``tau_ap(other, truth)``, for
        two orders neither of which is the reference (not Urbano & Marrero's tau_AP_b,
        which treats ties as real).

    Returns
    -------
    float
        In [-1, 1]; NaN for fewer than two systems.

    Raises
    ------
    InvalidValueError
        Lengths differ, more than one dimension, or a value is not finite.

    Examples
    --------
    A swap at the top costs more than the same swap at the bottom (Kendall's tau is 2/3
    for both):

    >>> round(tau_ap([4, 3, 2, 1], [3, 4, 2, 1]), 4), round(tau_ap([4, 3, 2, 1], [4, 3, 1, 2]), 4)
    (0.3333, 0.7778)
    >>> round(tau_ap([4, 3, 2, 1], [3, 4, 2, 1], symmetric=True), 4)
    0.3333
    """
    a, b = _paired(truth, other)
    if not symmetric:
        return _expected_tau_ap(a, b)
    return (_expected_tau_ap(a, b) + _expected_tau_ap(b, a)) / 2


def _expected_tau_ap(truth: np.ndarray, other: np.ndarray) -> float:
    """tau_ap in expectation over random orders of the tied systems (see :func:`tau_ap`)."""
    n = truth.size
    if n < 2:
        return float("nan")
    # right[i, j]: the chance that truth puts j above i (1, 1/2 on a tie, 0).
    right = (truth[None, :] > truth[:, None]) + 0.5 * (truth[None, :] == truth[:, None])
    np.fill_diagonal(right, 0.0)
    above = other[None, :] > other[:, None]  # j strictly above i in other
    tied = other[None, :] == other[:, None]
    np.fill_diagonal(tied, False)
    before, size = above.sum(axis=1), tied.sum(axis=1) + 1
    right_above, right_tied = (right * above).sum(axis=1), (right * tied).sum(axis=1)
    # i takes position before + 1 + m (m = 0 .. size - 1) with chance 1 / size; then m of
    # its group are above it, a uniform subset, each right with chance right_tied/(size-1).
    m = np.arange(size.max())[None, :]
    per_tied = np.divide(right_tied, size - 1, out=np.zeros(n), where=size > 1)
    correct = right_above[:, None] + m * per_tied[:, None]
    rank = before[:, None] + 1 + m
    # The top position (rank 1) has nothing above it: its term is 0 / 1.
    terms = np.where(m < size[:, None], correct / np.maximum(rank - 1, 1), 0.0)
    return float(2.0 / (n - 1) * (terms.sum(axis=1) / size).sum() - 1.0)


def _paired(
    x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Two checked float vectors of the same length."""
    a, b = (np.asarray(v, dtype=np.float64) for v in (x, y))
    if a.ndim != 1 or b.ndim != 1 or a.size != b.size:
        msg = (
            f"a rank correlation needs two vectors of the same length, one value per system; "
            f"got shapes {a.shape} and {b.shape}"
        )
        raise InvalidValueError(msg)
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        msg = "a rank correlation needs finite values; drop the systems without one first"
        raise InvalidValueError(msg)
    return a, b


def _signs(v: np.ndarray) -> np.ndarray:
    """``sign(v[i] - v[j])`` as a matrix (comparisons, so infinities of the difference are safe)."""
    return (v[:, None] > v[None, :]).astype(np.int8) - (v[:, None] < v[None, :]).astype(np.int8)


def rank_correlations(
    means: Table,
    *,
    variant: str = "variant",
    system: str = "system",
    value: str = "value",
) -> pl.DataFrame:
    """Kendall's tau and tau_AP between the orders of systems under every two variants.

    Parameters
    ----------
    means
        A long table: one row per (variant, system) with the system's ``value`` under the
        variant (its mean under a measure, a threshold, a gain or a tie policy). A null
        value means the variant has no value for that system. A Polars DataFrame or
        LazyFrame, a pandas DataFrame or an Arrow table.
    variant, system, value
        The columns' names.

    Returns
    -------
    DataFrame
        One row per ordered pair of distinct variants, in the order the variants first
        appear (``variant_a``, then ``variant_b``): ``variant_a``, ``variant_b`` (the
        input's dtype), ``n_systems`` (Int64, the systems both have values for), ``tau``
        (:func:`kendall_tau`, the same for both orders of a pair), ``tau_ap``
        (:func:`tau_ap` with ``variant_a``'s order as the reference: how well
        ``variant_b``'s order reproduces it; the mean over a pair's two rows is the
        symmetric variant). NaN where a correlation is undefined (fewer than two common
        systems, or every value tied).

    Raises
    ------
    MissingColumnError
        A column is missing.
    ColumnTypeError
        ``value`` is not numeric, or ``means`` is not a table (a list, a dict:
        :data:`~polars_graded.frames.ACCEPTED` says what is).
    DuplicateKeyError
        A (variant, system) pair occurs twice.
    InvalidValueError
        A value is NaN or infinite, or a variant or system is null.

    Examples
    --------
    >>> means = pl.DataFrame({
    ...     "variant": ["ap"] * 3 + ["p@10"] * 3,
    ...     "system": ["a", "b", "c"] * 2,
    ...     "value": [0.3, 0.2, 0.1, 0.5, 0.6, 0.4],
    ... })
    >>> rank_correlations(means).with_columns(pl.col("tau", "tau_ap").round(4)).rows()
    [('ap', 'p@10', 3, 0.3333, 0.0), ('p@10', 'ap', 3, 0.3333, 0.0)]
    """
    frame = _checked_means(as_dataframe(means, "rank_correlations"), variant, system, value)
    names = frame.get_column(variant).unique(maintain_order=True)
    wide = frame.pivot(variant, index=system, values=value)
    matrix = wide.select(names.cast(pl.String).to_list()).to_numpy().astype(np.float64)
    pairs = list(itertools.permutations(range(names.len()), 2))
    rows = [_pair(matrix[:, a], matrix[:, b]) for a, b in pairs]
    return pl.DataFrame(
        {
            "variant_a": names.gather([a for a, _ in pairs]),
            "variant_b": names.gather([b for _, b in pairs]),
            "n_systems": pl.Series([r[0] for r in rows], dtype=pl.Int64),
            "tau": pl.Series([r[1] for r in rows], dtype=pl.Float64),
            "tau_ap": pl.Series([r[2] for r in rows], dtype=pl.Float64),
        }
    )


def _checked_means(means: pl.DataFrame, variant: str, system: str, value: str) -> pl.DataFrame:
    """The three columns, checked, with ``value`` as Float64."""
    for name in (variant, system, value):
        if name not in means.columns:
            msg = (
                f"column {name!r} not found; the table of means has {means.columns}. "
                "Name the columns with variant=, system= and value="
            )
            raise MissingColumnError(msg)
    if len({variant, system, value}) < 3:
        msg = (
            "variant=, system= and value= must name three different columns, "
            f"got {variant!r}, {system!r} and {value!r}"
        )
        raise InvalidValueError(msg)
    if not means.schema[value].is_numeric():
        msg = f"column {value!r} must be numeric, found {means.schema[value]}"
        raise ColumnTypeError(msg)
    frame = means.select(variant, system, pl.col(value).cast(pl.Float64))
    if frame.get_column(variant).has_nulls() or frame.get_column(system).has_nulls():
        msg = f"columns {variant!r} and {system!r} must not be null"
        raise InvalidValueError(msg)
    if not frame.select(pl.col(value).is_finite() | pl.col(value).is_null()).to_series().all():
        msg = f"column {value!r} must be finite (null: no value for that system)"
        raise InvalidValueError(msg)
    if frame.select(variant, system).is_duplicated().any():
        twice = frame.filter(frame.select(variant, system).is_duplicated()).row(0)
        msg = f"each ({variant}, {system}) must occur once; {twice[:2]!r} occurs more often"
        raise DuplicateKeyError(msg)
    return frame


def _pair(a: np.ndarray, b: np.ndarray) -> tuple[int, float, float]:
    """Common systems, tau and tau_ap (``a`` the reference) of two columns with NaN gaps."""
    both = ~(np.isnan(a) | np.isnan(b))
    x, y = a[both], b[both]
    return int(both.sum()), kendall_tau(x, y), tau_ap(x, y)


def discriminative_power(
    pairs: Table, *, alpha: float = DEFAULTS.alpha, p: str = "p_randomization_adjusted"
) -> pl.DataFrame:
    """Per measure, the share of pairs of systems found significantly different (Sakai 2006).

    Discriminative power is how often a measure, with a test, tells two systems apart on
    the same queries: a measure that separates more pairs at the same ``alpha`` needs fewer
    queries to reach a verdict.

    Parameters
    ----------
    pairs
        The output of :func:`~polars_graded.stats.pairs.compare_pairs`: a ``measure``
        column and the p-value column ``p``, one row per pair of systems and measure (a
        Polars DataFrame or LazyFrame, a pandas DataFrame or an Arrow table).
    alpha
        The significance level: a pair counts when its p-value is below it.
    p
        The p-value column: ``"p_randomization_adjusted"`` (default: the paired
        randomization test corrected across the pairs), ``"p_randomization"`` or
        ``"p_tukey"``.

    Returns
    -------
    DataFrame
        One row per measure, in the order they first appear: ``measure``, ``n_pairs``
        (Int64), ``n_significant`` (Int64, p-value below ``alpha``; a null p-value is not
        significant) and ``significant_share`` = ``n_significant / n_pairs``.

    Raises
    ------
    MissingColumnError
        ``measure`` or ``p`` is missing.
    ColumnTypeError
        ``p`` is not numeric, or ``pairs`` is not a table (a list, a dict:
        :data:`~polars_graded.frames.ACCEPTED` says what is).
    InvalidValueError
        ``alpha`` is not strictly between 0 and 1.

    Examples
    --------
    >>> pairs = pl.DataFrame({
    ...     "measure": ["ap", "ap", "ap", "p@10", "p@10", "p@10"],
    ...     "p_randomization_adjusted": [0.01, 0.2, 0.03, 0.5, 0.04, 0.3],
    ... })
    >>> discriminative_power(pairs).rows()
    [('ap', 3, 2, 0.6666666666666666), ('p@10', 3, 1, 0.3333333333333333)]
    """
    table = as_dataframe(pairs, "discriminative_power")
    check_fraction("alpha", alpha)
    for name in ("measure", p):
        if name not in table.columns:
            msg = (
                f"column {name!r} not found; discriminative power reads the output of "
                f"compare_pairs, which has 'measure' and the p-value columns; got {table.columns}"
            )
            raise MissingColumnError(msg)
    if not table.schema[p].is_numeric():
        msg = f"column {p!r} must hold p-values (numeric), found {table.schema[p]}"
        raise ColumnTypeError(msg)
    significant = (pl.col(p) < alpha).fill_null(False)
    counts = table.group_by("measure", maintain_order=True).agg(
        n_pairs=pl.len().cast(pl.Int64), n_significant=significant.sum().cast(pl.Int64)
    )
    return counts.with_columns(significant_share=pl.col("n_significant") / pl.col("n_pairs"))
