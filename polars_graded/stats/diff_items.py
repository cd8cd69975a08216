"""The relevant items that moved between two systems' rankings of a query: the ``items`` frame
of :func:`polars_graded.stats.diff.diff`.

An item's rank is the position the measures see (docs/conventions.md §2): the rows of each
ranking in the order of :func:`polars_graded.ranking.sort_ranked` under the table's tie policy,
only retrieved rows (score not null) ranked, then ``depth`` and ``judged_only`` applied as
:func:`polars_graded.plan.cut_rankings` applies them (trec_eval's ``-M``, then ``-J``).
Under ``ties="average"`` the rank is the position in the order the average works on (score
descending, ties by item descending).
"""

from __future__ import annotations

from typing import Final

import polars as pl

from polars_graded.options import TableSpec
from polars_graded.ranking import sort_ranked

ITEM_COLUMNS: Final = (
    "measure",
    "label",
    "rank_before",
    "rank_after",
    "moved",
    "movement",
)
"""The columns of the ``items`` frame besides the query and item columns: ``measure``, then
after ``query`` and ``item`` the rest, in this order."""

_RANK = "__pg_rank"
_ORDER = "__pg_order"


def item_ranks(lf: pl.LazyFrame, spec: TableSpec) -> pl.LazyFrame:
    """Each row of ``lf`` in ranked order (per ``spec.keys``) with its rank as the measures
    see it (Int64, from 1; null where the row is not in the ranked list).

    Examples
    --------
    Ties go to the larger item (trec_eval); ``c`` was not retrieved; ``depth=2`` leaves
    ``a`` out of the ranked list:

    >>> lf = pl.LazyFrame({"query": [1, 1, 1, 1], "item": ["a", "b", "c", "d"],
    ...                    "score": [1.0, 2.0, None, 2.0], "relevance": [1, 0, 2, 1]})
    >>> item_ranks(lf, TableSpec()).select("item", "__pg_rank").collect().rows()
    [('d', 1), ('b', 2), ('a', 3), ('c', None)]
    >>> item_ranks(lf, TableSpec(depth=2)).collect()["__pg_rank"].to_list()
    [1, 2, None, None]
    """
    keys = spec.keys
    ranked = sort_ranked(lf.select(spec.columns), spec)
    retrieved = pl.col(spec.score).is_not_null()
    if spec.depth is not None:  # -M: the first rows of the ranking (null scores sort last)
        position = pl.int_range(1, pl.len() + 1, dtype=pl.Int64).over(keys)
        retrieved = retrieved & (position <= spec.depth)
    if spec.judged_only:  # -J: unjudged rows and negative labels leave the list
        retrieved = retrieved & (pl.col(spec.relevance) >= 0).fill_null(value=False)
    rank = retrieved.cast(pl.Int64).cum_sum().over(keys)
    return ranked.with_columns(pl.when(retrieved).then(rank).alias(_RANK))


def moved_items(
    lf: pl.LazyFrame,
    spec: TableSpec,
    top_queries: pl.DataFrame,
    *,
    by: str,
    baseline: object,
    candidate: object,
    items: int,
) -> pl.DataFrame:
    """For each (measure, query) of ``top_queries`` (in its order), the ``items`` relevant
    items (label > 0) that moved most from the baseline's ranking to the candidate's.

    ``lf`` holds the two systems' rows; ``top_queries`` the columns ``measure`` and the query
    column. An item moved when its rank differs (a rank and none count as different); the
    most moved are those whose discount ``1 / log2(1 + rank)`` (0 when not ranked) changed
    most, which puts moves near the top first, then by ``|moved|``, then by item. Columns:
    ``measure``, the query and item columns, then ``label`` (the item's relevance, Float64),
    ``rank_before`` (the baseline's rank, Int64, null when not ranked), ``rank_after`` (the
    candidate's), ``moved`` (``rank_before - rank_after``: positive when the item went up;
    null when either rank is null) and ``movement`` (``"up"``, ``"down"``, ``"entered"``:
    ranked only by the candidate, ``"left"``: only by the baseline).

    Examples
    --------
    >>> lf = pl.LazyFrame({
    ...     "system": ["a"] * 3 + ["b"] * 3, "query": [1] * 6, "item": ["x", "y", "z"] * 2,
    ...     "score": [3.0, 2.0, None, 1.0, 2.0, 3.0], "relevance": [0, 1, 2] * 2,
    ... })
    >>> top = pl.DataFrame({"measure": ["ap"], "query": [1]})
    >>> spec = TableSpec(by=("system",))
    >>> out = moved_items(lf, spec, top, by="system", baseline="a", candidate="b", items=5)
    >>> out.select("item", "label", "rank_before", "rank_after", "moved", "movement").rows()
    [('z', 2.0, None, 1, None, 'entered')]
    """
    query, item, relevance = spec.query, spec.item, spec.relevance
    wanted = top_queries.select(query).unique()
    rows = lf.join(wanted.lazy(), on=query, how="semi")
    ranked = item_ranks(rows, spec).filter(pl.col(relevance) > 0)
    label = pl.col(relevance).cast(pl.Float64)
    sides = []
    for system, rank in ((baseline, "rank_before"), (candidate, "rank_after")):
        side = ranked.filter(pl.col(by).is_in([system]))
        sides.append(
            side.select(query, item, label.alias(f"{rank}_label"), pl.col(_RANK).alias(rank))
        )
    both = sides[0].join(sides[1], on=[query, item], how="full", coalesce=True)
    before, after = pl.col("rank_before"), pl.col("rank_after")
    both = both.filter(before.ne_missing(after)).select(
        query,
        item,
        label=pl.coalesce("rank_before_label", "rank_after_label"),
        rank_before=before,
        rank_after=after,
        moved=before - after,
        movement=pl.when(before.is_null())
        .then(pl.lit("entered"))
        .when(after.is_null())
        .then(pl.lit("left"))
        .when(after < before)
        .then(pl.lit("up"))
        .otherwise(pl.lit("down")),
    )
    discount = (1.0 / (1.0 + before.cast(pl.Float64)).log(2)).fill_null(0.0) - (
        1.0 / (1.0 + after.cast(pl.Float64)).log(2)
    ).fill_null(0.0)
    order = top_queries.select("measure", query).with_row_index(_ORDER)
    out = (
        order.lazy()
        .join(both, on=query, how="inner")
        .sort(
            [pl.col(_ORDER), discount.abs(), pl.col("moved").abs(), pl.col(item)],
            descending=[False, True, True, False],
            nulls_last=True,
        )
        .filter(pl.int_range(pl.len()).over(_ORDER) < items)
    )
    return out.select("measure", query, item, *ITEM_COLUMNS[1:]).collect()
