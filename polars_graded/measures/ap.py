"""Average precision at a relevance threshold (docs/conventions.md §3, §4).

``AP^t@k = (1/R^t) * sum over the first k ranked rows p with rel(p) >= t of C^t(p) / p``,
``C^t(p)`` the rows with a label >= t up to position p and ``R^t`` every judged row of the
query with a label >= t, retrieved or not (0 when there is none). trec_eval's ``map`` is
``AP^1``; its ``-l t`` is ``rel=t``.

``norm=min_rk`` divides the same sum by ``min(R^t, k)`` instead of ``R^t``, the convention
of Spark MLlib's ``RankingMetrics.meanAveragePrecisionAt``, RecBole's ``MAP@k`` and
Microsoft Recommenders' ``map_at_k``: a ranking whose top k rows are all relevant then
scores 1 even when the query has more than k relevant rows. Without a cutoff ``min(R, k)``
is R, so ``ap(norm=min_rk)`` equals ``ap``. Like Spark, a query without a relevant row
scores 0, and a ranking shorter than k keeps the divisor ``min(R, k)``.
"""

from __future__ import annotations

import dataclasses
from typing import Final, Literal, get_args

import polars as pl

from polars_graded.errors import MeasureParameterError
from polars_graded.measures.base import Declaration, ThresholdMeasure, param, safe_ratio, shown
from polars_graded.measures.kernels.tie_average import expected_precision_at_hits
from polars_graded.measures.registry import register
from polars_graded.ranking import Ranked

Norm = Literal["R", "min_rk"]
"""AP's divisor: ``"R"`` (trec_eval's ``map_cut``) or ``"min_rk"`` (``min(R, k)``: Spark
MLlib, RecBole, Microsoft Recommenders)."""
NORMS: Final[tuple[str, ...]] = get_args(Norm)


def check_norm(name: str, value: object, *, measure: str) -> Norm:
    """AP's ``norm``: ``"R"`` or ``"min_rk"``, in any case (the grammar lower-cases words).

    Examples
    --------
    >>> check_norm("norm", "r", measure="ap"), check_norm("norm", "MIN_RK", measure="ap")
    ('R', 'min_rk')
    """
    by_lower = {norm.lower(): norm for norm in NORMS}
    if isinstance(value, str) and value.lower() in by_lower:
        return by_lower[value.lower()]  # type: ignore[return-value]
    msg = (
        f"{measure}: parameter {name!r} must be 'R' (divide by R, the query's relevant rows: "
        "trec_eval's map_cut) or 'min_rk' (divide by min(R, k): Spark MLlib, RecBole, "
        f"Microsoft Recommenders; e.g. ap(norm=min_rk)@10), got {shown(value)}"
    )
    raise MeasureParameterError(msg)


def average_precision(r: Ranked, rel: float = 1, k: int | None = None, norm: Norm = "R") -> pl.Expr:
    """``AP^rel@k`` of one query (trec_eval's ``map`` / ``map_cut.k`` at level ``rel``), or
    with ``norm="min_rk"`` the same sum over ``min(R, k)``.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_graded.ranking import rank_in_group
    >>> df = pl.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
    ...                    "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1]})
    >>> r = rank_in_group()
    >>> df.group_by("query").agg(average_precision(r, rel=2)).item(0, 1)
    0.5
    >>> df.group_by("query").agg(average_precision(r, k=2, norm="min_rk")).item(0, 1)  # 1/2 / 2
    0.25
    """
    hit = r.hits(rel)
    if r.averages_ties:
        precision_at_hits = expected_precision_at_hits(r, hit, k)
    else:
        precision_at_hits = pl.when(hit & r.in_list(k)).then(hit.cum_sum() / r.position)
    divisor = r.n_relevant(rel)
    if norm == "min_rk" and k is not None:
        divisor = pl.min_horizontal(divisor, r.per_query(k))
    return safe_ratio(precision_at_hits.sum(), divisor)


@register(
    Declaration(
        name="ap",
        summary="average precision at threshold rel; norm=min_rk divides by min(R, k) (Spark)",
        function="ap",
        instance="AP",
        order=2,
        example="ap(rel=2)",
        example_value=0.5,
        aliases=("map",),
        cutoff="all_rows",
        trec_eval={"map": "ap{r}", "map_cut": "ap{r}@{k}"},
        ir_measures={"AP": "ap[@{k}]"},
    )
)
@dataclasses.dataclass(frozen=True, kw_only=True)
class AveragePrecision(ThresholdMeasure):
    """Average precision at relevance threshold ``rel`` (default 1, > 0), optional cutoff ``k``.

    ``AP^t@k = (1/R^t) sum_{p <= k, rel(p) >= t} C^t(p) / p``, or over ``min(R^t, k)`` with
    ``norm="min_rk"`` (module docstring).

    Examples
    --------
    >>> import polars_graded as pg
    >>> str(pg.AP(rel=2) @ 10), str(pg.parse_measure("MAP"))
    ('ap(rel=2)@10', 'ap')
    >>> str(pg.parse_measure("map(norm=MIN_RK)@10"))
    'ap(norm=min_rk)@10'
    """

    norm: Norm = param(  # noqa: RUF009 (param() makes the field)
        "R",
        "The divisor: ``\"R\"``, the query's relevant rows (trec_eval's ``map_cut``), or "
        '``"min_rk"``, ``min(R, k)`` (Spark MLlib\'s ``meanAveragePrecisionAt``, RecBole, '
        "Microsoft Recommenders); the same without a cutoff.",
        check=check_norm,
        accepts="str",
        examples=("min_rk",),
    )

    def expr(self, r: Ranked) -> pl.Expr:
        return average_precision(r, self.rel, self.k, self.norm)
