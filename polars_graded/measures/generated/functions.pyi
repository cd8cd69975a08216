# Generated from the measure registry by `python -m polars_graded.measures --write`:
# do not edit (tests/test_measures_registry.py fails when this file is stale).
"""The expression functions, made by :mod:`polars_graded.expressions` at import."""

from collections.abc import Mapping, Sequence
from typing import Unpack

import polars as pl

from polars_graded.expressions import ExprOptions

def mu_ap(
    *,
    levels: Sequence[float],
    k: int | None = None,
    **columns: Unpack[ExprOptions],
) -> pl.Expr:
    """µAP: AP averaged over every relevance threshold, weighted by level distances."""

def ap(
    *,
    rel: float = 1,
    norm: str = "R",
    k: int | None = None,
    **columns: Unpack[ExprOptions],
) -> pl.Expr:
    """Average precision at threshold rel; norm=min_rk divides by min(R, k) (Spark)."""

def ndcg(
    *,
    gain: str | Mapping[float, float] = "exp",
    k: int | None = None,
    **columns: Unpack[ExprOptions],
) -> pl.Expr:
    """Normalised DCG; gain exp (2^rel - 1, the paper's), linear, binary or a map."""

def ndcng(
    *,
    k: int | None = None,
    **columns: Unpack[ExprOptions],
) -> pl.Expr:
    """NDCG (exp gain) on labels divided by the query's top label."""

def dcg(
    *,
    gain: str | Mapping[float, float] = "exp",
    base: float = 2,
    k: int | None = None,
    **columns: Unpack[ExprOptions],
) -> pl.Expr:
    """Discounted cumulative gain with log base (default 2)."""

def precision(
    *,
    rel: float = 1,
    k: int | None = None,
    **columns: Unpack[ExprOptions],
) -> pl.Expr:
    """Precision at k (divides by k; without k, by the rows retrieved)."""

def recall(
    *,
    rel: float = 1,
    k: int | None = None,
    **columns: Unpack[ExprOptions],
) -> pl.Expr:
    """Recall at k: the share of the relevant rows found in the top k."""

def r_precision(
    *,
    rel: float = 1,
    mult: float = 1.0,
    **columns: Unpack[ExprOptions],
) -> pl.Expr:
    """R-precision: precision at R, the query's number of relevant rows."""

def rr(
    *,
    rel: float = 1,
    k: int | None = None,
    **columns: Unpack[ExprOptions],
) -> pl.Expr:
    """Reciprocal rank of the first relevant row."""

def mean_ndcg(
    *,
    gain: str | Mapping[float, float] = "exp",
    **columns: Unpack[ExprOptions],
) -> pl.Expr:
    """Mean of NDCG@1..NDCG@N over the N retrieved rows (the paper's Table 2 'mean')."""

def mean_ndcng(
    **columns: Unpack[ExprOptions],
) -> pl.Expr:
    """Mean of NDCNG@1..NDCNG@N over the N retrieved rows (the paper's 'mean NDCNG')."""

def err(
    *,
    max_rel: float = 4,
    k: int | None = None,
    **columns: Unpack[ExprOptions],
) -> pl.Expr:
    """Expected reciprocal rank (Chapelle et al. 2009); equals TREC's gdeval."""

def rbp(
    *,
    rel: float = 1,
    p: float = 0.8,
    k: int | None = None,
    **columns: Unpack[ExprOptions],
) -> pl.Expr:
    """Rank-biased precision (Moffat and Zobel 2008), persistence p."""

def rbp_residual(
    *,
    p: float = 0.8,
    k: int | None = None,
    **columns: Unpack[ExprOptions],
) -> pl.Expr:
    """RBP's residual: the weight of the unjudged rows evaluated plus p^depth."""

def bpref(
    *,
    rel: float = 1,
    **columns: Unpack[ExprOptions],
) -> pl.Expr:
    """How rarely judged non-relevant rows precede relevant ones (unjudged skipped)."""

def judged(
    *,
    k: int | None = None,
    **columns: Unpack[ExprOptions],
) -> pl.Expr:
    """Share of the top min(k, N) retrieved rows that are judged."""

def success(
    *,
    rel: float = 1,
    k: int | None = None,
    **columns: Unpack[ExprOptions],
) -> pl.Expr:
    """1 when a relevant row is in the top k, else 0 (hit rate; hits@k is a count)."""

def hits(
    *,
    rel: float = 1,
    k: int | None = None,
    **columns: Unpack[ExprOptions],
) -> pl.Expr:
    """Relevant rows in the top k, a number (ranx's hits; k * P@k); 0/1: hit_rate."""

def num_ret(
    **columns: Unpack[ExprOptions],
) -> pl.Expr:
    """Rows retrieved (a count)."""

def num_rel(
    *,
    rel: float = 1,
    **columns: Unpack[ExprOptions],
) -> pl.Expr:
    """Relevant rows, retrieved or not (a count)."""

def num_rel_ret(
    *,
    rel: float = 1,
    **columns: Unpack[ExprOptions],
) -> pl.Expr:
    """Relevant rows retrieved (a count)."""

def num_nonrel_judged_ret(
    *,
    rel: float = 1,
    **columns: Unpack[ExprOptions],
) -> pl.Expr:
    """Retrieved rows judged non-relevant, 0 <= label < rel (a count)."""

def relative_precision(
    *,
    rel: float = 1,
    k: int | None = None,
    **columns: Unpack[ExprOptions],
) -> pl.Expr:
    """Relevant rows in the top k over min(R, k): capped recall."""

def set_f(
    *,
    rel: float = 1,
    beta: float = 1.0,
    **columns: Unpack[ExprOptions],
) -> pl.Expr:
    """F measure of the set retrieved: (1 + beta) P R / (beta P + R)."""

def set_ap(
    *,
    rel: float = 1,
    **columns: Unpack[ExprOptions],
) -> pl.Expr:
    """Precision times recall of the set retrieved (trec_eval's set_map)."""

def interpolated_precision(
    *,
    rel: float = 1,
    recall: float = 0.0,
    **columns: Unpack[ExprOptions],
) -> pl.Expr:
    """Interpolated precision at a recall point (the best precision at or past it)."""

def mean_interpolated_precision(
    *,
    rel: float = 1,
    recalls: Sequence[float] = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0),
    **columns: Unpack[ExprOptions],
) -> pl.Expr:
    """Interpolated precision averaged over recall points (default: the 11 points)."""

def utility(
    *,
    rel: float = 1,
    coefficients: Sequence[float] = (1.0, -1.0, 0.0, 0.0),
    n_docs: int = 0,
    **columns: Unpack[ExprOptions],
) -> pl.Expr:
    """Set utility: a n + b (N - n) + c (R - n) + d (D + n - N - R)."""

def unjudged(
    *,
    k: int | None = None,
    **columns: Unpack[ExprOptions],
) -> pl.Expr:
    """Share of the top k rows unjudged (null or negative label; divides by k)."""

def infap(
    *,
    rel: float = 1,
    **columns: Unpack[ExprOptions],
) -> pl.Expr:
    """Inferred AP (Yilmaz and Aslam 2006): AP on a sampled pool, negative labels pooled."""

def g(
    *,
    gain: str | Mapping[float, float] = "linear",
    **columns: Unpack[ExprOptions],
) -> pl.Expr:
    """Trec_eval's G: gain over log2(2 + ideal cost - gain so far), normalised."""

def bin_g(
    *,
    rel: float = 1,
    **columns: Unpack[ExprOptions],
) -> pl.Expr:
    """Trec_eval's binG: mean over relevant rows of 1 / log2(2 + non-relevant above)."""

def ndcg_rel(
    *,
    gain: str | Mapping[float, float] = "linear",
    **columns: Unpack[ExprOptions],
) -> pl.Expr:
    """Trec_eval's ndcg_rel: NDCG averaged over the rows of positive gain."""

def rndcg(
    *,
    rel: float = 1,
    gain: str | Mapping[float, float] = "linear",
    **columns: Unpack[ExprOptions],
) -> pl.Expr:
    """Trec_eval's Rndcg: NDCG averaged at the cutoffs where the ideal gain changes."""

def graded_rbp(
    *,
    p: float = 0.8,
    k: int | None = None,
    **columns: Unpack[ExprOptions],
) -> pl.Expr:
    """Trec_eval's graded RBP: gain label / max(1, top label), persistence p."""

def trec_rbp_residual(
    *,
    p: float = 0.8,
    **columns: Unpack[ExprOptions],
) -> pl.Expr:
    """Trec_eval's rbp_resid: RBP's residual, 0 when no retrieved row is unjudged."""

def gap(
    *,
    g: Mapping[float, float],
    k: int | None = None,
    **columns: Unpack[ExprOptions],
) -> pl.Expr:
    """Graded average precision (Robertson et al. 2010), threshold probabilities g."""

def q_measure(
    *,
    beta: float = 1,
    gain: str | Mapping[float, float] = "linear",
    k: int | None = None,
    **columns: Unpack[ExprOptions],
) -> pl.Expr:
    """Q-measure (Sakai 2004): AP blended with cumulative gain, weight beta."""
