"""DCG, NDCG and the mean of NDCG over cutoffs.

``DCG@k = sum_{p <= k} gain(rel(p)) / log_b(p + 1)``; ``NDCG@k = DCG@k / IDCG@k``, IDCG the
DCG of every judged row of the query best first (0 when IDCG is 0); mean NDCG is the mean of
NDCG@1..NDCG@N over the N retrieved rows (the paper's Table 2 "mean"). trec_eval's ``ndcg``
is ``ndcg(gain=linear)``; its ``ndcg.l=g`` gains are ``ndcg(gain={l:g})``.
``ndcg(gain=binary)`` gives every relevant row (label >= 1) gain 1, as recommender libraries
do (RecBole, Spark MLlib's ``ndcgAt`` without relevance values). The gains and DCG
are computed in :mod:`polars_graded.measures.kernels.gains`, which NDCNG shares.
"""

from __future__ import annotations

import dataclasses

import polars as pl

from polars_graded.errors import MeasureParameterError
from polars_graded.measures.base import Declaration, check_number, param
from polars_graded.measures.kernels.gains import (
    GainMeasure,
    dcg,
    gain_function,
    is_monotone,
    mean_ndcg_over_cutoffs,
    ndcg,
    ratio_gain_function,
)
from polars_graded.measures.registry import register
from polars_graded.ranking import Ranked


def check_log_base(name: str, value: object, *, measure: str) -> float:
    """A logarithm base: a finite number > 1.

    Examples
    --------
    >>> check_log_base("base", 10, measure="dcg")
    10.0
    """
    base = check_number(name, value, measure=measure)
    if base <= 1:
        msg = f"{measure}: the log base must be > 1, got {value!r}"
        raise MeasureParameterError(msg)
    return base


@register(
    Declaration(
        name="ndcg",
        summary="normalised DCG; gain exp (2^rel - 1, the paper's), linear, binary or a map",
        function="ndcg",
        instance="NDCG",
        order=3,
        example="ndcg@2",
        example_value=0.521296,
        trec_eval={"ndcg": "ndcg(gain=linear)", "ndcg_cut": "ndcg(gain=linear)@{k}"},
        ir_measures={
            "nDCG": "ndcg(gain=linear)[@{k}]",
            "nDCG(dcg='exp-log2')": "ndcg[@{k}]",
            "nDCG(gains={gains})": "ndcg(gain={gains})[@{k}]",
        },
    )
)
@dataclasses.dataclass(frozen=True, kw_only=True)
class NormalizedDCG(GainMeasure):
    """NDCG@k: ``DCG@k / IDCG@k``, 0 when the ideal DCG is 0 (module docstring).

    Exponential gains are scaled by a power of two on queries whose top label is above
    1000 (:func:`~polars_graded.measures.kernels.gains.relative_exp_gain`): the ratio keeps its
    bits.

    Examples
    --------
    >>> import polars_graded as pg
    >>> str(pg.NDCG(gain="linear") @ 10)
    'ndcg(gain=linear)@10'
    """

    def expr(self, r: Ranked) -> pl.Expr:
        return ndcg(r, ratio_gain_function(self.gain, r), self.k, monotone=is_monotone(self.gain))

    def depth(self) -> int | None:
        # A custom gain may reorder the ideal list: it needs every row to sort.
        return self.k if is_monotone(self.gain) else None


@register(
    Declaration(
        name="dcg",
        summary="discounted cumulative gain with log base (default 2)",
        function="dcg",
        instance="DCG",
        order=5,
        example="dcg(base=10)@2",
        example_value=6.28771,
    )
)
@dataclasses.dataclass(frozen=True, kw_only=True)
class DiscountedCumulativeGain(GainMeasure):
    """DCG@k: ``sum_{p <= k} gain(rel(p)) / log_base(p + 1)``.

    Not a ratio, so exponential gains cannot be rescaled: labels of 1024 and more overflow.

    Examples
    --------
    >>> import polars_graded as pg
    >>> str(pg.DCG(base=10) @ 5)
    'dcg(base=10)@5'
    """

    base: float = param(
        2,
        "Base of the logarithm in the discount ``1 / log_base(p + 1)``, > 1.",
        check=check_log_base,
        examples=("10",),
    )

    def expr(self, r: Ranked) -> pl.Expr:
        return dcg(r, gain_function(self.gain), self.k, self.base)

    def nonfinite_cause(self) -> str:
        if self.gain == "exp":
            return (
                "exponential gain 2^label overflows float64 for labels >= 1024 (DCG is not a "
                "ratio, so it cannot be rescaled); use ndcg, gain=linear or a gain mapping"
            )
        return super().nonfinite_cause()


@register(
    Declaration(
        name="mean_ndcg",
        summary="mean of NDCG@1..NDCG@N over the N retrieved rows (the paper's Table 2 'mean')",
        function="mean_ndcg",
        instance="MeanNDCG",
        order=10,
        example="mean_ndcg",
        example_value=0.393433,
        cutoff="none",
    )
)
@dataclasses.dataclass(frozen=True, kw_only=True)
class MeanNormalizedDCG(GainMeasure):
    """Mean NDCG: ``(1/N) sum_{k=1..N} NDCG@k``, N the retrieved rows; 0 when N is 0.

    Examples
    --------
    >>> import polars_graded as pg
    >>> str(pg.MeanNDCG(gain="linear"))
    'mean_ndcg(gain=linear)'
    """

    def expr(self, r: Ranked) -> pl.Expr:
        gain = ratio_gain_function(self.gain, r)
        return mean_ndcg_over_cutoffs(r, gain, monotone=is_monotone(self.gain))
