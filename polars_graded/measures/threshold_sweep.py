"""µAP's numerator for every ranking at once, in O(n log m) instead of O(n * m).

µAP_q * top_q = sum_i d_i AP^(l_i) over the query's levels. Swapping the sums turns it
into a sum over pairs of relevant retrieved rows (SPEC.md §4):

    sum_i d_i AP^(l_i) = sum_j (1/p_j) * sum_{i <= j} min(w_i, w_j),
    w = W(label),  W(x) = sum_{levels l <= x} d_l / R^l,

where i, j run over the relevant retrieved rows in ranked order, p_j is j's position and
R^l counts every judged row with label >= l, retrieved or not. W rises with the label, so
the inner sum needs, for each row, the rows before it with a smaller and a larger label.

Rankings with a few levels (graded labels such as 0..4) keep one running count per level:
O(n * m), a handful of vectorised passes. Rankings with many levels (continuous labels, a
level per row) keep a prefix sum over the ranking's levels in one Fenwick tree per
ranking, all rankings advancing together one ranked row at a time, so the Python loop runs
once per position (at most the ranking depth), never once per query: O(n log m).
"""

from __future__ import annotations

import numpy as np
import polars as pl

from polars_graded.measures.tie_average import mu_ap_numerators_averaged
from polars_graded.ranking import (
    IDEAL_REL,
    N_RETRIEVED,
    POSITION,
    RANKED_REL,
    RANKING_ID,
    TIE_END,
    TIE_START,
)

NUMERATOR = "_mu_ap_numerator"
TOP = "_top"
FEW_LEVELS = 8
"""Rankings with at most this many levels take the O(n * m) sweep, the others O(n log m)."""


def mu_ap_numerators(
    ranked: pl.LazyFrame, k: int | None, by: list[str], *, averaged: bool = False
) -> pl.LazyFrame:
    """Per ranking with a relevant row: ``sum_i d_i AP^(l_i)@k`` and its top label ``_top``.

    ``ranked`` is the exploded ranked table of :mod:`polars_graded.ranking`; the ``by``
    columns are carried along. ``averaged``: the expectation over the orders of tied rows
    (``ties="average"``, see :mod:`polars_graded.measures.tie_average`).
    """
    levels = _levels(ranked, by)
    sums = _averaged_where_tied(ranked, levels, k) if averaged else _swept(ranked, levels, k)
    tops = levels.filter(pl.col("_level") == pl.col("_n_levels")).select(
        RANKING_ID, *by, pl.col("_label").alias(TOP)
    )
    return tops.join(sums, on=RANKING_ID, how="left").with_columns(pl.col(NUMERATOR).fill_null(0.0))


def _averaged_where_tied(ranked: pl.LazyFrame, levels: pl.LazyFrame, k: int | None) -> pl.LazyFrame:
    """Rankings with tied retrieved rows take the per-level expectation, the others the
    sweep: the same bits as without tie averaging, and less work."""
    retrieved = pl.col(POSITION) <= pl.col(N_RETRIEVED)
    tied = (
        ranked.filter(retrieved & (pl.col(TIE_END) > pl.col(TIE_START))).select(RANKING_ID).unique()
    )
    untied = ranked.join(tied, on=RANKING_ID, how="anti", maintain_order="left")
    tied_rows = ranked.join(tied, on=RANKING_ID, how="semi", maintain_order="left")
    return pl.concat([_swept(untied, levels, k), _averaged(tied_rows, levels, k)])


def _averaged(ranked: pl.LazyFrame, levels: pl.LazyFrame, k: int | None) -> pl.LazyFrame:
    sums = mu_ap_numerators_averaged(ranked, levels, k)
    return sums.select(pl.col(RANKING_ID).cast(pl.UInt32), pl.col("_numerator").alias(NUMERATOR))


def _swept(ranked: pl.LazyFrame, levels: pl.LazyFrame, k: int | None) -> pl.LazyFrame:
    """The sums of the module docstring for every ranking (rows in ranked order)."""
    # Filtering keeps the ranked order (ranking, then position) that the sweep needs.
    retrieved = ranked.filter(
        (pl.col(RANKED_REL) > 0) & (pl.col(POSITION) <= pl.col(N_RETRIEVED))
    ).select(RANKING_ID, _label=pl.col(RANKED_REL), _pos=pl.col(POSITION))
    weighted = retrieved.join(
        levels.select(RANKING_ID, "_label", "_level", "_w", "_n_levels"),
        on=[RANKING_ID, "_label"],
        how="left",
        maintain_order="left",
    )
    return weighted.map_batches(
        lambda frame: _numerators(frame, k),
        schema=pl.Schema({RANKING_ID: pl.UInt32, NUMERATOR: pl.Float64}),
    )


def _levels(ranked: pl.LazyFrame, by: list[str]) -> pl.LazyFrame:
    """Per (ranking, level): ``_label``, ``_level`` (1..m, ascending), ``_w = W(label)``, m,
    the distance ``_d`` to the level below and ``_at_or_above`` (``R^l``).

    The ideal column holds each ranking's judged labels sorted descending, so its runs of
    equal positive labels are the levels from the top down, and the position of a run's
    last row is ``R^l``, the number of rows at or above the level: no sort, no hashing.
    """
    label, ranking = pl.col("_label"), pl.col(RANKING_ID)
    same_next = (ranking == ranking.shift(-1)).fill_null(False)
    run_ends = (
        ranked.filter(pl.col(IDEAL_REL) > 0)
        .select(RANKING_ID, *by, _label=pl.col(IDEAL_REL), _at_or_above=pl.col(POSITION))
        .filter(~same_next | (label != label.shift(-1)))
    )
    below = pl.when(same_next).then(label.shift(-1)).otherwise(0.0)
    n_levels = pl.len().over(RANKING_ID).cast(pl.Int64)
    return run_ends.with_columns(
        _w=((label - below) / pl.col("_at_or_above")).cum_sum(reverse=True).over(RANKING_ID),
        _d=label - below,
        _level=n_levels - pl.int_range(pl.len()).over(RANKING_ID),
        _n_levels=n_levels,
    )


def _numerators(frame: pl.DataFrame, k: int | None) -> pl.DataFrame:
    """``sum_j (1/p_j) sum_{i<=j} min(w_i, w_j)`` per ranking; rows sorted by ranking, position.

    ``frame`` holds the relevant retrieved rows with their level (``_level``), ``W`` of it
    (``_w``), position (``_pos``) and the ranking's level count (``_n_levels``).
    """
    ranking = frame[RANKING_ID].to_numpy()
    if ranking.size == 0:
        return pl.DataFrame(schema={RANKING_ID: pl.UInt32, NUMERATOR: pl.Float64})
    position = frame["_pos"].to_numpy().astype(np.float64)
    level = frame["_level"].to_numpy()
    weight = frame["_w"].to_numpy()
    starts, group = _segments(ranking)
    row_levels = frame["_n_levels"].to_numpy()
    pair_sums = np.empty(ranking.size)
    # Whole rankings go one way or the other, so a query's bits never depend on its neighbours.
    few = row_levels <= FEW_LEVELS
    for rows, sums in ((few, _per_level_sums), (~few, _fenwick_sums)):
        if rows.any():
            pair_sums[rows] = sums(ranking[rows], level[rows], weight[rows], row_levels[rows])
    contribution = pair_sums / position
    if k is not None:
        contribution[position > k] = 0.0
    # bincount adds in row order: the same bits on every run.
    totals = np.bincount(group, weights=contribution, minlength=starts.size)
    return pl.DataFrame({RANKING_ID: ranking[starts], NUMERATOR: totals})


def _segments(ranking: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """First row of each ranking, and each row's ranking number 0..n-1 (rows contiguous)."""
    starts = np.flatnonzero(np.r_[True, ranking[1:] != ranking[:-1]])
    group = np.repeat(np.arange(starts.size), np.diff(np.r_[starts, ranking.size]))
    return starts, group


def _per_level_sums(
    ranking: np.ndarray, level: np.ndarray, weight: np.ndarray, row_levels: np.ndarray
) -> np.ndarray:
    """For each row j: ``sum over rows i <= j of its ranking of min(w_i, w_j)``, level by level.

    ``sum_i min(w_i, w_j) = sum over the levels v <= level_j present among the rows of
    (W_v - W_below_v) * #{i <= j: level_i >= v}``: one running count per level, O(n * m).
    """
    starts, group = _segments(ranking)
    top = int(row_levels.max())
    present = np.full((starts.size, top + 1), np.nan)
    present[:, 0] = 0.0
    present[group, level] = weight
    # The weight of the nearest present level below each level (0 below the lowest).
    last_seen = np.maximum.accumulate(np.where(np.isnan(present), 0, np.arange(top + 1)), axis=1)
    below = np.take_along_axis(present, last_seen, axis=1)
    step = np.nan_to_num(present[:, 1:] - below[:, :-1])
    out = np.zeros(ranking.size)
    for v in range(1, top + 1):
        at_or_above = level >= v
        running = np.cumsum(at_or_above)
        count = running - (running[starts] - at_or_above[starts])[group]
        out += np.where(at_or_above, step[group, v - 1] * count, 0.0)
    return out


def _fenwick_sums(
    ranking: np.ndarray, level: np.ndarray, weight: np.ndarray, row_levels: np.ndarray
) -> np.ndarray:
    """:func:`_prefix_min_sums` for rows given with their ranking ids (rows contiguous)."""
    starts, group = _segments(ranking)
    return _prefix_min_sums(group, level, weight, starts, row_levels[starts])


def _prefix_min_sums(
    group: np.ndarray,
    level: np.ndarray,
    weight: np.ndarray,
    starts: np.ndarray,
    n_levels: np.ndarray,
) -> np.ndarray:
    """For each row j: ``sum over rows i <= j of its group of min(w_i, w_j)``.

    ``level`` is the dense rank (1..m) of ``weight`` within the group, so a smaller level
    means a smaller weight. One Fenwick tree per group holds, per level, the count and the
    weight sum of the rows seen so far; the k-th rows of all groups are handled together.
    """
    # Group g's tree: slot base[g] + 0 always holds 0 (where finished reads land), slots
    # + 1 .. + m_g the levels, slot + m_g + 1 a sink for finished writes: no masks needed.
    base = np.r_[0, np.cumsum(n_levels + 2)[:-1]]
    trees = np.zeros(int((n_levels + 2).sum()), dtype=np.complex128)
    ordinal = np.arange(group.size) - starts[group]
    out = np.empty(group.size)
    order = np.argsort(ordinal, kind="stable")
    bounds = np.searchsorted(ordinal[order], np.arange(ordinal.max() + 2))
    for step in range(ordinal.max() + 1):
        rows = order[bounds[step] : bounds[step + 1]]
        g, t, w = group[rows], level[rows], weight[rows]
        seen_count, seen_weight = _fenwick_prefix(trees, base[g], t)
        # Earlier rows at or below this level give their own weight, the rest give w.
        out[rows] = seen_weight + w * (step - seen_count) + w
        _fenwick_add(trees, base[g], t, n_levels[g], w)
    return out


def _fenwick_prefix(
    trees: np.ndarray, base: np.ndarray, level: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Count and weight sum of the rows seen so far at levels 1..level, per group.

    ``trees`` holds, per slot, a row count (real part) and a weight sum (imaginary part):
    complex addition adds each part exactly as two float arrays would, in one memory visit
    (the sweep is bound by memory access).
    """
    seen = np.zeros(level.size, dtype=np.complex128)
    index = level.copy()
    while index.any():
        seen += trees[base + index]
        index -= index & -index
    return seen.real, seen.imag


def _fenwick_add(
    trees: np.ndarray, base: np.ndarray, level: np.ndarray, n_levels: np.ndarray, weight: np.ndarray
) -> None:
    """Record one row per group at ``level`` (groups differ, so no index repeats)."""
    row = 1.0 + 1j * weight
    index = level.copy()
    while (index <= n_levels).any():
        trees[base + np.minimum(index, n_levels + 1)] += row
        index += index & -index
