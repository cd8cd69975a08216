"""Interpolated precision at recall points (trec_eval's ``iprec_at_recall_x`` and ``11pt_avg``).

As trec_eval 10.0 computes it: a recall point ``x`` stands for the ``t = round(x R)``-th
relevant row (R the query's relevant rows, rounded half up). trec_eval 9.x (and pytrec_eval)
truncated ``x R + 0.9``, so a few values differ from 9.x; ``compat="trec_eval_9"`` computes
that instead. The interpolated precision there is the best
precision at or after the rank where the ``t``-th relevant retrieved row lies,

    ``iprec(x) = max {P@i : i <= N, |relevant in the top i| >= t}``,

and 0 when fewer than ``t`` relevant rows are retrieved (or none is). ``iprec_mean`` averages
it over a list of recall points (default the 11 points 0, 0.1, ..., 1: ``11pt_avg``).
The expected maximum over the orders of tied rows has no closed form here, so
``ties="average"`` is refused.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import polars as pl

from polars_graded.errors import MeasureParameterError
from polars_graded.measures.base import (
    Declaration,
    ThresholdMeasure,
    check_number,
    format_number,
    param,
    shown,
)
from polars_graded.measures.kernels.unaveraged import refuse_averaged_ties
from polars_graded.measures.registry import register
from polars_graded.ranking import Ranked

ELEVEN_POINTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
"""trec_eval's default recall points."""


def check_recall_point(name: str, value: object, *, measure: str) -> float:
    """A recall point: a number from 0 to 1, else a :class:`MeasureParameterError`.

    Examples
    --------
    >>> check_recall_point("recall", 0.5, measure="iprec")
    0.5
    """
    point = check_number(name, value, measure=measure)
    if not 0 <= point <= 1:
        msg = f"{measure}: parameter {name!r} must be from 0 to 1, got {shown(value)}"
        raise MeasureParameterError(msg)
    return point


def check_recall_points(name: str, value: object, *, measure: str) -> tuple[float, ...]:
    """A non-empty list of recall points, kept in the given order (a tuple).

    Examples
    --------
    >>> check_recall_points("recalls", [0.25, 0.5], measure="iprec_mean")
    (0.25, 0.5)
    """
    if isinstance(value, str) or not isinstance(value, Sequence) or len(value) == 0:
        msg = f"{measure}: {name!r} must be a non-empty list of numbers, not {shown(value)}"
        raise MeasureParameterError(msg)
    return tuple(check_recall_point(name, v, measure=measure) for v in value)


def format_points(points: tuple[float, ...]) -> str:
    """Canonical text of a list of recall points.

    Examples
    --------
    >>> format_points((0.25, 0.5))
    '[0.25,0.5]'
    """
    return "[" + ",".join(format_number(p) for p in points) + "]"


NO_MAXIMUM = "the expected maximum of precision over the orders of tied rows has no closed form"


def interpolated_precision(r: Ranked, rel: float = 1, recall: float = 0.0) -> pl.Expr:
    """trec_eval's ``iprec_at_recall``: the best precision from the ``round(recall R)``-th
    relevant retrieved row on (module docstring).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_graded.ranking import rank_in_group
    >>> df = pl.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
    ...                    "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1]})
    >>> r = rank_in_group()
    >>> round(df.group_by("query").agg(interpolated_precision(r, recall=1.0)).item(0, 1), 6)
    0.666667
    """
    refuse_averaged_ties(r, "iprec", NO_MAXIMUM)
    retrieved = r.in_list(None)
    found = (r.hits(rel) & retrieved).cast(pl.Int64).cum_sum()
    target = recall_target(r, rel, recall)
    precision = found / r.position
    best = pl.when(retrieved & (found >= target)).then(precision).max()
    return pl.when(found.max() >= target).then(best).otherwise(0.0).fill_null(0.0)


def recall_target(r: Ranked, rel: float, recall: float) -> pl.Expr:
    """Which relevant row recall point ``recall`` stands for: trec_eval 10.0's
    ``lround(x R)``, or 9.x's ``(long)(x R + 0.9)`` under ``compat="trec_eval_9"``.

    Examples
    --------
    >>> from polars_graded.ranking import rank_in_group
    >>> df = pl.DataFrame({"relevance": [1] * 4})
    >>> [df.select(recall_target(rank_in_group(compat=c), 1, 0.1)).item()
    ...  for c in ("trec_eval_10", "trec_eval_9")]
    [0.0, 1.0]
    """
    points = recall * r.n_relevant(rel)
    if r.compat == "trec_eval_9":
        return (points + 0.9).floor()
    return (points + 0.5).floor()  # lround, half away from zero (points >= 0)


@register(
    Declaration(
        name="iprec",
        averages_ties=False,
        summary="interpolated precision at a recall point (the best precision at or past it)",
        function="interpolated_precision",
        instance="IPrec",
        order=120,
        example="iprec(recall=1)",
        example_value=0.666667,
        aliases=("iprec_at_recall",),
        cutoff="none",
        trec_eval={"iprec_at_recall": "iprec(recall={k})"},
        ir_measures={"IPrec": "iprec(recall={k})"},
    )
)
@dataclasses.dataclass(frozen=True, kw_only=True)
class InterpolatedPrecision(ThresholdMeasure):
    """Interpolated precision: ``max {P@i : |relevant in the top i| >= round(recall R)}``,
    0 when fewer relevant rows are retrieved (module docstring).

    Examples
    --------
    >>> import polars_graded as pg
    >>> str(pg.IPrec(recall=0.5)), str(pg.parse_measure("iprec_at_recall(recall=0.10)"))
    ('iprec(recall=0.5)', 'iprec(recall=0.1)')
    """

    recall: float = param(
        0.0,
        "Recall point, from 0 to 1.",
        check=check_recall_point,
        examples=("0.5",),
    )

    def expr(self, r: Ranked) -> pl.Expr:
        return interpolated_precision(r, self.rel, self.recall)


def mean_interpolated_precision(
    r: Ranked, rel: float = 1, recalls: Sequence[float] = ELEVEN_POINTS
) -> pl.Expr:
    """trec_eval's ``11pt_avg``: interpolated precision averaged over ``recalls``.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_graded.ranking import rank_in_group
    >>> df = pl.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
    ...                    "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1]})
    >>> r = rank_in_group()
    >>> round(df.group_by("query").agg(mean_interpolated_precision(r)).item(0, 1), 6)
    0.666667
    """
    # trec_eval adds the points from the last one given to the first.
    total = pl.lit(0.0)
    for point in reversed(recalls):
        total = total + interpolated_precision(r, rel, point)
    return total / r.per_query(len(recalls))


@register(
    Declaration(
        name="iprec_mean",
        averages_ties=False,
        summary="interpolated precision averaged over recall points (default: the 11 points)",
        function="mean_interpolated_precision",
        instance="IPrecMean",
        order=121,
        example="iprec_mean",
        example_value=0.666667,
        aliases=("eleven_pt_avg",),
        cutoff="none",
        trec_eval={"11pt_avg": "iprec_mean(recalls=[{k}])"},
    )
)
@dataclasses.dataclass(frozen=True, kw_only=True)
class MeanInterpolatedPrecision(ThresholdMeasure):
    """11-point average: the mean of ``iprec`` over ``recalls`` (module docstring).

    Examples
    --------
    >>> import polars_graded as pg
    >>> str(pg.IPrecMean(recalls=[0.25, 0.5, 0.75]))
    'iprec_mean(recalls=[0.25,0.5,0.75])'
    """

    recalls: tuple[float, ...] = param(
        ELEVEN_POINTS,
        "Recall points, each from 0 to 1 (default 0, 0.1, ..., 1).",
        check=check_recall_points,
        accepts="Sequence[float]",
        show=format_points,
        examples=("[0.2,0.5,0.8]",),
    )

    def expr(self, r: Ranked) -> pl.Expr:
        refuse_averaged_ties(r, self.name, NO_MAXIMUM)
        return mean_interpolated_precision(r, self.rel, self.recalls)
