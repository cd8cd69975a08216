"""Where µMAP comes from: MAP at every relevance threshold, and each threshold's share.

µAP is the distance-weighted mean of AP over the relevance levels (SPEC.md §3-4), so µMAP
is a mean over queries of a mean over thresholds. :func:`per_threshold` lists, per
threshold of the table (the left half of the paper's Fig. 6), MAP and two ways it adds up
to a µMAP: with each query's own levels (``mu_ap``, the summary's µMAP: ``contribution``)
and with the levels of the whole table (``mu_ap(levels="table")``: ``weight``).

Bounded on continuous labels: AP at every level of every query comes from one pair sweep
(:func:`polars_graded.measures.threshold_sweep.ap_at_levels`, O(rows log rows)), and a
query's AP, a step function of the threshold, reaches the table's thresholds through a
difference array: never one AP pass per threshold, never rows x levels.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

import numpy as np
import polars as pl

from polars_graded import plan
from polars_graded.errors import InvalidValueError
from polars_graded.measures import MuAP
from polars_graded.measures.threshold_sweep import AP_AT_LEVEL, ap_at_levels
from polars_graded.ranking import (
    RANKING_ID,
    Columns,
    TiePolicy,
    as_by,
    explode_ranked,
    number_rankings,
    ranked_lists,
)
from polars_graded.validate import check_schema

FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)

THRESHOLD = "threshold"
WEIGHT = "weight"
MAP = "map"
CONTRIBUTION = "contribution"
MU_MAP_TABLE_LEVELS = "mu_map_table_levels"
MU_MAP = "mu_map"
VALUES = (WEIGHT, MAP, CONTRIBUTION, MU_MAP_TABLE_LEVELS, MU_MAP)
"""The Float64 columns of :func:`per_threshold` after ``by`` and ``threshold``."""
_GROUP = "__pg_group"
_SLOT = "__pg_slot"


def per_threshold(
    lf_or_df: FrameT,
    *,
    by: str | Sequence[str] | None = None,
    query: str = "query",
    item: str = "item",
    score: str = "score",
    relevance: str = "relevance",
    ranked: bool = False,
    ties: TiePolicy = "trec_eval",
) -> FrameT:
    """MAP at each relevance threshold of the table, and its share of µMAP, per ``by`` group.

    The thresholds of a group are the distinct positive relevance labels of its rows
    ``t_1 < ... < t_m`` (judged rows, retrieved or not), and ``map_j`` is the mean over the
    group's queries of ``AP(rel=t_j)``. Two µMAPs add these up:

    * ``mu_map``: the mean of ``mu_ap`` (each query's own levels), exactly the µMAP of
      ``summary(["mu_ap"])``. ``contribution_j`` is threshold j's share of it, the mean
      over queries of ``(t_j - t_(j-1)) / top_q * AP_q(rel=t_j)`` for ``t_j <= top_q``
      (``t_0 = 0``, ``top_q`` the query's top label), so the contributions of a group sum
      to ``mu_map``.
    * ``mu_map_table_levels``: the mean of ``mu_ap(levels="table")``, where every query
      shares the table's levels and top label, so it is the weighted sum of the MAPs,
      ``sum_j weight_j * map_j`` with ``weight_j = (t_j - t_(j-1)) / t_m`` (the weights of
      a group sum to 1). It counts a query without the table's top label as 0 above its
      own top, so it is lower than ``mu_map`` when queries differ in their label sets.

    Parameters
    ----------
    lf_or_df
        The long table, one row per (query, item) (SPEC.md §1).
    by
        Group column(s), e.g. ``"system"``; each group gets its own thresholds, as
        ``mu_ap(levels="table", by=...)`` does.
    query, item, score, relevance
        Column names.
    ranked
        ``True`` when the rows are already in ranked order (as for
        :meth:`~polars_graded.namespace.GradedNamespace.evaluate`): the sort is skipped.
    ties
        The tie policy, as for ``evaluate`` (see
        :class:`~polars_graded.namespace.ColumnOptions`).

    Returns
    -------
    DataFrame or LazyFrame
        The same kind as the input: columns ``[*by, "threshold", "weight", "map",
        "contribution", "mu_map_table_levels", "mu_map"]`` (``by`` in its own dtypes, the
        others Float64), one row per group and threshold, sorted by ``by`` then threshold;
        the two µMAPs repeat on every row of the group. A group without a positive label has
        no threshold and no row (its µMAP is 0). A LazyFrame stays lazy; at collect time
        the table is evaluated in one piece.

    Notes
    -----
    Bounded on continuous labels (a threshold per distinct label): AP at every level of
    each query comes from one O(rows log rows) pass over the pairs of relevant rows, and
    MAP at the table's thresholds from a difference array over them.

    Examples
    --------
    Query 2 has no label 2, so ``mu_ap(levels="table")`` gives it 0 between 1 and 2 while
    its own µAP is 1: the two µMAPs differ.

    >>> import polars as pl
    >>> from polars_graded.breakdown import per_threshold
    >>> df = pl.DataFrame({
    ...     "query": [1, 1, 1, 2, 2],
    ...     "item": ["a", "b", "c", "a", "b"],
    ...     "score": [3.0, 2.0, 1.0, 2.0, 1.0],
    ...     "relevance": [0, 2, 1, 1, 0],
    ... })
    >>> per_threshold(df)
    shape: (2, 6)
    ┌───────────┬────────┬──────────┬──────────────┬─────────────────────┬──────────┐
    │ threshold ┆ weight ┆ map      ┆ contribution ┆ mu_map_table_levels ┆ mu_map   │
    │ ---       ┆ ---    ┆ ---      ┆ ---          ┆ ---                 ┆ ---      │
    │ f64       ┆ f64    ┆ f64      ┆ f64          ┆ f64                 ┆ f64      │
    ╞═══════════╪════════╪══════════╪══════════════╪═════════════════════╪══════════╡
    │ 1.0       ┆ 0.5    ┆ 0.791667 ┆ 0.645833     ┆ 0.520833            ┆ 0.770833 │
    │ 2.0       ┆ 0.5    ┆ 0.25     ┆ 0.125        ┆ 0.520833            ┆ 0.770833 │
    └───────────┴────────┴──────────┴──────────────┴─────────────────────┴──────────┘
    """
    cols = Columns(
        query=query,
        item=item,
        score=score,
        relevance=relevance,
        by=as_by(by),
        ranked=ranked,
        ties=ties,
    )
    clash = [name for name in cols.by if name in (THRESHOLD, *VALUES)]
    if clash:
        msg = (
            f"the by= column {clash[0]!r} has the name of a column of the breakdown "
            f"{[THRESHOLD, *VALUES]}; rename it first"
        )
        raise InvalidValueError(msg)
    if isinstance(lf_or_df, pl.DataFrame):
        return _per_threshold(lf_or_df.lazy(), cols)
    schema = lf_or_df.collect_schema()
    check_schema(schema, cols)
    out_schema = pl.Schema(
        {
            **{b: schema[b] for b in cols.by},
            **dict.fromkeys((THRESHOLD, *VALUES), pl.Float64),
        }
    )
    return lf_or_df.map_batches(  # type: ignore[return-value]
        lambda frame: _per_threshold(frame.lazy(), cols), schema=out_schema
    )


def _per_threshold(lf: pl.LazyFrame, cols: Columns) -> pl.DataFrame:
    """The breakdown of one table, evaluated now."""
    check_schema(lf.collect_schema(), cols)
    by = list(cols.by)
    mu_ap = MuAP()
    # Collected first: it checks the table, and gives the µMAP and query count of each group.
    means = plan.summary(plan.per_query(lf, [mu_ap], cols), [str(mu_ap)], by).collect()
    levels = ap_at_levels(_ranked(lf, cols), by, averaged=cols.ties == "average").collect()
    if not by:
        levels = levels.with_columns(pl.lit(0).alias(_GROUP))
        means = means.with_columns(pl.lit(0).alias(_GROUP))
    keys = by or [_GROUP]
    label = pl.col("_label")
    step = label - label.shift(1).fill_null(0.0)
    thresholds = (
        levels.select(*keys, label)
        .unique()
        .sort([*keys, "_label"], nulls_last=True)
        .with_columns(
            (step.over(keys) / label.max().over(keys)).alias(WEIGHT),
            step.over(keys).alias("_step"),
            # One spare slot after each group's thresholds takes what falls above its top.
            (pl.int_range(pl.len()) + pl.struct(keys).rle_id()).alias(_SLOT),
        )
    )
    changes, scaled_changes = _step_sums(levels, thresholds, keys)
    at = thresholds[_SLOT].to_numpy()
    values = (
        thresholds.with_columns(_sum=changes[at], _scaled=scaled_changes[at])
        .with_columns(pl.col("_sum", "_scaled").cum_sum().over(keys))
        .join(means, on=keys, how="left", nulls_equal=True, maintain_order="left")
    )
    queries = pl.col(plan.SUMMARY_COUNT)
    out = values.with_columns(
        (pl.col("_sum") / queries).alias(MAP),
        (pl.col("_step") * pl.col("_scaled") / queries).alias(CONTRIBUTION),
    ).with_columns(
        (pl.col(WEIGHT) * pl.col(MAP)).cum_sum().last().over(keys).alias(MU_MAP_TABLE_LEVELS),
        pl.col(str(mu_ap)).alias(MU_MAP),
    )
    return out.select(*by, pl.col("_label").alias(THRESHOLD), *VALUES)


def _ranked(lf: pl.LazyFrame, cols: Columns) -> pl.LazyFrame:
    """The exploded ranked table of :func:`polars_graded.plan.per_query`, for a table that
    plan has checked."""
    grouped = lf.group_by(cols.keys).agg(*ranked_lists(cols))
    return explode_ranked(number_rankings(grouped, cols), cols)


def _step_sums(
    levels: pl.DataFrame, thresholds: pl.DataFrame, keys: Sequence[str]
) -> tuple[np.ndarray, np.ndarray]:
    """Per slot of ``thresholds``: how much the queries' AP (and AP / top label) changes
    there, so that a running sum over a group's thresholds adds each query's AP at each.

    A query's AP at threshold t is its AP at its own next level up (constant between two
    of its levels, 0 above its top), so its level l_i with AP a_i covers the table's
    thresholds in ``(l_(i-1), l_i]``: +a_i at the slot after l_(i-1)'s, -a_i after l_i's.
    """
    slot = pl.col(_SLOT)
    rows = levels.join(
        thresholds.select(*keys, "_label", slot, slot.min().over(keys).alias("_first")),
        on=[*keys, "_label"],
        how="left",
        nulls_equal=True,
        maintain_order="left",
    ).select(
        slot,
        # Each ranking's levels run from the top down: the next row holds the level below.
        slot.shift(-1).over(RANKING_ID).fill_null(pl.col("_first") - 1).alias("_below"),
        pl.col(AP_AT_LEVEL),
        (pl.col(AP_AT_LEVEL) / pl.col("_top")).alias("_scaled"),
    )
    at = np.concatenate([rows["_below"].to_numpy() + 1, rows[_SLOT].to_numpy() + 1])
    size = thresholds.height + thresholds.select(pl.struct(keys).n_unique()).item() + 1
    # bincount adds in row order: the same bits on every run.
    return tuple(  # type: ignore[return-value]
        np.bincount(at, weights=np.concatenate([v, -v]), minlength=size)
        for v in (rows[AP_AT_LEVEL].to_numpy(), rows["_scaled"].to_numpy())
    )
