"""trec_eval's experimental NDCG averages ``ndcg_rel`` and ``Rndcg`` (Buckley, 2008).

Both read trec_eval's gains (:mod:`~polars_graded.measures.kernels.trec_gains`; gain = label by
default) and ``NDCG@c = DCG@c / IDCG@c``, the ideal DCG over the P rows of positive ideal
gain (``i_1 >= i_2 >= ...``), N the rows retrieved.

- ``ndcg_rel``: NDCG averaged over the P rows of positive gain: ``NDCG@p`` at each
  retrieved one (position p), and ``DCG@N / IDCG`` for each one not retrieved; 0 when the
  sum is 0.
- ``Rndcg``: NDCG averaged over the "R levels", the cutoffs ``c <= P`` where the ideal gain
  changes (``i_c != i_{c+1}``, ``i_{P+1} = 0``), plus ``DCG@N / IDCG`` when ``N > P + 1``
  (as trec_eval, which reads no gain beyond ``P + 1`` otherwise); 0 when the query has no
  row with a label >= ``rel``, trec_eval's ``-l``.

Under ``ties="average"`` both take their expectation over the orders of tied rows. Rndcg
is linear in the gains at each position (tie means). For ndcg_rel, ``NDCG@p`` at a row of
positive gain needs ``E[1(g_p > 0) g_q]``: for ``q`` in an earlier group
``(c/s) mean(g)``; for ``q`` an earlier row of the same group (s rows, c of positive gain,
gains summing to ``G``, the positive ones to ``G+``) ``(c G - G+) / (s (s - 1))``; for
``q = p``, ``G+ / s``. A mapping with a negative gain makes trec_eval's "0 when the sum is
<= 0" non-linear: ndcg_rel refuses ``ties="average"`` then.
"""

from __future__ import annotations

import dataclasses
from typing import cast

import polars as pl

from polars_graded.measures.base import Declaration, ThresholdMeasure, safe_ratio
from polars_graded.measures.kernels.gains import GainSpec, discount
from polars_graded.measures.kernels.trec_gains import (
    TrecGainMeasure,
    cumulative_dcg,
    ideal_gain_list,
    retrieved_gains,
)
from polars_graded.measures.kernels.unaveraged import refuse_averaged_ties
from polars_graded.measures.registry import register
from polars_graded.ranking import Ranked


def ndcg_over_relevant(r: Ranked, gain: GainSpec = "linear") -> pl.Expr:
    """trec_eval's ``ndcg_rel`` (module docstring).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_graded.ranking import rank_in_group
    >>> df = pl.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
    ...                    "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1]})
    >>> r = rank_in_group()
    >>> round(df.group_by("query").agg(ndcg_over_relevant(r)).item(0, 1), 6)
    0.574648
    """
    gains = retrieved_gains(r, gain)
    ideal = ideal_gain_list(r, gain)
    dcg, idcg = cumulative_dcg(r, gains), cumulative_dcg(r, ideal)
    positive = gains > 0
    at_rows: pl.Expr = pl.when(positive).then(safe_ratio(dcg, idcg))
    if r.averages_ties:
        if isinstance(gain, tuple) and any(g < 0 for _, g in gain):
            refuse_averaged_ties(r, "ndcg_rel with a negative gain")
        expected = safe_ratio(_expected_dcg_at_positive_row(r, gains), idcg)
        at_rows = pl.when(r.tie_size() == 1).then(at_rows).otherwise(expected)
        dcg = cumulative_dcg(r, r.tie_mean(gains))
    n_ideal = (ideal > 0).sum()
    unretrieved = (n_ideal - positive.sum()).cast(pl.Float64)
    total = at_rows.sum() + unretrieved * safe_ratio(dcg.last(), idcg.last())
    return pl.when(total > 0).then(total / n_ideal.cast(pl.Float64)).otherwise(pl.lit(0.0))


def _group_sum(r: Ranked, values: pl.Expr) -> pl.Expr:
    """The sum of ``values`` over each row's tie group."""
    through = values.cum_sum()
    end, start = cast(pl.Expr, r.tie_end), cast(pl.Expr, r.tie_start)  # set: ties averaged
    return through.gather(end - 1) - (through - values).gather(start - 1)


def _expected_dcg_at_positive_row(r: Ranked, gains: pl.Expr) -> pl.Expr:
    """``E[1(g_p > 0) DCG@p]`` at each position p of a tie group (module docstring)."""
    size = r.tie_size().cast(pl.Float64)
    positive = (gains > 0).cast(pl.Float64)
    share = _group_sum(r, positive) / size
    positive_gain = _group_sum(r, positive * gains)
    pairs = pl.when(size > 1).then(
        (_group_sum(r, positive) * _group_sum(r, gains) - positive_gain) / (size * (size - 1))
    )
    weight = 1.0 / discount(r)
    weights = weight.cum_sum()
    start = cast(pl.Expr, r.tie_start) - 1  # set: ties averaged
    mean_dcg = cumulative_dcg(r, r.tie_mean(gains))
    earlier = pl.when(start > 0).then(mean_dcg.gather((start - 1).clip(lower_bound=0)))
    earlier_weights = pl.when(start > 0).then(weights.gather((start - 1).clip(lower_bound=0)))
    within = (weights - weight) - earlier_weights.fill_null(0.0)
    return (
        share * earlier.fill_null(0.0)
        + pairs.fill_null(0.0) * within
        + positive_gain / size * weight
    )


def ndcg_at_r_levels(r: Ranked, gain: GainSpec = "linear", rel: float = 1) -> pl.Expr:
    """trec_eval's ``Rndcg`` (module docstring).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_graded.ranking import rank_in_group
    >>> df = pl.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
    ...                    "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1]})
    >>> r = rank_in_group()
    >>> round(df.group_by("query").agg(ndcg_at_r_levels(r)).item(0, 1), 6)
    0.239812
    """
    gains = r.tie_mean(retrieved_gains(r, gain))
    ideal = ideal_gain_list(r, gain)
    dcg, idcg = cumulative_dcg(r, gains), cumulative_dcg(r, ideal)
    level_ends = (ideal > 0) & (ideal != ideal.shift(-1, fill_value=0.0))
    n_ideal = (ideal > 0).sum()
    tail = r.n_retrieved.first() > n_ideal + 1
    total = pl.when(level_ends).then(dcg / idcg).sum()
    total = total + pl.when(tail).then(safe_ratio(dcg.last(), idcg.last())).otherwise(0.0)
    count = level_ends.sum() + tail.cast(pl.UInt32)
    judged_relevant = r.n_relevant(rel) > 0
    return pl.when(judged_relevant).then(safe_ratio(total, count)).otherwise(pl.lit(0.0))


@register(
    Declaration(
        name="ndcg_rel",
        summary="trec_eval's ndcg_rel: NDCG averaged over the rows of positive gain",
        function="ndcg_rel",
        instance="NDCGRel",
        order=143,
        example="ndcg_rel",
        example_value=0.574648,
        cutoff="none",
        trec_eval={"ndcg_rel": "ndcg_rel"},
    )
)
@dataclasses.dataclass(frozen=True, kw_only=True)
class NDCGOverRelevant(TrecGainMeasure):
    """trec_eval's ``ndcg_rel`` with gains ``gain`` (module docstring).

    Examples
    --------
    >>> import polars_graded as pg
    >>> str(pg.NDCGRel(gain={1: 3}))
    'ndcg_rel(gain={1:3})'
    """

    def expr(self, r: Ranked) -> pl.Expr:
        return ndcg_over_relevant(r, self.gain)


@register(
    Declaration(
        name="rndcg",
        summary="trec_eval's Rndcg: NDCG averaged at the cutoffs where the ideal gain changes",
        function="rndcg",
        instance="RNDCG",
        order=144,
        example="rndcg",
        example_value=0.239812,
        cutoff="none",
        trec_eval={"Rndcg": "rndcg{r}"},
    )
)
@dataclasses.dataclass(frozen=True, kw_only=True)
class NDCGAtRLevels(TrecGainMeasure, ThresholdMeasure):
    """trec_eval's ``Rndcg`` with gains ``gain``; 0 when no row is relevant at ``rel``
    (trec_eval's ``-l``), the only use of the threshold (module docstring).

    Examples
    --------
    >>> import polars_graded as pg
    >>> str(pg.RNDCG(rel=2))
    'rndcg(rel=2)'
    """

    def expr(self, r: Ranked) -> pl.Expr:
        return ndcg_at_r_levels(r, self.gain, self.rel)
