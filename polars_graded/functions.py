"""Measures as expressions, for a ``group_by(...).agg(...)`` of your own.

Each function returns a ``pl.Expr`` that ranks the rows of its group (score as float32
descending, ties by item descending) and computes one measure, aliased to the measure's
canonical name. Group by ``query`` (plus any system columns) yourself. Unlike the
``graded`` namespace, these do not validate the input (see :mod:`polars_graded.validate`).

Examples
--------
>>> import polars as pl
>>> import polars_graded as pg
>>> df = pl.DataFrame({
...     "query": [1, 1, 1], "item": ["a", "b", "c"],
...     "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1],
... })
>>> df.group_by("query").agg(pg.ap(), pg.ndcg(k=2))
shape: (1, 3)
┌───────┬──────────┬──────────┐
│ query ┆ ap       ┆ ndcg@2   │
│ ---   ┆ ---      ┆ ---      │
│ i64   ┆ f64      ┆ f64      │
╞═══════╪══════════╪══════════╡
│ 1     ┆ 0.583333 ┆ 0.521296 │
└───────┴──────────┴──────────┘
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import polars as pl

from polars_graded.measures import (
    AP,
    DCG,
    NDCG,
    NDCNG,
    RR,
    MeanNDCG,
    MeanNDCNG,
    Measure,
    MuAP,
    P,
    R,
    RPrec,
)
from polars_graded.ranking import rank_in_group


def measure_expr(
    measure: Measure,
    *,
    relevance: str = "relevance",
    score: str = "score",
    item: str = "item",
) -> pl.Expr:
    """The expression of any measure object, named by its canonical string.

    Examples
    --------
    >>> import polars_graded as pg
    >>> expr = pg.measure_expr(pg.AP(rel=2) @ 10)
    >>> expr.meta.output_name()
    'ap(rel=2)@10'
    """
    ranked = rank_in_group(relevance, score, item)
    return measure.expr(ranked).alias(str(measure))


def ap(
    *,
    rel: float = 1,
    k: int | None = None,
    relevance: str = "relevance",
    score: str = "score",
    item: str = "item",
) -> pl.Expr:
    """Average precision at threshold ``rel``, cutoff ``k`` (trec_eval ``map``, ``map_cut.k``)."""
    return measure_expr(AP(rel=rel, k=k), relevance=relevance, score=score, item=item)


def mu_ap(
    *,
    levels: Sequence[float],
    k: int | None = None,
    relevance: str = "relevance",
    score: str = "score",
    item: str = "item",
) -> pl.Expr:
    """µAP over explicit ``levels`` (``[1, 2, 3]``): ``sum d_i AP^(l_i) / sum d_i``.

    Each query's own levels need the whole table: use ``df.graded.mu_ap()`` for those.
    """
    return measure_expr(MuAP(levels=levels, k=k), relevance=relevance, score=score, item=item)


def ndcg(
    *,
    k: int | None = None,
    gain: str | Mapping[float, float] = "exp",
    relevance: str = "relevance",
    score: str = "score",
    item: str = "item",
) -> pl.Expr:
    """NDCG@k; gain ``"exp"``, ``"linear"`` (trec_eval ``ndcg_cut.k``) or a label -> gain map."""
    return measure_expr(NDCG(k=k, gain=gain), relevance=relevance, score=score, item=item)  # type: ignore[arg-type]


def ndcng(
    *, k: int | None = None, relevance: str = "relevance", score: str = "score", item: str = "item"
) -> pl.Expr:
    """NDCNG@k: NDCG with exponential gain on labels divided by the query's top label."""
    return measure_expr(NDCNG(k=k), relevance=relevance, score=score, item=item)


def dcg(
    *,
    k: int | None = None,
    gain: str | Mapping[float, float] = "exp",
    base: float = 2,
    relevance: str = "relevance",
    score: str = "score",
    item: str = "item",
) -> pl.Expr:
    """DCG@k with log ``base``."""
    return measure_expr(DCG(k=k, gain=gain, base=base), relevance=relevance, score=score, item=item)  # type: ignore[arg-type]


def precision(
    *,
    k: int | None = None,
    rel: float = 1,
    relevance: str = "relevance",
    score: str = "score",
    item: str = "item",
) -> pl.Expr:
    """P@k (trec_eval ``P_k``); without ``k``, precision of everything retrieved."""
    return measure_expr(P(k=k, rel=rel), relevance=relevance, score=score, item=item)


def recall(
    *,
    k: int | None = None,
    rel: float = 1,
    relevance: str = "relevance",
    score: str = "score",
    item: str = "item",
) -> pl.Expr:
    """Recall@k (trec_eval ``recall_k``)."""
    return measure_expr(R(k=k, rel=rel), relevance=relevance, score=score, item=item)


def r_precision(
    *, rel: float = 1, relevance: str = "relevance", score: str = "score", item: str = "item"
) -> pl.Expr:
    """R-precision (trec_eval ``Rprec``)."""
    return measure_expr(RPrec(rel=rel), relevance=relevance, score=score, item=item)


def rr(
    *,
    rel: float = 1,
    k: int | None = None,
    relevance: str = "relevance",
    score: str = "score",
    item: str = "item",
) -> pl.Expr:
    """Reciprocal rank (trec_eval ``recip_rank``)."""
    return measure_expr(RR(rel=rel, k=k), relevance=relevance, score=score, item=item)


def mean_ndcg(
    *,
    gain: str | Mapping[float, float] = "exp",
    relevance: str = "relevance",
    score: str = "score",
    item: str = "item",
) -> pl.Expr:
    """Mean of NDCG@1..NDCG@N (the paper's "mean NDCG")."""
    return measure_expr(MeanNDCG(gain=gain), relevance=relevance, score=score, item=item)  # type: ignore[arg-type]


def mean_ndcng(
    *, relevance: str = "relevance", score: str = "score", item: str = "item"
) -> pl.Expr:
    """Mean of NDCNG@1..NDCNG@N (the paper's "mean NDCNG")."""
    return measure_expr(MeanNDCNG, relevance=relevance, score=score, item=item)
