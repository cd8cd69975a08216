"""NDCNG: NDCG on normalised labels, and its mean over cutoffs (docs/conventions.md §4).

The gain of a row is the exponential gain of its label divided by the query's top label
``m_q``: ``2^(rel / m_q) - 1``, so every query's best row gains 1 whatever its scale.
``NDCNG@k = DCG@k / IDCG@k`` with those gains; 0 when ``m_q <= 0``.
"""

from __future__ import annotations

import dataclasses

import polars as pl

from polars_graded.measures.base import Declaration, Measure
from polars_graded.measures.kernels.gains import Gain, exp_gain, mean_ndcg_over_cutoffs, ndcg
from polars_graded.measures.registry import register
from polars_graded.ranking import Ranked


def normalised_gain(r: Ranked) -> Gain:
    """NDCNG's gain: exponential gain of ``rel / m_q``, ``m_q`` the query's top label.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_graded.ranking import rank_in_group
    >>> df = pl.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
    ...                    "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1]})
    >>> r = rank_in_group()
    >>> round(df.group_by("query").agg(normalised_gain(r)(r.rel).max()).item(0, 1), 6)
    1.0
    """
    return lambda rel: exp_gain(rel / r.top)


def with_positive_top(r: Ranked, value: pl.Expr) -> pl.Expr:
    """``value`` where the query has a positive label, else 0 (``m_q <= 0``).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_graded.ranking import rank_in_group
    >>> df = pl.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
    ...                    "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1]})
    >>> r = rank_in_group()
    >>> df.group_by("query").agg(with_positive_top(r, pl.lit(1.0))).item(0, 1)
    1.0
    """
    return pl.when(r.top.first() > 0).then(value).otherwise(pl.lit(0.0))


@register(
    Declaration(
        name="ndcng",
        summary="NDCG (exp gain) on labels divided by the query's top label",
        function="ndcng",
        instance="NDCNG",
        order=4,
        example="ndcng@2",
        example_value=0.500206,
    )
)
@dataclasses.dataclass(frozen=True, kw_only=True)
class NormalizedDCNG(Measure):
    """NDCNG@k: NDCG@k with gains ``2^(rel / m_q) - 1`` (module docstring).

    Examples
    --------
    >>> import polars_graded as pg
    >>> str(pg.NDCNG @ 10)
    'ndcng@10'
    """

    def expr(self, r: Ranked) -> pl.Expr:
        return with_positive_top(r, ndcg(r, normalised_gain(r), self.k))


@register(
    Declaration(
        name="mean_ndcng",
        summary="mean of NDCNG@1..NDCNG@N over the N retrieved rows (the paper's 'mean NDCNG')",
        function="mean_ndcng",
        instance="MeanNDCNG",
        order=11,
        example="mean_ndcng",
        example_value=0.388203,
        cutoff="none",
    )
)
@dataclasses.dataclass(frozen=True, kw_only=True)
class MeanNormalizedDCNG(Measure):
    """Mean NDCNG: ``(1/N) sum_{k=1..N} NDCNG@k``, N the retrieved rows.

    Examples
    --------
    >>> import polars_graded as pg
    >>> str(pg.MeanNDCNG)
    'mean_ndcng'
    """

    def expr(self, r: Ranked) -> pl.Expr:
        return with_positive_top(r, mean_ndcg_over_cutoffs(r, normalised_gain(r)))
