"""User-model measures: expected reciprocal rank (ERR) and rank-biased precision (RBP).

Both follow a user down the ranking. ERR (Chapelle et al., CIKM 2009) stops at position
``p`` with probability ``R(rel_p) = (2^min(rel, m) - 1) / 2^m`` once reached (``m`` the top
grade of the scale) and scores ``1/p`` there:
``ERR@k = sum_{p <= k} (1/p) R_p prod_{i < p} (1 - R_i)``. RBP (Moffat and Zobel, TOIS
2008) goes on from each position with persistence ``P``:
``RBP@k = (1 - P) sum_{p <= k} hit_p P^(p-1)``; its residual, the most unjudged rows and
the rows beyond the ranking could add, is
``(1 - P) sum_{p <= d, unjudged} P^(p-1) + P^d`` with ``d`` the rows evaluated.
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

import numpy as np
import polars as pl

from polars_graded.errors import MeasureParameterError
from polars_graded.measures.base import Measure, ThresholdMeasure, check_number
from polars_graded.ranking import Ranked

EXACT_TOP_GRADE = 1000
"""Top grades up to this keep ``(2^c - 1) / 2^m`` as written; above, ``2^m`` overflows
float64 (at 1024), so the ratio is taken as ``2^(c - m) - 2^-m``: the same number."""


def stop_probability(rel: pl.Expr, top_grade: float) -> pl.Expr:
    """ERR's ``R(rel) = (2^min(rel, m) - 1) / 2^m``; 0 for labels <= 0 and unjudged rows."""
    capped = rel.clip(upper_bound=top_grade)
    if top_grade <= EXACT_TOP_GRADE:
        chance = (pl.lit(2.0).pow(capped) - 1.0) / 2.0**top_grade
    else:
        # An explicit dtype: Polars 2.1 types cum_prod over a bare lit(2.0).pow(...) as Int64.
        chance = pl.lit(2.0, dtype=pl.Float64).pow(capped - top_grade) - 2.0**-top_grade
    return pl.when(rel > 0).then(chance).otherwise(pl.lit(0.0))


def expected_reciprocal_rank(r: Ranked, top_grade: float, k: int | None) -> pl.Expr:
    """ERR@k of one query; with tie averaging, its expectation over the orders of ties."""
    stop = stop_probability(r.rel, top_grade)
    if r.averages_ties:
        parts = pl.struct(
            stop.alias("stop"),
            r.tie_start.alias("start"),  # type: ignore[union-attr]
            r.tie_end.alias("end"),  # type: ignore[union-attr]
            r.position.alias("position"),
            r.in_list(k).alias("kept"),
        )
        terms = parts.map_batches(_err_terms_averaged, return_dtype=pl.Float64)
        return terms.sum()
    reached = (1.0 - stop).cum_prod().shift(1, fill_value=1.0)
    return pl.when(r.in_list(k)).then(reached * stop / r.position).sum()


def _err_terms_averaged(rows: pl.Series) -> pl.Series:
    """One query's expected ERR term per kept row (null elsewhere), tie group by tie group.

    In a group of ``n`` rows with continue-chances ``a = 1 - R``, the user reaches its
    ``j``-th row having passed ``j - 1`` of them, a random ``(j-1)``-subset, and stops
    there with chance ``mean_{j-1} - mean_j``, ``mean_m`` the mean product of ``a`` over
    the ``m``-subsets of the group (the expectation of a telescoping product).
    """
    stop = rows.struct.field("stop").to_numpy()
    start = rows.struct.field("start").to_numpy() - 1
    end = rows.struct.field("end").to_numpy()
    position = rows.struct.field("position").to_numpy().astype(np.float64)
    kept = int(rows.struct.field("kept").sum())  # the kept rows are a prefix
    terms = np.full(stop.size, np.nan)
    reached = 1.0
    row = 0
    while row < kept:
        first, last = int(start[row]), int(end[row])
        shown = min(last, kept) - first
        if last - first == 1:  # untied: the plain formula's arithmetic
            terms[first] = reached * stop[first] / position[first]
        else:
            means = _subset_product_means(1.0 - stop[first:last], shown)
            terms[first : first + shown] = (
                reached * (means[:-1] - means[1:]) / position[first : first + shown]
            )
        reached *= float(np.prod(1.0 - stop[first:last]))
        row = last
    return pl.Series(terms, dtype=pl.Float64).fill_nan(None)


def _subset_product_means(values: np.ndarray, most: int) -> np.ndarray:
    """``mean_m`` for m = 0..most: the mean over m-element subsets of the product."""
    means = np.zeros(most + 1)
    means[0] = 1.0
    for seen, value in enumerate(values, start=1):
        m = np.arange(1, min(seen, most) + 1)
        # Subsets of the first `seen` values: without this one, or with it.
        means[m] = ((seen - m) * means[m] + m * value * means[m - 1]) / seen
    return means


def rank_biased_precision(r: Ranked, persistence: float, rel: float, k: int | None) -> pl.Expr:
    """RBP@k: ``(1 - P) sum_{p <= k} hit_p P^(p-1)``."""
    hit = r.tie_mean(r.hits(rel).cast(pl.Float64))
    weight = pl.lit(persistence).pow(r.position - 1)
    return (1.0 - persistence) * pl.when(r.in_list(k)).then(hit * weight).sum()


def rbp_residual(r: Ranked, persistence: float, k: int | None) -> pl.Expr:
    """RBP's residual: the weight of the unjudged rows evaluated and of every row beyond."""
    unjudged = r.tie_mean(r.rel.is_null().cast(pl.Float64))
    weight = pl.lit(persistence).pow(r.position - 1)
    seen = (1.0 - persistence) * pl.when(r.in_list(k)).then(unjudged * weight).sum()
    return seen + pl.lit(persistence).pow(r.evaluated(k))


def _check_persistence(value: object, measure: str) -> float:
    p = check_number("p", value, measure=measure)
    if not 0 < p < 1:
        msg = f"{measure}: persistence p must be between 0 and 1 (exclusive), got {value!r}"
        raise MeasureParameterError(msg)
    return p


@dataclasses.dataclass(frozen=True, kw_only=True)
class ExpectedReciprocalRank(Measure):
    """ERR@k (Chapelle et al. 2009) with top grade ``max_rel`` (default 4, as TREC's gdeval).

    Labels above ``max_rel`` count as ``max_rel``. Not in trec_eval; ir_measures ``ERR@k``.
    """

    name: ClassVar[str] = "err"
    max_rel: float = 4

    def __post_init__(self) -> None:
        super().__post_init__()
        top = check_number("max_rel", self.max_rel, measure=self.name)
        if top <= 0:
            msg = f"err: max_rel must be > 0, got {self.max_rel!r}"
            raise MeasureParameterError(msg)
        object.__setattr__(self, "max_rel", top)

    def expr(self, r: Ranked) -> pl.Expr:
        return expected_reciprocal_rank(r, self.max_rel, self.k)

    def depth(self) -> int | None:
        return self.k


@dataclasses.dataclass(frozen=True, kw_only=True)
class RankBiasedPrecision(ThresholdMeasure):
    """RBP with persistence ``p`` (default 0.8), relevant at label >= ``rel`` (default 1).

    Not in trec_eval; ir_measures ``RBP(p=0.8, rel=1)``.
    """

    name: ClassVar[str] = "rbp"
    p: float = 0.8

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "p", _check_persistence(self.p, self.name))

    def expr(self, r: Ranked) -> pl.Expr:
        return rank_biased_precision(r, self.p, self.rel, self.k)

    def depth(self) -> int | None:
        return self.k


@dataclasses.dataclass(frozen=True, kw_only=True)
class RankBiasedPrecisionResidual(Measure):
    """RBP's residual with persistence ``p``: ``RBP <= true value <= RBP + residual``."""

    name: ClassVar[str] = "rbp_residual"
    p: float = 0.8

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "p", _check_persistence(self.p, self.name))

    def expr(self, r: Ranked) -> pl.Expr:
        return rbp_residual(r, self.p, self.k)

    def depth(self) -> int | None:
        return self.k
