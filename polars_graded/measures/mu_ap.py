"""µAP: average precision averaged over every relevance threshold (docs/conventions.md §3-4).

With a query's levels ``l_1 < ... < l_m`` (its distinct positive labels) and distances
``d_i = l_i - l_(i-1)`` (``l_0 = 0``), ``µAP = sum_i d_i AP^(l_i) / l_m``: the mean of
``AP^t`` over a threshold t sliding from 0 to the top level. The mean over queries is µMAP.
Explicit levels are one aggregation per query; each query's own levels (the default) and the
table's come from the pair sweep of :mod:`polars_graded.measures.kernels.mu_ap_numerators`, and
:mod:`polars_graded.measures.kernels.mu_ap_thresholds` splits µMAP by threshold.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import polars as pl

from polars_graded.errors import MeasureParameterError
from polars_graded.measures.ap import average_precision
from polars_graded.measures.base import (
    Declaration,
    Measure,
    check_threshold,
    format_number,
    param,
)
from polars_graded.measures.kernels.mu_ap_numerators import NUMERATOR, TOP, mu_ap_numerators
from polars_graded.measures.registry import register
from polars_graded.options import TableSpec
from polars_graded.ranking import RANKING_ID, Ranked

Levels = str | tuple[float, ...]
"""``"query"``, ``"table"`` or a sorted tuple of positive levels."""


def check_levels(name: str, levels: object, *, measure: str) -> Levels:
    """Normalise µAP's ``levels``: ``"query"``, ``"table"`` or a sorted tuple of positives.

    Examples
    --------
    >>> check_levels("levels", [3, 1, 2, 1], measure="mu_ap")
    (1.0, 2.0, 3.0)
    """
    if isinstance(levels, str):
        if levels in ("query", "table"):
            return levels
    elif isinstance(levels, Sequence) and len(levels) > 0:
        return tuple(sorted({check_threshold(name, v, measure=measure) for v in levels}))
    msg = (
        f"{measure}: levels must be 'query', 'table' or a non-empty list of numbers, not {levels!r}"
    )
    raise MeasureParameterError(msg)


def format_levels(levels: Levels) -> str:
    """Canonical text of ``levels`` (``query``, ``[1,2,3]``).

    Examples
    --------
    >>> format_levels((1.0, 2.5)), format_levels("table")
    ('[1,2.5]', 'table')
    """
    if isinstance(levels, tuple):
        return "[" + ",".join(format_number(v) for v in levels) + "]"
    return levels


def level_distances(levels: tuple[float, ...]) -> list[tuple[float, float]]:
    """``(l_i, d_i)`` pairs: each level with its distance to the level below (0 first).

    Examples
    --------
    >>> level_distances((1.0, 3.0))
    [(1.0, 1.0), (3.0, 2.0)]
    """
    below = (0.0, *levels[:-1])
    return [(lv, lv - lo) for lv, lo in zip(levels, below, strict=True)]


def mu_average_precision(r: Ranked, levels: tuple[float, ...], k: int | None = None) -> pl.Expr:
    """µAP of one query over the given ``levels``: ``sum d_i AP^(l_i) / sum d_i``.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_graded.ranking import rank_in_group
    >>> df = pl.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
    ...                    "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1]})
    >>> r = rank_in_group()
    >>> round(df.group_by("query").agg(mu_average_precision(r, (1.0, 2.0))).item(0, 1), 6)
    0.541667
    """
    weighted = [d * average_precision(r, lv, k) for lv, d in level_distances(levels)]
    return pl.sum_horizontal(weighted) / r.per_query(levels[-1])


@register(
    Declaration(
        name="mu_ap",
        summary="µAP: AP averaged over every relevance threshold, weighted by level distances",
        function="mu_ap",
        instance="MuAP",
        order=1,
        example="mu_ap(levels=[1,2])",
        example_value=0.541667,
        aliases=("mu_map",),
        cutoff="all_rows",
    )
)
@dataclasses.dataclass(frozen=True, kw_only=True)
class MuAveragePrecision(Measure):
    """µAP: ``sum_i d_i AP^(l_i) / l_m`` over the levels ``l_i`` (module docstring).

    ``levels`` is ``"query"`` (each query's own distinct positive labels, the default),
    ``"table"`` (the distinct positive labels of the whole table, or of each ``by`` group)
    or a list of levels. The summary (mean over queries) is µMAP.

    Examples
    --------
    >>> import polars_graded as pg
    >>> str(pg.MuAP(levels=[3, 1, 2]) @ 10), pg.MuAP.needs_frame()
    ('mu_ap(levels=[1,2,3])@10', True)
    """

    levels: Levels = param(  # noqa: RUF009 (param() makes the field)
        "query",
        '``"query"`` (each query\'s own distinct positive labels), ``"table"`` (those of '
        "the whole table, or of each ``by`` group) or a list of levels (> 0).",
        check=check_levels,
        accepts="str | Sequence[float]",
        show=format_levels,
        examples=("table", "[1,2,3]"),
        in_expression="Sequence[float]",
    )

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

    def frame(self, ranked: pl.LazyFrame, cols: TableSpec) -> pl.LazyFrame:
        """µAP per ranking from the exploded ranked table (see :mod:`polars_graded.ranking`).

        ``sum_i d_i AP^(l_i)`` over the query's own levels comes from
        :mod:`polars_graded.measures.kernels.mu_ap_numerators`. With the table's levels the sum is
        the same (levels the query lacks repeat the AP of its next level up, and levels
        above its top label have AP 0); only the divisor becomes the table's top label.
        """
        by = list(cols.by)
        sums = mu_ap_numerators(ranked, self.k, by, averaged=cols.ties.averaged)
        top = pl.col(TOP)
        if self.levels == "table":
            # The table of a `by` group is each system's slice alone (docs/conventions.md
            # §6); with shared judgments every slice has the same top label.
            top = top.max().over(by) if by else top.max()
        return sums.select(RANKING_ID, (pl.col(NUMERATOR) / top).alias(str(self)))
