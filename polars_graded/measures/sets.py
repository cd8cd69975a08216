"""Set-based measures on the top of the ranking: P@k, R@k, R-precision, reciprocal rank.

A row is relevant when its label is >= ``rel`` (default 1, trec_eval's relevance level).
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

import polars as pl

from polars_graded.measures.base import ThresholdMeasure, safe_ratio
from polars_graded.measures.tie_average import averaged_reciprocal_rank, first_relevant_chance
from polars_graded.ranking import Ranked


def relevant_retrieved(r: Ranked, rel: float, k: int | pl.Expr | None) -> pl.Expr:
    """Number of rows relevant at ``rel`` among the first ``k`` retrieved."""
    if r.averages_ties:
        return pl.when(r.in_list(k)).then(r.tie_mean(r.hits(rel))).sum()
    return (r.hits(rel) & r.in_list(k)).sum()


def precision(r: Ranked, rel: float = 1, k: int | None = None) -> pl.Expr:
    """P@k: relevant among the top k over k (trec_eval ``P_k``); without k over N (``set_P``)."""
    denominator = r.n_retrieved.first() if k is None else r.per_query(k)
    return safe_ratio(relevant_retrieved(r, rel, k), denominator)


def recall(r: Ranked, rel: float = 1, k: int | None = None) -> pl.Expr:
    """R@k: relevant among the top k over R (trec_eval ``recall_k``; ``set_recall`` without k)."""
    return safe_ratio(relevant_retrieved(r, rel, k), r.n_relevant(rel))


def r_precision(r: Ranked, rel: float = 1) -> pl.Expr:
    """Precision at R, the number of relevant rows (trec_eval ``Rprec``)."""
    n_relevant = r.n_relevant(rel)
    return safe_ratio(relevant_retrieved(r, rel, n_relevant), n_relevant)


def reciprocal_rank(r: Ranked, rel: float = 1, k: int | None = None) -> pl.Expr:
    """1 / position of the first relevant row within k, else 0 (trec_eval ``recip_rank``)."""
    if r.averages_ties:
        return averaged_reciprocal_rank(r, r.hits(rel), k)
    first = pl.when(r.hits(rel) & r.in_list(k)).then(r.position).min()
    return (1.0 / first.cast(pl.Float64)).fill_null(0.0)


def success(r: Ranked, rel: float = 1, k: int | None = None) -> pl.Expr:
    """1 when a relevant row is among the first k retrieved, else 0 (trec_eval ``success.k``)."""
    if r.averages_ties:
        return pl.when(r.in_list(k)).then(first_relevant_chance(r, r.hits(rel))).sum()
    return (r.hits(rel) & r.in_list(k)).any().cast(pl.Float64)


@dataclasses.dataclass(frozen=True, kw_only=True)
class Precision(ThresholdMeasure):
    """Precision at cutoff k (``P@k``); without a cutoff, over everything retrieved."""

    name: ClassVar[str] = "p"

    def expr(self, r: Ranked) -> pl.Expr:
        return precision(r, self.rel, self.k)

    def depth(self) -> int | None:
        return self.k


@dataclasses.dataclass(frozen=True, kw_only=True)
class Recall(ThresholdMeasure):
    """Recall at cutoff k; without a cutoff, over everything retrieved."""

    name: ClassVar[str] = "recall"

    def expr(self, r: Ranked) -> pl.Expr:
        return recall(r, self.rel, self.k)


@dataclasses.dataclass(frozen=True, kw_only=True)
class RPrecision(ThresholdMeasure):
    """R-precision: precision at R, the query's number of relevant rows."""

    name: ClassVar[str] = "r_precision"
    takes_cutoff: ClassVar[bool] = False

    def expr(self, r: Ranked) -> pl.Expr:
        return r_precision(r, self.rel)


@dataclasses.dataclass(frozen=True, kw_only=True)
class ReciprocalRank(ThresholdMeasure):
    """Reciprocal rank of the first relevant row (optionally within cutoff k)."""

    name: ClassVar[str] = "rr"

    def expr(self, r: Ranked) -> pl.Expr:
        return reciprocal_rank(r, self.rel, self.k)

    def depth(self) -> int | None:
        return self.k


@dataclasses.dataclass(frozen=True, kw_only=True)
class SuccessAtK(ThresholdMeasure):
    """Success@k: whether a relevant row is in the top k (trec_eval ``success.k``)."""

    name: ClassVar[str] = "success"

    def expr(self, r: Ranked) -> pl.Expr:
        return success(r, self.rel, self.k)

    def depth(self) -> int | None:
        return self.k
