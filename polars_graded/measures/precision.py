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
    as_levels,
    check_number,
    format_number,
    safe_ratio,
)
from polars_graded.ranking import (
    N_RETRIEVED,
    POSITION,
    RANKED_REL,
    RANKING_ID,
    Columns,
    Ranked,
)


def average_precision(r: Ranked, rel: float = 1, k: int | None = None) -> pl.Expr:
    """``AP^rel@k`` of one query (trec_eval's ``map`` / ``map_cut.k`` at level ``rel``)."""
    hit = r.hits(rel)
    precision_at_hits = (hit.cum_sum() / r.position).filter(hit & r.in_list(k))
    return safe_ratio(precision_at_hits.sum(), r.n_relevant(rel))


def level_distances(levels: tuple[float, ...]) -> list[tuple[float, float]]:
    """``(l_i, d_i)`` pairs: each level with its distance to the level below (0 first)."""
    below = (0.0, *levels[:-1])
    return [(lv, lv - lo) for lv, lo in zip(levels, below, strict=True)]


def mu_average_precision(r: Ranked, levels: tuple[float, ...], k: int | None = None) -> pl.Expr:
    """µAP of one query over the given ``levels``: ``sum d_i AP^(l_i) / sum d_i``."""
    weighted = [d * average_precision(r, lv, k) for lv, d in level_distances(levels)]
    return pl.sum_horizontal(weighted) / levels[-1]


@dataclasses.dataclass(frozen=True, kw_only=True)
class AveragePrecision(Measure):
    """Average precision at relevance threshold ``rel`` (default 1), optional cutoff ``k``.

    trec_eval: ``map`` (``-l rel`` for another threshold), ``map_cut.k`` with a cutoff.
    """

    name: ClassVar[str] = "ap"
    rel: float = 1

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "rel", check_number("rel", self.rel, measure=self.name))

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

    def frame(self, ranked: pl.LazyFrame, cols: Columns) -> pl.LazyFrame:
        """µAP per ranking from the exploded ranked table (see :mod:`polars_graded.ranking`).

        Each relevant row is copied once per level at or below its label (level number
        ``_idx`` = dense rank of the label), so the cost is the relevant rows times their
        levels, never all rows times all levels. Copies keep the ranked order, so each
        (ranking, level) group holds the positions relevant at that level, ascending.
        """
        # "table" levels are those of the query's `by` group: each system's slice alone is
        # the table it would be evaluated on (SPEC §6), and with shared judgments it is the same.
        level_keys = [RANKING_ID] if self.levels == "query" else list(cols.by)
        relevant = _relevant_rows(ranked, level_keys).with_columns(
            _idx=_over(pl.col("_rel").rank("dense"), level_keys).cast(pl.Int32)
        )
        # The copies carry only what AP needs: ranking, level number, position.
        per_level = (
            relevant.select(
                *dict.fromkeys([RANKING_ID, *level_keys]),
                "_pos",
                _idx=pl.int_ranges(1, pl.col("_idx") + 1, dtype=pl.Int32),
            )
            .explode("_idx")
            .group_by(list(dict.fromkeys([RANKING_ID, *level_keys, "_idx"])))
            .agg(_ap=_ap_from_positions(pl.col("_pos"), self.k))
            .join(_levels(relevant, level_keys), on=[*level_keys, "_idx"])
        )
        # Summed in level order so that every engine and run gives the same bits; a plain
        # sum() would let the optimiser drop the sort and add in arrival order.
        weighted = (pl.col("_d") * pl.col("_ap")).sort_by("_idx")
        value = weighted.cum_sum().last() / pl.col("_top").first()
        return per_level.group_by(RANKING_ID).agg(value.alias(str(self)))


def _relevant_rows(ranked: pl.LazyFrame, level_keys: list[str]) -> pl.LazyFrame:
    """Rows with a positive label: ranking, level keys, label ``_rel``, position ``_pos``.

    ``_pos`` is null for unretrieved rows, which come after the retrieved ones.
    """
    retrieved = pl.col(POSITION) <= pl.col(N_RETRIEVED)
    return ranked.filter(pl.col(RANKED_REL) > 0).select(
        *dict.fromkeys([RANKING_ID, *level_keys]),
        _rel=pl.col(RANKED_REL),
        _pos=pl.when(retrieved).then(pl.col(POSITION)).cast(pl.Int32),
    )


def _over(expr: pl.Expr, keys: list[str]) -> pl.Expr:
    """``expr`` per ``keys`` group, or over the whole frame without keys."""
    return expr.over(keys) if keys else expr


def _levels(relevant: pl.LazyFrame, keys: list[str]) -> pl.LazyFrame:
    """Per ``keys`` group and level number ``_idx``: the level ``_level``, its distance
    ``_d`` to the level below (the first to 0) and the group's top level ``_top``."""
    level = pl.col("_level")
    return (
        relevant.group_by(*keys, "_idx")
        .agg(_level=pl.col("_rel").first())
        .sort(*keys, "_idx")
        .with_columns(
            _d=level - _over(level.shift(1), keys).fill_null(0.0),
            _top=_over(level.max(), keys),
        )
    )


def _ap_from_positions(position: pl.Expr, k: int | None) -> pl.Expr:
    """AP of a group holding every row relevant at one threshold, retrieved or not.

    ``position`` holds the group's positions ascending, then nulls for unretrieved rows,
    which count only in the denominator ``R``.
    """
    ranked = position.drop_nulls()
    precision = pl.int_range(1, ranked.len() + 1, dtype=pl.Int64) / ranked
    if k is not None:
        precision = precision.filter(ranked <= k)
    return precision.sum() / pl.len()
