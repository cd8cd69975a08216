"""Average precision at a relevance threshold, and µAP (SPEC.md §3-4).

``AP^t = (1/R^t) * sum over ranked rows with rel >= t of C^t(p) / p``, and µAP is the mean of
``AP^t`` over a threshold sliding from 0 to the top level, i.e. the distance-weighted mean of
``AP`` at each relevance level.
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

import polars as pl

from polars_graded.errors import MeasureParameterError
from polars_graded.measures.base import (
    Measure,
    ThresholdMeasure,
    as_levels,
    format_number,
    safe_ratio,
)
from polars_graded.measures.threshold_sweep import NUMERATOR, TOP, mu_ap_numerators
from polars_graded.measures.tie_average import expected_precision_at_hits
from polars_graded.ranking import RANKING_ID, Columns, Ranked


def average_precision(r: Ranked, rel: float = 1, k: int | None = None) -> pl.Expr:
    """``AP^rel@k`` of one query (trec_eval's ``map`` / ``map_cut.k`` at level ``rel``)."""
    hit = r.hits(rel)
    if r.averages_ties:
        precision_at_hits = expected_precision_at_hits(r, hit, k)
    else:
        precision_at_hits = pl.when(hit & r.in_list(k)).then(hit.cum_sum() / r.position)
    return safe_ratio(precision_at_hits.sum(), r.n_relevant(rel))


def level_distances(levels: tuple[float, ...]) -> list[tuple[float, float]]:
    """``(l_i, d_i)`` pairs: each level with its distance to the level below (0 first)."""
    below = (0.0, *levels[:-1])
    return [(lv, lv - lo) for lv, lo in zip(levels, below, strict=True)]


def mu_average_precision(r: Ranked, levels: tuple[float, ...], k: int | None = None) -> pl.Expr:
    """µAP of one query over the given ``levels``: ``sum d_i AP^(l_i) / sum d_i``."""
    weighted = [d * average_precision(r, lv, k) for lv, d in level_distances(levels)]
    return pl.sum_horizontal(weighted) / r.per_query(levels[-1])


@dataclasses.dataclass(frozen=True, kw_only=True)
class AveragePrecision(ThresholdMeasure):
    """Average precision at relevance threshold ``rel`` (default 1, > 0), optional cutoff ``k``.

    trec_eval: ``map`` (``-l rel`` for another threshold), ``map_cut.k`` with a cutoff.
    """

    name: ClassVar[str] = "ap"

    def expr(self, r: Ranked) -> pl.Expr:
        return average_precision(r, self.rel, self.k)


@dataclasses.dataclass(frozen=True, kw_only=True)
class MuAveragePrecision(Measure):
    """µAP: AP averaged over every relevance threshold, weighted by level distances.

    ``levels`` is ``"query"`` (each query's own distinct positive labels, the default),
    ``"table"`` (the distinct positive labels of the whole table, or of each ``by`` group)
    or a list of levels.
    The summary (mean over queries) is µMAP.
    """

    name: ClassVar[str] = "mu_ap"
    levels: str | tuple[float, ...] = "query"

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "levels", as_levels(self.levels, measure=self.name))

    def format_param(self, name: str, value: Any) -> str:
        if name == "levels" and isinstance(value, tuple):
            return "[" + ",".join(format_number(v) for v in value) + "]"
        return super().format_param(name, value)

    def expr(self, r: Ranked) -> pl.Expr:
        if isinstance(self.levels, str):
            msg = (
                f"mu_ap(levels={self.levels}) depends on more than one query's rows, so it has "
                "no single-expression form; pass explicit levels, e.g. mu_ap(levels=[1, 2, 3]), "
                "or use the namespace: df.graded.mu_ap()"
            )
            raise MeasureParameterError(msg)
        return mu_average_precision(r, self.levels, self.k)

    def needs_frame(self) -> bool:
        return isinstance(self.levels, str)

    def lowest_threshold(self) -> float | None:
        # Each query's (or the table's) own levels are never above its labels.
        return None if isinstance(self.levels, str) else self.levels[0]

    def frame(self, ranked: pl.LazyFrame, cols: Columns) -> pl.LazyFrame:
        """µAP per ranking from the exploded ranked table (see :mod:`polars_graded.ranking`).

        ``sum_i d_i AP^(l_i)`` over the query's own levels comes from
        :mod:`polars_graded.measures.threshold_sweep`. With the table's levels the sum is
        the same (levels the query lacks repeat the AP of its next level up, and levels
        above its top label have AP 0); only the divisor becomes the table's top label.
        """
        by = list(cols.by)
        sums = mu_ap_numerators(ranked, self.k, by, averaged=cols.ties == "average")
        top = pl.col(TOP)
        if self.levels == "table":
            # The table of a `by` group is each system's slice alone (SPEC §6); with shared
            # judgments every slice has the same top label.
            top = top.max().over(by) if by else top.max()
        return sums.select(RANKING_ID, (pl.col(NUMERATOR) / top).alias(str(self)))
