"""Measures as expressions, for a ``group_by(...).agg(...)`` of your own.

Each function returns a ``pl.Expr`` that ranks the rows of its group (score as float32
descending, ties by item descending) and computes one measure, aliased to the measure's
canonical name. Group by ``query`` (plus any system columns) yourself. Unlike the
``graded`` namespace, these do not validate the input (see :mod:`polars_graded.validate`);
but no NaN or infinite value leaves them: one (from an infinite or NaN label, or from DCG's
exponential gain on labels >= 1024, as 2^1024 overflows float64) raises an
:class:`~polars_graded.InvalidValueError` when the expression runs, without naming the row.
NDCG and mean NDCG scale their exponential gains to the query's top label, as the namespace
does, so they stay finite on labels of any size; ERR does the same with its ``max_rel``.
Parameters are checked as everywhere: a relevance threshold ``rel`` must be > 0.

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
from functools import partial
from typing import TypedDict, Unpack

import polars as pl

from polars_graded.errors import InvalidValueError
from polars_graded.measures import (
    AP,
    DCG,
    ERR,
    NDCG,
    NDCNG,
    RBP,
    RR,
    Bpref,
    Judged,
    MeanNDCG,
    MeanNDCNG,
    Measure,
    MuAP,
    P,
    R,
    RBPResidual,
    RPrec,
    Success,
)
from polars_graded.ranking import TiePolicy, rank_in_group


class ExprOptions(TypedDict, total=False):
    """Keyword arguments of every expression function.

    relevance, score, item
        Column names (defaults: ``"relevance"``, ``"score"``, ``"item"``).
    ties
        The tie policy: ``"trec_eval"`` (default), ``"input"``, ``"optimistic"``,
        ``"pessimistic"`` or ``"average"`` (see
        :class:`polars_graded.namespace.ColumnOptions`).
    """

    relevance: str
    score: str
    item: str
    ties: TiePolicy


def measure_expr(
    measure: Measure,
    *,
    relevance: str = "relevance",
    score: str = "score",
    item: str = "item",
    ties: TiePolicy = "trec_eval",
) -> pl.Expr:
    """The expression of any measure object, named by its canonical string.

    A NaN or infinite value raises an :class:`~polars_graded.InvalidValueError` when the
    expression runs (an infinite label; DCG's ``2^label`` beyond float64): it never leaves
    as a number.

    Examples
    --------
    >>> import polars_graded as pg
    >>> expr = pg.measure_expr(pg.AP(rel=2) @ 10, ties="average")
    >>> expr.meta.output_name()
    'ap(rel=2)@10'
    """
    ranked = rank_in_group(relevance, score, item, ties)
    value = measure.expr(ranked).cast(pl.Float64)
    # Elementwise: Polars calls it once per batch of per-group values, not once per group.
    checked = value.map_batches(
        partial(_finite_or_raise, measure), return_dtype=pl.Float64, is_elementwise=True
    )
    return checked.alias(str(measure))


def _finite_or_raise(measure: Measure, values: pl.Series) -> pl.Series:
    """``values`` unchanged, or an error if one is NaN or infinite."""
    broken = values.filter(~values.is_finite())
    if broken.len():
        count = "1 group" if broken.len() == 1 else f"{broken.len()} groups"
        msg = (
            f"measure {str(measure)!r} is {broken[0]} for {count}; likely cause: an infinite "
            f"or NaN label (the expression functions do not check their input; "
            f"df.graded.evaluate names the offending rows), or {measure.nonfinite_cause()}"
        )
        raise InvalidValueError(msg)
    return values


def ap(
    *,
    rel: float = 1,
    k: int | None = None,
    **columns: Unpack[ExprOptions],
) -> pl.Expr:
    """Average precision at threshold ``rel``, cutoff ``k`` (trec_eval ``map``, ``map_cut.k``)."""
    return measure_expr(AP(rel=rel, k=k), **columns)


def mu_ap(
    *,
    levels: Sequence[float],
    k: int | None = None,
    **columns: Unpack[ExprOptions],
) -> pl.Expr:
    """µAP over explicit ``levels`` (``[1, 2, 3]``): ``sum d_i AP^(l_i) / sum d_i``.

    Each query's own levels need the whole table: use ``df.graded.mu_ap()`` for those.
    """
    return measure_expr(MuAP(levels=levels, k=k), **columns)


def ndcg(
    *,
    k: int | None = None,
    gain: str | Mapping[float, float] = "exp",
    **columns: Unpack[ExprOptions],
) -> pl.Expr:
    """NDCG@k; gain ``"exp"``, ``"linear"`` (trec_eval ``ndcg_cut.k``) or a label -> gain map."""
    return measure_expr(NDCG(k=k, gain=gain), **columns)  # type: ignore[arg-type]


def ndcng(*, k: int | None = None, **columns: Unpack[ExprOptions]) -> pl.Expr:
    """NDCNG@k: NDCG with exponential gain on labels divided by the query's top label."""
    return measure_expr(NDCNG(k=k), **columns)


def dcg(
    *,
    k: int | None = None,
    gain: str | Mapping[float, float] = "exp",
    base: float = 2,
    **columns: Unpack[ExprOptions],
) -> pl.Expr:
    """DCG@k with log ``base``."""
    return measure_expr(DCG(k=k, gain=gain, base=base), **columns)  # type: ignore[arg-type]


def precision(
    *,
    k: int | None = None,
    rel: float = 1,
    **columns: Unpack[ExprOptions],
) -> pl.Expr:
    """P@k (trec_eval ``P_k``); without ``k``, precision of everything retrieved."""
    return measure_expr(P(k=k, rel=rel), **columns)


def recall(
    *,
    k: int | None = None,
    rel: float = 1,
    **columns: Unpack[ExprOptions],
) -> pl.Expr:
    """Recall@k (trec_eval ``recall_k``)."""
    return measure_expr(R(k=k, rel=rel), **columns)


def r_precision(*, rel: float = 1, **columns: Unpack[ExprOptions]) -> pl.Expr:
    """R-precision (trec_eval ``Rprec``)."""
    return measure_expr(RPrec(rel=rel), **columns)


def rr(
    *,
    rel: float = 1,
    k: int | None = None,
    **columns: Unpack[ExprOptions],
) -> pl.Expr:
    """Reciprocal rank (trec_eval ``recip_rank``)."""
    return measure_expr(RR(rel=rel, k=k), **columns)


def mean_ndcg(
    *,
    gain: str | Mapping[float, float] = "exp",
    **columns: Unpack[ExprOptions],
) -> pl.Expr:
    """Mean of NDCG@1..NDCG@N (the paper's "mean NDCG")."""
    return measure_expr(MeanNDCG(gain=gain), **columns)  # type: ignore[arg-type]


def mean_ndcng(**columns: Unpack[ExprOptions]) -> pl.Expr:
    """Mean of NDCNG@1..NDCNG@N (the paper's "mean NDCNG")."""
    return measure_expr(MeanNDCNG, **columns)


def err(*, max_rel: float = 4, k: int | None = None, **columns: Unpack[ExprOptions]) -> pl.Expr:
    """Expected reciprocal rank@k with top grade ``max_rel`` (ir_measures ``ERR@k``)."""
    return measure_expr(ERR(max_rel=max_rel, k=k), **columns)


def rbp(
    *, p: float = 0.8, rel: float = 1, k: int | None = None, **columns: Unpack[ExprOptions]
) -> pl.Expr:
    """Rank-biased precision with persistence ``p`` (ir_measures ``RBP(p=...)``)."""
    return measure_expr(RBP(p=p, rel=rel, k=k), **columns)


def rbp_residual(
    *, p: float = 0.8, k: int | None = None, **columns: Unpack[ExprOptions]
) -> pl.Expr:
    """RBP's residual with persistence ``p``."""
    return measure_expr(RBPResidual(p=p, k=k), **columns)


def bpref(*, rel: float = 1, **columns: Unpack[ExprOptions]) -> pl.Expr:
    """bpref (trec_eval ``bpref``)."""
    return measure_expr(Bpref(rel=rel), **columns)


def judged(*, k: int | None = None, **columns: Unpack[ExprOptions]) -> pl.Expr:
    """Judged@k: the share of the top k retrieved rows that are judged."""
    return measure_expr(Judged(k=k), **columns)


def success(*, rel: float = 1, k: int | None = None, **columns: Unpack[ExprOptions]) -> pl.Expr:
    """Success@k (trec_eval ``success.k``)."""
    return measure_expr(Success(rel=rel, k=k), **columns)
