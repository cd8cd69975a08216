"""µAP's numerator, and AP at every level, for every ranking at once in O(n log n): the plans.

µAP_q * top_q = sum_i d_i AP^(l_i) over the query's levels. Swapping the sums turns it
into a sum over pairs of relevant retrieved rows (docs/conventions.md §4):

    sum_i d_i AP^(l_i) = sum_j (1/p_j) * sum_{i <= j} min(w_i, w_j),
    w = W(label),  W(x) = sum_{levels l <= x} d_l / R^l,

where i, j run over the relevant retrieved rows in ranked order, p_j is j's position and
R^l counts every judged row with label >= l, retrieved or not. W rises with the label, so
the inner sum needs, for each row, the rows before it with a smaller and a larger label.
AP at one level t is the same kind of sum: each pair (i <= j) adds 1/p_j to the AP
numerator of every t <= min(l_i, l_j), so :func:`ap_at_levels` puts each pair's 1/p_j at
its minimum level and sums from the top level down. Under ``ties="average"`` only the
pair weights change (see :mod:`polars_graded.measures.kernels.tie_average`).

This module builds the lazy plans: each row's level and ``W`` (a row finds its level by its
rank among the ranking's labels, never by a join on the label: :func:`_row_levels`), then
per batch of rows the numpy sweeps of :mod:`polars_graded.measures.kernels.mu_ap_sweep`,
which sum over the pairs in O(n * m) or O(n log m) time and O(n) memory.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from polars_graded.measures.kernels.mu_ap_sweep import earlier_sums, pair_sums, segments
from polars_graded.measures.kernels.tie_average import later_in_group, tie_group_weights
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
AP_AT_LEVEL = "_ap"
TIED = "__pg_tied"
"""Per row under ``ties="average"``: its ranking has tied retrieved rows."""


def mu_ap_numerators(
    ranked: pl.LazyFrame, k: int | None, by: list[str], *, averaged: bool = False
) -> pl.LazyFrame:
    """Per ranking with a relevant row: ``sum_i d_i AP^(l_i)@k`` and its top label ``_top``.

    ``ranked`` is the exploded ranked table of :mod:`polars_graded.ranking`; the ``by``
    columns are carried along. ``averaged``: the expectation over the orders of tied rows
    (``ties="average"``, see :mod:`polars_graded.measures.kernels.tie_average`).

    Examples
    --------
    Labels 0, 2, 1 by score: ``AP^2 = 1/2`` and ``AP^1 = (1/2 + 2/3) / 2``, each level 1
    apart, so the numerator is 13/12 and µAP = 13/12 / 2 = 0.541667.

    >>> from polars_graded.options import TableSpec
    >>> from polars_graded.ranking import explode_ranked, number_rankings, ranked_lists
    >>> df = pl.LazyFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
    ...                    "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1]})
    >>> grouped = df.group_by("query").agg(ranked_lists(TableSpec()))
    >>> ranked = explode_ranked(number_rankings(grouped, TableSpec()), TableSpec())
    >>> mu_ap_numerators(ranked, None, []).collect().rows()  # (ranking, _top, numerator)
    [(0, 2.0, 1.0833333333333333)]
    """
    if averaged:
        retrieved = pl.col(POSITION) <= pl.col(N_RETRIEVED)
        tied = retrieved & (pl.col(TIE_END) > pl.col(TIE_START))
        ranked = ranked.with_columns(tied.any().over(RANKING_ID).alias(TIED))
    leveled = _row_levels(ranked)
    sums = _averaged_where_tied(leveled, k) if averaged else _swept(leveled, k)
    # The ideal column's first row holds the top label of a ranking with a relevant row.
    tops = ranked.filter((pl.col(POSITION) == 1) & (pl.col(IDEAL_REL) > 0)).select(
        RANKING_ID, *by, pl.col(IDEAL_REL).alias(TOP)
    )
    return tops.join(sums, on=RANKING_ID, how="left").with_columns(pl.col(NUMERATOR).fill_null(0.0))


def _averaged_where_tied(leveled: pl.LazyFrame, k: int | None) -> pl.LazyFrame:
    """Rankings with tied retrieved rows (:data:`TIED`) take the per-level expectation, the
    others the sweep: the same bits as without tie averaging, and less work."""
    tied = pl.col(TIED)
    # Both branches read the levels: cached, or Polars would find them twice.
    leveled = leveled.cache()
    return pl.concat([_swept(leveled.filter(~tied), k), _averaged(leveled.filter(tied), k)])


def _averaged(leveled: pl.LazyFrame, k: int | None) -> pl.LazyFrame:
    """The sums of the module docstring averaged over the orders of tied rows."""
    # Groups that start beyond the cutoff add nothing, and come after every row that does.
    shown = leveled if k is None else leveled.filter(pl.col(TIE_START) <= k)
    return _relevant_rows(shown, [TIE_START, TIE_END]).map_batches(
        lambda frame: _averaged_numerators(frame, k),
        schema=pl.Schema({RANKING_ID: pl.UInt32, NUMERATOR: pl.Float64}),
    )


def _swept(leveled: pl.LazyFrame, k: int | None) -> pl.LazyFrame:
    """The sums of the module docstring for every ranking (rows in ranked order)."""
    return _relevant_rows(leveled).map_batches(
        lambda frame: _numerators(frame, k),
        schema=pl.Schema({RANKING_ID: pl.UInt32, NUMERATOR: pl.Float64}),
    )


def _row_levels(ranked: pl.LazyFrame) -> pl.LazyFrame:
    """The rows of ``ranked`` with a positive ranked or ideal label, each with ``_level``,
    ``_w`` and ``_n_levels`` of its ranked label (as :func:`_levels` has them; meaningful
    where the ranked label is positive).

    Every judged row stays in its ranking's list, so the ranked and the ideal column hold
    the same labels: a row labelled x finds its level at ideal position ``R^x``, the count
    of rows labelled x or more (a rank within the ranking), the last row of x's run. The
    level values are spread over every row of their run, so that position is read by a
    gather, no join on the label. The positive ideal labels come first in each ranking, so
    the rows kept start with all of them, at their own positions.
    """
    label, ranking = pl.col(IDEAL_REL), pl.col(RANKING_ID)
    next_label = label.shift(-1)
    same_next = (ranking == ranking.shift(-1)).fill_null(False)
    run_end = ((label > 0) & ~(same_next & (label == next_label)).fill_null(False)).fill_null(False)
    below = pl.when(same_next & (next_label > 0)).then(next_label).otherwise(0.0)
    # Zeros between the run ends leave each running sum's bits as :func:`_levels` makes them.
    step = pl.when(run_end).then((label - below) / pl.col(POSITION)).otherwise(0.0)
    at_or_above = pl.col(RANKED_REL).rank("max", descending=True).over(RANKING_ID)
    row = pl.col("__pg_row").cast(pl.Int64)
    end_row = row.first().over(RANKING_ID) - 1 + at_or_above.fill_null(1).cast(pl.Int64)
    # The row-wise columns first: inside a window, every expression would run per ranking.
    return (
        ranked.filter((pl.col(IDEAL_REL) > 0) | (pl.col(RANKED_REL) > 0))
        .with_row_index("__pg_row")
        .with_columns(_w=step, _level=run_end.cast(pl.Int64))
        .with_columns(
            pl.col("_w", "_level").cum_sum(reverse=True).over(RANKING_ID),
            _n_levels=pl.col("_level").sum().over(RANKING_ID),
            __pg_end_row=end_row,
        )
        .with_columns(pl.col("_w", "_level").gather(pl.col("__pg_end_row")))
        .drop("__pg_row", "__pg_end_row")
    )


def _relevant_rows(leveled: pl.LazyFrame, extra: Sequence[str] = ()) -> pl.LazyFrame:
    """The relevant retrieved rows of :func:`_row_levels` in ranked order with their
    ``_label``, ``_level``, ``_w``, ``_n_levels`` and position ``_pos`` (and ``extra``)."""
    # Filtering keeps the ranked order (ranking, then position) that the sweeps need.
    return leveled.filter(
        (pl.col(RANKED_REL) > 0) & (pl.col(POSITION) <= pl.col(N_RETRIEVED))
    ).select(
        RANKING_ID,
        *extra,
        "_level",
        "_w",
        "_n_levels",
        _label=pl.col(RANKED_REL),
        _pos=pl.col(POSITION),
    )


def ap_at_levels(ranked: pl.LazyFrame, by: Sequence[str], *, averaged: bool) -> pl.LazyFrame:
    """AP at every level of every ranking: one row per (ranking, level), no cutoff.

    Columns ``RANKING_ID``, the ``by`` columns, ``_label`` (the level), ``_top`` (the
    ranking's top label) and :data:`AP_AT_LEVEL`, ``AP^label``; each ranking's rows from
    its top level down. ``averaged``: the expectation over the orders of tied rows
    (``ties="average"``). A ranking without a positive judged label has no row.

    Examples
    --------
    Labels 0, 2, 1 by score: ``AP^2 = 1/2`` and ``AP^1 = (1/2 + 2/3) / 2``.

    >>> from polars_graded.options import TableSpec
    >>> from polars_graded.ranking import explode_ranked, number_rankings, ranked_lists
    >>> df = pl.LazyFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
    ...                    "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1]})
    >>> grouped = df.group_by("query").agg(ranked_lists(TableSpec()))
    >>> ranked = explode_ranked(number_rankings(grouped, TableSpec()), TableSpec())
    >>> ap_at_levels(ranked, [], averaged=False).collect().rows()  # (ranking, _label, _top, _ap)
    [(0, 2.0, 2.0, 0.5), (0, 1.0, 2.0, 0.5833333333333333)]
    """
    levels = _levels(ranked, list(by))
    extra = [TIE_START, TIE_END] if averaged else []
    masses = _relevant_rows(_row_levels(ranked), extra).map_batches(
        lambda frame: _level_masses(frame, averaged=averaged),
        schema=pl.Schema({RANKING_ID: pl.UInt32, "_level": pl.Int64, "_mass": pl.Float64}),
    )
    # Levels run from the top down, so a running sum holds every pair at or above a level.
    numerator = pl.col("_mass").fill_null(0.0).cum_sum().over(RANKING_ID)
    return levels.join(masses, on=[RANKING_ID, "_level"], how="left", maintain_order="left").select(
        RANKING_ID,
        *by,
        "_label",
        pl.col("_label").first().over(RANKING_ID).alias("_top"),
        (numerator / pl.col("_at_or_above")).alias(AP_AT_LEVEL),
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
    starts, group = segments(ranking)
    contribution = _pair_sums(frame) / position
    if k is not None:
        contribution[position > k] = 0.0
    # bincount adds in row order: the same bits on every run.
    totals = np.bincount(group, weights=contribution, minlength=starts.size)
    return pl.DataFrame({RANKING_ID: ranking[starts], NUMERATOR: totals})


def _averaged_numerators(frame: pl.DataFrame, k: int | None) -> pl.DataFrame:
    """:func:`_numerators` averaged over the orders of tied rows (``frame`` also holds the
    tie bounds).

    Per tie group g of n_g rows, with H_g and G_g the sums of 1/p and (p - start_g)/p over
    its positions within k: the pairs whose later row is in g add ``(H_g/n_g) min(w_i, w_j)``
    and the pairs inside g ``2 G_g/(n_g (n_g - 1)) min(w_i, w_j)``. The pair sums of the
    plain sweep, added over g, hold the pairs inside g once (U_g, from g's sorted
    weights) and every other pair of g's rows, whatever the order inside g.
    """
    ranking = frame[RANKING_ID].to_numpy()
    if ranking.size == 0:
        return pl.DataFrame(schema={RANKING_ID: pl.UInt32, NUMERATOR: pl.Float64})
    tie_start, tie_end = frame[TIE_START].to_numpy(), frame[TIE_END].to_numpy()
    weight = frame["_w"].to_numpy()
    firsts, group = segments(ranking, tie_start)
    single, within = tie_group_weights(group, tie_start, tie_end, k)
    pairs = np.bincount(group, weights=_pair_sums(frame), minlength=firsts.size)
    inside = np.bincount(
        group,
        weights=weight * later_in_group(group, frame["_level"].to_numpy()),
        minlength=firsts.size,
    )
    terms = single * (pairs - inside) + within * inside
    starts, owner = segments(ranking[firsts])
    totals = np.bincount(owner, weights=terms, minlength=starts.size)
    return pl.DataFrame({RANKING_ID: ranking[firsts][starts], NUMERATOR: totals})


def _pair_sums(frame: pl.DataFrame) -> np.ndarray:
    """For each relevant retrieved row j: ``sum over rows i <= j of min(w_i, w_j)``."""
    return pair_sums(
        frame[RANKING_ID].to_numpy(),
        frame["_level"].to_numpy(),
        frame["_w"].to_numpy(),
        frame["_n_levels"].to_numpy(),
    )


def _level_masses(frame: pl.DataFrame, *, averaged: bool) -> pl.DataFrame:
    """Per (ranking, level): the AP numerator's pairs whose lower level is that level.

    A pair i <= j of relevant retrieved rows counts in ``AP^t`` for every ``t <= min(l_i,
    l_j)`` with weight 1/p_j (with ``averaged``, the pair weights of
    :mod:`~polars_graded.measures.kernels.tie_average`). The pairs with ``l_i >= l_j`` (i = j
    included) go to j's level, counted forward; the others to i's level, summed backward
    over the later rows at a higher level.
    """
    ranking = frame[RANKING_ID].to_numpy()
    if ranking.size == 0:
        return pl.DataFrame(schema={RANKING_ID: pl.UInt32, "_level": pl.Int64, "_mass": pl.Float64})
    level = frame["_level"].to_numpy().astype(np.int64)
    starts, owner = segments(ranking)
    ordinal = np.arange(ranking.size) - starts[owner]
    if averaged:
        tie_start, tie_end = frame[TIE_START].to_numpy(), frame[TIE_END].to_numpy()
        _, group = segments(ranking, tie_start)
        single, within = tie_group_weights(group, tie_start, tie_end, None)
        weight = single[group]
    else:
        weight = 1.0 / frame["_pos"].to_numpy()
    lower, _ = earlier_sums(ranking, level, level - 1)
    # Each ranking's rows backward: "earlier" becomes "later", a higher level a lower one.
    ends = np.r_[starts[1:], ranking.size]
    back = (ends - 1)[owner] - ordinal
    n_levels = frame["_n_levels"].to_numpy().astype(np.int64)
    flipped = (n_levels + 1 - level)[back]
    _, higher_later = earlier_sums(ranking[back], flipped, flipped - 1, weight[back])
    mass = weight * (ordinal + 1 - lower) + higher_later[back]
    if averaged:
        mass += (within - single)[group] * later_in_group(group, level)
    # Slot of (ranking, level): every level of each ranking present among the rows.
    first_levels = n_levels[starts]
    base = np.cumsum(first_levels) - first_levels
    totals = np.bincount(base[owner] + level - 1, weights=mass, minlength=int(first_levels.sum()))
    return pl.DataFrame(
        {
            RANKING_ID: np.repeat(ranking[starts], first_levels),
            "_level": np.arange(totals.size) - np.repeat(base, first_levels) + 1,
            "_mass": totals,
        },
        schema={RANKING_ID: pl.UInt32, "_level": pl.Int64, "_mass": pl.Float64},
    )
