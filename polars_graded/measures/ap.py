"""Average precision at a relevance threshold (docs/conventions.md §3).

``AP^t@k = (1/R^t) * sum over the first k ranked rows p with rel(p) >= t of C^t(p) / p``,
``C^t(p)`` the rows with a label >= t up to position p and ``R^t`` every judged row of the
query with a label >= t, retrieved or not (0 when there is none). trec_eval's ``map`` is
``AP^1``; its ``-l t`` is ``rel=t``.
"""

from __future__ import annotations

import dataclasses

import polars as pl

from polars_graded.measures.base import Declaration, ThresholdMeasure, safe_ratio
from polars_graded.measures.kernels.tie_average import expected_precision_at_hits
from polars_graded.measures.registry import register
from polars_graded.ranking import Ranked


def average_precision(r: Ranked, rel: float = 1, k: int | None = None) -> pl.Expr:
    """``AP^rel@k`` of one query (trec_eval's ``map`` / ``map_cut.k`` at level ``rel``).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_graded.ranking import rank_in_group
    >>> df = pl.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
    ...                    "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1]})
    >>> r = rank_in_group()
    >>> df.group_by("query").agg(average_precision(r, rel=2)).item(0, 1)
    0.5
    """
    hit = r.hits(rel)
    if r.averages_ties:
        precision_at_hits = expected_precision_at_hits(r, hit, k)
    else:
        precision_at_hits = pl.when(hit & r.in_list(k)).then(hit.cum_sum() / r.position)
    return safe_ratio(precision_at_hits.sum(), r.n_relevant(rel))


@register(
    Declaration(
        name="ap",
        summary="average precision at threshold rel",
        function="ap",
        instance="AP",
        order=2,
        example="ap(rel=2)",
        example_value=0.5,
        aliases=("map",),
        cutoff="all_rows",
        trec_eval={"map": "ap{r}", "map_cut": "ap{r}@{k}"},
        ir_measures={"AP": "ap[@{k}]"},
    )
)
@dataclasses.dataclass(frozen=True, kw_only=True)
class AveragePrecision(ThresholdMeasure):
    """Average precision at relevance threshold ``rel`` (default 1, > 0), optional cutoff ``k``.

    ``AP^t@k = (1/R^t) sum_{p <= k, rel(p) >= t} C^t(p) / p`` (module docstring).

    Examples
    --------
    >>> import polars_graded as pg
    >>> str(pg.AP(rel=2) @ 10), str(pg.parse_measure("MAP"))
    ('ap(rel=2)@10', 'ap')
    """

    def expr(self, r: Ranked) -> pl.Expr:
        return average_precision(r, self.rel, self.k)
