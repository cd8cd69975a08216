# Generated from the measure registry by `python -m polars_graded.measures --write`:
# do not edit (tests/test_measures_registry.py fails when this file is stale).
"""The ready-made measure instances and their classes, made public at import."""

from polars_graded.measures.ap import AveragePrecision
from polars_graded.measures.bpref import BinaryPreference
from polars_graded.measures.counts import (
    NonRelevantJudgedRetrievedCount,
    RelevantCount,
    RelevantRetrievedCount,
    RetrievedCount,
)
from polars_graded.measures.err import ExpectedReciprocalRank
from polars_graded.measures.graded_ap import GradedAveragePrecision
from polars_graded.measures.infap import InferredAveragePrecision
from polars_graded.measures.interpolated import InterpolatedPrecision, MeanInterpolatedPrecision
from polars_graded.measures.judged import JudgedShare
from polars_graded.measures.mu_ap import MuAveragePrecision
from polars_graded.measures.ndcg import DiscountedCumulativeGain, MeanNormalizedDCG, NormalizedDCG
from polars_graded.measures.ndcg_rel import NDCGAtRLevels, NDCGOverRelevant
from polars_graded.measures.ndcng import MeanNormalizedDCNG, NormalizedDCNG
from polars_graded.measures.precision import (
    HitsAtK,
    Precision,
    Recall,
    RelativePrecision,
    RPrecision,
)
from polars_graded.measures.q_measure import QMeasure
from polars_graded.measures.rbp import (
    GradedRankBiasedPrecision,
    RankBiasedPrecision,
    RankBiasedPrecisionResidual,
    TrecRankBiasedPrecisionResidual,
)
from polars_graded.measures.rr import ReciprocalRank, SuccessAtK
from polars_graded.measures.set_utility import SetUtility
from polars_graded.measures.sets import SetAveragePrecision, SetFMeasure
from polars_graded.measures.trec_g import BinaryG, NormalizedGain
from polars_graded.measures.unjudged import UnjudgedShare

__all__ = [
    "AP",
    "DCG",
    "ERR",
    "GAP",
    "NDCG",
    "NDCNG",
    "RBP",
    "RNDCG",
    "RR",
    "AveragePrecision",
    "BinG",
    "BinaryG",
    "BinaryPreference",
    "Bpref",
    "DiscountedCumulativeGain",
    "ExpectedReciprocalRank",
    "G",
    "GradedAveragePrecision",
    "GradedRBP",
    "GradedRankBiasedPrecision",
    "Hits",
    "HitsAtK",
    "IPrec",
    "IPrecMean",
    "InfAP",
    "InferredAveragePrecision",
    "InterpolatedPrecision",
    "Judged",
    "JudgedShare",
    "MeanInterpolatedPrecision",
    "MeanNDCG",
    "MeanNDCNG",
    "MeanNormalizedDCG",
    "MeanNormalizedDCNG",
    "MuAP",
    "MuAveragePrecision",
    "NDCGAtRLevels",
    "NDCGOverRelevant",
    "NDCGRel",
    "NonRelevantJudgedRetrievedCount",
    "NormalizedDCG",
    "NormalizedDCNG",
    "NormalizedGain",
    "NumNonRelJudgedRet",
    "NumRel",
    "NumRelRet",
    "NumRet",
    "P",
    "Precision",
    "Q",
    "QMeasure",
    "R",
    "RBPResidual",
    "RPrec",
    "RPrecision",
    "RankBiasedPrecision",
    "RankBiasedPrecisionResidual",
    "Recall",
    "ReciprocalRank",
    "RelP",
    "RelativePrecision",
    "RelevantCount",
    "RelevantRetrievedCount",
    "RetrievedCount",
    "SetAP",
    "SetAveragePrecision",
    "SetF",
    "SetFMeasure",
    "SetUtility",
    "Success",
    "SuccessAtK",
    "TrecRBPResidual",
    "TrecRankBiasedPrecisionResidual",
    "Unjudged",
    "UnjudgedShare",
    "Utility",
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
Hits: HitsAtK
NumRet: RetrievedCount
NumRel: RelevantCount
NumRelRet: RelevantRetrievedCount
NumNonRelJudgedRet: NonRelevantJudgedRetrievedCount
RelP: RelativePrecision
SetF: SetFMeasure
SetAP: SetAveragePrecision
IPrec: InterpolatedPrecision
IPrecMean: MeanInterpolatedPrecision
Utility: SetUtility
Unjudged: UnjudgedShare
InfAP: InferredAveragePrecision
G: NormalizedGain
BinG: BinaryG
NDCGRel: NDCGOverRelevant
RNDCG: NDCGAtRLevels
GradedRBP: GradedRankBiasedPrecision
TrecRBPResidual: TrecRankBiasedPrecisionResidual
GAP: GradedAveragePrecision
Q: QMeasure
