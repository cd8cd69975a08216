"""Inferred AP (Yilmaz and Aslam, CIKM 2006), as trec_eval's ``infAP`` computes it.

The judgments may be a sample of the pool. A retrieved row is relevant (label >= ``rel``),
judged non-relevant (``0 <= label < rel``), in the pool but not judged (a negative label:
trec_eval reads every negative label so) or outside the pool (unjudged, a null label; it
is skipped). For the relevant row at position ``p``, with ``r``, ``n`` and ``u`` the
relevant, non-relevant and pooled-unjudged rows above it, its term is 1 at ``p = 1``, else

    ``1/p + ((p - 1)/p) ((r + n + u)/(p - 1)) ((r + eps)/(r + n + 2 eps))``,

``eps = 1e-5``: the rows above outside the pool count as non-relevant, the pooled ones
as relevant in the proportion of those judged. infAP is the sum over the relevant
retrieved rows divided by R, the judged rows with a label >= ``rel``; with complete
judgments it is AP. The ratio has no closed form over the orders of tied rows, so
``ties="average"`` is refused.
"""

from __future__ import annotations

import dataclasses

import polars as pl

from polars_graded.measures.base import Declaration, ThresholdMeasure, safe_ratio
from polars_graded.measures.kernels.unaveraged import refuse_averaged_ties
from polars_graded.measures.registry import register
from polars_graded.ranking import Ranked

INFAP_EPSILON = 0.00001
"""trec_eval's ``INFAP_EPSILON``: keeps the share of relevant rows above defined at 0/0."""


def _above(flag: pl.Expr) -> pl.Expr:
    """For each row, how many rows above it have ``flag`` (as Float64)."""
    count = flag.cast(pl.Int64)
    return (count.cum_sum() - count).cast(pl.Float64)


def inferred_ap(r: Ranked, rel: float = 1) -> pl.Expr:
    """trec_eval's ``infAP`` at relevance threshold ``rel`` (module docstring).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_graded.ranking import rank_in_group
    >>> df = pl.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
    ...                    "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1]})
    >>> r = rank_in_group()
    >>> round(df.group_by("query").agg(inferred_ap(r)).item(0, 1), 6)
    0.583336
    """
    refuse_averaged_ties(r, "infap")
    relevant = r.hits(rel)
    non_relevant = ((r.rel >= 0) & (r.rel < rel)).fill_null(False)
    pooled = (r.rel < 0).fill_null(False)
    rel_above, nonrel_above = _above(relevant), _above(non_relevant)
    above = r.position.cast(pl.Float64) - 1.0  # trec_eval's j, the 0-based index
    here = above + 1.0
    judged_above = rel_above + nonrel_above + _above(pooled)
    share = (rel_above + INFAP_EPSILON) / (rel_above + nonrel_above + 2 * INFAP_EPSILON)
    later = 1.0 / here + (above / here) * (judged_above / above) * share
    term = pl.when(r.position == 1).then(pl.lit(1.0)).otherwise(later)
    total = pl.when(relevant & r.in_list(None)).then(term).sum()
    return safe_ratio(total, r.n_relevant(rel))


@register(
    Declaration(
        name="infap",
        averages_ties=False,
        summary="inferred AP (Yilmaz and Aslam 2006): AP on a sampled pool, negative labels pooled",
        function="infap",
        instance="InfAP",
        order=140,
        example="infap",
        example_value=0.583336,
        cutoff="none",
        trec_eval={"infAP": "infap{r}"},
        ir_measures={"infAP": "infap"},
    )
)
@dataclasses.dataclass(frozen=True, kw_only=True)
class InferredAveragePrecision(ThresholdMeasure):
    """infAP at relevance threshold ``rel`` (module docstring; trec_eval ``infAP``).

    Examples
    --------
    >>> import polars_graded as pg
    >>> str(pg.InfAP(rel=2))
    'infap(rel=2)'
    """

    def expr(self, r: Ranked) -> pl.Expr:
        return inferred_ap(r, self.rel)
