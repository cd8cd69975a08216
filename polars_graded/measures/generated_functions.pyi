# Generated from the measure registry by `python -m polars_graded.measures --write`:
# do not edit (tests/test_measures_registry.py fails when this file is stale).
"""The expression functions, made by :mod:`polars_graded.functions` at import."""

from collections.abc import Mapping, Sequence
from typing import Unpack

import polars as pl

from polars_graded.functions import ExprOptions

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
    k: int | None = None,
    **columns: Unpack[ExprOptions],
) -> pl.Expr:
    """Average precision at threshold rel."""

def ndcg(
    *,
    gain: str | Mapping[float, float] = "exp",
    k: int | None = None,
    **columns: Unpack[ExprOptions],
) -> pl.Expr:
    """Normalised DCG; gain exp (2^rel - 1, the paper's), linear or a label -> gain map."""

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
    """1 when a relevant row is in the top k, else 0."""
