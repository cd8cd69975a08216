"""Graded average precision, GAP (Robertson, Kanoulas and Yilmaz, SIGIR 2010).

A user reading the ranking holds a relevance threshold ``t``, chosen with probability
``g_t``: rows with a label >= ``t`` are relevant to that user. ``G(x) = sum_{t <= x} g_t``
is the chance that a row with label ``x`` is relevant (0 for a label <= 0 or an unjudged
row), and

    ``GAP@k = sum_{n <= k} (1/n) sum_{m <= n} G(min(l_m, l_n)) / sum_d G(l_d)``,

``n`` and ``m`` over the relevant retrieved rows in ranked order (``n`` the position), ``d``
over every judged row of the query, retrieved or not; 0 when the denominator is 0.
Swapping the sums, ``GAP = sum_t g_t R^t AP^t@k / sum_t g_t R^t``: AP at each threshold,
weighted by ``g_t R^t``, so GAP is AP on binary labels. The thresholds are each query's
levels (its distinct positive labels, docs/conventions.md §3) with ``g_t = 1/m`` over its
``m`` levels
(the default), or a mapping threshold -> probability. A label between two thresholds
counts for those below it.

GAP on a query's own levels is µAP's sum over relabelled rows: with ``lambda(x) = sum_{t
<= x} g_t R^t``, ``sum_i d_i AP^(l_i)`` over the new levels is GAP's numerator and the top
new level its denominator, so :mod:`polars_graded.measures.kernels.mu_ap_numerators` computes
both (with cutoffs and ``ties="average"``); with ``g_t = 1`` the new labels are whole numbers.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import polars as pl

from polars_graded.errors import MeasureParameterError
from polars_graded.measures.ap import average_precision
from polars_graded.measures.base import (
    Declaration,
    Measure,
    check_number,
    check_threshold,
    param,
    safe_ratio,
)
from polars_graded.measures.kernels.gains import format_gain
from polars_graded.measures.kernels.mu_ap_numerators import NUMERATOR, TOP, mu_ap_numerators
from polars_graded.measures.registry import register
from polars_graded.options import TableSpec
from polars_graded.ranking import IDEAL_REL, POSITION, RANKED_REL, RANKING_ID, Ranked

ThresholdProbabilities = str | tuple[tuple[float, float], ...]
"""``"query"`` or sorted ``(threshold, probability)`` pairs."""


def check_probabilities(name: str, g: object, *, measure: str) -> ThresholdProbabilities:
    """Normalise ``g``: ``"query"``, or a mapping threshold (> 0) -> probability (>= 0, not
    all 0) stored as sorted pairs.

    Examples
    --------
    >>> check_probabilities("g", {2: 0.75, 1: 0.25}, measure="gap")
    ((1.0, 0.25), (2.0, 0.75))
    """
    if g == "query":
        return "query"
    if isinstance(g, tuple) and all(isinstance(p, tuple) and len(p) == 2 for p in g):
        g = dict(g)  # the stored form, checked again by dataclasses.replace
    if isinstance(g, Mapping) and g:
        pairs = sorted(
            (check_threshold(name, t, measure=measure), check_number(name, p, measure=measure))
            for t, p in g.items()
        )
        if all(p >= 0 for _, p in pairs) and any(p > 0 for _, p in pairs):
            return tuple(pairs)
    msg = (
        f"{measure}: {name} must be 'query' or a mapping threshold -> probability (thresholds "
        f"> 0, probabilities >= 0 and not all 0), got {g!r}"
    )
    raise MeasureParameterError(msg)


def graded_average_precision(
    r: Ranked, g: tuple[tuple[float, float], ...], k: int | None = None
) -> pl.Expr:
    """GAP@k of one query with thresholds and probabilities ``g``:
    ``sum_t g_t R^t AP^t@k / sum_t g_t R^t``.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_graded.ranking import rank_in_group
    >>> df = pl.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
    ...                    "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1]})
    >>> gap = graded_average_precision(rank_in_group(), ((1.0, 0.5), (2.0, 0.5)))
    >>> round(df.group_by("query").agg(gap).item(0, 1), 6)
    0.555556
    """
    weights = [(t, p * r.n_relevant(t)) for t, p in g if p > 0]
    numerator = pl.sum_horizontal([w * average_precision(r, t, k) for t, w in weights])
    return safe_ratio(numerator, pl.sum_horizontal([w for _, w in weights]))


def relabelled_by_recall(ranked: pl.LazyFrame) -> pl.LazyFrame:
    """The exploded ranked table with each positive label ``x`` replaced by ``sum_{levels
    t <= x} R^t`` (the query's levels, uniform ``g``): GAP becomes µAP's ratio.

    ``R^t`` is the position of the last ideal row at level ``t`` (the ideal column is sorted
    descending); the new labels rise with the old ones, so the ideal column stays sorted.

    Examples
    --------
    Labels 0, 2, 1: ``R^1 = 2`` and ``R^2 = 1``, so 1 becomes 2 and 2 becomes 3.

    >>> from polars_graded.ranking import RANKED_REL, explode_ranked, number_rankings, ranked_lists
    >>> df = pl.LazyFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
    ...                    "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1]})
    >>> grouped = df.group_by("query").agg(ranked_lists(TableSpec()))
    >>> ranked = explode_ranked(number_rankings(grouped, TableSpec()), TableSpec())
    >>> relabelled_by_recall(ranked).collect()[RANKED_REL].to_list()
    [0.0, 3.0, 2.0]
    """
    label = pl.col(IDEAL_REL)
    levels = (
        ranked.filter(label > 0)
        .group_by(RANKING_ID, label)
        .agg(pl.col(POSITION).max().alias("_at_or_above"))
        .sort(RANKING_ID, IDEAL_REL)
        .select(
            RANKING_ID,
            label.alias("_label"),
            pl.col("_at_or_above").cum_sum().over(RANKING_ID).cast(pl.Float64).alias("_new"),
        )
    )
    for column in (RANKED_REL, IDEAL_REL):
        old = pl.col(column)
        ranked = ranked.join(
            levels,
            left_on=[RANKING_ID, column],
            right_on=[RANKING_ID, "_label"],
            how="left",
            maintain_order="left",
        ).with_columns(pl.when(old > 0).then(pl.col("_new")).otherwise(old).alias(column))
        ranked = ranked.drop("_new")
    return ranked


@register(
    Declaration(
        name="gap",
        summary="graded average precision (Robertson et al. 2010), threshold probabilities g",
        function="gap",
        instance="GAP",
        order=170,
        example="gap(g={1:0.5,2:0.5})",
        example_value=0.555556,
        cutoff="all_rows",
    )
)
@dataclasses.dataclass(frozen=True, kw_only=True)
class GradedAveragePrecision(Measure):
    """GAP@k: ``sum_{n <= k} (1/n) sum_{m <= n} G(min(l_m, l_n)) / sum_d G(l_d)`` (module
    docstring), ``G(x)`` the probability mass of the thresholds at or below ``x``.

    ``g`` is ``"query"`` (each query's levels, equally likely; the default) or a mapping
    threshold -> probability. GAP is AP on binary labels and 1 on an ideal ranking.

    Examples
    --------
    >>> import polars_graded as pg
    >>> str(pg.GAP(g={2: 0.75, 1: 0.25}) @ 10), pg.GAP.needs_frame()
    ('gap(g={1:0.25,2:0.75})@10', True)
    """

    g: ThresholdProbabilities = param(  # noqa: RUF009 (param() makes the field)
        "query",
        '``"query"`` (each query\'s levels, its distinct positive labels, equally likely) or a '
        "mapping threshold (> 0) -> probability (>= 0; only their ratios matter).",
        check=check_probabilities,
        accepts="str | Mapping[float, float]",
        show=format_gain,
        examples=("{1:0.25,2:0.75}",),
        in_expression="Mapping[float, float]",
    )

    def expr(self, r: Ranked) -> pl.Expr:
        if isinstance(self.g, str):
            msg = (
                "gap(g=query) depends on each query's own levels, so it has no single-expression "
                "form; pass the probabilities, e.g. gap(g={1: 0.5, 2: 0.5}), or use the "
                "namespace: df.graded.gap()"
            )
            raise MeasureParameterError(msg)
        return graded_average_precision(r, self.g, self.k)

    def needs_frame(self) -> bool:
        return isinstance(self.g, str)

    def lowest_threshold(self) -> float | None:
        if isinstance(self.g, str):  # the query's own levels are never above its labels
            return None
        return min(t for t, p in self.g if p > 0)

    def frame(self, ranked: pl.LazyFrame, cols: TableSpec) -> pl.LazyFrame:
        """GAP per ranking on its own levels: µAP's sums over the relabelled table."""
        relabelled = relabelled_by_recall(ranked)
        sums = mu_ap_numerators(relabelled, self.k, list(cols.by), averaged=cols.ties.averaged)
        return sums.select(RANKING_ID, (pl.col(NUMERATOR) / pl.col(TOP)).alias(str(self)))
