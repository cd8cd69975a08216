"""Where the first relevant row is: reciprocal rank and success@k.

``RR@k = 1 / p``, p the position of the first relevant row within the top k (0 when there
is none); ``success@k`` is 1 when there is one, else 0. A row is relevant when its label is
>= ``rel`` (default 1).

``success@k`` is what recommender libraries call the hit rate: ranx's ``hit_rate``,
torchmetrics' ``RetrievalHitRate``, RecBole's and LensKit's ``hit``, all read as its
aliases ``hit_rate@k`` and ``hit@k``. ranx's ``hits@k`` is another measure, the number of
relevant rows in the top k: ``hits@k`` here too
(:class:`~polars_graded.measures.precision.HitsAtK`).
"""

from __future__ import annotations

import dataclasses

import polars as pl

from polars_graded.measures.base import Declaration, ThresholdMeasure
from polars_graded.measures.kernels.tie_average import (
    averaged_reciprocal_rank,
    first_relevant_chance,
)
from polars_graded.measures.registry import register
from polars_graded.ranking import Ranked


def reciprocal_rank(r: Ranked, rel: float = 1, k: int | None = None) -> pl.Expr:
    """1 / position of the first relevant row within k, else 0 (trec_eval ``recip_rank``).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_graded.ranking import rank_in_group
    >>> df = pl.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
    ...                    "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1]})
    >>> r = rank_in_group()
    >>> df.group_by("query").agg(reciprocal_rank(r)).item(0, 1)
    0.5
    """
    if r.averages_ties:
        return averaged_reciprocal_rank(r, r.hits(rel), k)
    first = pl.when(r.hits(rel) & r.in_list(k)).then(r.position).min()
    return (1.0 / first.cast(pl.Float64)).fill_null(0.0)


def success(r: Ranked, rel: float = 1, k: int | None = None) -> pl.Expr:
    """1 when a relevant row is among the first k retrieved, else 0 (trec_eval ``success.k``).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_graded.ranking import rank_in_group
    >>> df = pl.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
    ...                    "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1]})
    >>> r = rank_in_group()
    >>> df.group_by("query").agg(success(r, k=1)).item(0, 1)
    0.0
    """
    if r.averages_ties:
        return pl.when(r.in_list(k)).then(first_relevant_chance(r, r.hits(rel))).sum()
    return (r.hits(rel) & r.in_list(k)).any().cast(pl.Float64)


@register(
    Declaration(
        name="rr",
        summary="reciprocal rank of the first relevant row",
        function="rr",
        instance="RR",
        order=9,
        example="rr",
        example_value=0.5,
        aliases=("recip_rank", "mrr"),
        trec_eval={"recip_rank": "rr{r}"},
        ir_measures={"RR": "rr[@{k}]"},
    )
)
@dataclasses.dataclass(frozen=True, kw_only=True)
class ReciprocalRank(ThresholdMeasure):
    """RR@k: ``1 / p`` of the first relevant row within the top k, else 0.

    Examples
    --------
    >>> import polars_graded as pg
    >>> str(pg.parse_measure("MRR@10"))
    'rr@10'
    """

    def expr(self, r: Ranked) -> pl.Expr:
        return reciprocal_rank(r, self.rel, self.k)


@register(
    Declaration(
        name="success",
        summary="1 when a relevant row is in the top k, else 0 (hit rate; hits@k is a count)",
        function="success",
        instance="Success",
        order=17,
        example="success@1",
        example_value=0.0,
        aliases=("hit_rate", "hit"),
        trec_eval={"success": "success{r}@{k}"},
        ir_measures={"Success": "success@{k}"},
    )
)
@dataclasses.dataclass(frozen=True, kw_only=True)
class SuccessAtK(ThresholdMeasure):
    """Success@k: 1 when a row with a label >= ``rel`` is in the top k, else 0.

    Examples
    --------
    >>> import polars_graded as pg
    >>> str(pg.Success(rel=2) @ 3), str(pg.parse_measure("hit_rate@10"))
    ('success(rel=2)@3', 'success@10')
    """

    def expr(self, r: Ranked) -> pl.Expr:
        return success(r, self.rel, self.k)
