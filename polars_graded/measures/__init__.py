"""Measures as value objects (``AP(rel=2) @ 10``) and the name grammar that reads them.

The classes have descriptive names; the ready-made instances have the short names that
ir_measures users know (``AP``, ``NDCG``, ``P``, ``R``, ...) and are re-exported by
:mod:`polars_graded`.
"""

from polars_graded.measures.base import Measure
from polars_graded.measures.gain import (
    DiscountedCumulativeGain,
    MeanNormalizedDCG,
    MeanNormalizedDCNG,
    NormalizedDCG,
    NormalizedDCNG,
)
from polars_graded.measures.judgments import BinaryPreference, JudgedShare
from polars_graded.measures.precision import AveragePrecision, MuAveragePrecision
from polars_graded.measures.sets import (
    Precision,
    Recall,
    ReciprocalRank,
    RPrecision,
    SuccessAtK,
)
from polars_graded.measures.user_models import (
    ExpectedReciprocalRank,
    RankBiasedPrecision,
    RankBiasedPrecisionResidual,
)

MuAP = MuAveragePrecision()
AP = AveragePrecision()
NDCG = NormalizedDCG()
NDCNG = NormalizedDCNG()
DCG = DiscountedCumulativeGain()
P = Precision()
R = Recall()
RPrec = RPrecision()
RR = ReciprocalRank()
MeanNDCG = MeanNormalizedDCG()
MeanNDCNG = MeanNormalizedDCNG()
ERR = ExpectedReciprocalRank()
RBP = RankBiasedPrecision()
RBPResidual = RankBiasedPrecisionResidual()
Bpref = BinaryPreference()
Judged = JudgedShare()
Success = SuccessAtK()

MEASURES: dict[str, Measure] = {
    m.name: m
    for m in (
        MuAP, AP, NDCG, NDCNG, DCG, P, R, RPrec, RR, MeanNDCG, MeanNDCNG,
        ERR, RBP, RBPResidual, Bpref, Judged, Success,
    )
}  # fmt: skip
"""Every measure by canonical name, with default parameters."""

from polars_graded.measures.grammar import (  # noqa: E402
    MeasureSpec,
    as_measures,
    as_named_measures,
    measure_name,
    parse_measure,
)

__all__ = [
    "AP",
    "DCG",
    "ERR",
    "MEASURES",
    "NDCG",
    "NDCNG",
    "RBP",
    "RR",
    "AveragePrecision",
    "BinaryPreference",
    "Bpref",
    "DiscountedCumulativeGain",
    "ExpectedReciprocalRank",
    "Judged",
    "JudgedShare",
    "MeanNDCG",
    "MeanNDCNG",
    "MeanNormalizedDCG",
    "MeanNormalizedDCNG",
    "Measure",
    "MeasureSpec",
    "MuAP",
    "MuAveragePrecision",
    "NormalizedDCG",
    "NormalizedDCNG",
    "P",
    "Precision",
    "R",
    "RBPResidual",
    "RPrec",
    "RPrecision",
    "RankBiasedPrecision",
    "RankBiasedPrecisionResidual",
    "Recall",
    "ReciprocalRank",
    "Success",
    "SuccessAtK",
    "as_measures",
    "as_named_measures",
    "measure_name",
    "parse_measure",
]
