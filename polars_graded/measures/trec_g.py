"""trec_eval's experimental gain measures ``G`` and ``binG`` (Buckley, 2008).

``G``: the row at position ``p`` with gain ``g_p`` contributes
``g_p / log2(2 + C_p - S_p)``, ``S_p`` the gain retrieved up to ``p`` and ``C_p`` the sum
of ``max(i_q, 1)`` over ``q <= p``, ``i_q`` the ideal gains (gains of
:mod:`~polars_graded.measures.kernels.trec_gains`); G is the sum divided by the total ideal gain
(0 when that is 0). A row that gains nearly as much as the ideal row there is rewarded.

``binG``: binary, at relevance threshold ``rel``: the mean over the R relevant rows of
``1 / log2(2 + n_p)``, ``n_p`` the rows above a retrieved relevant row that are not
relevant (judged or not); unretrieved relevant rows add 0.

Under ``ties="average"`` binG takes its expectation (the non-relevant rows of a tie group
above one of its relevant rows are uniform on ``0..a``, as for bpref); G, a logarithm of
sums, refuses it.
"""

from __future__ import annotations

import dataclasses

import polars as pl

from polars_graded.measures.base import Declaration, ThresholdMeasure, safe_ratio
from polars_graded.measures.kernels.gains import GainSpec
from polars_graded.measures.kernels.tie_average import group_hits
from polars_graded.measures.kernels.trec_gains import (
    TrecGainMeasure,
    ideal_gain_list,
    retrieved_gains,
)
from polars_graded.measures.kernels.unaveraged import refuse_averaged_ties
from polars_graded.measures.registry import register
from polars_graded.ranking import Ranked


def normalized_gain(r: Ranked, gain: GainSpec = "linear") -> pl.Expr:
    """trec_eval's ``G`` (module docstring).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_graded.ranking import rank_in_group
    >>> df = pl.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
    ...                    "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1]})
    >>> r = rank_in_group()
    >>> round(df.group_by("query").agg(normalized_gain(r)).item(0, 1), 6)
    0.63093
    """
    refuse_averaged_ties(r, "g")
    gains = retrieved_gains(r, gain)
    ideal = ideal_gain_list(r, gain)
    cost = pl.max_horizontal(ideal, pl.lit(1.0)).cum_sum()
    term = gains / ((2.0 + cost) - gains.cum_sum()).log(2)
    total = pl.when(gains != 0).then(term).sum()
    return safe_ratio(total, ideal.sum())


def binary_g(r: Ranked, rel: float = 1) -> pl.Expr:
    """trec_eval's ``binG`` at relevance threshold ``rel`` (module docstring).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_graded.ranking import rank_in_group
    >>> df = pl.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
    ...                    "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1]})
    >>> r = rank_in_group()
    >>> round(df.group_by("query").agg(binary_g(r)).item(0, 1), 6)
    0.63093
    """
    relevant = r.hits(rel) & r.in_list(None)
    hits = relevant.cast(pl.Int64)
    not_above = (r.position - hits.cum_sum()).cast(pl.Float64)  # n_p
    term = 1.0 / (2.0 + not_above).log(2)
    if r.averages_ties:
        term = pl.when(r.tie_size() == 1).then(term).otherwise(_averaged_term(r, relevant))
    return safe_ratio(pl.when(relevant).then(term).sum(), r.n_relevant(rel))


def _averaged_term(r: Ranked, relevant: pl.Expr) -> pl.Expr:
    """E[1 / log2(2 + n_p)] for a relevant row of a tie group: ``n_p = b + X``, ``b`` the
    non-relevant rows of earlier groups, X uniform on ``0..a``, ``a`` the group's own;
    ``(F(b + a + 1) - F(b)) / (a + 1)`` with ``F(m) = sum_{q <= m} 1 / log2(1 + q)``."""
    before, within = group_hits(r, ~relevant & r.in_list(None))
    cumulative = (1.0 / (r.position + 1).cast(pl.Float64).log(2)).cum_sum()

    last = r.position.max() - 1

    def upto(m: pl.Expr) -> pl.Expr:
        # Clipped: the rows this is not for (not relevant) may point past the end.
        index = (m - 1).clip(lower_bound=0, upper_bound=last)
        return pl.when(m > 0).then(cumulative.gather(index)).otherwise(0.0)

    return (upto(before + within + 1) - upto(before)) / (within + 1)


@register(
    Declaration(
        name="g",
        averages_ties=False,
        summary="trec_eval's G: gain over log2(2 + ideal cost - gain so far), normalised",
        function="g",
        instance="G",
        order=141,
        example="g",
        example_value=0.63093,
        cutoff="none",
        trec_eval={"G": "g"},
    )
)
@dataclasses.dataclass(frozen=True, kw_only=True)
class NormalizedGain(TrecGainMeasure):
    """trec_eval's ``G`` with gains ``gain`` (module docstring).

    Examples
    --------
    >>> import polars_graded as pg
    >>> str(pg.parse_measure("g(gain={2:9})"))
    'g(gain={2:9})'
    """

    def expr(self, r: Ranked) -> pl.Expr:
        return normalized_gain(r, self.gain)


@register(
    Declaration(
        name="bin_g",
        summary="trec_eval's binG: mean over relevant rows of 1 / log2(2 + non-relevant above)",
        function="bin_g",
        instance="BinG",
        order=142,
        example="bin_g",
        example_value=0.63093,
        aliases=("bing",),
        cutoff="none",
        trec_eval={"binG": "bin_g{r}"},
    )
)
@dataclasses.dataclass(frozen=True, kw_only=True)
class BinaryG(ThresholdMeasure):
    """trec_eval's ``binG`` at relevance threshold ``rel`` (module docstring).

    Examples
    --------
    >>> import polars_graded as pg
    >>> str(pg.BinG(rel=2))
    'bin_g(rel=2)'
    """

    def expr(self, r: Ranked) -> pl.Expr:
        return binary_g(r, self.rel)
