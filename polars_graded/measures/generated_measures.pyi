# Generated from the measure registry by `python -m polars_graded.measures --write`:
# do not edit (tests/test_measures_registry.py fails when this file is stale).
"""The ready-made measure instances and their classes, made public at import."""

from polars_graded.measures.ap import AveragePrecision
from polars_graded.measures.bpref import BinaryPreference
from polars_graded.measures.err import ExpectedReciprocalRank
from polars_graded.measures.judged import JudgedShare
from polars_graded.measures.mu_ap import MuAveragePrecision
from polars_graded.measures.ndcg import DiscountedCumulativeGain, MeanNormalizedDCG, NormalizedDCG
from polars_graded.measures.ndcng import MeanNormalizedDCNG, NormalizedDCNG
from polars_graded.measures.precision import Precision, Recall, RPrecision
from polars_graded.measures.rank import ReciprocalRank, SuccessAtK
from polars_graded.measures.rbp import RankBiasedPrecision, RankBiasedPrecisionResidual

__all__ = [
    "AP",
    "DCG",
    "ERR",
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
]

MuAP: MuAveragePrecision
AP: AveragePrecision
NDCG: NormalizedDCG
NDCNG: NormalizedDCNG
DCG: DiscountedCumulativeGain
P: Precision
R: Recall
RPrec: RPrecision
RR: ReciprocalRank
MeanNDCG: MeanNormalizedDCG
MeanNDCNG: MeanNormalizedDCNG
ERR: ExpectedReciprocalRank
RBP: RankBiasedPrecision
RBPResidual: RankBiasedPrecisionResidual
Bpref: BinaryPreference
Judged: JudgedShare
Success: SuccessAtK
