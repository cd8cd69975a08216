"""Where µMAP comes from: MAP at every relevance threshold, with its weight in µMAP.

µAP is the distance-weighted mean of AP over the relevance levels (SPEC.md §3-4). With the
levels of the whole table (``mu_ap(levels="table")``) every query shares the same levels and
weights, so the mean over queries passes through the sum: µMAP is the weighted mean of MAP
at each level. :func:`per_threshold` lists those MAPs and weights, one row per level: the
left half of the paper's Fig. 6.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

import polars as pl

from polars_graded import plan
from polars_graded.measures import AP, MuAP
from polars_graded.ranking import Columns, TiePolicy, as_by
from polars_graded.validate import check_schema

FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)

THRESHOLD = "threshold"
WEIGHT = "weight"
MAP = "map"
MU_MAP = "mu_map"
_GROUP = "__pg_group"
_NAME = "__pg_measure"


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
    """MAP at each relevance level of the table, its weight in µMAP, and µMAP, per ``by`` group.

    The thresholds of a group are the distinct positive relevance labels of its rows
    ``l_1 < ... < l_m`` (judged rows, retrieved or not): the levels of
    ``mu_ap(levels="table")`` (SPEC.md §3). A threshold's weight is its distance to the
    level below, as a share of the top level: ``weight_i = (l_i - l_(i-1)) / l_m`` with
    ``l_0 = 0``, so the weights of a group sum to 1 and

        ``mu_map = sum_i weight_i * map_i``  (``= sum weight * map / sum weight``),

    where ``map_i`` is the mean over the group's queries of ``AP(rel=l_i)`` and ``mu_map``
    the mean of ``mu_ap(levels="table")``. The identity is exact up to rounding because
    µAP with the table's levels gives every query the same weights (a query's AP at a level
    it lacks is its AP at its next level up, or 0 above its top label), so the mean over
    queries can be taken level by level.

    Parameters
    ----------
    lf_or_df
        The long table, one row per (query, item) (SPEC.md §1).
    by
        Group column(s), e.g. ``"system"``; each group gets its own levels, as
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
        "mu_map"]`` (``by`` in its own dtypes, the others Float64), one row per group and
        threshold, sorted by ``by`` then threshold; ``mu_map`` repeats on every row of the
        group. A group without a positive label has no threshold and no row (its µMAP is 0).
        A LazyFrame stays lazy; at collect time the table is evaluated in one piece.

    Notes
    -----
    Every distinct positive label is a threshold with its own AP pass, so this is meant
    for rating scales (a handful of levels); on continuous labels it evaluates one AP per
    distinct value.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_graded.breakdown import per_threshold
    >>> df = pl.DataFrame({
    ...     "query": [1, 1, 1, 2, 2],
    ...     "item": ["a", "b", "c", "a", "b"],
    ...     "score": [3.0, 2.0, 1.0, 2.0, 1.0],
    ...     "relevance": [0, 2, 1, 1, 0],
    ... })
    >>> per_threshold(df)
    shape: (2, 4)
    ┌───────────┬────────┬──────────┬──────────┐
    │ threshold ┆ weight ┆ map      ┆ mu_map   │
    │ ---       ┆ ---    ┆ ---      ┆ ---      │
    │ f64       ┆ f64    ┆ f64      ┆ f64      │
    ╞═══════════╪════════╪══════════╪══════════╡
    │ 1.0       ┆ 0.5    ┆ 0.791667 ┆ 0.520833 │
    │ 2.0       ┆ 0.5    ┆ 0.25     ┆ 0.520833 │
    └───────────┴────────┴──────────┴──────────┘
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
    if isinstance(lf_or_df, pl.DataFrame):
        return _per_threshold(lf_or_df.lazy(), cols)
    schema = lf_or_df.collect_schema()
    check_schema(schema, cols)
    out_schema = pl.Schema(
        {
            **{b: schema[b] for b in cols.by},
            **dict.fromkeys((THRESHOLD, WEIGHT, MAP, MU_MAP), pl.Float64),
        }
    )
    return lf_or_df.map_batches(  # type: ignore[return-value]
        lambda frame: _per_threshold(frame.lazy(), cols), schema=out_schema
    )


def _per_threshold(lf: pl.LazyFrame, cols: Columns) -> pl.DataFrame:
    """The breakdown of one table, evaluated now."""
    check_schema(lf.collect_schema(), cols)
    by = list(cols.by)
    label = pl.col(cols.relevance).cast(pl.Float64)
    # NaN labels are left for the evaluation's own check to report.
    levels = (
        lf.filter(label.is_not_nan() & (label > 0))
        .select(*by, label.alias(THRESHOLD))
        .unique()
        .sort([*by, THRESHOLD])
        .collect()
    )
    thresholds = levels.get_column(THRESHOLD).unique().sort().to_list()
    ap_names = {str(AP(rel=t)): t for t in thresholds}
    mu_ap = MuAP(levels="table")
    measures = [AP(rel=t) for t in thresholds] + [mu_ap]
    values = plan.per_query(lf, measures, cols)
    means = plan.summary(values, [*ap_names, str(mu_ap)], by).collect()

    if not thresholds:  # no positive label anywhere (or no row): nothing to break down
        return levels.select(
            *by, THRESHOLD, *(pl.lit(None, pl.Float64).alias(c) for c in (WEIGHT, MAP, MU_MAP))
        )
    if not by:
        levels = levels.with_columns(pl.lit(0).alias(_GROUP))
        means = means.with_columns(pl.lit(0).alias(_GROUP))
    keys = by or [_GROUP]
    long = means.unpivot(index=keys, on=list(ap_names), variable_name=_NAME, value_name=MAP)
    long = long.with_columns(
        pl.col(_NAME).replace_strict(ap_names, return_dtype=pl.Float64).alias(THRESHOLD)
    )
    level = pl.col(THRESHOLD)
    weights = levels.with_columns(
        ((level - level.shift(1).fill_null(0.0)) / level.max()).over(keys).alias(WEIGHT)
    )
    out = (
        weights.join(long, on=[*keys, THRESHOLD], how="left")
        .join(means.select(*keys, pl.col(str(mu_ap)).alias(MU_MAP)), on=keys)
        .sort([*keys, THRESHOLD])
    )
    return out.select(*by, THRESHOLD, WEIGHT, MAP, MU_MAP)
