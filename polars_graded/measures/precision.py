"""Precision, recall and R-precision: the relevant rows among the top of the ranking.

A row is relevant when its label is >= ``rel`` (default 1, trec_eval's relevance level).
``P@k = |relevant in the top k| / k`` (over N, the rows retrieved, without a cutoff),
``R@k = |relevant in the top k| / R`` and ``R-precision = P@R``, R the query's relevant rows
(judged, retrieved or not); each is 0 when its divisor is.
"""

from __future__ import annotations

import dataclasses

import polars as pl

from polars_graded.measures.base import Declaration, ThresholdMeasure, safe_ratio
from polars_graded.measures.registry import register
from polars_graded.ranking import Ranked


def relevant_retrieved(r: Ranked, rel: float, k: int | pl.Expr | None) -> pl.Expr:
    """Number of rows relevant at ``rel`` among the first ``k`` retrieved.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_graded.ranking import rank_in_group
    >>> df = pl.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
    ...                    "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1]})
    >>> r = rank_in_group()
    >>> df.group_by("query").agg(relevant_retrieved(r, 1, 2)).item(0, 1)
    1
    """
    if r.averages_ties:
        return pl.when(r.in_list(k)).then(r.tie_mean(r.hits(rel))).sum()
    return (r.hits(rel) & r.in_list(k)).sum()


def precision(r: Ranked, rel: float = 1, k: int | None = None) -> pl.Expr:
    """P@k: relevant among the top k over k (trec_eval ``P_k``); without k over N (``set_P``).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_graded.ranking import rank_in_group
    >>> df = pl.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
    ...                    "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1]})
    >>> r = rank_in_group()
    >>> df.group_by("query").agg(precision(r, k=2)).item(0, 1)
    0.5
    """
    denominator = r.n_retrieved.first() if k is None else r.per_query(k)
    return safe_ratio(relevant_retrieved(r, rel, k), denominator)


def recall(r: Ranked, rel: float = 1, k: int | None = None) -> pl.Expr:
    """R@k: relevant among the top k over R (trec_eval ``recall_k``; ``set_recall`` without k).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_graded.ranking import rank_in_group
    >>> df = pl.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
    ...                    "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1]})
    >>> r = rank_in_group()
    >>> df.group_by("query").agg(recall(r, k=2)).item(0, 1)
    0.5
    """
    return safe_ratio(relevant_retrieved(r, rel, k), r.n_relevant(rel))


def r_precision(r: Ranked, rel: float = 1) -> pl.Expr:
    """Precision at R, the number of relevant rows (trec_eval ``Rprec``).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_graded.ranking import rank_in_group
    >>> df = pl.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
    ...                    "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1]})
    >>> r = rank_in_group()
    >>> df.group_by("query").agg(r_precision(r)).item(0, 1)
    0.5
    """
    n_relevant = r.n_relevant(rel)
    return safe_ratio(relevant_retrieved(r, rel, n_relevant), n_relevant)


@register(
    Declaration(
        name="p",
        summary="precision at k (divides by k; without k, by the rows retrieved)",
        function="precision",
        instance="P",
        order=6,
        example="p@2",
        example_value=0.5,
        aliases=("precision",),
        trec_eval={"P": "p{r}@{k}", "set_P": "p{r}"},
        ir_measures={"P": "p@{k}"},
    )
)
@dataclasses.dataclass(frozen=True, kw_only=True)
class Precision(ThresholdMeasure):
    """P@k: ``|relevant in the top k| / k``; without a cutoff, over everything retrieved.

    Examples
    --------
    >>> import polars_graded as pg
    >>> str(pg.P(rel=2) @ 5), str(pg.parse_measure("precision@5"))
    ('p(rel=2)@5', 'p@5')
    """

    def expr(self, r: Ranked) -> pl.Expr:
        return precision(r, self.rel, self.k)


@register(
    Declaration(
        name="recall",
        summary="recall at k: the share of the relevant rows found in the top k",
        function="recall",
        instance="R",
        order=7,
        example="recall@2",
        example_value=0.5,
        cutoff="all_rows",
        trec_eval={"recall": "recall{r}@{k}", "set_recall": "recall{r}"},
        ir_measures={"R": "recall@{k}"},
    )
)
@dataclasses.dataclass(frozen=True, kw_only=True)
class Recall(ThresholdMeasure):
    """R@k: ``|relevant in the top k| / R``; without a cutoff, over everything retrieved.

    Examples
    --------
    >>> import polars_graded as pg
    >>> str(pg.R @ 100)
    'recall@100'
    """

    def expr(self, r: Ranked) -> pl.Expr:
        return recall(r, self.rel, self.k)


@register(
    Declaration(
        name="r_precision",
        summary="R-precision: precision at R, the query's number of relevant rows",
        function="r_precision",
        instance="RPrec",
        order=8,
        example="r_precision",
        example_value=0.5,
        aliases=("rprec",),
        cutoff="none",
        trec_eval={"Rprec": "r_precision{r}"},
        ir_measures={"Rprec": "r_precision"},
    )
)
@dataclasses.dataclass(frozen=True, kw_only=True)
class RPrecision(ThresholdMeasure):
    """R-precision: ``|relevant in the top R| / R``, R the query's relevant rows.

    Examples
    --------
    >>> import polars_graded as pg
    >>> str(pg.parse_measure("Rprec(rel=2)"))
    'r_precision(rel=2)'
    """

    def expr(self, r: Ranked) -> pl.Expr:
        return r_precision(r, self.rel)
