"""Precision, recall, R-precision and hits: the relevant rows among the top of the ranking.

A row is relevant when its label is >= ``rel`` (default 1, trec_eval's relevance level).
``P@k = |relevant in the top k| / k`` (over N, the rows retrieved, without a cutoff),
``R@k = |relevant in the top k| / R``, ``relative P@k = |relevant in the top k| / min(R, k)``
(over ``min(R, N)`` without a cutoff; the capped recall of BEIR and ranx) and
``R-precision = P@R``, R the query's relevant rows (judged, retrieved or not); each is 0 when
its divisor is. ``hits@k = |relevant in the top k|``, ranx's ``hits``: a number of rows
(``k * P@k``), not a 0/1 hit (that is ``success@k``, alias ``hit_rate@k``). R-precision at
a multiple ``mult`` of R reads the top ``floor(mult * R + 0.9)`` rows, as trec_eval's
``Rprec_mult`` (9.x and 10.0 alike: its outputs show that 10.0 kept this rounding here,
unlike in ``iprec_at_recall``).
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


def check_multiple(name: str, value: object, *, measure: str) -> float:
    """A finite number > 0, else a :class:`MeasureParameterError`.

    Examples
    --------
    >>> check_multiple("mult", 2, measure="r_precision")
    2.0
    """
    number = check_number(name, value, measure=measure)
    if number <= 0:
        msg = f"{measure}: parameter {name!r} must be > 0, got {shown(value)}"
        raise MeasureParameterError(msg)
    return number


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


def relative_precision(r: Ranked, rel: float = 1, k: int | None = None) -> pl.Expr:
    """Relevant among the top k over ``min(R, k)`` (trec_eval ``relative_P_k``, capped recall);
    without k over ``min(R, N)`` (``set_relative_P``).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_graded.ranking import rank_in_group
    >>> df = pl.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
    ...                    "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1]})
    >>> r = rank_in_group()
    >>> df.group_by("query").agg(relative_precision(r, k=2)).item(0, 1)
    0.5
    """
    reach = pl.min_horizontal(
        r.n_relevant(rel), r.n_retrieved.first() if k is None else r.per_query(k)
    )
    if k is None:  # the whole set: an exact count under every tie policy
        return safe_ratio(retrieved_relevant(r, rel), reach)
    return safe_ratio(relevant_retrieved(r, rel, k), reach)


def r_precision(r: Ranked, rel: float = 1, mult: float = 1.0) -> pl.Expr:
    """Precision at R, the number of relevant rows (trec_eval ``Rprec``); with ``mult``, at
    ``floor(mult * R + 0.9)`` (trec_eval's ``Rprec_mult``).

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
    if mult == 1:  # R exactly
        return safe_ratio(relevant_retrieved(r, rel, n_relevant), n_relevant)
    cutoff = (mult * n_relevant + 0.9).floor()  # trec_eval's rounding
    # A cutoff past 2^53 reads every row; as a divisor it stays what it is (mult=1e300).
    reads = cutoff.clip(upper_bound=2.0**53).cast(pl.Int64)
    return safe_ratio(relevant_retrieved(r, rel, reads), cutoff)


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
        ir_measures={"P": "p@{k}", "SetP": "p"},
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


def hits(r: Ranked, rel: float = 1, k: int | None = None) -> pl.Expr:
    """Relevant rows among the first k retrieved, as a Float64 (ranx's ``hits``); without
    k among every row retrieved. Under ``ties="average"`` the expected count.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_graded.ranking import rank_in_group
    >>> df = pl.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
    ...                    "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1]})
    >>> r = rank_in_group()
    >>> df.group_by("query").agg(hits(r, k=3)).item(0, 1)
    2.0
    """
    return relevant_retrieved(r, rel, k).cast(pl.Float64)


@register(
    Declaration(
        name="hits",
        summary="relevant rows in the top k, a number (ranx's hits; k * P@k); 0/1: hit_rate",
        function="hits",
        instance="Hits",
        order=18,
        example="hits@2",
        example_value=1.0,
    )
)
@dataclasses.dataclass(frozen=True, kw_only=True)
class HitsAtK(ThresholdMeasure):
    """Hits@k: ``|relevant in the top k|``, a number of rows (Float64), as ranx's ``hits``;
    without a cutoff every retrieved row counts (``num_rel_ret``'s value).

    ``hits@k = k * P@k``. Not a 0/1 hit: ``hit_rate@k`` (``success@k``) is 1 when
    ``hits@k >= 1``.

    Examples
    --------
    >>> import polars_graded as pg
    >>> str(pg.Hits @ 10), str(pg.parse_measure("HITS(rel=2)@5"))
    ('hits@10', 'hits(rel=2)@5')
    """

    def expr(self, r: Ranked) -> pl.Expr:
        return hits(r, self.rel, self.k)


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
        ir_measures={"R": "recall@{k}", "SetR": "recall"},
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
        trec_eval={"Rprec": "r_precision{r}", "Rprec_mult": "r_precision(mult={k})"},
        ir_measures={"Rprec": "r_precision"},
    )
)
@dataclasses.dataclass(frozen=True, kw_only=True)
class RPrecision(ThresholdMeasure):
    """R-precision: ``|relevant in the top R| / R``, R the query's relevant rows; with
    ``mult``, precision at ``floor(mult * R + 0.9)`` (trec_eval's ``Rprec_mult``).

    Examples
    --------
    >>> import polars_graded as pg
    >>> str(pg.parse_measure("Rprec(rel=2)")), str(pg.RPrec(mult=0.2))
    ('r_precision(rel=2)', 'r_precision(mult=0.2)')
    """

    mult: float = param(
        1.0,
        "Multiple of R to read the precision at (cutoff floor(mult * R + 0.9)), > 0.",
        check=check_multiple,
        examples=("0.2",),
    )

    def expr(self, r: Ranked) -> pl.Expr:
        return r_precision(r, self.rel, self.mult)


@register(
    Declaration(
        name="relative_p",
        summary="relevant rows in the top k over min(R, k): capped recall",
        function="relative_precision",
        instance="RelP",
        order=104,
        example="relative_p@2",
        example_value=0.5,
        aliases=("recall_capped",),
        cutoff="all_rows",
        trec_eval={"relative_P": "relative_p{r}@{k}", "set_relative_P": "relative_p{r}"},
        ir_measures={"SetP(relative=True)": "relative_p"},
    )
)
@dataclasses.dataclass(frozen=True, kw_only=True)
class RelativePrecision(ThresholdMeasure):
    """Relative P@k: ``|relevant in the top k| / min(R, k)``, without a cutoff over
    ``min(R, N)``; BEIR's and ranx's capped recall (``recall_capped``) is the same number.

    Examples
    --------
    >>> import polars_graded as pg
    >>> str(pg.parse_measure("recall_capped@10")), str(pg.RelP(rel=2) @ 5)
    ('relative_p@10', 'relative_p(rel=2)@5')
    """

    def expr(self, r: Ranked) -> pl.Expr:
        return relative_precision(r, self.rel, self.k)
