"""bpref (Buckley and Voorhees, SIGIR 2004): how rarely judged non-relevant rows precede
relevant ones.

As trec_eval computes it: with ``R`` relevant and
``N`` judged non-relevant rows (``0 <= label < rel``, retrieved or not),

    ``bpref = (1/R) sum over relevant retrieved rows r of (1 - min(n_r, R) / min(R, N))``,

``n_r`` the judged non-relevant rows ranked above ``r`` (a term is 1 when ``n_r = 0``).
Unjudged rows are skipped, so bpref does not fall when a ranking retrieves unjudged rows,
and so are rows with a negative label, as trec_eval skips labels -1 and -2 (it reads
them as "not in the pool" and "unjudged"; labels below -2 it counts as relevant in the
sum but not in R, which this library does not copy).
"""

from __future__ import annotations

import dataclasses

import polars as pl

from polars_graded.measures.base import Declaration, ThresholdMeasure, safe_ratio
from polars_graded.measures.kernels.tie_average import group_hits
from polars_graded.measures.registry import register
from polars_graded.ranking import Ranked


def bpref(r: Ranked, rel: float = 1) -> pl.Expr:
    """trec_eval's ``bpref`` at relevance threshold ``rel``.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_graded.ranking import rank_in_group
    >>> df = pl.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
    ...                    "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1]})
    >>> r = rank_in_group()
    >>> df.group_by("query").agg(bpref(r)).item(0, 1)
    0.0
    """
    relevant = r.hits(rel)
    judged_non_relevant = ((r.rel >= 0) & (r.rel < rel)).fill_null(False)
    n_relevant = r.n_relevant(rel)
    n_non_relevant = ((r.ideal >= 0) & (r.ideal < rel)).fill_null(False).sum()
    scale = pl.min_horizontal(n_relevant, n_non_relevant).cast(pl.Float64)
    if r.averages_ties:
        above = _expected_capped_count_above(r, judged_non_relevant, n_relevant)
    else:
        passed = judged_non_relevant.cum_sum() - judged_non_relevant.cast(pl.UInt32)
        above = pl.min_horizontal(passed, n_relevant).cast(pl.Float64)
    term = pl.when(scale > 0).then(1.0 - above / scale).otherwise(pl.lit(1.0))
    return safe_ratio(pl.when(relevant & r.in_list(None)).then(term).sum(), n_relevant)


def _expected_capped_count_above(r: Ranked, non_relevant: pl.Expr, cap: pl.Expr) -> pl.Expr:
    """E[min(n_r, R)] over the orders of ties, for a relevant row of a tie group.

    ``n_r = b + X``: ``b`` judged non-relevant rows in earlier groups and ``X`` of the
    group's ``a``, uniform on ``0..a`` (the row's place among those ``a + 1``). With ``m``
    the values of X below ``R - b``: ``(m b + m(m - 1)/2 + (a + 1 - m) R) / (a + 1)``.
    """
    before, within = group_hits(r, non_relevant)
    spots = within + 1
    below_cap = (cap.cast(pl.Int64) - before).clip(0, None)
    m = pl.min_horizontal(below_cap, spots)
    total = m * before + m * (m - 1) / 2 + (spots - m) * cap
    return total / spots


@register(
    Declaration(
        name="bpref",
        summary="how rarely judged non-relevant rows precede relevant ones (unjudged skipped)",
        function="bpref",
        instance="Bpref",
        order=15,
        example="bpref",
        example_value=0.0,
        cutoff="none",
        trec_eval={"bpref": "bpref{r}"},
        ir_measures={"Bpref": "bpref"},
    )
)
@dataclasses.dataclass(frozen=True, kw_only=True)
class BinaryPreference(ThresholdMeasure):
    """bpref at relevance threshold ``rel`` (module docstring; trec_eval ``bpref``).

    Examples
    --------
    >>> import polars_graded as pg
    >>> str(pg.Bpref(rel=2))
    'bpref(rel=2)'
    """

    def expr(self, r: Ranked) -> pl.Expr:
        return bpref(r, self.rel)
