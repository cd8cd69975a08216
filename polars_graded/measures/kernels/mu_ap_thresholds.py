"""Where µMAP comes from: MAP at every relevance threshold, and each threshold's share.

µAP is the distance-weighted mean of AP over the relevance levels (docs/conventions.md
§3-4), so µMAP is a mean over queries of a mean over thresholds. :func:`per_threshold` lists, per
threshold of the table (the left half of the paper's Fig. 6), MAP and two ways it adds up
to a µMAP: with each query's own levels (``mu_ap``, the summary's µMAP: ``contribution``)
and with the levels of the whole table (``mu_ap(levels="table")``: ``weight``).

Bounded on continuous labels: AP at every level of every query comes from one pair sweep
(:func:`polars_graded.measures.kernels.mu_ap_numerators.ap_at_levels`, O(rows log rows)), and a
query's AP, a step function of the threshold, reaches the table's thresholds through a
difference array: never one AP pass per threshold, never rows x levels.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from polars_graded.errors import InvalidValueError
from polars_graded.measures.kernels.mu_ap_numerators import AP_AT_LEVEL, ap_at_levels
from polars_graded.options import TableSpec
from polars_graded.ranking import RANKING_ID, explode_ranked, number_rankings, ranked_lists

QUERIES = "__pg_queries"
"""The query count column of the ``means`` that :func:`breakdown` takes."""
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


def check_by(cols: TableSpec) -> None:
    """No ``by`` column may take the name of a column of the breakdown.

    Examples
    --------
    >>> check_by(TableSpec(by=("map",)))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    polars_graded.errors.InvalidValueError: the by= column 'map' has the name of ...
    """
    clash = [name for name in cols.by if name in (THRESHOLD, *VALUES)]
    if clash:
        msg = (
            f"the by= column {clash[0]!r} has the name of a column of the breakdown "
            f"{[THRESHOLD, *VALUES]}; rename it first"
        )
        raise InvalidValueError(msg)


def output_schema(schema: pl.Schema, cols: TableSpec) -> pl.Schema:
    """The breakdown's columns: ``by`` in the table's dtypes, then the Float64 values.

    Examples
    --------
    >>> schema = output_schema(pl.Schema({"system": pl.String}), TableSpec(by=("system",)))
    >>> schema.names()
    ['system', 'threshold', 'weight', 'map', 'contribution', 'mu_map_table_levels', 'mu_map']
    >>> schema["system"], schema["map"]
    (String, Float64)
    """
    out: dict[str, pl.DataType] = {b: schema[b] for b in cols.by}
    return pl.Schema(out | {name: pl.Float64() for name in (THRESHOLD, *VALUES)})


def breakdown(lf: pl.LazyFrame, cols: TableSpec, means: pl.DataFrame) -> pl.DataFrame:
    """The breakdown of one checked table, evaluated now (see :func:`api.per_threshold`).

    ``means``: per ``cols.by`` group, its query count (column :data:`QUERIES`) and its
    µMAP (column ``mu_map``), the plan's summary of ``mu_ap``.

    Examples
    --------
    >>> import polars as pl
    >>> df = pl.LazyFrame({"query": [1, 1], "item": ["a", "b"], "score": [2.0, 1.0],
    ...                    "relevance": [0, 2]})
    >>> means = pl.DataFrame({QUERIES: [1], MU_MAP: [0.5]})
    >>> breakdown(df, TableSpec(), means)["map"].to_list()
    [0.5]
    """
    by = list(cols.by)
    levels = ap_at_levels(_ranked(lf, cols), by, averaged=cols.ties.averaged).collect()
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
    queries = pl.col(QUERIES)
    out = values.with_columns(
        (pl.col("_sum") / queries).alias(MAP),
        (pl.col("_step") * pl.col("_scaled") / queries).alias(CONTRIBUTION),
    ).with_columns(
        (pl.col(WEIGHT) * pl.col(MAP)).cum_sum().last().over(keys).alias(MU_MAP_TABLE_LEVELS),
    )
    return out.select(*by, pl.col("_label").alias(THRESHOLD), *VALUES)


def _ranked(lf: pl.LazyFrame, cols: TableSpec) -> pl.LazyFrame:
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
