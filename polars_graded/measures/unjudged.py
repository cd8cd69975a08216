"""Unjudged@k (trec_eval 10.0's ``unj_k``): the share of the top k rows that are unjudged.

A retrieved row is unjudged when its label is null or negative (trec_eval reads a negative
label as "in the pool but not judged"). Like P@k it divides by k even beyond the ranking
(the missing rows count as judged); without a cutoff it divides by N, the rows retrieved.
0 when nothing is retrieved. Compare ``judged``, which divides by ``min(k, N)`` and counts
every label, negative or not, as judged.
"""

from __future__ import annotations

import dataclasses

import polars as pl

from polars_graded.measures.base import Declaration, Measure, safe_ratio
from polars_graded.measures.registry import register
from polars_graded.ranking import Ranked


def unjudged_share(r: Ranked, k: int | None = None) -> pl.Expr:
    """Unjudged@k: unjudged rows (null or negative label) in the top k over k (over N
    without k).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_graded.ranking import rank_in_group
    >>> df = pl.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
    ...                    "score": [3.0, 2.0, 1.0], "relevance": [None, -1, 1]})
    >>> df.group_by("query").agg(unjudged_share(rank_in_group(), 4)).item(0, 1)
    0.5
    """
    unjudged = r.tie_mean((r.rel < 0).fill_null(True).cast(pl.Float64))
    denominator = r.n_retrieved.first() if k is None else r.per_query(k)
    return safe_ratio(pl.when(r.in_list(k)).then(unjudged).sum(), denominator)


@register(
    Declaration(
        name="unjudged",
        summary="share of the top k rows unjudged (null or negative label; divides by k)",
        function="unjudged",
        instance="Unjudged",
        order=130,
        example="unjudged@2",
        example_value=0.0,
        aliases=("unj",),
        trec_eval={"unj": "unjudged@{k}"},
    )
)
@dataclasses.dataclass(frozen=True, kw_only=True)
class UnjudgedShare(Measure):
    """Unjudged@k: ``|unjudged in the top k| / k`` (module docstring).

    Examples
    --------
    >>> import polars_graded as pg
    >>> str(pg.parse_measure("unj@10"))
    'unjudged@10'
    """

    def expr(self, r: Ranked) -> pl.Expr:
        return unjudged_share(r, self.k)
