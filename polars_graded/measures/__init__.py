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
from polars_graded.measures.precision import AveragePrecision, MuAveragePrecision
from polars_graded.measures.sets import Precision, Recall, ReciprocalRank, RPrecision

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

MEASURES: dict[str, Measure] = {
    m.name: m for m in (MuAP, AP, NDCG, NDCNG, DCG, P, R, RPrec, RR, MeanNDCG, MeanNDCNG)
}
"""Every measure by canonical name, with default parameters."""

from polars_graded.measures.grammar import as_measures, parse_measure  # noqa: E402

__all__ = [
    "AP",
    "DCG",
    "MEASURES",
    "NDCG",
    "NDCNG",
    "RR",
    "AveragePrecision",
    "DiscountedCumulativeGain",
    "MeanNDCG",
    "MeanNDCNG",
    "MeanNormalizedDCG",
    "MeanNormalizedDCNG",
    "Measure",
    "MuAP",
    "MuAveragePrecision",
    "NormalizedDCG",
    "NormalizedDCNG",
    "P",
    "Precision",
    "R",
    "RPrec",
    "RPrecision",
    "Recall",
    "ReciprocalRank",
    "as_measures",
    "parse_measure",
]
