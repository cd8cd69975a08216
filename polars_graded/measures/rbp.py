"""Rank-biased precision (Moffat and Zobel, TOIS 2008) and its residual.

A user goes on from each position with persistence ``P``:
``RBP@k = (1 - P) sum_{p <= k} hit_p P^(p-1)``. Its residual, the most that unjudged rows
and the rows beyond the ranking could add, is
``(1 - P) sum_{p <= d, unjudged} P^(p-1) + P^d`` with ``d`` the rows evaluated, so
``RBP <= true value <= RBP + residual``.

trec_eval 10.0's ``rbp`` is graded: ``graded_rbp`` gives each row the gain
``label / max(1, top)`` (``top`` the query's top label; negative labels and unjudged rows
gain 0), trec_eval's gain = label scaled into [0, 1]. Its ``rbp_resid`` is
``trec_rbp_residual``: it counts negative labels as unjudged too, and is 0 when no
retrieved row is unjudged (the tail ``P^N`` is then left out). trec_eval's persistence is
0.9 (``graded_rbp(p=0.9)``, ``trec_rbp_residual(p=0.9)``); here it is 0.8 as for ``rbp``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import polars as pl

from polars_graded.errors import MeasureParameterError
from polars_graded.measures.base import (
    Declaration,
    Measure,
    ThresholdMeasure,
    check_number,
    param,
)
from polars_graded.measures.registry import register
from polars_graded.ranking import Ranked


def rank_biased_precision(r: Ranked, persistence: float, rel: float, k: int | None) -> pl.Expr:
    """RBP@k: ``(1 - P) sum_{p <= k} hit_p P^(p-1)``.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_graded.ranking import rank_in_group
    >>> df = pl.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
    ...                    "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1]})
    >>> r = rank_in_group()
    >>> round(df.group_by("query").agg(rank_biased_precision(r, 0.8, 1, None)).item(0, 1), 6)
    0.288
    """
    hit = r.tie_mean(r.hits(rel).cast(pl.Float64))
    weight = pl.lit(persistence).pow(r.position - 1)
    return (1.0 - persistence) * pl.when(r.in_list(k)).then(hit * weight).sum()


def rbp_residual(r: Ranked, persistence: float, k: int | None) -> pl.Expr:
    """RBP's residual: the weight of the unjudged rows evaluated and of every row beyond.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_graded.ranking import rank_in_group
    >>> df = pl.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
    ...                    "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1]})
    >>> r = rank_in_group()
    >>> round(df.group_by("query").agg(rbp_residual(r, 0.8, None)).item(0, 1), 6)
    0.512
    """
    unjudged = r.tie_mean(r.rel.is_null().cast(pl.Float64))
    weight = pl.lit(persistence).pow(r.position - 1)
    seen = (1.0 - persistence) * pl.when(r.in_list(k)).then(unjudged * weight).sum()
    return seen + pl.lit(persistence).pow(r.evaluated(k))


def graded_rank_biased_precision(r: Ranked, persistence: float, k: int | None) -> pl.Expr:
    """trec_eval's graded RBP@k: ``(1 - P) sum_{p <= k} (label_p / max(1, top)) P^(p-1)``.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_graded.ranking import rank_in_group
    >>> df = pl.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
    ...                    "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1]})
    >>> r = rank_in_group()
    >>> round(df.group_by("query").agg(graded_rank_biased_precision(r, 0.8, None)).item(0, 1), 6)
    0.224
    """
    scale = pl.max_horizontal(r.top, pl.lit(1.0))
    label = pl.when(r.rel > 0).then(r.rel).otherwise(pl.lit(0.0))
    gain = r.tie_mean(label / scale)
    weight = pl.lit(persistence).pow(r.position - 1)
    return (1.0 - persistence) * pl.when(r.in_list(k)).then(gain * weight).sum()


def trec_rbp_residual(r: Ranked, persistence: float) -> pl.Expr:
    """trec_eval's ``rbp_resid``: :func:`rbp_residual` over every retrieved row with unjudged
    rows those with a null or negative label, and 0 when there is none.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_graded.ranking import rank_in_group
    >>> df = pl.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
    ...                    "score": [3.0, 2.0, 1.0], "relevance": [0, -1, 1]})
    >>> r = rank_in_group()
    >>> round(df.group_by("query").agg(trec_rbp_residual(r, 0.8)).item(0, 1), 6)
    0.672
    """
    unjudged = (r.rel.is_null() | (r.rel < 0)) & r.in_list(None)
    weight = pl.lit(persistence).pow(r.position - 1)
    seen = (1.0 - persistence) * pl.when(unjudged).then(r.tie_mean(weight)).sum()
    residual = pl.lit(persistence).pow(r.evaluated(None)) + seen
    return pl.when(unjudged.any()).then(residual).otherwise(pl.lit(0.0))


def check_persistence(name: str, value: object, *, measure: str) -> float:
    """A persistence: a finite number strictly between 0 and 1.

    Examples
    --------
    >>> check_persistence("p", 0.9, measure="rbp")
    0.9
    """
    p = check_number(name, value, measure=measure)
    if not 0 < p < 1:
        msg = f"{measure}: persistence p must be between 0 and 1 (exclusive), got {value!r}"
        raise MeasureParameterError(msg)
    return p


def persistence_param() -> Any:
    """The ``p`` parameter of RBP and its residual (default 0.8).

    Examples
    --------
    >>> field = persistence_param()
    >>> field.default, field.metadata["param"].check is check_persistence
    (0.8, True)
    """
    return param(
        0.8,
        "Persistence, the chance of going on to the next row (0 < p < 1).",
        check=check_persistence,
        examples=("0.9",),
    )


@register(
    Declaration(
        name="rbp",
        summary="rank-biased precision (Moffat and Zobel 2008), persistence p",
        function="rbp",
        instance="RBP",
        order=13,
        example="rbp",
        example_value=0.288,
        ir_measures={"RBP(rel={rel})": "rbp[@{k}]"},
    )
)
@dataclasses.dataclass(frozen=True, kw_only=True)
class RankBiasedPrecision(ThresholdMeasure):
    """RBP@k: ``(1 - p) sum_{i <= k} hit_i p^(i-1)``, relevant at label >= ``rel``.

    Examples
    --------
    >>> import polars_graded as pg
    >>> str(pg.parse_measure("RBP(rel=1, p=0.8)@5"))
    'rbp@5'
    """

    p: float = persistence_param()

    def expr(self, r: Ranked) -> pl.Expr:
        return rank_biased_precision(r, self.p, self.rel, self.k)


@register(
    Declaration(
        name="rbp_residual",
        summary="RBP's residual: the weight of the unjudged rows evaluated plus p^depth",
        function="rbp_residual",
        instance="RBPResidual",
        order=14,
        example="rbp_residual",
        example_value=0.512,
    )
)
@dataclasses.dataclass(frozen=True, kw_only=True)
class RankBiasedPrecisionResidual(Measure):
    """RBP's residual with persistence ``p``: ``RBP <= true value <= RBP + residual``.

    Examples
    --------
    >>> import polars_graded as pg
    >>> str(pg.RBPResidual(p=0.9) @ 10)
    'rbp_residual(p=0.9)@10'
    """

    p: float = persistence_param()

    def expr(self, r: Ranked) -> pl.Expr:
        return rbp_residual(r, self.p, self.k)


@register(
    Declaration(
        name="graded_rbp",
        summary="trec_eval's graded RBP: gain label / max(1, top label), persistence p",
        function="graded_rbp",
        instance="GradedRBP",
        order=145,
        example="graded_rbp",
        example_value=0.224,
        trec_eval={"rbp": "graded_rbp(p=0.9)"},
    )
)
@dataclasses.dataclass(frozen=True, kw_only=True)
class GradedRankBiasedPrecision(Measure):
    """Graded RBP@k: ``(1 - p) sum_{i <= k} gain_i p^(i-1)``, ``gain = label / max(1, top)``.

    Examples
    --------
    >>> import polars_graded as pg
    >>> str(pg.GradedRBP(p=0.9) @ 10)
    'graded_rbp(p=0.9)@10'
    """

    p: float = persistence_param()

    def expr(self, r: Ranked) -> pl.Expr:
        return graded_rank_biased_precision(r, self.p, self.k)


@register(
    Declaration(
        name="trec_rbp_residual",
        summary="trec_eval's rbp_resid: RBP's residual, 0 when no retrieved row is unjudged",
        function="trec_rbp_residual",
        instance="TrecRBPResidual",
        order=146,
        example="trec_rbp_residual",
        example_value=0.0,
        cutoff="none",
        trec_eval={"rbp_resid": "trec_rbp_residual(p=0.9)"},
    )
)
@dataclasses.dataclass(frozen=True, kw_only=True)
class TrecRankBiasedPrecisionResidual(Measure):
    """trec_eval's ``rbp_resid`` with persistence ``p`` (module docstring).

    Examples
    --------
    >>> import polars_graded as pg
    >>> str(pg.TrecRBPResidual(p=0.9))
    'trec_rbp_residual(p=0.9)'
    """

    p: float = persistence_param()

    def expr(self, r: Ranked) -> pl.Expr:
        return trec_rbp_residual(r, self.p)
