"""Counts of a query (trec_eval's ``num_ret``, ``num_rel``, ``num_rel_ret``,
``num_nonrel_judged_ret``): integers, Int64 columns.

A row is relevant when its label is >= ``rel`` (trec_eval's ``-l``); judged non-relevant when
its label is ``0 <= label < rel``. trec_eval reads a negative label as "in the pool but not
judged", so such rows count as neither (nor does an unjudged row, null here). ``num_rel``
counts the relevant rows whether retrieved or not. The counts take no cutoff, as in
trec_eval (``depth=`` cuts the rankings first); so they do not depend on the tie policy.
"""

from __future__ import annotations

import dataclasses

import polars as pl

from polars_graded.measures.base import Declaration, Measure, ThresholdMeasure
from polars_graded.measures.registry import register
from polars_graded.ranking import Ranked


def retrieved_relevant(r: Ranked, rel: float) -> pl.Expr:
    """Rows relevant at ``rel`` among all retrieved, as an exact count in any tie order.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_graded.ranking import rank_in_group
    >>> df = pl.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
    ...                    "score": [3.0, 2.0, None], "relevance": [0, 2, 1]})
    >>> df.group_by("query").agg(retrieved_relevant(rank_in_group(), 1)).item(0, 1)
    1
    """
    return (r.hits(rel) & r.in_list(None)).sum().cast(pl.Int64)


def judged_nonrelevant_retrieved(r: Ranked, rel: float) -> pl.Expr:
    """Retrieved rows judged non-relevant at ``rel``: labels ``0 <= label < rel``.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_graded.ranking import rank_in_group
    >>> df = pl.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
    ...                    "score": [3.0, 2.0, 1.0], "relevance": [0, -1, None]})
    >>> df.group_by("query").agg(judged_nonrelevant_retrieved(rank_in_group(), 1)).item(0, 1)
    1
    """
    judged_nonrelevant = ((r.rel >= 0) & (r.rel < rel)).fill_null(False)
    return (judged_nonrelevant & r.in_list(None)).sum().cast(pl.Int64)


@register(
    Declaration(
        name="num_ret",
        summary="rows retrieved (a count)",
        function="num_ret",
        instance="NumRet",
        order=100,
        example="num_ret",
        example_value=3,
        cutoff="none",
        trec_eval={"num_ret": "num_ret"},
        ir_measures={"NumRet": "num_ret"},
        counts=True,
    )
)
@dataclasses.dataclass(frozen=True, kw_only=True)
class RetrievedCount(Measure):
    """``num_ret``: the rows with a score.

    Examples
    --------
    >>> import polars_graded as pg
    >>> str(pg.NumRet), pg.NumRet.dtype
    ('num_ret', Int64)
    """

    def expr(self, r: Ranked) -> pl.Expr:
        return r.n_retrieved.first().cast(pl.Int64)


@register(
    Declaration(
        name="num_rel",
        summary="relevant rows, retrieved or not (a count)",
        function="num_rel",
        instance="NumRel",
        order=101,
        example="num_rel(rel=2)",
        example_value=1,
        cutoff="none",
        trec_eval={"num_rel": "num_rel{r}"},
        ir_measures={"NumRel": "num_rel"},
        counts=True,
    )
)
@dataclasses.dataclass(frozen=True, kw_only=True)
class RelevantCount(ThresholdMeasure):
    """``num_rel``: the judged rows with a label >= ``rel``, retrieved or not.

    Examples
    --------
    >>> import polars_graded as pg
    >>> str(pg.NumRel(rel=2))
    'num_rel(rel=2)'
    """

    def expr(self, r: Ranked) -> pl.Expr:
        return r.n_relevant(self.rel).cast(pl.Int64)


@register(
    Declaration(
        name="num_rel_ret",
        summary="relevant rows retrieved (a count)",
        function="num_rel_ret",
        instance="NumRelRet",
        order=102,
        example="num_rel_ret",
        example_value=2,
        cutoff="none",
        trec_eval={"num_rel_ret": "num_rel_ret{r}"},
        ir_measures={"NumRelRet": "num_rel_ret", "NumRet(rel={rel})": "num_rel_ret"},
        counts=True,
    )
)
@dataclasses.dataclass(frozen=True, kw_only=True)
class RelevantRetrievedCount(ThresholdMeasure):
    """``num_rel_ret``: the retrieved rows with a label >= ``rel``.

    Examples
    --------
    >>> import polars_graded as pg
    >>> str(pg.parse_measure("NUM_REL_RET(rel=2)"))
    'num_rel_ret(rel=2)'
    """

    def expr(self, r: Ranked) -> pl.Expr:
        return retrieved_relevant(r, self.rel)


@register(
    Declaration(
        name="num_nonrel_judged_ret",
        summary="retrieved rows judged non-relevant, 0 <= label < rel (a count)",
        function="num_nonrel_judged_ret",
        instance="NumNonRelJudgedRet",
        order=103,
        example="num_nonrel_judged_ret",
        example_value=1,
        cutoff="none",
        trec_eval={"num_nonrel_judged_ret": "num_nonrel_judged_ret{r}"},
        counts=True,
    )
)
@dataclasses.dataclass(frozen=True, kw_only=True)
class NonRelevantJudgedRetrievedCount(ThresholdMeasure):
    """``num_nonrel_judged_ret``: retrieved rows with ``0 <= label < rel`` (module docstring).

    Examples
    --------
    >>> import polars_graded as pg
    >>> str(pg.NumNonRelJudgedRet(rel=2))
    'num_nonrel_judged_ret(rel=2)'
    """

    def expr(self, r: Ranked) -> pl.Expr:
        return judged_nonrelevant_retrieved(r, self.rel)
