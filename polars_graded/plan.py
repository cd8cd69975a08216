"""Builds one lazy plan for many measures: one sort per query, shared by every measure.

The plan: group the table by ``by + [query]`` once, holding each query's ranking as lists
(and the per-query input checks); explode those lists so that each query's rows are
contiguous and ranked; aggregate every expression measure over that in one ``group_by``;
join the measures that need a frame of their own (µAP on data-dependent levels); check the
input rules and sort the per-query result by its keys.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, get_args

import polars as pl

from polars_graded.errors import InvalidValueError
from polars_graded.measures import Measure
from polars_graded.ranking import (
    POSITION,
    RANKING_ID,
    TIE_START,
    Columns,
    explode_ranked,
    mark_ranked_order,
    number_rankings,
    pre_ranked,
    ranked_lists,
)
from polars_graded.validate import (
    any_bad_row,
    check_aggregations,
    check_schema,
    prepare_checks,
    raise_on_bad_rows,
)

SUMMARY_COUNT = "num_q"
GEOMETRIC_FLOOR = 1e-5
"""trec_eval's ``MIN_GEO_MEAN``: the geometric mean counts smaller values (and 0) as this."""
MeanKind = Literal["arithmetic", "geometric"]
MEANS: tuple[str, ...] = get_args(MeanKind)


def check_mean(mean: object) -> MeanKind:
    """The kind of mean, or an :class:`~polars_graded.InvalidValueError` naming the choices."""
    if mean not in MEANS:
        msg = f"mean= must be 'arithmetic' or 'geometric', got {mean!r}"
        raise InvalidValueError(msg)
    return mean  # type: ignore[return-value]


def per_query(lf: pl.LazyFrame, measures: list[Measure], cols: Columns) -> pl.LazyFrame:
    """Per-query values of ``measures``: one row per ``by + [query]``, one column each."""
    schema = lf.collect_schema()
    check_schema(schema, cols)
    if cols.ranked:
        lf = mark_ranked_order(lf, cols)
    # Read once, by the grouping and by the table-wide row check.
    lf = prepare_checks(lf, cols).cache()
    keys = cols.keys
    checks = check_aggregations(cols, schema)
    grouped = lf.group_by(keys).agg(*ranked_lists(cols), *checks)
    # Three branches read the grouped rankings (checks, one-pass measures, µAP); Polars
    # trims each differently and would not see they share it, so it is cached explicitly.
    numbered = number_rankings(grouped, cols).cache()
    ranked = explode_ranked(numbered, cols)

    result = numbered.select(RANKING_ID, *keys, *(c.meta.output_name() for c in checks))
    result = result.join(any_bad_row(lf), how="cross", maintain_order="left")
    for part in _one_pass_values(ranked, measures, cols):
        result = result.join(part, on=RANKING_ID, how="left", maintain_order="left")
    for measure in measures:
        if measure.needs_frame():
            result = result.join(
                measure.frame(ranked, cols), on=RANKING_ID, how="left", maintain_order="left"
            )

    names = [str(m) for m in measures]
    # Joins on the ranking number keep the left frame's order: already sorted by the keys.
    result = result.with_columns(pl.col(names).cast(pl.Float64).fill_null(0.0))
    out_schema = pl.Schema({**{k: schema[k] for k in keys}, **dict.fromkeys(names, pl.Float64)})
    return result.map_batches(
        lambda frame: raise_on_bad_rows(frame, cols, lf).select(*keys, *names), schema=out_schema
    )


def _one_pass_values(
    ranked: pl.LazyFrame, measures: list[Measure], cols: Columns
) -> list[pl.LazyFrame]:
    """Per-ranking values of the measures that are one aggregation, in one or two passes.

    Measures that read only the top of each list (``ndcg@10``, ``p@10``) are aggregated
    over the rows within their deepest cutoff, which is a small share of a long ranking
    (with ``ties="average"``, over whole tie groups: a group crossing the cutoff counts
    with all its rows).
    """
    r = pre_ranked(cols)
    top_rows = TIE_START if r.averages_ties else POSITION
    in_one_pass = [m for m in measures if not m.needs_frame()]
    depths = [m.depth() for m in in_one_pass]
    shallow = [m for m, d in zip(in_one_pass, depths, strict=True) if d is not None]
    deep = [m for m, d in zip(in_one_pass, depths, strict=True) if d is None]
    passes = []
    if shallow:
        deepest = max(d for d in depths if d is not None)
        passes.append((ranked.filter(pl.col(top_rows) <= deepest), shallow))
    if deep:
        passes.append((ranked, deep))
    return [
        rows.group_by(RANKING_ID).agg(m.expr(r).alias(str(m)) for m in group)
        for rows, group in passes
    ]


def summary(
    per_query_values: pl.LazyFrame,
    names: Sequence[str],
    by: Sequence[str],
    mean: MeanKind = "arithmetic",
) -> pl.LazyFrame:
    """Per ``by`` group (one row without): the number of queries and the mean of ``names``.

    ``mean="geometric"`` gives trec_eval's geometric mean (``gm_map`` for ``ap``): values
    below :data:`GEOMETRIC_FLOOR` count as it, and the columns are named ``gm_<measure>``.
    """
    check_mean(mean)
    average = _ordered_mean if mean == "arithmetic" else _ordered_geometric_mean
    means = [pl.len().alias(SUMMARY_COUNT), *(average(name) for name in names)]
    if not by:
        return per_query_values.select(means)
    return per_query_values.group_by(list(by)).agg(means).sort(list(by))


def _ordered_mean(name: str) -> pl.Expr:
    """Mean summed in query order, so that identical systems get identical bits.

    A plain ``mean()`` may add partial sums in whatever order the engine's threads finish.
    """
    return (pl.col(name).cum_sum().last() / pl.col(name).count()).alias(name)


def _ordered_geometric_mean(name: str) -> pl.Expr:
    """trec_eval's geometric mean: ``exp(mean(log(max(value, 1e-5))))``, in query order."""
    logs = pl.col(name).clip(lower_bound=GEOMETRIC_FLOOR).log()
    return (logs.cum_sum().last() / pl.col(name).count()).exp().alias(f"gm_{name}")
