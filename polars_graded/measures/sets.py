"""Set measures: the retrieved rows as an unordered set (trec_eval's ``set_F``, ``set_map``).

With ``N`` rows retrieved, ``R`` relevant rows (label >= ``rel``, retrieved or not) and
``n`` relevant rows retrieved, ``P = n / N`` and ``recall = n / R``:

* ``set_f = (1 + beta) P recall / (beta P + recall)``, trec_eval's weighted harmonic mean
  (its ``beta`` weighs recall against precision as is, not squared);
* ``set_ap = P * recall = n^2 / (N R)`` (trec_eval's ``set_map``).

Each is 0 when ``n = 0``. trec_eval's ``set_P``, ``set_recall`` and ``set_relative_P`` are
``p``, ``recall`` and ``relative_p`` without a cutoff. The order of the rows does not
matter, so neither does the tie policy.
"""

from __future__ import annotations

import dataclasses

import polars as pl

from polars_graded.errors import MeasureParameterError
from polars_graded.measures.base import (
    Declaration,
    ThresholdMeasure,
    check_number,
    param,
    safe_ratio,
    shown,
)
from polars_graded.measures.counts import retrieved_relevant
from polars_graded.measures.registry import register
from polars_graded.ranking import Ranked


def check_beta(name: str, value: object, *, measure: str) -> float:
    """A finite weight >= 0, else a :class:`MeasureParameterError`.

    Examples
    --------
    >>> check_beta("beta", 2, measure="set_f")
    2.0
    """
    beta = check_number(name, value, measure=measure)
    if beta < 0:
        msg = f"{measure}: parameter {name!r} must be >= 0, got {shown(value)}"
        raise MeasureParameterError(msg)
    return beta


def set_f(r: Ranked, rel: float = 1, beta: float = 1.0) -> pl.Expr:
    """trec_eval's ``set_F``: ``(1 + beta) P recall / (beta P + recall)`` over the set retrieved.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_graded.ranking import rank_in_group
    >>> df = pl.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
    ...                    "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1]})
    >>> round(df.group_by("query").agg(set_f(rank_in_group())).item(0, 1), 6)
    0.8
    """
    found = retrieved_relevant(r, rel)
    precision = found / r.n_retrieved.first()
    recall = found / r.n_relevant(rel)
    value = (beta + 1.0) * precision * recall / (beta * precision + recall)
    return pl.when(found > 0).then(value).otherwise(0.0)


def set_ap(r: Ranked, rel: float = 1) -> pl.Expr:
    """trec_eval's ``set_map``: ``n^2 / (N R)``, precision times recall of the set retrieved.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_graded.ranking import rank_in_group
    >>> df = pl.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
    ...                    "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1]})
    >>> round(df.group_by("query").agg(set_ap(rank_in_group())).item(0, 1), 6)
    0.666667
    """
    found = retrieved_relevant(r, rel).cast(pl.Float64)
    retrieved = r.n_retrieved.first().cast(pl.Float64)
    return safe_ratio(found * found, retrieved * r.n_relevant(rel).cast(pl.Float64))


@register(
    Declaration(
        name="set_f",
        summary="F measure of the set retrieved: (1 + beta) P R / (beta P + R)",
        function="set_f",
        instance="SetF",
        order=110,
        example="set_f",
        example_value=0.8,
        cutoff="none",
        trec_eval={"set_F": "set_f{r}"},
        ir_measures={"SetF": "set_f"},
    )
)
@dataclasses.dataclass(frozen=True, kw_only=True)
class SetFMeasure(ThresholdMeasure):
    """set_F: ``(1 + beta) P recall / (beta P + recall)`` of the set retrieved; 0 when
    nothing relevant is retrieved (module docstring).

    Examples
    --------
    >>> import polars_graded as pg
    >>> str(pg.SetF(beta=0.5)), str(pg.parse_measure("set_f(beta=1)"))
    ('set_f(beta=0.5)', 'set_f')
    """

    beta: float = param(
        1.0,
        "Weight of recall against precision, >= 0 (trec_eval's, not squared).",
        check=check_beta,
        examples=("0.5",),
    )

    def expr(self, r: Ranked) -> pl.Expr:
        return set_f(r, self.rel, self.beta)


@register(
    Declaration(
        name="set_ap",
        summary="precision times recall of the set retrieved (trec_eval's set_map)",
        function="set_ap",
        instance="SetAP",
        order=111,
        example="set_ap",
        example_value=0.666667,
        aliases=("set_map",),
        cutoff="none",
        trec_eval={"set_map": "set_ap{r}"},
        ir_measures={"SetAP": "set_ap"},
    )
)
@dataclasses.dataclass(frozen=True, kw_only=True)
class SetAveragePrecision(ThresholdMeasure):
    """set_map: ``n^2 / (N R)``, precision times recall of the set retrieved.

    Examples
    --------
    >>> import polars_graded as pg
    >>> str(pg.parse_measure("set_map(rel=2)"))
    'set_ap(rel=2)'
    """

    def expr(self, r: Ranked) -> pl.Expr:
        return set_ap(r, self.rel)
