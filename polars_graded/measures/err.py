"""Expected reciprocal rank (Chapelle et al., CIKM 2009).

A user goes down the ranking and stops at position ``p`` with probability
``R(rel_p) = (2^min(rel, m) - 1) / 2^m`` once reached (``m`` the top grade of the scale),
scoring ``1/p`` there: ``ERR@k = sum_{p <= k} (1/p) R_p prod_{i < p} (1 - R_i)``. Equals
TREC's gdeval (``max_rel=4``); not in trec_eval.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import polars as pl

from polars_graded.errors import MeasureParameterError
from polars_graded.measures.base import Declaration, Measure, check_number, param
from polars_graded.measures.registry import register
from polars_graded.ranking import Ranked

EXACT_TOP_GRADE = 1000
"""Top grades up to this keep ``(2^c - 1) / 2^m`` as written; above, ``2^m`` overflows
float64 (at 1024), so the ratio is taken as ``2^(c - m) - 2^-m``: the same number."""


def stop_probability(rel: pl.Expr, top_grade: float) -> pl.Expr:
    """ERR's ``R(rel) = (2^min(rel, m) - 1) / 2^m``; 0 for labels <= 0 and unjudged rows.

    Examples
    --------
    >>> import polars as pl
    >>> pl.select(stop_probability(pl.lit(2), 4)).item()
    0.1875
    """
    capped = rel.clip(upper_bound=top_grade)
    if top_grade <= EXACT_TOP_GRADE:
        chance = (pl.lit(2.0).pow(capped) - 1.0) / 2.0**top_grade
    else:
        # An explicit dtype: Polars 2.1 types cum_prod over a bare lit(2.0).pow(...) as Int64.
        chance = pl.lit(2.0, dtype=pl.Float64).pow(capped - top_grade) - 2.0**-top_grade
    return pl.when(rel > 0).then(chance).otherwise(pl.lit(0.0))


def expected_reciprocal_rank(r: Ranked, top_grade: float, k: int | None) -> pl.Expr:
    """ERR@k of one query; with tie averaging, its expectation over the orders of ties.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_graded.ranking import rank_in_group
    >>> df = pl.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
    ...                    "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1]})
    >>> r = rank_in_group()
    >>> round(df.group_by("query").agg(expected_reciprocal_rank(r, 4, None)).item(0, 1), 6)
    0.110677
    """
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


def check_top_grade(name: str, value: object, *, measure: str) -> float:
    """ERR's top grade: a finite number > 0.

    Examples
    --------
    >>> check_top_grade("max_rel", 4, measure="err")
    4.0
    """
    top = check_number(name, value, measure=measure)
    if top <= 0:
        msg = f"{measure}: max_rel must be > 0, got {value!r}"
        raise MeasureParameterError(msg)
    return top


@register(
    Declaration(
        name="err",
        summary="expected reciprocal rank (Chapelle et al. 2009); equals TREC's gdeval",
        function="err",
        instance="ERR",
        order=12,
        example="err",
        example_value=0.110677,
        ir_measures={"ERR": "err[@{k}]"},
    )
)
@dataclasses.dataclass(frozen=True, kw_only=True)
class ExpectedReciprocalRank(Measure):
    """ERR@k: ``sum_{p <= k} (1/p) R_p prod_{i < p} (1 - R_i)`` (module docstring).

    Examples
    --------
    >>> import polars_graded as pg
    >>> str(pg.ERR(max_rel=3) @ 20)
    'err(max_rel=3)@20'
    """

    max_rel: float = param(
        4,
        "The top grade of the scale (as TREC's gdeval); labels above it count as it.",
        check=check_top_grade,
        examples=("3",),
    )

    def expr(self, r: Ranked) -> pl.Expr:
        return expected_reciprocal_rank(r, self.max_rel, self.k)
